"""Running a chapter: one call to make it reproducible, one to put numbers in the prose.

Used by the first cell of every chapter (``lessons.setup()``) and wherever the
text quotes a computed number (``lessons.glue``). The conventions behind them
are in ``CONTRIBUTING.md`` and the first chapter shows them in use.
"""

from __future__ import annotations

import random
import re
from numbers import Integral, Real
from typing import TypeVar

import numpy as np
import torch

from .figures import apply_style
from .widgets.widget import stable_floats

__all__ = ["setup", "glue"]

T = TypeVar("T")


def setup(seed: int = 0) -> np.random.Generator:
    """Make a chapter reproducible and give it the book's look (every chapter).

    Seeds Python's ``random``, NumPy's global generator and torch with ``seed``;
    prints NumPy arrays and torch tensors with 4 decimals and no scientific
    notation; sets the book's plotting style (``lessons.book.figures.apply_style``).
    Call it again with the same seed before a random cell to replay it.

    Returns:
        A fresh ``numpy.random.Generator`` seeded with ``seed``; prefer it to the
        global NumPy functions in new code.
    """
    if not isinstance(seed, Integral) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 (seeds old-style calls a reader may copy from elsewhere)
    torch.manual_seed(seed)
    np.set_printoptions(precision=4, suppress=True, floatmode="maxprec", linewidth=100)
    torch.set_printoptions(precision=4, sci_mode=False, linewidth=100)
    apply_style()
    return np.random.default_rng(seed)


# Characters that mean something in MyST inline Markdown (emphasis, links, HTML, roles,
# math); "_" only where it could start or end emphasis (not inside a word like o_0).
_MARKDOWN_SPECIAL = re.compile(r"[\\`*\[\]<>{}$&!~|^]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


class GluedText(str):
    """A string that shows as itself (no quotes) when glued into the prose.

    Shown as text: every character that Markdown would read as markup is
    backslash-escaped, so ``<eos>`` stays ``<eos>`` and ``*2*`` stays ``*2*``.
    Made with ``markdown=True`` (``glue(..., markdown=True)``), it is Markdown.
    """

    markdown: bool = False

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        if self.markdown:
            return str(self)
        return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(0), str(self))


def glue(
    name: str, value: T, *, digits: int = 4, display: bool = False, markdown: bool = False
) -> T:
    """Store ``value`` under ``name`` so the text can quote it (every chapter).

    In the book, write ``{glue}`name``` (or ``{glue:text}`name:.2f``` to format a
    number) in a Markdown cell; the built page shows the value the code computed,
    so the prose can never drift from the code.

    Floats (Python or NumPy) are rounded to ``digits`` decimals, and to at most
    ``lessons.book.widgets.widget.SIGNIFICANT_DIGITS`` significant digits, so the stored record is
    the same on every machine; NumPy integers become ``int``; strings
    show without quotes, as plain text: ``<eos>`` or ``*2*`` appear as written.
    With ``markdown=True`` a string is Markdown instead (``**bold**`` is bold).
    Figures and other objects are glued as they are.

    Where ``myst_nb`` is not installed (Colab, a plain Jupyter), nothing is stored
    and nothing is shown: the chapter still runs.

    Returns:
        The value as glued (rounded for floats), so ``x = glue("x", f())`` works.
    """
    if not isinstance(name, str) or not name or any(c.isspace() or c in "`:" for c in name):
        raise ValueError(
            f"name must be a glue name like 'n_tokens' (no spaces, ` or :); got {name!r}"
        )
    if isinstance(value, bool | np.bool_):
        value = bool(value)
    elif isinstance(value, Integral):
        value = int(value)
    elif isinstance(value, Real):
        value = stable_floats(round(float(value), digits))
    elif isinstance(value, str):
        value = GluedText(value)
        value.markdown = bool(markdown)
    try:
        import myst_nb  # noqa: F401  (only to know whether the book's tools are here)
    except ImportError:
        return value
    _record(name, value, display)
    return value


#: myst-nb reads a glued value from a display output whose MIME types carry this prefix.
GLUE_PREFIX = "application/papermill.record/"


def _record(name: str, value: object, display: bool) -> None:
    """Write the glue record myst-nb's ``{glue}`` reads: the value's display data, named.

    The same output ``myst_nb.glue`` writes, without importing it: its import pulls
    in nbformat's validator (about 2 s on a 2-core machine, once per chapter).
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display as show

    bundle, metadata = format_display_data(value)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    show({prefix + mime: data for mime, data in bundle.items()}, raw=True, metadata=metadata)
