"""The building blocks of every self-check: a ``Verdict`` and the helpers that make one.

A chapter's check (``lessons/checks/chNN.py``) is a few lines built from these, and
every wrong verdict names its mistake (a snake_case name the chapter's ``MISTAKES``
catalogue describes):

.. code-block:: python

    MISTAKES = {
        "check_double": {
            "squared": "squared x instead of doubling it",
            **generic("not_a_number", "other"),
        },
    }

    @catalogued(MISTAKES)
    def check_double(answer, x):
        if is_missing(answer):
            return unanswered("twice x, one number")  # ✏ No answer yet: ...
        got = as_float_array(answer)
        if got is None:
            return wrong(f"The answer should be a number; got {type(answer).__name__}.",
                         "not_a_number")
        expected = np.asarray(2 * x, dtype=float)
        if close(got, expected):
            return right("2x it is.")  # ✔ Correct. 2x it is.
        mistake = named_mistake(got, {"squared": (np.asarray(x**2), "That is x squared.")})
        if mistake is not None:  # a Verdict is falsy when wrong: compare with None
            return mistake
        return wrong("Multiply x by 2.", "other")  # ✘ Not yet. ...

``catalogued`` makes the check refuse (``ValueError``) to return a name its catalogue
entry does not describe, and tells every ``add_observer`` callback what it returned
(a grader collects verdicts that way). The three marks (✔ ✘ ✏) are written here only,
so every chapter's messages look alike; they are glyphs every text font has.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import Any, TypeVar

import numpy as np

from .._validate import as_numpy

__all__ = [
    "GENERIC_MISTAKES",
    "TOLERANCE",
    "Verdict",
    "add_observer",
    "as_float_array",
    "as_whole_number",
    "catalogued",
    "close",
    "generic",
    "is_missing",
    "judge",
    "named_mistake",
    "remove_observer",
    "right",
    "unanswered",
    "wrong",
]

#: The mistakes any check may name, whatever its exercise: name -> what the learners did.
#: Each description completes "12 of 30 students ...".
GENERIC_MISTAKES: dict[str, str] = {
    "not_a_number": "gave something that is not numbers (text, a ragged list, another object)",
    "not_a_whole_number": "gave a count that is not a whole number",
    "wrong_shape": "gave an array of the wrong shape",
    "not_finite": "gave an answer holding NaN or infinity",
    "other": "gave a wrong answer that no known mistake explains",
}

#: What a mistake's name looks like: snake_case, starting with a letter.
_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")

#: Absolute and relative tolerance of ``close``: answers are computed in float64.
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Verdict:
    """The outcome of a self-check: ``ok`` is True when the answer is right.

    It is truthy exactly when the answer is right, and shows ``message`` in a
    notebook (as text, and as a coloured box where HTML is shown). ``answered``
    is False when the reader has not replaced the placeholder yet. ``mistake`` is
    the snake_case name of the mistake a wrong answer makes (``"other"`` when no
    known mistake explains it), None for a right or unanswered one; it is not
    shown, but ``record()`` reports it.
    """

    ok: bool
    message: str
    answered: bool = True
    mistake: str | None = None

    def __post_init__(self) -> None:
        if self.ok or not self.answered:
            if self.mistake is not None:
                raise ValueError(
                    f"only a wrong answer names a mistake; got {self.mistake!r} for a "
                    f"{'right' if self.ok else 'unanswered'} verdict"
                )
        elif not isinstance(self.mistake, str) or not _NAME.fullmatch(self.mistake):
            raise ValueError(
                "a wrong verdict needs its mistake's snake_case name (like 'no_scaling'); "
                f"got {self.mistake!r}"
            )

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

    @property
    def verdict(self) -> str:
        """``"right"``, ``"wrong"`` or ``"unanswered"``."""
        return "right" if self.ok else ("wrong" if self.answered else "unanswered")

    def record(self) -> dict[str, str | None]:
        """``{"verdict": "right" | "wrong" | "unanswered", "mistake": name or None, "message": ...}``."""
        return {"verdict": self.verdict, "mistake": self.mistake, "message": self.message}


def right(message: str) -> Verdict:
    """A correct answer: ``✔ Correct.`` followed by ``message`` (what the answer shows)."""
    return Verdict(True, f"✔ Correct. {message}")


def wrong(message: str, mistake: str) -> Verdict:
    """A wrong answer: ``✘ Not yet.`` followed by ``message`` (what it looks like, how to fix it).

    ``mistake`` is the mistake's snake_case name, one the check's ``MISTAKES`` entry
    describes (``"other"`` when no known mistake explains the answer).
    """
    return Verdict(False, f"✘ Not yet. {message}", mistake=mistake)


def unanswered(what: str) -> Verdict:
    """The placeholder is still there: ``what`` says what to write instead."""
    return Verdict(False, f"✏ No answer yet: replace the ... or None with {what}.", answered=False)


def generic(*names: str) -> dict[str, str]:
    """The ``GENERIC_MISTAKES`` entries ``names``, to spread into a check's ``MISTAKES`` entry."""
    unknown = [name for name in names if name not in GENERIC_MISTAKES]
    if unknown:
        raise ValueError(f"not generic mistakes: {unknown}; known: {list(GENERIC_MISTAKES)}")
    return {name: GENERIC_MISTAKES[name] for name in names}


