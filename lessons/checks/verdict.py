"""The building blocks of every self-check: a ``Verdict`` and the helpers that make one.

A chapter's check (``lessons/checks/chNN.py``) is a few lines built from these:

.. code-block:: python

    def check_double(answer, x):
        if is_missing(answer):
            return unanswered("twice x, one number")  # ✏ No answer yet: ...
        got = as_float_array(answer)
        if got is None:
            return wrong(f"The answer should be a number; got {type(answer).__name__}.")
        expected = np.asarray(2 * x, dtype=float)
        if close(got, expected):
            return right("2x it is.")  # ✔ Correct. 2x it is.
        mistake = named_mistake(got, [(np.asarray(x**2), "That is x squared.")])
        if mistake is not None:  # a Verdict is falsy when wrong: compare with None
            return mistake
        return wrong("Multiply x by 2.")  # ✘ Not yet. ...

The three marks (✔ ✘ ✏) are written here only, so every chapter's messages look
alike; they are glyphs every text font has.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from .._validate import as_numpy

__all__ = [
    "TOLERANCE",
    "Verdict",
    "as_float_array",
    "as_whole_number",
    "close",
    "is_missing",
    "judge",
    "named_mistake",
    "right",
    "unanswered",
    "wrong",
]

#: Absolute and relative tolerance of ``close``: answers are computed in float64.
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Verdict:
    """The outcome of a self-check: ``ok`` is True when the answer is right.

    It is truthy exactly when the answer is right, and shows ``message`` in a
    notebook (as text, and as a coloured box where HTML is shown). ``answered``
    is False when the reader has not replaced the placeholder yet.
    """

    ok: bool
    message: str
    answered: bool = True

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        colour = "#009E73" if self.ok else ("#0072B2" if not self.answered else "#D55E00")
        return (
            f'<div class="lessons-check" style="border-left: 4px solid {colour}; '
            'padding: 0.3em 0.7em; margin: 0.2em 0;">'
            f"{html.escape(self.message)}</div>"
        )


def right(message: str) -> Verdict:
    """A correct answer: ``✔ Correct.`` followed by ``message`` (what the answer shows)."""
    return Verdict(True, f"✔ Correct. {message}")


def wrong(message: str) -> Verdict:
    """A wrong answer: ``✘ Not yet.`` followed by ``message`` (what it looks like, how to fix it)."""
    return Verdict(False, f"✘ Not yet. {message}")


def unanswered(what: str) -> Verdict:
    """The placeholder is still there: ``what`` says what to write instead."""
    return Verdict(False, f"✏ No answer yet: replace the ... or None with {what}.", answered=False)


def is_missing(answer: Any) -> bool:
    """True for the exercise's placeholders, ``...`` and ``None``."""
    return answer is None or answer is Ellipsis


def close(a: np.ndarray, b: np.ndarray) -> bool:
    """True when ``a`` and ``b`` have the same shape and agree to ``TOLERANCE``."""
    return a.shape == b.shape and bool(np.allclose(a, b, atol=TOLERANCE, rtol=TOLERANCE))


def as_float_array(answer: Any) -> np.ndarray | None:
    """The answer (number, list, array or tensor) as a float64 array, or None if it is not one.

    A ragged list, text or complex numbers give None, so the check can say what it
    expected instead of raising. NaN and inf stay: some checks diagnose them.
    """
    try:
        array = as_numpy(answer)
        if array.dtype == object or np.iscomplexobj(array):
            return None
        return array.astype(np.float64)
    except (TypeError, ValueError, RuntimeError):
        return None


def as_whole_number(answer: Any) -> int | None:
    """The answer as an ``int`` when it is a whole number (``24``, ``24.0``, a 0-d array), else None.

    ``24.9`` is not 24, ``True`` is not 1 and ``"24"`` is text: counting answers compare exactly.
    """
    if isinstance(answer, (bool, np.bool_, str, bytes)):
        return None
    if isinstance(answer, Integral):
        return int(answer)
    array = as_float_array(answer)
    if array is None or array.size != 1 or not np.isfinite(array).all():
        return None
    value = float(array.reshape(()))
    return int(value) if value.is_integer() else None


def named_mistake(got: np.ndarray, mistakes: list[tuple[Any, str]]) -> Verdict | None:
    """The ``wrong`` verdict of the first common mistake the answer matches, or None.

    ``mistakes`` pairs what a wrong method computes (None where it cannot apply to
    these inputs) with the explanation the reader sees. Every check that
    diagnoses numeric answers lists its mistakes this way.
    """
    for candidate, message in mistakes:
        if candidate is not None and close(got, np.asarray(candidate, dtype=float)):
            return wrong(message)
    return None


def judge(
    answer: Any,
    expected: np.ndarray,
    *,
    what: str,
    praise: str,
    mistakes: list[tuple[Any, str]] | None = None,
    kind: str = "an array",
    shape_message: str | None = None,
) -> Verdict | None:
    """The verdict every numeric check opens with, or None to go on with its own hints.

    In order: the placeholder is still there (``unanswered(what)``); the answer is not
    ``kind`` of numbers; it equals ``expected`` (``right(praise)``); it matches one of
    the ``mistakes`` (as in ``named_mistake``); its shape is not ``expected``'s and
    ``shape_message`` says why (``{expected}`` and ``{got}`` in it become the two
    shapes). None means none of these: the check then says what else it can.
    """
    if is_missing(answer):
        return unanswered(what)
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be {kind}; got {type(answer).__name__}.")
    expected = np.asarray(expected, dtype=float)
    if close(got, expected):
        return right(praise)
    mistake = named_mistake(got, mistakes or [])
    if mistake is None and shape_message is not None and got.shape != expected.shape:
        return wrong(shape_message.format(expected=list(expected.shape), got=list(got.shape)))
    return mistake
