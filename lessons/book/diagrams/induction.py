"""Chapter 9's induction circuit at work: both layers' attention weights, one above the other."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt

from lessons._validate import id_tensor
from lessons.induction import InductionRun
from lessons.masks import causal_mask

from ..figures import heatmap

__all__ = ["plot_induction"]


def plot_induction(tokens: Any, run: InductionRun, index: int = 0, names: str = "") -> Any:
    """The two layers' attention weights for sequence ``index`` of ``run``, layer 1 on top (chapter 9).

    ``tokens [N, n]`` are the ids ``run`` was computed from; token ``t`` is
    labelled ``names[t]`` (letters A, B, ... by default) and ``<s>`` as itself.
    Cells a causal mask blocks are left blank. Returns the matplotlib ``Figure``.
    """
    ids = id_tensor("tokens", tokens, run.logits.shape[-1] + 1, "token ids")  # [N, n]
    letters = names or "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    V = run.logits.shape[-1]
    labels = ["<s>" if t == V else letters[t % len(letters)] for t in ids[index].tolist()]
    n = len(labels)
    blocked = ~causal_mask(n)  # [n, n], True = blank
    fig, axes = plt.subplots(2, 1, figsize=(6.4, 10.4))  # one above the other
    panels = (
        (run.A1, "layer 1: previous-token head"),
        (run.A2, "layer 2: induction head"),
    )
    for ax, (A, title) in zip(axes, panels, strict=True):
        heatmap(
            A[index].numpy(),
            labels,
            labels,
            title=title,
            ax=ax,
            fmt=".0f",
            vmin=0,
            vmax=1,
            colorbar=False,
            mask=blocked,
        )
        ax.set_xlabel("key position (its token)")
        ax.set_ylabel("query position (its token)")
    fig.suptitle("Two layers find the token after the previous occurrence")
    return fig
