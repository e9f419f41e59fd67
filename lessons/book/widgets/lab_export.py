"""How chapter 11's lab carries a trained model into the page: rounded, and proved exact.

``lessons.lab`` embeds an ``AttentionModel``'s weights in the page, where a forward
pass written in JavaScript runs them. Rounded weights keep the page small; this module
finds the fewest decimals with which the rounded model still predicts exactly what
the model predicts, for every example and every set of blocked keys, by a margin far
above the rounding noise of two different implementations (``export_decimals``).
``cls_logits`` computes those predictions for many masks at once.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from lessons.training import AttentionModel

__all__ = [
    "ALL_SUBSETS_UP_TO",
    "MARGIN",
    "blocked_keep",
    "cls_logits",
    "export_decimals",
    "rounded_model",
]

#: The rounded model's two best logits must differ by more than this, under every mask.
MARGIN = 1e-9

#: With at most this many positions every set of blocked keys is checked; past it, single ones.
ALL_SUBSETS_UP_TO = 10

#: Below this, a softmax denominator has lost precision to underflow: compute it directly.
_TINY = 1e-250


def blocked_keep(n: int, blocked: Sequence[int]) -> torch.Tensor:
    """The keep-mask ``[n]`` (True = may attend) that blocks the key positions ``blocked``."""
    keep = torch.ones(n, dtype=torch.bool)  # [n_k]
    keep[list(blocked)] = False
    return keep


def rounded_model(model: AttentionModel, decimals: int | None) -> AttentionModel:
    """A copy of ``model`` with every parameter rounded to ``decimals`` (None: unchanged)."""
    twin = copy.deepcopy(model).eval()
    if decimals is not None:
        with torch.no_grad():
            for p in twin.parameters():
                p.copy_(torch.round(p, decimals=decimals))
    return twin


def cls_logits(model: AttentionModel, tokens: torch.Tensor, keeps: torch.Tensor) -> torch.Tensor:
    """The ``[CLS]`` logits ``[M, N, n_classes]`` of ``tokens [N, n]`` under each keep-mask of ``keeps [M, n]``.

    ``AttentionModel.forward`` for the one query its read-out uses, folded so that
    many masks cost one pass: a key's value goes through ``W_O`` and the read-out
    on its own (both are linear), and the mask only changes the weights that mix
    them. The softmax's exponentials are computed once, shifted by each example's
    largest score; a mask keeps some of them and renormalises, so all masks together
    are two matrix products. (Where a mask keeps only keys whose exponentials
    underflow, the masked softmax is computed directly instead.) A query whose keys
    are all blocked gets weights 0, as in ``lessons.attention``.
    """
    return _mixed(_folded(model, tokens), keeps)


def _folded(model: AttentionModel, tokens: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """What every mask shares: scores ``[N, n]``, each key's logits ``[N, n, C]``, the bias ``[C]``."""
    n, d = tokens.shape[1], model.attention.d_model
    att, read = model.attention, model.readout
    w_q, w_k, w_v = att.in_proj.weight.chunk(3)  # [d, d] each ([out, in])
    b_q, b_k, b_v = (None,) * 3 if att.in_proj.bias is None else att.in_proj.bias.chunk(3)
    with torch.no_grad():
        x = model.embed(tokens) + model.positions[:n]  # [N, n, d]
        q = F.linear(x[:, 0], w_q, b_q)  # [N, d]: the [CLS] query
        scores = (F.linear(x, w_k, b_k) @ q[:, :, None])[..., 0] / math.sqrt(d)  # [N, n]
        each = F.linear(F.linear(F.linear(x, w_v, b_v), att.out_proj.weight), read.weight)
        bias = att.out_proj.bias if att.out_proj.bias is not None else torch.zeros(d)
        const = read(bias.to(x.dtype))  # [n_classes]
    return scores, each, const


def _mixed(folded: tuple[torch.Tensor, ...], keeps: torch.Tensor) -> torch.Tensor:
    """The logits ``[M, N, C]`` under each keep-mask of ``keeps [M, n]``, from ``_folded``."""
    scores, each, const = folded
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)  # [N, n], max 1
    kept = keeps.to(e.dtype)  # [M, n]: 1 where a key may be attended
    total = kept @ e.T  # [M, N]: each softmax's denominator
    if bool(((total < _TINY) & keeps.any(dim=-1)[:, None]).any()):
        z = scores[None].masked_fill(~keeps[:, None, :], -math.inf)  # [M, N, n]
        weights = torch.softmax(z, dim=-1).nan_to_num(0.0)  # [M, N, n]; all blocked: 0
        return torch.einsum("mbk,bkc->mbc", weights, each) + const  # [M, N, C]
    mixed = torch.einsum("mk,bkc->mbc", kept, e[..., None] * each)  # [M, N, C]
    total = torch.where(total > 0, total, 1.0)  # all blocked: weights 0, no division by 0
    return mixed / total[..., None] + const  # [M, N, C]


def _decided(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The predicted classes and the gap between the two best logits, ``[..., N]`` each."""
    top = logits.sort(dim=-1, descending=True).values  # [..., N, C]
    return logits.argmax(dim=-1), top[..., 0] - top[..., 1]


def export_decimals(model: AttentionModel, tokens: torch.Tensor) -> int | None:
    """The fewest decimals (2 to 12) that keep every prediction of ``model`` on ``tokens [N, n]``.

    Checked for every set of blocked keys (every single one when ``n`` is above
    ``ALL_SUBSETS_UP_TO``): wherever the model's two best logits are more than
    ``MARGIN`` apart, the rounded model must predict the same class, with its own
    two best logits more than ``MARGIN`` apart. (Where the model itself ties, no two
    implementations need agree.) None when no rounding does: the page then
    carries the weights in full.
    """
    n = tokens.shape[1]
    if n <= ALL_SUBSETS_UP_TO:
        blocks = [b for r in range(n + 1) for b in itertools.combinations(range(n), r)]
    else:
        blocks = [(), *((p,) for p in range(n))]
    keeps = torch.stack([blocked_keep(n, b) for b in blocks])  # [M, n]
    chunks = keeps.split(64)
    folded = _folded(model, tokens)
    wanted = [_decided(_mixed(folded, chunk)) for chunk in chunks]
    for decimals in range(2, 13):
        folded = _folded(rounded_model(model, decimals), tokens)
        for chunk, (want, want_gap) in zip(chunks, wanted, strict=True):
            got, gap = _decided(_mixed(folded, chunk))  # [m, N] each
            if bool(((want_gap > MARGIN) & ((got != want) | (gap <= MARGIN))).any()):
                break
        else:
            return decimals
    return None
