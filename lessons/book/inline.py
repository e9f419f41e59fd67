"""How the book's figures reach a notebook's page: drawn once, trimmed to what is drawn.

``lessons.setup()`` (through ``lessons.book.figures.apply_style``) calls
``show_figures_trimmed``; ``figure_png`` makes the picture. Nothing here changes what a
figure shows, only how long showing it takes (every chapter).
"""

from __future__ import annotations

import base64
import io

import matplotlib as mpl
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from PIL import Image

__all__ = ["figure_png", "show_figures_trimmed"]


def show_figures_trimmed() -> None:
    """In a notebook, show each figure as ``figure_png`` makes it (one draw, trimmed).

    Jupyter's inline backend saves a figure with ``bbox_inches="tight"``, which lays
    the whole figure out and draws it once more only to measure it: a third of the
    time a chapter spends on figures. Outside IPython's inline backend this does
    nothing.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and "inline" in mpl.get_backend():
        png = shell.display_formatter.formatters["image/png"]
        png.for_type(Figure, figure_png)


def figure_png(fig: Figure, pad: float = 0.1) -> str:
    """``fig`` as a base64 PNG, drawn once and trimmed to what is drawn plus ``pad`` inches.

    The picture Jupyter's tight crop gives for a figure that fits its canvas (every
    figure in the book: the style's ``figure.autolayout``, or ``fig.subplots_adjust``),
    found from the pixels instead of from a second layout. Anything drawn outside the
    canvas is cut off; ``tests/test_notebooks.py`` checks no stored figure has ink on
    its edge.
    """
    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba())  # [H, W, 4], uint8
    face = np.round(255 * np.array(to_rgba(fig.get_facecolor())))  # [4]
    ink = (rgba != face).any(axis=-1)  # [H, W]: pixels not of the background
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size:
        margin = round(pad * fig.dpi)
        top, bottom = max(rows[0] - margin, 0), rows[-1] + 1 + margin
        left, right = max(cols[0] - margin, 0), cols[-1] + 1 + margin
        rgba = rgba[top:bottom, left:right]
    if (rgba[..., 3] == 255).all():
        rgba = rgba[..., :3]  # opaque: RGB, a tenth smaller than RGBA
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgba)).save(out, format="png")
    return base64.b64encode(out.getvalue()).decode("ascii")
