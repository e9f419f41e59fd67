"""The mutation library, gathered: every chapter's wrong answers under the names the runner reads.

Each chapter's slips live beside its tests (``tests/checks/wrong_chNN.py``; the shared parts in
``tests/checks/library.py``). Here they are joined for everything that reads the library as one:
``tests/checks/test_wrong_answers_are_rejected.py`` and any tool test.

- ``GIVENS``/``givens(check)``: the inputs a check is judged on, its chapter's exercise inputs
  first (read from the notebook's exercise cell), then random and hostile ones.
- ``WRONG[check]``: plausible wrong answers, each named as the catalogue names it, where it does.
- ``RIGHT[check]``: right answers in other valid forms, each to be judged right.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from checks.library import NOT_APPLICABLE, Givens, Right, Wrong, from_notebook
from checks.wrong_ch13 import _absorbed_right

from kit import course
from lessons.checks import MODULES

#: Each chapter's wrong answers, one module per chapter that has checks (``lessons.checks``):
#: a chapter whose checks have no ``tests/checks/wrong_chNN.py`` fails here, by name.
CHAPTERS = tuple(import_module(f"checks.wrong_ch{n:02d}") for n in MODULES)

WRONG: dict[str, list[Wrong]] = {k: v for m in CHAPTERS for k, v in m.WRONG.items()}
RIGHT: dict[str, list[Right]] = {k: v for m in CHAPTERS for k, v in m.RIGHT.items()}
EXTRA = {k: v for m in CHAPTERS for k, v in m.EXTRA.items()}
#: Checks whose exercise's inputs are built in ``EXTRA``, not read from its notebook.
BUILT_HERE = {"check_blocked_accuracy"}


@cache
def givens(check: str) -> list[Givens]:
    """The inputs ``check`` is judged on: its exercise's first, then random and hostile ones."""
    chapter = course.load().exercise_chapters().get(check)  # the exercise that calls it
    notebook = chapter.name if chapter is not None and check not in BUILT_HERE else None
    found = from_notebook(notebook, check) if notebook else []
    found += EXTRA.get(check, lambda: [])()
    return found


__all__ = ["NOT_APPLICABLE", "RIGHT", "WRONG", "Givens", "Right", "Wrong", "givens"]
__all__ += ["_absorbed_right"]
