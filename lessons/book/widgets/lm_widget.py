"""Chapter 12's model in the page: type text, pick a position, see every head and the guess.

``widget(text, steps)`` returns an ``LMWidget``; on the last line of a cell it shows a
text box (up to ``n_ctx`` characters), one button per character, a slider over the
embedded training steps, each layer's and head's attention row for the chosen position
and the model's five likeliest next characters. A forward pass written in JavaScript
(``lessons/book/widgets/assets/lm.js``) computes them from the float16 weights the page embeds
(the raw little-endian bytes in base 85, one string per tensor), so it works with no
kernel and no network: in the book, in Jupyter and in Colab. The page contract is in
``lessons/book/widgets/assets/README.md``. The output holds every checkpoint; the HTML
book's build (``_ext/lm_checkpoints.py``) moves all but the one the slider starts on into
a script the page loads once the widget is ready, so a slow reader's widget starts sooner.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lessons.lm.checkpoints import checkpoints, manifest, stored_weights
from lessons.lm.text import VOCAB, encode

from .widget import data_script, widget_html

__all__ = ["DATA", "DEFAULT_STEPS", "DEFAULT_TEXT", "LOADED", "LMWidget", "ROOT_SELECTOR", "widget"]

DATA_ATTRIBUTE = "data-lm-data"
#: The widget's embedded JSON in a page (groups: opening tag, JSON, closing tag): what
#: ``_ext/lm_checkpoints.py`` reads and rewrites in the built book.
DATA = data_script(DATA_ATTRIBUTE)
#: The attribute ``lm.js`` sets to "true" once every step's weights are in the page.
LOADED = "data-lm-loaded"
#: What selects the widget's root.
ROOT_SELECTOR = "[data-lm-widget]"


#: Three checkpoints: before the layer-1 induction head forms (1500: its induction score
#: is still about 0.01), while it forms (4000), and the last. Each adds about 460 kB to
#: the page, and the chapter's page (with all it loads) must stay under 4 MB.
DEFAULT_STEPS = (1500, 4000, 8000)

#: A line of code read twice: the second copy is where an induction head pays off.
DEFAULT_TEXT = "def scores(query, keys):\n    return query @ keys.T\n" * 2


#: The 85 digits: ``base64.b85encode``'s alphabet with ``.``, ``,`` and ``:`` for ``<``,
#: ``>`` and ``&`` (the page's JSON would write those three as ``\u003c``, six characters each).
PAGE_B85 = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%:()*+-;.=,?@^_`{|}~"


def _base85(raw: bytes) -> str:
    """``raw`` in base 85 with ``PAGE_B85``'s digits, as ``base64.b85encode`` counts.

    Each 4 bytes, read as a big-endian number, become 5 digits, most significant
    first; a last group of 1-3 bytes is padded with zero bytes and written with as many
    digits as it had bytes, plus one. NumPy does every group at once (``b85encode``
    loops in Python, about 15 times slower on a checkpoint).
    """
    pad = -len(raw) % 4
    words = np.frombuffer(raw + bytes(pad), dtype=">u4").astype(np.int64)  # [groups]
    digits = np.empty((len(words), 5), dtype=np.uint8)  # [groups, 5]
    for k in range(4, -1, -1):
        words, digits[:, k] = np.divmod(words, 85)
    text = np.frombuffer(PAGE_B85, dtype=np.uint8)[digits].tobytes()
    return text[: len(text) - pad].decode("ascii")


def _tensor(array: np.ndarray) -> dict[str, Any]:
    """One tensor as its shape and its little-endian float16 bytes in base 85.

    ``array`` is a stored float16 tensor (``load`` widens the same numbers to
    float32), so the page holds exactly the numbers PyTorch computes with. Base 85
    writes 4 bytes as 5 characters (base64 needs 5.33), which keeps three checkpoints
    and the chapter around them under 4 MB.
    """
    raw = np.ascontiguousarray(array, dtype="<f2").tobytes()
    return {"shape": list(array.shape), "b85": _base85(raw)}


@dataclass(frozen=True, eq=False, repr=False)
class LMWidget:
    """The widget ready to display (make one with ``widget``): its text and its payload."""

    text: str
    steps: tuple[int, ...]
    payload: dict[str, Any]

    def _repr_html_(self) -> str:
        note = (
            '<p class="lw-note" data-static-note="">This widget runs the model in your '
            "browser: it needs the script that runs in the book, in Colab and in a trusted "
            "notebook.</p>"
        )
        last = len(self.steps) - 1
        # The newline right after <textarea> is dropped by the HTML parser, so a text
        # that starts with a newline keeps it.
        body = (
            '<label class="llm-label">Text (up to {n} characters of the model\'s vocabulary: '
            "the newline and printable ASCII)"
            '<textarea class="llm-text" data-lm-text="" rows="{rows}" maxlength="{n}" '
            'spellcheck="false">\n{text}</textarea></label>'
            '<p class="llm-message" data-lm-message="" role="alert"></p>'
            '<label class="llm-label">Training step <output data-lm-step-label="">{step}</output>'
            '<input type="range" class="llm-slider" data-lm-step="" min="0" max="{last}" '
            'step="1" value="{last}"></label>'
            '<p class="llm-hint" data-lm-hint="">Click a character to see what each head '
            "reads from it and the model's guess for the character after it; the last one, "
            "selected whenever the text changes, shows the guess for the next character.</p>"
            '<div class="llm-positions" data-lm-positions="" role="toolbar" '
            'aria-label="Characters: pick the position to inspect (arrow keys move)"></div>'
            '<div class="llm-view" data-lm-view="" aria-live="polite"></div>'
        ).format(
            n=self.payload["config"]["n_ctx"],
            rows=min(max(self.text.count("\n") + 1, 3), 8),  # the first text, unscrolled
            text=html.escape(self.text, quote=True),
            step=self.steps[-1],
            last=last,
        )
        return widget_html(
            {"class": "lw llm", "data-lm-widget": ""},
            note + body,
            self.payload,
            data_attribute=DATA_ATTRIBUTE,
            styles=("core.css", "lm.css"),
            script="lm.js",
            label="Chapter 12 language model: attention and next-character guesses",
        )

    def __repr__(self) -> str:
        return f"LMWidget(text={self.text!r:.40}, steps={list(self.steps)})"


def widget(text: str = DEFAULT_TEXT, steps: Sequence[int] = DEFAULT_STEPS) -> LMWidget:
    """Chapter 12's model as an in-page widget, at the training ``steps`` it embeds (chapter 12).

    ``text`` (at most ``n_ctx`` characters of ``VOCAB``) is what the box holds at first;
    the slider starts at the last of ``steps``. Each checkpoint adds about 430 kB to
    the page.

    Raises:
        ValueError: if ``text`` holds a character outside the vocabulary (the message
            names it), is empty or longer than the context, or a step is not stored,
            or ``steps`` is empty or repeats a step.
    """
    config = manifest()["config"]
    encode(text)  # names any character outside VOCAB
    if len(text) > config["n_ctx"]:
        raise ValueError(
            f"text has {len(text)} characters; the model reads at most n_ctx={config['n_ctx']}"
        )
    stored = checkpoints()
    chosen = tuple(steps)
    if not chosen or len(set(chosen)) != len(chosen):
        raise ValueError(f"steps must be distinct stored checkpoints {stored}; got {chosen}")
    for step in chosen:
        if isinstance(step, bool) or not isinstance(step, int | np.integer) or step not in stored:
            raise ValueError(f"steps must be among the stored checkpoints {stored}; got {step!r}")
    chosen = tuple(sorted(int(s) for s in chosen))
    losses = {e["step"]: e["val_loss"] for e in manifest()["checkpoints"]}
    payload = {
        "vocab": VOCAB,
        "config": config,
        "checkpoints": [
            {
                "step": step,
                "val_loss": round(float(losses[step]), 4),
                "tensors": {name: _tensor(t) for name, t in sorted(stored_weights(step).items())},
            }
            for step in chosen
        ],
    }
    return LMWidget(text=text, steps=chosen, payload=payload)
