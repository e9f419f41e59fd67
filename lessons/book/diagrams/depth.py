"""Heads and layers in one picture: width side by side, depth one above the other.

Taught in chapter 7 (Multi-head attention), section "Heads are width, layers are
depth". ``heads_and_layers`` draws one token's residual stream going up through
``num_layers`` attention layers, each holding ``num_heads`` heads side by side.
Head colours are those of ``lessons.book.diagrams.split_heads_diagram``
(``lessons.book.figures.OKABE_ITO``), so head g has the same colour in both figures.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from lessons._validate import positive_int

from ..figures import OKABE_ITO
from .parts import arrow, plus_sign

__all__ = ["heads_and_layers"]

_STEP = 1.3  # horizontal distance between two heads' centres
_FLOOR = 2.6  # height of one layer, from its input to its output


def _layer(ax: Any, base: float, number: int, num_heads: int) -> None:
    """Layer ``number`` (counted from 1) between heights ``base`` and ``base + _FLOOR``."""
    centres = [1.6 + _STEP * g for g in range(num_heads)]
    right = centres[-1] + 0.75
    frame = FancyBboxPatch(
        (0.75, base + 0.55), right - 0.75, 1.3, boxstyle="round,pad=0.05", facecolor="#F2F2F2"
    )
    ax.add_patch(frame)
    frame.set_edgecolor("#888888")
    ax.text(right + 0.25, base + 1.2, f"layer {number}", ha="left", va="center", fontsize=10)
    ax.plot([0, centres[-1]], [base + 0.3, base + 0.3], color="black", lw=1)  # same input
    ax.plot([centres[0], centres[-1]], [base + 2.1, base + 2.1], color="black", lw=1)
    for g, x in enumerate(centres):
        arrow(ax, (x, base + 0.3), (x, base + 0.75))
        box = FancyBboxPatch(
            (x - 0.45, base + 0.8), 0.9, 0.8, boxstyle="round,pad=0.02", facecolor=OKABE_ITO[g]
        )
        ax.add_patch(box)
        box.set_alpha(0.55)
        box.set_edgecolor("black")
        ax.text(x, base + 1.2, f"head {g}", ha="center", va="center", fontsize=8)
        ax.plot([x, x], [base + 1.62, base + 2.1], color="black", lw=1)
    ax.text(
        (centres[0] + centres[-1]) / 2, base + 2.15, "concatenate, then $W_O$",
        ha="center", va="bottom", fontsize=8,
    )  # fmt: skip
    arrow(ax, (centres[0], base + 2.1), (0.2, base + 2.1))
    plus_sign(ax, 0, base + 2.1, 0.2, zorder=3)


def heads_and_layers(num_layers: int = 3, num_heads: int = 4, *, title: str) -> Any:
    """``num_layers`` attention layers of ``num_heads`` heads, read bottom to top (chapter 7).

    A thick line on the left is one token's residual stream: it starts as the
    token's embedding, every layer's heads all read it (width: side by side, in
    parallel), and the layer's output, the heads concatenated and mixed by
    ``W_O``, is added back to it; the next layer reads the sum (depth: one after
    another). Ticks mark the width (``h`` heads) and depth (``L`` layers).

    Returns:
        The matplotlib ``Figure``.

    Raises:
        ValueError: if ``num_layers`` is not an integer from 1 to 6, or
            ``num_heads`` not one from 1 to 8 (one colour a head).
    """
    positive_int("num_layers", num_layers)
    positive_int("num_heads", num_heads)
    if num_layers > 6 or num_heads > len(OKABE_ITO):
        raise ValueError(
            f"num_layers must be at most 6 and num_heads at most {len(OKABE_ITO)} to fit "
            f"the figure; got num_layers={num_layers}, num_heads={num_heads}"
        )
    right = 1.6 + _STEP * (num_heads - 1) + 0.75
    top = _FLOOR * num_layers
    width = right + 3.6  # data units, from x = -1.0 to right + 2.6
    fig, ax = plt.subplots(figsize=(7.6, 7.6 * (top + 1.9) / width + 0.4))
    for layer in range(num_layers):
        base = _FLOOR * layer
        ax.plot([0, 0], [base, base + 1.9], color=OKABE_ITO[7], lw=3)  # the residual stream
        arrow(ax, (0, base + 2.3), (0, base + _FLOOR), lw=3)
        _layer(ax, base, layer + 1, num_heads)
    ax.text(-0.3, 0.95, "the token's residual stream", ha="right", va="bottom", fontsize=9,
            rotation=90)  # fmt: skip
    ax.text(0, -0.15, "token's\nembedding", ha="center", va="top", fontsize=9)
    ax.text(0, top + 0.05, "on to what comes next", ha="center", va="bottom", fontsize=9)
    ax.annotate("", (right + 1.9, top - 0.3), (right + 1.9, 0.3), arrowprops={"arrowstyle": "<->"})
    ax.text(right + 2.0, top / 2, f"depth: L = {num_layers} layers,\none after another",
            ha="left", va="center", fontsize=9, rotation=90)  # fmt: skip
    ax.annotate("", (right - 0.1, -0.35), (1.0, -0.35), arrowprops={"arrowstyle": "<->"})
    ax.text((right + 0.9) / 2, -0.45, f"width: h = {num_heads} heads, side by side",
            ha="center", va="top", fontsize=9)  # fmt: skip
    ax.set_xlim(-1.0, right + 2.6)
    ax.set_ylim(-1.3, top + 0.6)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title)
    return fig
