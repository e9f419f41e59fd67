"""The HTML of an in-page question: prompt, inputs, buttons and the message line.

``lessons.book.widgets.question`` builds a ``Question``; this module writes what a notebook or the
book shows for it, with the data and script inlined (``lessons.book.widgets.widget``). Every input
carries ``data-answer``, the two buttons ``data-action``; the contract is in
``lessons/book/widgets/assets/README.md``. On paper ``question.js`` gives the question its
print form from this HTML and the embedded JSON: the prompt numbered within its chapter,
and the ``revealed`` message in an "Answers to the questions" section at the chapter's end.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .widget import data_script, widget_html


class Question(Protocol):
    """What the page reads of a question (``question.py`` builds it; this module only writes it)."""

    name: str
    prompt: str
    kind: str
    answer: Any
    tolerance: float
    choices: tuple[str, ...]
    rows: tuple[str, ...] | None
    columns: tuple[str, ...] | None

    def digits(self) -> int: ...

    def data(self) -> dict[str, Any]: ...


__all__ = ["StoredQuestion", "inline_code", "question_html", "read_questions"]

_TEXT_INPUT = (
    'type="text" autocomplete="off" autocapitalize="off" spellcheck="false" class="lq-input"'
)


def inline_code(text: str) -> str:
    """``text`` escaped for HTML, with each `` `span` `` in backticks set as ``<code>``."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def question_html(q: Question) -> str:
    """The whole question: root with its contract attributes, the form, data and script."""
    body = (
        f'<p class="lq-prompt"><span class="lq-tag">Predict, then check</span> '
        f"{inline_code(q.prompt)}</p>"
        f"{_inputs(q)}"
        '<div class="lq-actions">'
        '<button type="button" class="lq-button" data-action="check">Check</button>'
        '<button type="button" class="lq-button" data-action="reveal">Show answer</button>'
        "</div>"
        '<p class="lq-feedback" data-feedback="" role="status" aria-live="polite"></p>'
        '<p class="lw-note" data-static-note="">This question checks answers where its script '
        "runs: in the book, in Colab, in a trusted notebook.</p>"
    )
    return widget_html(
        {
            "class": "lw lq",
            "data-question": q.name,
            "data-kind": q.kind,
            "data-verdict": "unanswered",
        },
        body,
        q.data(),
        data_attribute=DATA_ATTRIBUTE,
        styles=("core.css", "question.css"),
        digits=q.digits(),
        script="question.js",
        label="Question",
    )


def _inputs(q: Question) -> str:
    """The inputs the reader fills, each with ``data-answer`` and a label."""
    if q.kind == "number":
        return (
            '<p class="lq-field"><label>Your answer '
            f'<input {_TEXT_INPUT} inputmode="decimal" data-answer=""></label> '
            f'<span class="lw-note">{_within(q)}</span></p>'
        )
    if q.kind == "shape":
        return (
            '<p class="lq-field"><label>Shape '
            f'<input {_TEXT_INPUT} data-answer="" size="18"></label> '
            '<span class="lw-note">like [2, 3] or [n, d_k]</span></p>'
        )
    if q.kind == "choice":
        options = "".join(
            '<label class="lq-choice">'
            f'<input type="radio" name="{html.escape(q.name)}" value="{i}" data-answer="{i}"> '
            f"{inline_code(choice)}</label>"
            for i, choice in enumerate(q.choices)
        )
        return (
            '<fieldset class="lq-choices"><legend class="lw-hidden">Choose one answer'
            f"</legend>{options}</fieldset>"
        )
    return _grid(q)


def _grid(q: Question) -> str:
    """A table of inputs shaped like the answer, with row and column labels when given."""
    n_rows, n_cols = np.atleast_2d(q.answer).shape
    vector = np.ndim(q.answer) == 1
    header = ""
    if q.columns:
        corner = '<td class="lq-corner"></td>' if q.rows else ""
        header = (
            f"<thead><tr>{corner}"
            + "".join(f'<th scope="col">{html.escape(c)}</th>' for c in q.columns)
            + "</tr></thead>"
        )
    body = []
    for i in range(n_rows):
        cells = []
        for j in range(n_cols):
            where = (
                f"entry {j + 1}"
                + (f" ({q.columns[j]})" if q.columns else "")
                + " of "
                + str(n_cols)
                if vector
                else f"row {(q.rows or range(1, n_rows + 1))[i]}, column "
                f"{(q.columns or range(1, n_cols + 1))[j]}"
            )
            cells.append(
                f'<td><input {_TEXT_INPUT} inputmode="decimal" size="6" '
                f'data-answer="{i},{j}" aria-label="{html.escape(where, quote=True)}"></td>'
            )
        head = f'<th scope="row">{html.escape(q.rows[i])}</th>' if q.rows else ""
        body.append(f"<tr>{head}{''.join(cells)}</tr>")
    shape = f"[{n_cols}]" if vector else f"[{n_rows}, {n_cols}]"
    return (
        '<div class="lw-scroll"><table class="lq-grid">'
        f"<caption>Your answer, shape {shape}, each entry within "
        f"±{_plain(q.tolerance)}</caption>"
        f"{header}<tbody>{''.join(body)}</tbody></table></div>"
    )


def _within(q: Question) -> str:
    """The note beside a number's input: how close counts."""
    whole = float(q.answer).is_integer() and q.tolerance < 0.5
    return "a whole number" if whole else f"within ±{_plain(q.tolerance)}"


def _plain(x: float) -> str:
    """A tolerance as short text: ``0.005``, ``0.5``, ``1``."""
    return f"{x:g}"


DATA_ATTRIBUTE = "data-question-data"
_ROOT = re.compile(r'<div[^>]* data-question="')
_PROMPT = re.compile(r'<p class="lq-prompt">(.*?)</p>', re.S)
_TAG = re.compile(r'<span class="lq-tag">.*?</span>\s*', re.S)
_CHOICE = re.compile(r'<label class="lq-choice">(.*?)</label>', re.S)


@dataclass(frozen=True)
class StoredQuestion:
    """A question read back from the HTML ``question_html`` wrote (a stored output)."""

    prompt: str  # the prompt's HTML, without its "Predict, then check" tag
    choices: tuple[str, ...]  # each choice's label HTML, without its input
    data: dict[str, Any]  # the embedded JSON: kind, answer's messages, mistakes ...


def read_questions(page: str) -> list[StoredQuestion]:
    """Every question in ``page`` (an output's HTML, or a built page), in order.

    The one reader of this module's markup: the slides (a prompt without its answer) and
    the instructor's guide (prompt, answer and mistakes) read questions here.
    """
    starts = [m.start() for m in _ROOT.finditer(page)]
    found = []
    for start, end in zip(starts, [*starts[1:], len(page)], strict=True):
        part = page[start:end]
        prompt, data = _PROMPT.search(part), data_script(DATA_ATTRIBUTE).search(part)
        if prompt is None or data is None:
            raise ValueError("a question's HTML lacks its prompt or its data: rerun its cell")
        choices = tuple(re.sub(r"<input[^>]*>\s*", "", c) for c in _CHOICE.findall(part))
        found.append(
            StoredQuestion(_TAG.sub("", prompt.group(1)), choices, json.loads(data.group(2)))
        )
    return found
