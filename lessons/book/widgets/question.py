"""Predict, then check: questions that grade themselves in the page, with no kernel.

``question(prompt, answer, ...)`` returns a ``Question``; on the last line of a cell
it shows a small form that grades the reader's answer in the browser (the built book,
Jupyter, Colab), says which common mistake a wrong answer looks like, and fills in
the answer on request. Four kinds (``KINDS``):

- ``"number"``: one number, right within ``tolerance``;
- ``"array"``: a vector ``[c]`` or a small matrix ``[r, c]``, one input per entry;
- ``"shape"``: a shape such as ``[B, h, n, n]`` or ``(2, 4, 9, 9)``, read leniently
  (``lessons.book.widgets.question_inputs.parse_shape``);
- ``"choice"``: one of ``choices``.

The right answer and the named mistakes are computed in Python from the chapter's own
inputs, the mistakes by the same functions the self-checks use
(``lessons.checks.ch05.attention_weight_mistakes`` ...), so the page and
``lessons.check_*`` say the same thing. ``Question.grade`` is the grading rule in
Python; the page's script (``lessons/book/widgets/assets/question.js``) applies the same
rule, and the browser tests hold the two together. The page contract is in
``lessons/book/widgets/assets/README.md``.

In a notebook cell, before the cell that computes ``A``::

    from lessons.checks.ch05 import attention_weight_mistakes
    from lessons.book.widgets.question import mistakes_at
    mistakes = mistakes_at(attention_weight_mistakes(Q, K), 1)  # row 2 of each mistake
    lessons.question("Predict row 2 of `A`.", lessons.attention(Q, K, V)[1][1], mistakes=mistakes)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lessons._validate import finite_number
from lessons.checks.verdict import right, wrong

from .question_inputs import (
    EMPTY,
    KINDS,
    UNREADABLE,
    answer_kind,
    as_array,
    choice_index,
    labels,
    mistakes_at,
    parse_number,
    parse_shape,
    shape_entries,
    stable_name,
    valid_name,
)
from .question_page import question_html
from .widget import SIGNIFICANT_DIGITS, stable_floats, stored_digits

__all__ = ["KINDS", "TOLERANCE", "Question", "mistakes_at", "question"]


def _not_yet(message: str) -> str:
    """A wrong answer's text, ``✘ Not yet. ...``, as a self-check shows it.

    The page reports a mistake's name beside the text (``Question.grade``), as the
    question spells it, so the verdict's own name is only a placeholder here.
    """
    return wrong(message, "other").message


#: Answers within this distance of the right number count as right, unless told otherwise.
TOLERANCE = 0.005


def _stable(value: np.ndarray, tolerance: float) -> np.ndarray:
    """``value`` as the page stores it (``stored_digits``), so Python grades alike."""
    return np.asarray(stable_floats(value, stored_digits(value, tolerance)), dtype=float)


def _show(x: float, tolerance: float) -> str:
    """``x`` to a tenth of ``tolerance`` (3 decimals for 0.005), no trailing zeros, no ``-0``."""
    decimals = max(0, math.ceil(math.log10(5 / tolerance) - 1e-9))
    text = f"{x:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


@dataclass(frozen=True, eq=False, repr=False)
class Question:
    """A question ready to display (make one with ``question``).

    ``answer`` is a float (``"number"``), a float array ``[c]`` or ``[r, c]``
    (``"array"``), a tuple of shape entries (``"shape"``) or a choice index
    (``"choice"``); each mistake's value has the same form. ``name`` is the
    stable id the page carries in ``data-question``.
    """

    name: str
    prompt: str
    kind: str
    answer: Any
    mistakes: dict[str, tuple[Any, str]]
    tolerance: float
    choices: tuple[str, ...]
    explain: str
    hint: str
    rows: tuple[str, ...] | None
    columns: tuple[str, ...] | None

    def shown(self, value: Any) -> Any:
        """What the page types for ``value``: text, a grid ``[r][c]`` of text, or a choice index."""
        if self.kind == "number":
            return _show(value, self.tolerance)
        if self.kind == "array":
            return [[_show(x, self.tolerance) for x in row] for row in np.atleast_2d(value)]
        return "[" + ", ".join(value) + "]" if self.kind == "shape" else int(value)

    def answer_text(self) -> str:
        """The answer as the page writes it when revealed."""
        shown = self.shown(self.answer)
        if self.kind == "array":
            rows = ["[" + ", ".join(row) + "]" for row in shown]
            return rows[0] if np.ndim(self.answer) == 1 else "[" + ", ".join(rows) + "]"
        return self.choices[shown] if self.kind == "choice" else shown

    def messages(self) -> dict[str, str]:
        """The page's messages that do not depend on a mistake."""
        return {
            "correct": right(self.explain).message.strip(),
            "wrong": _not_yet(self.hint),
            "empty": EMPTY[self.kind],
            "unreadable": _not_yet(UNREADABLE[self.kind]),
            "revealed": f"The answer: {self.answer_text()}. {self.explain}".strip(),
        }

    def grade(self, typed: Any) -> tuple[str, str | None, str]:
        """``(verdict, mistake name or None, message)`` for what a reader typed: the page's rule.

        ``typed`` is text (``"number"``, ``"shape"``), a grid ``[r][c]`` of text
        (``"array"``) or a choice index or None (``"choice"``). The verdict is
        ``"correct"``, ``"mistake"`` (with the mistake's name), ``"wrong"``, or
        ``"unanswered"`` for an empty answer, which the page does not grade.
        """
        messages = self.messages()
        if self.kind == "choice":
            if typed is None:
                return "unanswered", None, messages["empty"]
            got: Any = int(typed)
        elif self.kind == "shape":
            if not str(typed).strip():
                return "unanswered", None, messages["empty"]
            got = parse_shape(str(typed))
            if not got:
                return "wrong", None, messages["unreadable"]
        else:
            cells = [
                [str(c) for c in row] for row in ([[typed]] if self.kind == "number" else typed)
            ]
            if any(not c.strip() for row in cells for c in row):
                return "unanswered", None, messages["empty"]
            numbers = [[parse_number(c) for c in row] for row in cells]
            if any(x is None for row in numbers for x in row):
                return "wrong", None, messages["unreadable"]
            got = np.asarray(numbers, dtype=float).reshape(np.shape(self.answer))
        if self.matches(got, self.answer):
            return "correct", None, messages["correct"]
        for name, (value, explanation) in self.mistakes.items():
            if self.matches(got, value):
                return "mistake", name, _not_yet(explanation)
        return "wrong", None, messages["wrong"]

    def matches(self, got: Any, value: Any) -> bool:
        """True when ``got`` counts as ``value``: within ``tolerance`` for numbers, equal otherwise."""
        if self.kind in ("number", "array"):
            return bool(np.max(np.abs(np.asarray(got) - value)) <= self.tolerance)
        return got == value

    def digits(self) -> int:
        """Significant digits the page stores the numbers with (``stored_digits``)."""
        if self.kind not in ("number", "array"):
            return SIGNIFICANT_DIGITS
        values = [self.answer, *(value for value, _ in self.mistakes.values())]
        return max(stored_digits(np.asarray(v, dtype=float), self.tolerance) for v in values)

    def data(self) -> dict[str, Any]:
        """The payload the page embeds as JSON: answer, mistakes, what to type, messages."""

        def plain(value: Any) -> Any:
            if self.kind == "array":
                return np.asarray(value).tolist()
            return list(value) if self.kind == "shape" else value

        return {
            "version": 1,
            "kind": self.kind,
            "answer": plain(self.answer),
            "shown": self.shown(self.answer),
            "tolerance": self.tolerance,
            "mistakes": [
                {
                    "name": name,
                    "value": plain(value),
                    "shown": self.shown(value),
                    "message": _not_yet(explanation),
                }
                for name, (value, explanation) in self.mistakes.items()
            ],
            "messages": self.messages(),
        }

    def _repr_html_(self) -> str:
        return question_html(self)

    def __repr__(self) -> str:
        return f"Question({self.name!r}, kind={self.kind!r}, mistakes={list(self.mistakes)})"


