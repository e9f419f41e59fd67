"""The pieces every diagram is built from: arrows, rounded boxes, plus signs, a bare frame.

Shared by the diagram modules of ``lessons.book.diagrams`` (chapters 6, 7 and 9), so
that an arrow or a residual "+" looks the same in every figure.
"""

from __future__ import annotations

from typing import Any

from matplotlib.patches import Circle, FancyBboxPatch

__all__ = ["arrow", "clear_frame", "plus_sign", "rounded_box"]


def arrow(ax: Any, start: tuple[float, float], end: tuple[float, float], lw: float = 1.0) -> None:
    """An arrow from ``start`` to ``end``, in data coordinates (chapters 7, 9)."""
    ax.annotate("", end, start, arrowprops={"arrowstyle": "->", "lw": lw})


def rounded_box(ax: Any, centre: tuple, size: tuple, colour: str, pad: float, **style: Any) -> Any:
    """A rounded box with a black edge, ``size`` = (width, height), centred on ``centre`` (chapters 6, 9)."""
    corner = (centre[0] - size[0] / 2, centre[1] - size[1] / 2)
    box = FancyBboxPatch(corner, *size, boxstyle=f"round,pad={pad}", facecolor=colour, **style)
    ax.add_patch(box)
    box.set_edgecolor("black")
    return box


def plus_sign(ax: Any, x: float, y: float, radius: float, zorder: float | None = None) -> None:
    """The circled "+" where a residual branch rejoins the main path (chapters 7, 9)."""
    on_top = {} if zorder is None else {"zorder": zorder}
    ax.add_patch(Circle((x, y), radius, facecolor="white", edgecolor="black", **on_top))
    text_on_top = {} if zorder is None else {"zorder": zorder + 1}
    ax.text(x, y, "+", ha="center", va="center", fontsize=11, **text_on_top)


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
