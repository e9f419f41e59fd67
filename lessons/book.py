"""Running a chapter: one call to make it reproducible, one to put numbers in the prose.

Used by the first cell of every chapter (``lessons.setup()``) and wherever the
text quotes a computed number (``lessons.glue``). The conventions behind them
are in ``CONTRIBUTING.md`` and the first chapter shows them in use.
"""

from __future__ import annotations

import random
from numbers import Integral, Real
from typing import TypeVar

import numpy as np
import torch

from .plots import apply_style

__all__ = ["setup", "glue"]

T = TypeVar("T")


def setup(seed: int = 0) -> np.random.Generator:
    """Make a chapter reproducible and give it the book's look (every chapter).

    Seeds Python's ``random``, NumPy's global generator and torch with ``seed``;
    prints NumPy arrays and torch tensors with 4 decimals and no scientific
    notation; sets the book's plotting style (``lessons.plots.apply_style``).
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


class GluedText(str):
    """A string that shows as itself (no quotes) when glued into the prose."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        return str(self)


def glue(name: str, value: T, *, digits: int = 4, display: bool = False) -> T:
    """Store ``value`` under ``name`` so the text can quote it (every chapter).

    In the book, write ``{glue}`name``` (or ``{glue:text}`name:.2f``` to format a
    number) in a Markdown cell; the built page shows the value the code computed,
    so the prose can never drift from the code.

    Floats (Python or NumPy) are rounded to ``digits`` decimals so the stored
    record is the same on every machine; NumPy integers become ``int``; strings
    show without quotes. Figures and other objects are glued as they are.

    Where ``myst_nb`` is not installed (Colab, a plain Jupyter), nothing is stored
    and nothing is shown: the chapter still runs.

    Returns:
        The value as glued (rounded for floats), so ``x = glue("x", f())`` works.
    """
    if isinstance(value, bool | np.bool_):
        value = bool(value)
    elif isinstance(value, Integral):
        value = int(value)
    elif isinstance(value, Real):
        value = round(float(value), digits)
    elif isinstance(value, str):
        value = GluedText(value)
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        return value
    myst_glue(name, value, display=display)
    return value
