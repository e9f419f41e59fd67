"""Scaled dot-product attention, the reference version every chapter checks against.

In the book's notation: raw scores ``S = Q K^T``, scaled scores ``Z = S / sqrt(d_k)``
(plus a mask, ``-inf`` on blocked keys), weights ``A = softmax(Z)`` along each row,
output ``O = A V``.

Taught in chapter 4 (Scaled dot-product attention), worked by hand in chapter 5
and masked in chapter 6. One function serves NumPy arrays (to read and to print)
and torch tensors (so gradients flow, chapters 4, 6 and 11). It equals
``torch.nn.functional.scaled_dot_product_attention``, which the tests assert.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from ._masks_in import checked_mask
from ._validate import (
    InputTypeError,
    all_finite,
    broadcast,
    check_budget,
    check_qkv_shapes,
    float_input,
    is_tensor,
)
from .softmax import softmax

__all__ = ["attention"]


def attention(Q: Any, K: Any, V: Any, mask: Any = None) -> tuple[Any, Any]:
    """Scaled dot-product attention: ``O = softmax(Q K^T / sqrt(d_k)) V`` (chapter 4).

    Step by step: raw scores ``S = Q K^T`` ``[..., n_q, n_k]``, scaled scores
    ``Z = S / sqrt(d_k)`` (with ``-inf`` where the mask is False), weights
    ``A = softmax(Z)`` along the last axis, output ``O = A V``.

    Shapes (leading dimensions ``...``, such as ``[B]`` or ``[B, h]``, broadcast)::

        Q     [..., n_q, d_k]   one query row per position that asks
        K     [..., n_k, d_k]   one key row per position that can be looked at
        V     [..., n_k, d_v]   one value row per key
        mask  broadcastable to [..., n_q, n_k], boolean, True = "may attend"

    The mask must broadcast *to* the weights' shape: it may have fewer leading axes or
    axes of size 1, but not more axes (a ``[B, 1, n, n]`` mask with ``[B, n, d_k]``
    inputs is refused, as ``F.scaled_dot_product_attention`` refuses it). Only boolean
    masks are taken: a float mask is refused with advice for what it holds (an
    additive mask of 0 and ``-inf`` becomes ``mask == 0``; a bias such as ALiBi's is
    added to the scores instead, chapter 8).

    Returns ``(output, weights)``, that is ``(O, A)``, with ``output [..., n_q, d_v]``
    and ``weights [..., n_q, n_k]``. Every row of ``weights`` sums to 1 and masked
    entries are exactly 0. A query whose mask row is all ``False`` may attend to
    nothing: its weights are all 0 and its output row is 0, as
    ``F.scaled_dot_product_attention`` gives on the CPU in recent PyTorch
    (``nn.MultiheadAttention`` gives NaN there; chapter 6 shows both).

    NumPy arrays (or nested lists) in give float64 NumPy arrays out; torch
    tensors in give torch tensors out, computed with torch operations, so
    gradients flow back to ``Q``, ``K`` and ``V``. Half precision (float16,
    bfloat16) is computed in float32 and returned in its own dtype, as
    ``F.scaled_dot_product_attention`` does. The mask may be either kind.

    Raises:
        ValueError: naming the shapes at fault when ``Q`` and ``K`` disagree on
            ``d_k``, ``V`` does not have one row per key, the leading dimensions do
            not broadcast, the mask is not boolean or does not broadcast, the inputs
            mix NumPy and torch, an input is empty or holds NaN or inf, the scaled
            scores ``Z`` overflow, or the weights would not fit in ``lessons.MEMORY_BUDGET``.
        TypeError: naming the input, if it is complex or not numbers.
    """
    Q, K, V, keep, half = _checked_inputs(Q, K, V, mask)  # each input checked once, here
    d_k = Q.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):  # NumPy: an overflow is reported below
        S = Q @ K.swapaxes(-2, -1)  # [..., n_q, n_k] raw scores
    Z = _finite(S / math.sqrt(d_k))  # [..., n_q, n_k] scaled scores
    if keep is not None:  # chapter 6: a blocked key scores -inf, so its weight is exactly 0
        Z = torch.where(keep, Z, -math.inf) if is_tensor(Z) else np.where(keep, Z, -math.inf)
    A = _row_softmax(Z)  # [..., n_q, n_k] weights: each row sums to 1 (or is 0: all blocked)
    O = A @ V  # [..., n_q, d_v]
    if half is not None:  # float16 / bfloat16 were computed in float32, as PyTorch does
        return O.to(half), A.to(half)
    return O, A


def _checked_inputs(Q: Any, K: Any, V: Any, mask: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``Q, K, V`` as one kind of float array, the mask as the same kind, the half dtype if any.

    Every rule of ``attention``'s Raises section is checked here, once per call.
    """
    use_torch = _check_kinds(Q, K, V)
    half = None
    if use_torch:
        if not (Q.dtype == K.dtype == V.dtype) or not Q.dtype.is_floating_point:
            raise ValueError(
                "Q, K and V must share one floating dtype; got "
                f"{Q.dtype}, {K.dtype} and {V.dtype} (convert with .float() or .double())"
            )
        if Q.dtype in (torch.float16, torch.bfloat16):
            half = Q.dtype
            Q, K, V = Q.float(), K.float(), V.float()
    else:
        Q, K, V = (float_input(name, a) for name, a in zip("QKV", (Q, K, V), strict=True))
    check_qkv_shapes(Q, K, V)
    leading = broadcast({"Q": Q.shape[:-2], "K": K.shape[:-2], "V": V.shape[:-2]})
    scores_shape = (*leading, Q.shape[-2], K.shape[-2])
    check_budget("Q and K are", 8 * math.prod(scores_shape))
    keep = None if mask is None else checked_mask(mask, scores_shape, like=Q if use_torch else None)
    return Q, K, V, keep, half


