"""Tensor shapes drawn as boxes and tables: broadcasting (chapter 6), heads (chapter 7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Patch, Rectangle
from numpy.typing import ArrayLike

from lessons._validate import as_numpy, check_ndim

from ..figures import OKABE_ITO
from .parts import clear_frame, rounded_box

__all__ = ["broadcast_diagram", "number_grid", "split_heads_diagram"]

_GREY = "#BBBBBB"  # an axis the shape does not have


def broadcast_diagram(
    shapes: Mapping[str, Sequence[int]], axis_names: Sequence[str], *, title: str
) -> Any:
    """How each shape stretches to the first one, axes lined up from the right (chapter 6).

    ``shapes`` maps a name to a shape; the first entry is the target (the
    attention weights ``[B, h, n_q, n_k]``), ``axis_names`` names its axes. Each
    axis of each shape is a box: blue where it already has the target's size,
    orange where a size 1 is repeated, grey and dashed where it is missing.

    Returns:
        The matplotlib ``Axes`` drawn on.

    Raises:
        ValueError: if ``shapes`` is empty, ``axis_names`` does not name every axis
            of the target, or a shape does not broadcast to the target.
    """
    if not shapes:
        raise ValueError("shapes must hold at least the target shape; got none")
    target = tuple(next(iter(shapes.values())))
    if len(axis_names) != len(target):
        raise ValueError(
            f"axis_names must name the {len(target)} axes of the target {list(target)}; "
            f"got {list(axis_names)}"
        )
    for name, shape in shapes.items():
        try:
            fits = np.broadcast_shapes(tuple(shape), target) == target
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"shapes[{name!r}] {list(shape)} does not broadcast to {list(target)}")
    colours = {"full": OKABE_ITO[0], "one": OKABE_ITO[1], "none": _GREY}
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for i, shape in enumerate(shapes.values()):
        y = len(shapes) - 1 - i
        aligned = (None,) * (len(target) - len(shape)) + tuple(shape)
        for j, (size, full) in enumerate(zip(aligned, target, strict=True)):
            if size is None:
                kind, text = "none", f"none → {full}"
            elif size == 1 and full != 1:
                kind, text = "one", f"1 → {full}"
            else:
                kind, text = "full", str(size)
            style = {"linestyle": "--" if kind == "none" else "-", "alpha": 0.85}
            rounded_box(ax, (j, y), (0.84, 0.64), colours[kind], 0.02, **style)
            colour = "white" if kind == "full" else "black"
            ax.text(j, y, text, ha="center", va="center", color=colour)
    ax.set_xlim(-0.6, len(target) - 0.4)
    ax.set_ylim(-0.6, len(shapes) - 0.4)
    ax.set_xticks(range(len(target)), labels=list(axis_names))
    ax.xaxis.tick_top()
    labels = [f"{k}\n{list(s)}" for k, s in reversed(list(shapes.items()))]
    ax.set_yticks(range(len(shapes)), labels=labels)
    clear_frame(ax)
    ax.set_xlabel("axis, lined up from the right")
    ax.set_ylabel("tensor and its shape")
    ax.set_title(title, pad=30)
    meanings = {"full": "same size as the weights", "one": "size 1, repeated"}
    meanings["none"] = "missing, counts as 1"
    legend = [Patch(facecolor=colours[kind], label=text) for kind, text in meanings.items()]
    # The legend is wider than the axes: it sits centred in a strip the layout keeps free.
    fig.set_layout_engine("tight", rect=(0, 0.08, 1, 1))  # (left, bottom, right, top)
    fig.legend(handles=legend, loc="lower center", ncol=3, fontsize=9)
    return ax


def number_grid(
    ax: Any,
    values: ArrayLike,
    corner: tuple[float, float],
    colours: Sequence[Sequence[str]],
    label: str,
) -> Any:
    """Draw a ``[rows, cols]`` table of integers as coloured cells, top-left at ``corner`` (chapter 7).

    ``colours[i][j]`` fills cell ``(i, j)``; ``label`` is written above the table.

    Returns:
        The ``Axes`` drawn on.

    Raises:
        ValueError: if ``values`` is not 2-D or ``colours`` does not match its shape.
    """
    values = as_numpy(values)  # [rows, cols]
    check_ndim("values", values, (2,), "[rows, cols]")
    rows, cols = values.shape
    if len(colours) != rows or any(len(row) != cols for row in colours):
        raise ValueError(f"colours must give one colour per cell of values {list(values.shape)}")
    x0, y0 = corner
    for (i, j), v in np.ndenumerate(values):
        ax.add_patch(
            Rectangle(
                (x0 + j, y0 - i - 1), 1, 1, facecolor=colours[i][j], edgecolor="white", alpha=0.45
            )
        )
        ax.text(x0 + j + 0.5, y0 - i - 0.5, f"{v:.0f}", ha="center", va="center", fontsize=9)
    ax.text(x0 + cols / 2, y0 + 0.3, label, ha="center", va="bottom")
    return ax


def split_heads_diagram(X: ArrayLike, heads: ArrayLike, *, title: str) -> Any:
    """A sequence ``X`` ``[n, d_model]`` beside its heads ``[h, n, d_k]``, one colour a head (chapter 7).

    Returns:
        The matplotlib ``Axes`` drawn on.

    Raises:
        ValueError: if the shapes are not ``[n, d_model]`` and ``[h, n, d_model / h]``.
    """
    X = as_numpy(X)  # [n, d_model]
    heads = as_numpy(heads)  # [h, n, d_k]
    check_ndim("X", X, (2,), "[n, d_model]")
    check_ndim("heads", heads, (3,), "[h, n, d_k]")
    h, n, d_k = heads.shape
    if X.shape != (n, h * d_k) or h > len(OKABE_ITO):
        raise ValueError(
            f"heads must have shape [h, n, d_model / h] for X of shape {list(X.shape)}; "
            f"got shape {list(heads.shape)}"
        )
    fig, ax = plt.subplots(figsize=(9.6, 3.6))
    colours = [[OKABE_ITO[j // d_k] for j in range(h * d_k)] for _ in range(n)]
    number_grid(ax, X, (0, 0), colours, f"X: [n, d_model] = [{n}, {h * d_k}]")
    for i in range(n):
        ax.text(-0.3, -i - 0.5, f"token {i}", ha="right", va="center")
    start = h * d_k + 0.5
    ax.annotate(
        "",
        xy=(start + 2.7, -n / 2),
        xytext=(start, -n / 2),
        arrowprops={"arrowstyle": "->", "lw": 1.5},
    )
    ax.text(start + 1.35, -n / 2 + 0.4, "split_heads", ha="center", va="bottom", fontsize=9)
    left = start + 3.5
    for i in range(h):
        block = [[OKABE_ITO[i]] * d_k for _ in range(n)]
        number_grid(ax, heads[i], (left + (d_k + 1.5) * i, 0), block, f"head {i}: [{n}, {d_k}]")
    right = left + (d_k + 1.5) * h - 1.5
    stacked = f"stacked: [h, n, d_k] = [{h}, {n}, {d_k}]"
    ax.text((left + right) / 2, -n - 0.6, stacked, ha="center", va="top")
    ax.set_xlim(-2.5, right + 0.5)
    ax.set_ylim(-n - 1.2, 1.2)
    clear_frame(ax, title)
    return ax
