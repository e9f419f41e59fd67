"""Self-checks for the exercises: right or wrong, and why.

Each ``check_*`` takes the reader's answer (and the exercise's inputs), works out the
right answer with ``lessons`` itself, and returns a ``Verdict`` that shows one line in
the notebook: correct, or what the answer looks like instead (a common mistake, named)
and how to fix it. Put the check on the last line of the cell.

One module per chapter, in the book's order: ``ch01`` holds chapter 1's checks, and so
on. ``verdict`` holds the building blocks every check is made of (``Verdict``,
``right``, ``wrong``, ``unanswered``, ``named_mistake`` ...); a new chapter's check is a
few lines built from them. Every check is also reachable as ``lessons.check_*``.

Every wrong verdict names its mistake, and each chapter module's ``MISTAKES`` describes
the mistakes each of its checks can name; ``catalogue()`` gathers them for the whole book.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from .verdict import Verdict

#: The chapters that have self-checks, in book order; chapter N's live in ``chNN.py``.
CHAPTERS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)

#: Chapter number -> its checks module.
MODULES: dict[int, ModuleType] = {n: import_module(f".ch{n:02d}", __name__) for n in CHAPTERS}

for _module in MODULES.values():
    globals().update({_name: getattr(_module, _name) for _name in _module.__all__})
del _module

#: Every chapter's checks, named once: in each chapter module's ``__all__`` (``lessons``
#: re-exports these; ``catalogue`` stays ``lessons.checks.catalogue``).
__all__ = ["Verdict", *(name for module in MODULES.values() for name in module.__all__)]


def catalogue() -> dict[int, dict[str, dict[str, str]]]:
    """Chapter number -> check name -> {mistake name: what the learners did}.

    In book order, each chapter's checks in the order of its ``__all__``; built from
    the chapter modules' ``MISTAKES``, so it names exactly what the checks can return.
    Each description completes "12 of 30 students ...".
    """
    return {
        n: {name: dict(module.MISTAKES[name]) for name in module.__all__}
        for n, module in MODULES.items()
    }
