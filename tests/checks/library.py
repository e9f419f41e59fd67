"""The mutation library's shared parts: what a wrong answer, a right one and a set of givens are.

Each chapter's wrong answers are in ``tests/checks/wrong_chNN.py``, beside that chapter's
tests (``test_chNN.py``); ``tests/wrong_answers.py`` gathers them for the runner,
``tests/checks/test_wrong_answers_are_rejected.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from exercise_givens import givens as notebook_givens

import lessons

#: What a slip returns on givens where its code could not run (it would raise there).
NOT_APPLICABLE = object()


@dataclass(frozen=True)
class Wrong:
    """A wrong answer: ``make(*givens, **keyword_givens)`` is what the learner hands in."""

    label: str
    make: Callable[..., Any]
    mistake: str | None = None  # the catalogue's name, where it names this slip
    exercise: bool = True  # applies to the chapter's own givens


@dataclass(frozen=True)
class Givens:
    """One set of inputs for a check: ``check(answer, *args, **kwargs)``."""

    label: str
    args: tuple
    kwargs: dict


def from_notebook(notebook: str, check: str) -> list[Givens]:
    calls = notebook_givens(notebook)[check]
    return [Givens(f"{notebook[:2]} exercise", args, kwargs) for args, kwargs in calls]


def softmax(x: Any, axis: int = -1) -> np.ndarray:
    return lessons.softmax(np.asarray(x, dtype=float), axis=axis)


def where_shapes_fit(fn):
    """A slip whose code runs only where its product's shapes happen to fit."""

    def make(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ValueError, RuntimeError, IndexError):
            return NOT_APPLICABLE

    return make


def softmax_of_the_whole_table(Z):
    e = np.exp(Z - Z.max())
    return e / e.sum()


def root_d_k(Q):
    return math.sqrt(Q.shape[-1])


def seeded(seed: int, *shapes: tuple[int, ...], scale: float = 1.0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [scale * rng.normal(size=shape) for shape in shapes]


@dataclass(frozen=True)
class Right:
    """A right answer in another valid form; ``everywhere=False``: on the exercise's givens only."""

    label: str
    make: Callable[..., Any]
    everywhere: bool = True


def as_float32(fn):
    return lambda *a, **k: np.asarray(fn(*a, **k), dtype=np.float32)