def _finite(Z: Any) -> Any:
    """``Z`` itself, once it is known to hold no inf or NaN (``Q`` and ``K`` too large overflow)."""
    if not (all_finite(Z) if is_tensor(Z) else bool(np.isfinite(Z).all())):
        raise ValueError(
            "the scaled scores Z = Q K^T / sqrt(d_k) overflow to inf for these Q and K: "
            "their entries are too large for the dtype; scale Q and K down"
        )
    return Z


def _row_softmax(Z: Any) -> Any:
    """Softmax along each row of ``Z [..., n_q, n_k]``; a row whose every entry is ``-inf`` is 0.

    A query with every key blocked has nothing to weigh: its row is set to 0 before the
    softmax (no ``-inf - -inf = NaN``) and its weights to 0 after, as PyTorch's fused
    kernel gives on the CPU.
    """
    if not is_tensor(Z):
        return softmax(Z)  # chapter 2's softmax already gives an all -inf row zeros
    anything_kept = (Z > -math.inf).any(-1, keepdim=True)  # [..., n_q, 1]
    if bool(anything_kept.all()):
        return torch.softmax(Z, dim=-1)
    weights = torch.softmax(torch.where(anything_kept, Z, 0.0), dim=-1)
    return torch.where(anything_kept, weights, 0.0)


def _check_kinds(Q: Any, K: Any, V: Any) -> bool:
    """True when all three are torch tensors, False when none is; else an error."""
    tensors = [is_tensor(a) for a in (Q, K, V)]
    if all(tensors):
        for name, a in zip("QKV", (Q, K, V), strict=True):
            if a.numel() == 0:
                raise ValueError(
                    f"{name} is empty (shape {list(a.shape)}); every dimension must be >= 1"
                )
            if a.is_complex():
                raise InputTypeError(f"{name} must hold real numbers; got dtype {a.dtype}")
            if not all_finite(a):
                raise ValueError(f"{name} holds NaN or inf; attention needs finite inputs")
        return True
    if any(tensors):
        kinds = ", ".join(
            f"{name} is a {'torch tensor' if t else 'NumPy array'}"
            for name, t in zip("QKV", tensors, strict=True)
        )
        raise ValueError(f"Q, K and V must all be NumPy arrays or all torch tensors: {kinds}")
    return False
