"""Two vectors at an angle, with their dot product (chapter 2)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

from lessons._validate import as_numpy

from ..figures import OKABE_ITO

__all__ = ["vector_pairs"]


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
