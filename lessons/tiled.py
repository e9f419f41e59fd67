"""Tiled attention with an online softmax: FlashAttention's idea, in NumPy.

Taught in chapter 10 (Complexity and efficiency). The plain formula builds the
whole ``[n_q, n_k]`` weight matrix; this version walks over blocks of keys,
keeping for every query only a running maximum, a running sum of exponentials
and a running weighted sum of values. The result is the same attention output
(equal to ``lessons.attention`` to about 1e-12 in float64), with memory that
grows like ``n`` instead of ``n^2``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_numpy,
    broadcast,
    check_budget,
    check_qkv_shapes,
    float_input,
    positive_int,
)

__all__ = ["tiled_attention"]


def tiled_attention(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, block_size: int = 128, causal: bool = False
) -> np.ndarray:
    """Exact scaled dot-product attention computed block by block (chapter 10).

    ``Q [..., n_q, d_k]``, ``K [..., n_k, d_k]``, ``V [..., n_k, d_v]`` (leading
    dimensions broadcast); returns the output ``[..., n_q, d_v]``, never holding
    more than a ``[..., block_size, block_size]`` tile of scores. It computes in
    float32 when all three inputs are float32 (to measure large ``n`` quickly),
    otherwise in float64.
    With ``causal=True`` query ``i`` attends to keys ``0..i``, as with
    ``lessons.causal_mask``. ``block_size`` need not divide ``n``.

    For each query block, every key block updates three running quantities per
    query: the largest score seen, z_max (``running_max``), the sum of
    ``exp(score - z_max)``, ℓ (``running_sum``), and the sum of
    ``exp(score - z_max) * value`` (``acc``). When z_max grows, the old ℓ and ``acc``
    are rescaled by ``exp(z_max_old - z_max_new)``; at the end ``acc / ℓ`` is the
    softmax-weighted average.

    Raises:
        ValueError: for what ``lessons.attention`` rejects (shape mismatches, empty
            inputs, NaN or inf, overflowing scores), or a ``block_size`` that is not
            a positive integer.
        TypeError: naming the input, if it is complex or not numbers.
    """
    positive_int("block_size", block_size)
    dtype = np.float32 if all(_is_float32(a) for a in (Q, K, V)) else np.float64
    Q, K, V = (float_input(name, a, dtype=dtype) for name, a in zip("QKV", (Q, K, V), strict=True))
    check_qkv_shapes(Q, K, V)
    batch = broadcast({"Q": Q.shape[:-2], "K": K.shape[:-2], "V": V.shape[:-2]})
    n_q, n_k, d_v = Q.shape[-2], K.shape[-2], V.shape[-1]
    check_budget("Q and V are", np.dtype(dtype).itemsize * math.prod(batch) * n_q * d_v)
    scale = 1.0 / math.sqrt(Q.shape[-1])
    output = np.empty(batch + (n_q, d_v), dtype=dtype)  # [..., n_q, d_v]
    for q0 in range(0, n_q, block_size):
        q1 = min(q0 + block_size, n_q)
        q = Q[..., q0:q1, :] * dtype(scale)  # [..., bq, d_k]
        running_max = np.full(batch + (q1 - q0, 1), -np.inf, dtype=dtype)  # [..., bq, 1]
        running_sum = np.zeros(batch + (q1 - q0, 1), dtype=dtype)  # [..., bq, 1]
        acc = np.zeros(batch + (q1 - q0, d_v), dtype=dtype)  # [..., bq, d_v]
        last_key = min(n_k, q1) if causal else n_k  # later keys are all masked
        for k0 in range(0, last_key, block_size):
            k1 = min(k0 + block_size, last_key)
            with np.errstate(over="ignore", invalid="ignore"):
                scores = q @ np.swapaxes(K[..., k0:k1, :], -2, -1)  # [..., bq, bk]
            if not np.isfinite(scores).all():
                raise ValueError(
                    "the scores Q K^T / sqrt(d_k) overflow to inf for these Q and K: "
                    "their entries are too large for the dtype; scale Q and K down"
                )
            if causal:
                rows = np.arange(q0, q1)[:, None]  # [bq, 1]
                cols = np.arange(k0, k1)[None, :]  # [1, bk]
                scores = np.where(cols <= rows, scores, -np.inf)
            new_max = np.maximum(running_max, scores.max(axis=-1, keepdims=True))  # [..., bq, 1]
            shift = np.where(np.isfinite(new_max), new_max, dtype(0))  # rows with nothing seen yet
            p = np.exp(scores - shift)  # [..., bq, bk], masked entries are exactly 0
            rescale = np.exp(running_max - shift)  # [..., bq, 1], 0 while nothing was seen
            running_sum = running_sum * rescale + p.sum(axis=-1, keepdims=True)
            acc = acc * rescale + p @ V[..., k0:k1, :]  # [..., bq, d_v]
            running_max = new_max
        output[..., q0:q1, :] = acc / np.where(running_sum == 0, dtype(1), running_sum)
    return output


def _is_float32(a: ArrayLike) -> bool:
    try:
        return as_numpy(a).dtype == np.float32
    except (TypeError, ValueError, RuntimeError):
        return False