def question(
    prompt: str,
    answer: Any,
    *,
    kind: str | None = None,
    mistakes: Mapping[str, tuple[Any, str]] | None = None,
    tolerance: float = TOLERANCE,
    choices: Sequence[str] | None = None,
    explain: str = "",
    hint: str = "Not one of the mistakes we know: go through it step by step.",
    name: str | None = None,
    rows: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
) -> Question:
    """A predict-then-check question that grades itself in the page (any chapter).

    ``answer`` is a number, an array ``[c]`` or ``[r, c]``, a shape (text such as
    ``"[B, h, n, n]"``, a tuple of sizes or names, or an array whose shape is
    meant) or one of ``choices`` (or its index). ``kind`` is one of ``KINDS``;
    left out, it is ``"choice"`` with ``choices``, ``"number"`` for a number and
    ``"array"`` otherwise (a shape question says ``kind="shape"``).
    ``mistakes`` maps a name (lower case, digits, ``-``, ``_``) to ``(what the
    mistake gives, in the answer's form, the explanation shown)``, which is what
    the checks' ``*_mistakes`` functions return. As in the checks, a mistake whose
    value is None is skipped, and so is one the reader could not tell apart: of
    another shape than the answer, or that would grade as the answer or as an
    earlier mistake. ``explain`` is shown with the right answer, ``hint`` with an
    unknown wrong one; ``rows`` and ``columns`` label an array's entries;
    ``name`` is the stable id (by default a hash of the prompt and the answer).

    Raises:
        ValueError: naming the argument, for an unknown ``kind``, an answer or a
            mistake value not of that kind (not finite numbers, more than 2
            dimensions, not among ``choices``), a bad name, a tolerance that is
            not positive, or labels that do not fit the array.
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(f"prompt must be non-empty text; got {prompt!r}")
    finite_number("tolerance", tolerance, positive=True)
    kind = answer_kind(kind, answer, choices)
    options: tuple[str, ...] = ()
    if kind == "choice":
        options = tuple(choices) if not isinstance(choices, str) else ()
        if len(options) < 2 or not all(isinstance(c, str) for c in options):
            raise ValueError(f"choices must be at least two strings; got {choices!r}")
        value = choice_index("answer", answer, options)
    elif kind == "shape":
        value = shape_entries("answer", answer)
    else:
        value = as_array("answer", answer, (0,) if kind == "number" else (1, 2))
        value = _stable(value, tolerance)
        value = float(value) if kind == "number" else value
    shape = np.shape(value) if kind == "array" else ()
    rows = labels("rows", rows, shape[0] if len(shape) == 2 else 1)
    columns = labels("columns", columns, shape[-1] if shape else 1)
    if kind != "array" and (rows or columns):
        raise ValueError("rows and columns label the entries of an array question only")
    draft = Question(
        valid_name(name, "name") if name is not None else stable_name(prompt, kind, value),
        prompt,
        kind,
        value,
        {},
        float(tolerance),
        options,
        str(explain),
        str(hint),
        rows,
        columns,
    )
    kept: dict[str, tuple[Any, str]] = {}
    for key, pair in (mistakes or {}).items():
        what = f"mistakes[{key!r}]"
        valid_name(key, "every key of mistakes")
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], str)):
            raise ValueError(f"{what} must be (value, explanation); got {pair!r}")
        mistake, explanation = pair
        if mistake is None:
            continue
        if kind == "choice":
            mistake = choice_index(what, mistake, options)
            if mistake == value:
                raise ValueError(f"{what} is the right answer, {options[value]!r}")
        elif kind == "shape":
            mistake = shape_entries(what, mistake)
        else:
            mistake = _stable(as_array(what, mistake, (0, 1, 2)), tolerance)
            if mistake.shape != np.shape(value):
                continue  # another shape: no grid of the answer's shape can hold it
            mistake = float(mistake) if kind == "number" else mistake
        candidate = Question(**{**draft.__dict__, "mistakes": kept})
        if candidate.grade(candidate.shown(mistake))[0] == "wrong":
            kept[key] = (mistake, explanation)
    return Question(**{**draft.__dict__, "mistakes": kept})
