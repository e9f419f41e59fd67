"""Boolean keep-masks: which keys each query may look at.

Taught in chapter 6 (Masking). Convention everywhere in this course and in
``lessons.attention``: ``True`` means "may attend", ``False`` means "blocked",
the same as a boolean ``attn_mask`` in ``torch.nn.functional.scaled_dot_product_attention``
(and the opposite of ``torch.nn.MultiheadAttention``; chapter 6 shows both).

In the book's notation a mask acts on the scaled scores: with raw scores
``S = Q K^T`` and scaled scores ``Z = S / sqrt(d_k)``, every blocked entry of ``Z``
becomes ``-inf``, so the weights ``A = softmax(Z)`` are exactly 0 there and
``O = A V`` never reads a blocked value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from ._validate import as_numpy, check_budget, positive_int

__all__ = ["additive_mask", "causal_mask", "combine_masks", "padding_mask"]


def causal_mask(n: int) -> np.ndarray:
    """Causal (decoder, GPT-style) mask for ``n`` positions (chapter 6).

    Returns a boolean ``[n, n]`` array, ``True`` on and below the diagonal: query
    ``t`` (row) may attend to keys ``0..t`` (columns) and never to a later one.

    Raises:
        ValueError: if ``n`` is not a positive integer, or so large that the mask
            would not fit in ``lessons.MEMORY_BUDGET``.
    """
    positive_int("n", n)
    check_budget("n is", n * n)
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(lengths: Sequence[int], n: int) -> np.ndarray:
    """Padding mask for a batch of sequences padded to length ``n`` (chapter 6).

    ``lengths[b]`` is how many real tokens sequence ``b`` has; positions from
    ``lengths[b]`` to ``n - 1`` are padding. Returns a boolean ``[B, 1, n]`` array,
    ``True`` at real tokens. The middle axis of size 1 broadcasts over the queries,
    so the mask fits weights of shape ``[B, n_q, n]``; add an axis (``[:, None]``,
    giving ``[B, 1, 1, n]``) for weights with heads, ``[B, h, n_q, n]``.

    Raises:
        ValueError: if ``lengths`` is not a flat list of integers between 0 and ``n``.
    """
    positive_int("n", n)
    try:
        lengths_array = as_numpy(lengths)
    except (TypeError, ValueError, RuntimeError):
        lengths_array = np.asarray(None)
    if (
        lengths_array.ndim != 1
        or not lengths_array.size
        or not np.issubdtype(lengths_array.dtype, np.integer)
    ):
        raise ValueError(
            f"lengths must be a flat list of integers, one per sequence; got {lengths!r}"
        )
    bad = [int(length) for length in lengths_array if not 0 <= length <= n]
    if bad:
        raise ValueError(f"every length must be between 0 and n={n}; got {bad}")
    check_budget("lengths and n are", lengths_array.size * n)
    positions = np.arange(n)  # [n]
    return (positions[None, :] < lengths_array[:, None])[:, None, :]  # [B, 1, n]


def combine_masks(*masks: Any) -> np.ndarray:
    """Combine keep-masks: a key is kept only where every mask keeps it (chapter 6).

    The masks broadcast against each other, so a padding mask ``[B, 1, n]`` and a
    causal mask ``[n, n]`` give ``[B, n, n]``; with heads, ``[B, 1, 1, n]`` and
    ``[n, n]`` give ``[B, 1, n, n]``, which broadcasts over ``[B, h, n, n]``.

    Raises:
        ValueError: if no mask is given, a mask is not boolean, or the shapes do
            not broadcast (naming every shape).
    """
    if not masks:
        raise ValueError("combine_masks needs at least one mask")
    arrays = []
    for i, m in enumerate(masks):
        try:
            arrays.append(as_numpy(m))
        except (TypeError, ValueError, RuntimeError):
            raise ValueError(f"mask {i} must be a rectangular boolean array") from None
    for i, array in enumerate(arrays):
        if array.dtype != np.bool_:
            raise ValueError(
                f"mask {i} must be boolean (True = may attend); got dtype {array.dtype}"
            )
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise ValueError(f"masks of shapes {shapes} do not broadcast together") from None
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    check_budget("the masks are", math.prod(shape))
    return np.logical_and.reduce(np.broadcast_arrays(*arrays))


def additive_mask(keep: Any, fill: float = -np.inf) -> np.ndarray:
    """Turn a boolean keep-mask into an additive one: 0 where kept, ``fill`` elsewhere (chapter 6).

    Adding it to the scaled scores ``Z = Q K^T / sqrt(d_k)`` before the softmax
    removes the blocked keys. With the
    default ``fill=-inf`` a row that blocks every key becomes NaN after softmax;
    a large finite negative ``fill`` avoids that but overflows in float16
    (chapter 6 shows both traps). Returns float64 with ``keep``'s shape.

    Raises:
        ValueError: if ``keep`` is not boolean or ``fill`` is not negative.
    """
    try:
        array = as_numpy(keep)
    except (TypeError, ValueError, RuntimeError):
        array = np.asarray(None)
    if array.dtype != np.bool_:
        raise ValueError(
            f"keep must be a boolean mask (True = may attend); got dtype {array.dtype}"
        )
    if isinstance(fill, bool) or not isinstance(fill, Real) or math.isnan(fill) or not fill < 0:
        raise ValueError(f"fill must be negative, so blocked keys lose weight; got {fill}")
    return np.where(array, 0.0, fill)
