"""Keep-masks drawn side by side, so two attention patterns can be compared at a glance.

``mask_grids`` draws boolean keep-masks ``[n_q, n_k]`` as grids of 1 (may attend)
and 0 (blocked), one panel each, with queries as rows and keys as columns, the
way chapter 6 compares an encoder's full grid with a decoder's triangle and
shows a padding mask, a causal mask and the two combined. The cells are drawn
by ``lessons.heatmap`` with the ``viridis`` map, so kept and blocked cells
differ in brightness as well as hue.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

from lessons._validate import as_numpy

from ..figures import heatmap

__all__ = ["mask_grids"]

#: Width of one panel in inches; three panels fill the book's text width.
PANEL_WIDTH = 3.2


def mask_grids(
    panels: Mapping[str, ArrayLike],
    labels: Sequence[str],
    *,
    title: str,
    xlabel: str = "key",
    ylabel: str = "query",
) -> Any:
    """Draw each boolean keep-mask ``[n, n]`` of ``panels`` as a grid, side by side (chapter 6).

    ``panels`` maps a panel's title to its mask, ``True`` = may attend, shown as 1
    (bright) and ``False`` = blocked, shown as 0 (dark). ``labels`` names the ``n``
    positions, used for both the queries (rows) and the keys (columns).

    Returns:
        The matplotlib ``Figure``.

    Raises:
        ValueError: if ``panels`` is empty, a mask is not a boolean ``[n, n]`` array,
            or ``labels`` does not name its ``n`` positions.
    """
    if not panels:
        raise ValueError("panels must hold at least one mask")
    masks = {}
    for name, mask in panels.items():
        array = as_numpy(mask)  # [n, n]
        if array.dtype != np.bool_:
            raise ValueError(
                f"panel {name!r} must be a boolean keep-mask (True = may attend); "
                f"got dtype {array.dtype}"
            )
        if array.ndim != 2 or array.shape != (len(labels), len(labels)):
            raise ValueError(
                f"panel {name!r} must have shape [n, n] = [{len(labels)}, {len(labels)}] "
                f"to match labels; got shape {list(array.shape)}"
            )
        masks[name] = array
    fig, axes = plt.subplots(1, len(masks), figsize=(PANEL_WIDTH * len(masks), 3.6), squeeze=False)
    for ax, (name, mask) in zip(axes[0], masks.items(), strict=True):
        heatmap(
            mask.astype(int),  # [n, n], 1 = may attend
            labels,
            labels,
            title=name,
            xlabel=xlabel,
            ylabel=ylabel,
            ax=ax,
            fmt=".0f",
            vmin=0,
            vmax=1,
            colorbar=False,
        )
    fig.suptitle(title)
    return fig