_OBSERVERS: list[Callable[[str, Verdict], Any]] = []
_depth = [0]  # how many catalogued checks are running: only the outermost one reports

Check = TypeVar("Check", bound=Callable[..., Verdict])


def add_observer(callback: Callable[[str, Verdict], Any]) -> None:
    """Call ``callback(check_name, verdict)`` after every catalogued check returns.

    A grader registers one in the kernel that runs a submission and collects each
    ``verdict.record()``; a check called by another check reports only once, as the
    outer one.
    """
    _OBSERVERS.append(callback)


def remove_observer(callback: Callable[[str, Verdict], Any]) -> None:
    """Stop calling ``callback`` (registered with ``add_observer``)."""
    _OBSERVERS.remove(callback)


def catalogued(mistakes: Mapping[str, Mapping[str, str]]) -> Callable[[Check], Check]:
    """Decorate a check so it only names mistakes its entry ``mistakes[check name]`` describes.

    A wrong verdict whose name the entry lacks raises ``ValueError`` (a bug in the
    check, which its tests catch); every verdict returned goes to the observers.
    """

    def decorate(check: Check) -> Check:
        if check.__name__ not in mistakes:
            raise ValueError(f"{check.__name__} has no entry in its chapter's MISTAKES")
        known = mistakes[check.__name__]

        @functools.wraps(check)
        def checked(*args: Any, **kwargs: Any) -> Verdict:
            _depth[0] += 1
            try:
                verdict = check(*args, **kwargs)
            finally:
                _depth[0] -= 1
            if verdict.mistake is not None and verdict.mistake not in known:
                raise ValueError(
                    f"{check.__name__} named the mistake {verdict.mistake!r}, which its "
                    f"MISTAKES entry does not describe (it knows {sorted(known)})"
                )
            if _depth[0] == 0:
                for callback in list(_OBSERVERS):
                    callback(check.__name__, verdict)
            return verdict

        checked.mistakes = known  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return decorate


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


def named_mistake(got: np.ndarray, mistakes: Mapping[str, tuple[Any, str]]) -> Verdict | None:
    """The ``wrong`` verdict of the first common mistake the answer matches, or None.

    ``mistakes`` maps each mistake's name to what the wrong method computes (None
    where it cannot apply to these inputs) and the explanation the reader sees.
    Every check that diagnoses numeric answers lists its mistakes this way. A name
    spelt with hyphens (``"no-scaling"``, as the in-page questions that share the
    dict show it) is reported in snake_case (``"no_scaling"``).
    """
    for name, (candidate, message) in mistakes.items():
        if candidate is not None and close(got, np.asarray(candidate, dtype=float)):
            return wrong(message, name.replace("-", "_"))
    return None


def judge(
    answer: Any,
    expected: np.ndarray,
    *,
    what: str,
    praise: str,
    mistakes: Mapping[str, tuple[Any, str]] | None = None,
    kind: str = "an array",
    shape_message: str | None = None,
) -> Verdict | None:
    """The verdict every numeric check opens with, or None to go on with its own hints.

    In order: the placeholder is still there (``unanswered(what)``); the answer is not
    ``kind`` of numbers (``not_a_number``); it equals ``expected`` (``right(praise)``);
    it matches one of the ``mistakes`` (as in ``named_mistake``); its shape is not
    ``expected``'s and ``shape_message`` says why (``wrong_shape``; ``{expected}`` and
    ``{got}`` in it become the two shapes). None means none of these: the check then
    says what else it can.
    """
    if is_missing(answer):
        return unanswered(what)
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be {kind}; got {type(answer).__name__}.", "not_a_number")
    expected = np.asarray(expected, dtype=float)
    if close(got, expected):
        return right(praise)
    mistake = named_mistake(got, mistakes or {})
    if mistake is None and shape_message is not None and got.shape != expected.shape:
        return wrong(
            shape_message.format(expected=list(expected.shape), got=list(got.shape)),
            "wrong_shape",
        )
    return mistake
