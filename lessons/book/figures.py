"""The book's figures: one style, colour-blind-safe colours, and the statistical plots.

``apply_style`` is called by ``lessons.setup()`` (every chapter). ``heatmap``
draws any table whose rows and columns have names: the score tables of chapter 2
and the attention weights of chapters 4 to 11 (rows are queries, columns keys).
``score_distributions`` (chapter 4) and ``seed_band`` (chapter 11) show many
samples at once. All three draw through seaborn, imported only when one is
called, so a chapter that draws none of them does not pay for the import.
The chapters' diagrams are in ``lessons.book.diagrams``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

from lessons._validate import as_numpy, check_ndim

from .inline import show_figures_trimmed

__all__ = [
    "OKABE_ITO",
    "apply_style",
    "heatmap",
    "score_distributions",
    "seed_band",
]

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
    and for colour-blind readers. In a notebook, figures show through
    ``lessons.book.inline.figure_png`` (drawn once, trimmed to what is drawn).
    """
    mpl.rcParams.update(
        {
            "figure.figsize": (6.4, 3.6),
            "figure.dpi": 110,
            "figure.autolayout": True,
            "font.size": 11,
            "axes.titlesize": 12,
            # Titles sit just above the axes. Left to itself, matplotlib measures every tick
            # label to find room for each title, a tenth of a figure's drawing time; only the
            # broadcast diagram (chapter 6) has ticks on top, and it pads its title.
            "axes.titley": 1.0,
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
    show_figures_trimmed()


#: The most cells ``heatmap`` writes out: a 32 x 32 table is already hard to read.
MAX_CELLS = 32 * 32


@contextmanager
def _no_forced_draw(fig: Any) -> Iterator[None]:
    """Skip the full draw of ``fig`` that ``seaborn.heatmap`` forces on every call.

    seaborn draws the whole figure to test whether tick labels overlap and need
    turning; ``heatmap`` sets the labels' rotation itself, so that draw buys
    nothing, and in a figure of several heatmaps it redraws all of them each
    time (four heatmaps: about 1.6 s of CPU instead of 0.2 s). The figure is
    drawn once, as usual, when it is shown.
    """
    fig.canvas.draw = lambda *args, **kwargs: None
    fig.draw = lambda *args, **kwargs: None
    try:
        yield
    finally:
        del fig.canvas.draw, fig.draw  # the classes' own methods again


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
    mask: ArrayLike | None = None,
) -> Any:
    """Draw a labelled ``[n_rows, n_cols]`` table as a heatmap with its numbers.

    For attention weights (chapters 4 to 11) rows are queries and columns are
    keys, so each row sums to 1; pass ``vmin=0, vmax=1`` to give several
    heatmaps one colour scale. Each cell is written with ``fmt``, in black or
    white by the cell's brightness (``seaborn.heatmap`` does the drawing).
    ``mask``, a boolean ``[n_rows, n_cols]`` table, leaves the cells where it
    is True blank and unwritten, like cells that are NaN.

    Returns:
        The matplotlib ``Axes`` drawn on.

    Raises:
        ValueError: if ``values`` is not 2-D, or the labels or ``mask`` do not
            match its shape.
    """
    import seaborn as sns

    try:
        if np.iscomplexobj(as_numpy(values)):
            raise TypeError("complex")
        values = as_numpy(values, dtype=float)  # [n_rows, n_cols]; NaN allowed (chapter 6)
    except (TypeError, ValueError):
        raise ValueError(
            "heatmap needs a rectangular 2-D table of real numbers [n_rows, n_cols]; "
            f"got {type(values).__name__}"
        ) from None
    if values.ndim != 2 or values.size == 0 or values.size > MAX_CELLS:
        raise ValueError(
            f"heatmap needs a 2-D table [n_rows, n_cols] of 1 to {MAX_CELLS} cells, each "
            f"written out; got shape {tuple(values.shape)}"
        )
    if len(row_labels) != values.shape[0] or len(col_labels) != values.shape[1]:
        raise ValueError(
            f"labels do not match the table: values has shape {values.shape}, "
            f"got {len(row_labels)} row labels and {len(col_labels)} column labels"
        )
    if mask is not None:
        mask = as_numpy(mask, dtype=bool)  # [n_rows, n_cols]
        if mask.shape != values.shape:
            raise ValueError(
                f"mask must have the shape of values {values.shape}; got shape {mask.shape}"
            )
    if ax is None:
        _, ax = plt.subplots()
    with _no_forced_draw(ax.figure):
        sns.heatmap(
            values,
            ax=ax,
            mask=mask,
            annot=True,
            fmt=fmt,
            annot_kws={"fontsize": 10},
            cmap=cmap,
            vmin=vmin,
            vmax=vmax,
            cbar=colorbar,
            xticklabels=list(col_labels),
            yticklabels=list(row_labels),
        )
    ax.tick_params(axis="both", labelrotation=0, length=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(False)
    return ax


def score_distributions(
    dots_by_dk: Mapping[int, ArrayLike], *, title: str = "Scores of random queries and keys"
) -> Any:
    """Histograms of dot products ``q · k``, raw (left) and divided by sqrt(d_k) (right) (chapter 4).

    ``dots_by_dk`` maps each ``d_k`` to a ``[n_pairs]`` array of dot products of
    random unit-variance vectors with ``d_k`` entries. The raw scores spread out
    like ``sqrt(d_k)``; the scaled ones share one shape. One colour per ``d_k``.

    Returns:
        The matplotlib ``Figure``, with two ``Axes``.

    Raises:
        ValueError: if ``dots_by_dk`` is empty, a key is not a positive integer,
            or a value is not a 1-D array.
    """
    import pandas as pd
    import seaborn as sns

    if not dots_by_dk:
        raise ValueError("dots_by_dk must map at least one d_k to its dot products; got none")
    frames = []
    for d_k, dots in dots_by_dk.items():
        if not isinstance(d_k, int | np.integer) or isinstance(d_k, bool) or d_k < 1:
            raise ValueError(f"dots_by_dk keys must be positive integers d_k; got {d_k!r}")
        dots = as_numpy(dots, dtype=float)  # [n_pairs]
        check_ndim(f"dots_by_dk[{d_k}]", dots, (1,), "[n_pairs]")
        frames.append(
            pd.DataFrame({"d_k": f"$d_k$ = {d_k}", "raw": dots, "scaled": dots / np.sqrt(d_k)})
        )
    data = pd.concat(frames, ignore_index=True)
    palette = list(OKABE_ITO[: len(dots_by_dk)])
    fig, axes = plt.subplots(1, 2, figsize=(8.8, 3.6))
    panels = (
        ("raw", r"raw score $q \cdot k$", "Raw: wider as $d_k$ grows"),
        ("scaled", r"scaled score $q \cdot k / \sqrt{d_k}$", "Scaled: one shape"),
    )
    for ax, (column, xlabel, panel_title) in zip(axes, panels, strict=True):
        sns.histplot(
            data,
            x=column,
            hue="d_k",
            stat="density",
            common_norm=False,
            element="step",
            fill=False,
            bins=40,
            palette=palette,
            ax=ax,
        )
        ax.set_xlabel(xlabel)
        ax.set_ylabel("density")
        ax.set_title(panel_title)
    axes[1].get_legend().set_title(None)
    axes[0].get_legend().remove()
    fig.suptitle(title)
    return fig


def seed_band(
    curves: Mapping[Any, Mapping[str, Sequence[float]]],
    x: str,
    y: str,
    *,
    title: str,
    ylabel: str,
    xlabel: str = "training step",
    ax: Any = None,
    color: str = OKABE_ITO[0],
) -> Any:
    """One measurement over several training runs: the median and the band they span (chapter 11).

    ``curves`` maps each seed to a record of its run, where ``curves[seed][x]``
    and ``curves[seed][y]`` are equally long sequences (training steps and, say,
    the accuracy at each). Draws each seed as a thin grey line, their median as
    a thick line and a band from the lowest seed to the highest. The median, not
    the mean: one run far above the rest (a loss on a log scale) cannot drag it.

    Returns:
        The matplotlib ``Axes`` drawn on.

    Raises:
        ValueError: if ``curves`` is empty, or a seed's record lacks ``x`` or
            ``y`` or holds them with different lengths.
    """
    import pandas as pd
    import seaborn as sns

    if not curves:
        raise ValueError("curves must hold at least one seed's record; got none")
    frames = []
    for seed, record in curves.items():
        if x not in record or y not in record:
            raise ValueError(f"curves[{seed!r}] must hold {x!r} and {y!r}; got {sorted(record)}")
        xs = as_numpy(record[x], dtype=float)  # [n_points]
        ys = as_numpy(record[y], dtype=float)  # [n_points]
        if xs.ndim != 1 or xs.shape != ys.shape:
            raise ValueError(
                f"curves[{seed!r}][{x!r}] and [{y!r}] must be 1-D and equally long; "
                f"got shapes {list(xs.shape)} and {list(ys.shape)}"
            )
        frames.append(pd.DataFrame({"seed": str(seed), x: xs, y: ys}))
    data = pd.concat(frames, ignore_index=True)
    if ax is None:
        _, ax = plt.subplots()
    sns.lineplot(data, x=x, y=y, units="seed", estimator=None, color="0.6", lw=0.7, ax=ax)
    sns.lineplot(
        data,
        x=x,
        y=y,
        estimator="median",
        errorbar=("pi", 100),
        color=color,
        lw=2,
        label=f"median of {len(curves)} seeds",
        ax=ax,
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax
