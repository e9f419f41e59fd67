"""Self-checks for the exercises: right or wrong, and why.

Each ``check_*`` takes the reader's answer (and the exercise's inputs), works out the
right answer with ``lessons`` itself, and returns a ``Verdict`` that shows one line in
the notebook: correct, or what the answer looks like instead (a common mistake, named)
and how to fix it. Put the check on the last line of the cell.

One module per chapter, in the book's order: ``ch01`` holds chapter 1's checks, and so
on. ``verdict`` holds the building blocks every check is made of (``Verdict``,
``right``, ``wrong``, ``unanswered``, ``named_mistake`` ...); a new chapter's check is a
few lines built from them. Every check is also reachable as ``lessons.check_*``.
"""

from . import ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10, ch11
from .ch01 import *  # noqa: F403
from .ch02 import *  # noqa: F403
from .ch03 import *  # noqa: F403
from .ch04 import *  # noqa: F403
from .ch05 import *  # noqa: F403
from .ch06 import *  # noqa: F403
from .ch07 import *  # noqa: F403
from .ch08 import *  # noqa: F403
from .ch09 import *  # noqa: F403
from .ch10 import *  # noqa: F403
from .ch11 import *  # noqa: F403
from .verdict import Verdict

_CHAPTERS = (ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10, ch11)

#: Every chapter's checks, named once: in each chapter module's ``__all__``.
__all__ = ["Verdict", *(name for module in _CHAPTERS for name in module.__all__)]
