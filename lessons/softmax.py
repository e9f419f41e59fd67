"""Softmax: turning any row of scores into weights that are positive and sum to 1.

Taught in chapter 2 (Dot-product refresher and softmax). Chapter 4 applies it to
every row of the scaled scores ``Z = S / sqrt(d_k)`` (``S = Q K^T`` are the raw
scores), which gives the attention weights ``A = softmax(Z)``; chapter 6 relies on
its handling of ``-inf``, which a mask adds to ``Z``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike

from ._validate import InputTypeError, as_numpy, float_input


def softmax(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax of ``x`` along ``axis`` (chapter 2).

    ``softmax(x)_i = exp(x_i - m) / sum_j exp(x_j - m)`` with ``m = max_j x_j``.
    Subtracting the maximum changes nothing mathematically (it cancels between
    numerator and denominator) but keeps ``exp`` from overflowing, so inputs like
    ``[1000, 1001]`` work.

    ``-inf`` entries get weight exactly 0; this is how a mask removes a key
    (chapter 6). A slice whose entries are all ``-inf`` has nothing to weigh, and
    gets all zeros instead of NaN.

    Args:
        x: scores of any shape ``[..., n]`` (NumPy array or anything ``np.asarray``
            accepts), in attention the scaled scores ``Z [..., n_q, n_k]``.
            Integers are converted to float64.
        axis: the axis that is normalised; the default is the last one (rows).

    Returns:
        A float array of the same shape as ``x``; every slice along ``axis`` sums
        to 1, except all-``-inf`` slices, which are all 0.

    Raises:
        ValueError: if ``x`` holds NaN or ``+inf`` (no weight could be meaningful),
            is empty, or ``axis`` is out of range for ``x``'s shape.
        TypeError: if ``x`` is complex or not numbers, or ``axis`` is not an integer.
    """
    dtype = _float_dtype(x)
    x = float_input("x", x, dtype=dtype, allow_neg_inf=True)
    if x.ndim == 0:
        raise ValueError("softmax needs at least one axis to normalise; got a scalar x")
    if not isinstance(axis, Integral) or isinstance(axis, bool):
        raise InputTypeError(f"axis must be an integer; got {axis!r}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis={axis} is out of range for an input of shape {x.shape}")
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)  # an all -inf slice: shift by 0
    exps = np.exp(x - peak)  # every exponent is <= 0, so nothing overflows
    total = np.sum(exps, axis=axis, keepdims=True)
    return exps / np.where(total == 0, 1.0, total)  # all -inf slice: 0 / 1 = 0


def _float_dtype(x: ArrayLike) -> np.dtype:
    """``x``'s dtype when it is a NumPy float (float16/32/64 are kept), else float64."""
    try:
        dtype = as_numpy(x).dtype
    except (TypeError, ValueError, RuntimeError):
        return np.dtype(np.float64)
    return dtype if dtype in (np.float16, np.float32, np.float64) else np.dtype(np.float64)
