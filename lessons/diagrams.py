"""The chapters' diagrams: pictures of an idea, drawn in code so a reader need not scroll past it.

Each function draws one figure of one chapter and names it: two vectors at an
angle (chapter 2), masks broadcast to the weights' shape (chapter 6), tables of
numbers split into heads (chapter 7), and the two ways to wire a transformer
block (chapter 9). Colours come from ``lessons.plots.OKABE_ITO``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Circle, FancyBboxPatch, Patch, Rectangle
from numpy.typing import ArrayLike

from ._validate import as_numpy, check_ndim
from .plots import OKABE_ITO

__all__ = [
    "broadcast_diagram",
    "clear_frame",
    "norm_placement",
    "number_grid",
    "split_heads_diagram",
    "vector_pairs",
]

_GREY = "#BBBBBB"


def vector_pairs(a: ArrayLike, bs: ArrayLike, *, title: str) -> Any:
    """One panel per row of ``bs`` ``[n_pairs, 2]``: arrows ``a`` ``[2]`` and ``b`` from the origin (chapter 2).

    Each panel's title gives ``a · b`` and the angle between them, so the reader
    sees the dot product follow the angle. Panels sit two to a row.

    Returns:
        The matplotlib ``Figure``.

    Raises:
        ValueError: if ``a`` is not ``[2]``, ``bs`` not ``[n_pairs, 2]``, or a vector is zero.
    """
    a = as_numpy(a, dtype=float)  # [2]
    bs = as_numpy(bs, dtype=float)  # [n_pairs, 2]
    if a.shape != (2,):
        raise ValueError(f"a must have shape [2]; got shape {list(a.shape)}")
    if bs.ndim != 2 or bs.shape[1] != 2 or len(bs) == 0:
        raise ValueError(f"bs must have shape [n_pairs, 2]; got shape {list(bs.shape)}")
    if not np.linalg.norm(a) or not np.linalg.norm(bs, axis=1).all():
        raise ValueError("a and every row of bs must be non-zero: a zero vector has no angle")
    n_rows = (len(bs) + 1) // 2
    fig, axes = plt.subplots(n_rows, 2, figsize=(6.4, 3.0 * n_rows), squeeze=False)
    reach = np.abs(np.vstack([a, bs])).max() * 1.2
    for ax, b in zip(axes.flat, bs, strict=False):  # a spare panel stays empty
        cosine = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        angle = np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))
        # b first, so a stays visible on top where they overlap; labels beside the tips
        for vector, name, colour, side in ((b, "b", OKABE_ITO[1], 1), (a, "a", OKABE_ITO[0], -1)):
            ax.annotate(
                "",
                xy=vector,
                xytext=(0, 0),
                arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2},
            )
            normal = np.array([-vector[1], vector[0]]) / np.linalg.norm(vector)  # [2]
            tip = vector * 1.05 + side * 0.35 * normal  # [2]
            ax.text(*tip, name, color=colour, fontsize=12, ha="center", va="center")
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach * 0.75, reach * 0.85)
        ax.set_aspect("equal")
        ax.set_xlabel("first entry")
        ax.set_ylabel("second entry")
        ax.set_title(f"a · b = {a @ b:.1f}, θ = {angle:.0f}°", fontsize=11)
    for ax in axes.flat[len(bs) :]:
        ax.set_visible(False)
    fig.suptitle(title)
    return fig


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
            _rounded_box(ax, (j, y), (0.84, 0.64), colours[kind], 0.02, **style)
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
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.45, -0.12), ncol=3, fontsize=9)
    return ax


def clear_frame(ax: Any, title: str | None = None) -> Any:
    """Take away grid, ticks and spines, for a diagram drawn in data coordinates (chapters 6, 7)."""
    ax.tick_params(length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title is not None:
        ax.set_aspect("equal")
        ax.autoscale_view()
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(title)
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


_BLOCK_COLOURS = {"attention": OKABE_ITO[4], "feed-forward": OKABE_ITO[1], "norm": OKABE_ITO[2]}
_BRANCH, _WIDTH, _R = 1.6, 1.7, 0.18  # branch x, box width, radius of the + sign


def _rounded_box(
    ax: Any, centre: tuple, size: tuple, colour: str, pad: float, **style: Any
) -> None:
    """A rounded box with a black edge, ``size`` = (width, height), centred on ``centre``."""
    corner = (centre[0] - size[0] / 2, centre[1] - size[1] / 2)
    box = FancyBboxPatch(corner, *size, boxstyle=f"round,pad={pad}", facecolor=colour, **style)
    ax.add_patch(box)
    box.set_edgecolor("black")


def _box(ax: Any, xc: float, yc: float, text: str, kind: str) -> None:
    _rounded_box(ax, (xc, yc), (_WIDTH, 0.6), _BLOCK_COLOURS[kind], 0.04)
    ax.text(xc, yc, text, ha="center", va="center", fontsize=9)


def _arrow(ax: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.annotate("", end, start, arrowprops={"arrowstyle": "->"})


def _block(ax: Any, pre_norm: bool) -> None:
    """One block from x (bottom) to y (top): two residual branches, norms placed by ``pre_norm``."""
    y0 = 0.0  # where the main path is now
    ax.text(0, y0 - 0.1, "x", ha="center", va="top", fontsize=12)
    for sub in ("attention", "feed-forward"):
        branch = [("LayerNorm", "norm")] if pre_norm else []
        branch.append((sub, sub))
        ax.plot([0, _BRANCH], [y0 + 0.3, y0 + 0.3], color="black")
        _arrow(ax, (_BRANCH, y0 + 0.3), (_BRANCH, y0 + 0.7))
        for k, (text, kind) in enumerate(branch):
            _box(ax, _BRANCH, y0 + 1.0 + k, text, kind)
            if k:
                _arrow(ax, (_BRANCH, y0 + 0.3 + k), (_BRANCH, y0 + 0.7 + k))
        top = y0 + 0.8 + len(branch)  # height of the + sign
        ax.plot([_BRANCH, _BRANCH], [top - 0.5, top], color="black")
        _arrow(ax, (_BRANCH, top), (_R, top))
        _arrow(ax, (0, y0), (0, top - _R))
        ax.add_patch(Circle((0, top), _R, facecolor="white", edgecolor="black"))
        ax.text(0, top, "+", ha="center", va="center", fontsize=11)
        y0 = top + _R
        if not pre_norm:
            _arrow(ax, (0, y0), (0, y0 + 0.22))
            _box(ax, 0, y0 + 0.52, "LayerNorm", "norm")
            y0 += 0.82
    _arrow(ax, (0, y0), (0, y0 + 0.5))
    ax.text(0, y0 + 0.55, "y", ha="center", va="bottom", fontsize=12)


def norm_placement(*, title: str) -> Any:
    """Post-norm (left) and pre-norm (right) transformer blocks, read bottom to top (chapter 9).

    Each block has a main path from x to y and two side branches (attention,
    feed-forward) that rejoin it at a plus sign; the layer norms sit on the
    main path (post-norm) or at the start of each branch (pre-norm).

    Returns:
        The matplotlib ``Figure``, with two ``Axes``.
    """
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 5.4))
    for ax, pre_norm in zip(axes, (False, True), strict=True):
        _block(ax, pre_norm)
        ax.set_xlim(-1.0, 2.6)
        ax.set_ylim(-0.6, 7.0)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title("pre-norm (GPT-2 and later)" if pre_norm else "post-norm (original)")
    fig.suptitle(title)
    return fig
