"""The book's figures: one style, colour-blind-safe colours, and an attention heatmap.

``apply_style`` is called by ``lessons.setup()`` (every chapter). ``heatmap``
draws any table whose rows and columns have names: the score tables of chapter 2
and the attention weights of chapters 4 to 11 (rows are queries, columns keys).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["OKABE_ITO", "apply_style", "heatmap"]

#: Okabe and Ito's eight colours, distinguishable with every common colour-vision deficiency.
OKABE_ITO = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow
    "#000000",  # black
)


def apply_style() -> None:
    """Set matplotlib's defaults for the book (every chapter, via ``lessons.setup``).

    Figures 6.4 x 3.6 inches at 110 dpi fit the book's text width; lines cycle
    through ``OKABE_ITO``; images use ``viridis``, which stays readable in grey
    and for colour-blind readers.
    """
    mpl.rcParams.update(
        {
            "figure.figsize": (6.4, 3.6),
            "figure.dpi": 110,
            "figure.autolayout": True,
            "font.size": 11,
            "axes.titlesize": 12,
            "axes.labelsize": 11,
            "axes.prop_cycle": mpl.cycler(color=OKABE_ITO),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "image.cmap": "viridis",
            "legend.frameon": False,
        }
    )


def heatmap(
    values: ArrayLike,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    xlabel: str = "key",
    ylabel: str = "query",
    ax: Any = None,
    fmt: str = ".2f",
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar: bool = True,
) -> Any:
    """Draw a labelled ``[n_rows, n_cols]`` table as a heatmap with its numbers.

    For attention weights (chapters 4 to 11) rows are queries and columns are
    keys, so each row sums to 1; pass ``vmin=0, vmax=1`` to compare heatmaps.
    Each cell is written with ``fmt``, in black or white by the cell's brightness.

    Returns:
        The matplotlib ``Axes`` drawn on.

    Raises:
        ValueError: if ``values`` is not 2-D or the labels do not match its shape.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"heatmap needs a 2-D table [n_rows, n_cols]; got shape {values.shape}")
    if len(row_labels) != values.shape[0] or len(col_labels) != values.shape[1]:
        raise ValueError(
            f"labels do not match the table: values has shape {values.shape}, "
            f"got {len(row_labels)} row labels and {len(col_labels)} column labels"
        )
    if ax is None:
        _, ax = plt.subplots()
    image = ax.imshow(values, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(values.shape[1]), labels=list(col_labels))
    ax.set_yticks(range(values.shape[0]), labels=list(row_labels))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(False)
    norm = image.norm
    for (i, j), v in np.ndenumerate(values):
        shade = image.cmap(norm(v))
        brightness = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2]
        ax.text(
            j,
            i,
            format(v, fmt),
            ha="center",
            va="center",
            color="black" if brightness > 0.5 else "white",
            fontsize=10,
        )
    if colorbar:
        ax.figure.colorbar(image, ax=ax)
    return ax
