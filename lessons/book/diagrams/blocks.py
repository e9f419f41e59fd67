"""The two ways to wire a transformer block, post-norm and pre-norm (chapter 9)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt

from ..figures import OKABE_ITO
from .parts import arrow, plus_sign, rounded_box

__all__ = ["norm_placement"]


_BLOCK_COLOURS = {"attention": OKABE_ITO[4], "feed-forward": OKABE_ITO[1], "norm": OKABE_ITO[2]}
_BRANCH, _WIDTH, _R = 1.6, 1.7, 0.18  # branch x, box width, radius of the + sign


def _box(ax: Any, xc: float, yc: float, text: str, kind: str) -> None:
    rounded_box(ax, (xc, yc), (_WIDTH, 0.6), _BLOCK_COLOURS[kind], 0.04)
    ax.text(xc, yc, text, ha="center", va="center", fontsize=9)


def _block(ax: Any, pre_norm: bool) -> None:
    """One block from x (bottom) to y (top): two residual branches, norms placed by ``pre_norm``."""
    y0 = 0.0  # where the main path is now
    ax.text(0, y0 - 0.1, "x", ha="center", va="top", fontsize=12)
    for sub in ("attention", "feed-forward"):
        branch = [("LayerNorm", "norm")] if pre_norm else []
        branch.append((sub, sub))
        ax.plot([0, _BRANCH], [y0 + 0.3, y0 + 0.3], color="black")
        arrow(ax, (_BRANCH, y0 + 0.3), (_BRANCH, y0 + 0.7))
        for k, (text, kind) in enumerate(branch):
            _box(ax, _BRANCH, y0 + 1.0 + k, text, kind)
            if k:
                arrow(ax, (_BRANCH, y0 + 0.3 + k), (_BRANCH, y0 + 0.7 + k))
        top = y0 + 0.8 + len(branch)  # height of the + sign
        ax.plot([_BRANCH, _BRANCH], [top - 0.5, top], color="black")
        arrow(ax, (_BRANCH, top), (_R, top))
        arrow(ax, (0, y0), (0, top - _R))
        plus_sign(ax, 0, top, _R)
        y0 = top + _R
        if not pre_norm:
            arrow(ax, (0, y0), (0, y0 + 0.22))
            _box(ax, 0, y0 + 0.52, "LayerNorm", "norm")
            y0 += 0.82
    arrow(ax, (0, y0), (0, y0 + 0.5))
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
