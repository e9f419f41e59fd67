"""The one rule for a mask given to ``lessons.attention`` or ``MultiHeadAttention`` (chapter 6).

Private, shared by both: a mask is boolean (True = may attend) and broadcasts *to* the
attention weights ``[..., n_q, n_k]``, never adding axes to them. A float mask is refused
with advice for what it most likely holds: an additive 0/-inf mask (``mask == 0``), a 0/1
mask (either reading), or a bias such as ALiBi's (add it to the scores, chapter 8). A
square causal mask given with fewer queries than keys is pointed at the offset rule, and
with more queries than keys at ``window_mask``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._validate import as_numpy, is_tensor

__all__ = ["checked_mask"]


def checked_mask(mask: Any, scores_shape: tuple[int, ...], like: Any) -> Any:
    """Validate a boolean keep-mask and return it as the same kind as the scores.

    The mask must broadcast *to* ``scores_shape`` (as ``F.scaled_dot_product_attention``
    requires): it may have fewer axes or axes of size 1, never more axes than the scores,
    which would silently give an output of another shape.
    """
    try:
        dtype = mask.dtype if is_tensor(mask) else np.asarray(mask).dtype
    except ValueError:
        dtype = "object (a ragged list)"
    if dtype not in (torch.bool, np.bool_):
        raise ValueError(
            f"mask must be boolean (True = may attend, False = blocked); got dtype {dtype}. "
            + _float_mask_advice(mask, dtype)
        )
    shape = tuple(mask.shape) if is_tensor(mask) else np.shape(mask)
    try:
        fits = np.broadcast_shapes(shape, scores_shape) == tuple(scores_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {list(shape)} does not broadcast to the attention weights' "
            f"shape {list(scores_shape)} ([..., n_q, n_k]): it may drop leading axes or "
            "have size 1 on an axis, but must not add axes or change a size"
            + _offset_hint(shape, scores_shape)
        ) from None
    if like is None:
        return as_numpy(mask, dtype=bool)
    return torch.as_tensor(mask if is_tensor(mask) else np.asarray(mask), device=like.device)


def _float_mask_advice(mask: Any, dtype: Any) -> str:
    """What to do with a mask that is not boolean, for what it most likely holds."""
    try:
        values = as_numpy(mask.float() if is_tensor(mask) else mask).astype(np.float64)
    except (TypeError, ValueError, RuntimeError):
        return "pass a boolean array or tensor of the scores' shape [..., n_q, n_k]"
    finite = values[np.isfinite(values)]
    if np.isnan(values).any() or np.isposinf(values).any():
        return "it holds NaN or +inf, which is neither a mask nor a bias"
    blocked = values <= -1e4  # -inf, or a large negative stand-in such as -1e9
    if not (finite != 0).any() or (not (values[~blocked] != 0).any() and blocked.any()):
        return (
            "It holds only 0 and large negative entries: an additive mask (chapter 6), "
            "0 where a key may be seen. Turn it into a boolean keep-mask with `mask == 0`"
        )
    if set(np.unique(values).tolist()) <= {0.0, 1.0}:
        return (
            "It holds 0 and 1: if 1 means 'may attend' (a padding mask from a tokenizer), "
            "use `mask == 1`; if 1 means 'blocked', use `mask == 0`"
        )
    return (
        "It holds other values too, so it is an additive bias (ALiBi, a learned bias; "
        "chapter 8), not a mask: `mask == 0` would block nearly every key. Add the bias "
        "to the scaled scores yourself, softmax(Q K^T / sqrt(d_k) + bias) V, or pass it "
        "to F.scaled_dot_product_attention as attn_mask, which adds a float mask"
    )


def _offset_hint(shape: tuple[int, ...], scores_shape: tuple[int, ...]) -> str:
    """A pointer to the offset rule (fewer queries than keys) or window_mask (more), for a square mask."""
    n_q, n_k = scores_shape[-2:]
    square = len(shape) >= 2 and shape[-2] == shape[-1] in (n_q, n_k)
    if not square or n_q == n_k:
        return ""
    if n_q > n_k:
        return (
            f". With {n_q} queries and {n_k} keys a causal mask is not square: build it from "
            f"positions with lessons.window_mask(q_positions, k_positions) (chapter 13); "
            f"window_mask(np.arange({n_q}), np.arange({n_k})) is SDPA's is_causal, query i "
            "seeing keys 0..i"
        )
    return (
        f". With {n_q} queries and {n_k} keys a causal mask is not causal_mask(n): when the "
        f"queries are the last {n_q} tokens (new tokens after cached ones, chapter 10's KV "
        f"cache), keep the last {n_q} rows, causal_mask({n_k})[-{n_q}:], or build it from "
        "positions with lessons.window_mask(q_positions, k_positions) (chapter 13)"
    )
