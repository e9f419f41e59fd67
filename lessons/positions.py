"""Positional information: sinusoidal encodings, rotary embeddings (RoPE) and ALiBi.

Taught in chapter 8 (Positional encoding). Attention alone is blind to order
(chapter 4); these are three ways to give it positions. The letters are chapter 8's:
``i`` is a (query) position and ``j`` a key position, ``delta`` an offset between
positions, ``f`` the index of a sine/cosine pair, ``g`` the index of a head.

- ``sinusoidal_encoding`` is added to the embeddings (Vaswani et al. 2017);
  ``offset_matrix`` is the fixed linear map that moves an encoding ``delta``
  positions along, so ``PE[i + delta] = PE[i] @ offset_matrix(delta, d_model)``.
- ``rope`` rotates queries and keys by their position, so a score depends only
  on the offset between two positions (Su et al., RoFormer).
- ``alibi_bias`` adds a per-head penalty proportional to distance to the scores
  (Press et al., ALiBi).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import torch

from ._validate import (
    check_budget,
    finite_number,
    float_input,
    float_tensor,
    is_tensor,
    positive_int,
)

__all__ = ["alibi_bias", "alibi_slopes", "offset_matrix", "rope", "sinusoidal_encoding"]


def _frequencies(d: int, base: float) -> np.ndarray:
    """Angular frequencies ``base^(-2f/d)`` for pairs ``f = 0 .. d/2 - 1``: ``[d / 2]``."""
    base = finite_number("base", base, positive=True)
    return base ** (-np.arange(0, d, 2) / d)


def _check_even(name: str, d: Any) -> None:
    if not isinstance(d, Integral) or isinstance(d, bool | np.bool_) or d < 2 or d % 2:
        raise ValueError(
            f"{name} must be a positive even integer (dimensions come in sine/cosine "
            f"pairs); got {d!r}"
        )


def sinusoidal_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The sinusoidal positional encoding ``PE [n_positions, d_model]`` (chapter 8).

    Row ``i`` is position ``i``: ``PE[i, 2f] = sin(i / base^(2f/d_model))`` and
    ``PE[i, 2f+1] = cos(i / base^(2f/d_model))``. Pair ``f`` turns at angular
    frequency ``base^(-2f/d_model)``, so the wavelengths grow geometrically from
    ``2 pi`` towards ``2 pi * base``.

    Raises:
        ValueError: if ``n_positions`` is not a positive integer, ``d_model`` is
            not a positive even integer, ``base`` is not a finite number > 0, or the
            encoding would not fit in ``lessons.MEMORY_BUDGET``.
    """
    positive_int("n_positions", n_positions)
    _check_even("d_model", d_model)
    check_budget("n_positions and d_model are", 8 * n_positions * d_model)
    angles = np.arange(n_positions)[:, None] * _frequencies(d_model, base)[None, :]  # [n, d/2]
    pe = np.empty((n_positions, d_model))  # [n, d_model]
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def offset_matrix(k: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The ``[d_model, d_model]`` map ``M`` with ``PE[i + k] = PE[i] @ M`` for every ``i`` (chapter 8).

    ``k`` is the offset, written Delta in chapter 8. Block diagonal: one 2 x 2
    rotation by angle ``k * base^(-2f/d_model)`` per sine/cosine pair ``f``. It does
    not depend on the position ``i``, which is why a model can learn to attend
    "k positions back" with one linear map.

    Raises:
        ValueError: if ``k`` or ``base`` is not a finite number (``base > 0``), or
            ``d_model`` is not a positive even integer (small enough to fit in
            ``lessons.MEMORY_BUDGET``).
    """
    k = finite_number("k", k)
    _check_even("d_model", d_model)
    check_budget("d_model is", 8 * d_model * d_model)
    M = np.zeros((d_model, d_model))  # [d_model, d_model]
    for i, angle in enumerate(k * _frequencies(d_model, base)):
        c, s = np.cos(angle), np.sin(angle)
        # Row vectors (sin, cos) @ [[c, -s], [s, c]] = (sin(a + angle), cos(a + angle)).
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return M


def rope(X: Any, positions: Any = None, base: float = 10000.0) -> Any:
    """Rotary position embedding: rotate each pair of ``X [..., n, d]`` by its position (chapter 8).

    Pair ``(2f, 2f + 1)`` of row ``i`` is rotated by angle ``positions[i] *
    base^(-2f/d)``, where ``d`` is the width of the rows rotated: for a head's
    queries and keys ``[B, h, n, d_k]``, the head width ``d_k``, not ``d_model``.
    Applied to queries and keys (not values), it makes the score of query row ``i``
    and key row ``j`` depend on the offset ``i - j`` only. ``positions`` defaults to
    ``0 .. n - 1``. NumPy in, NumPy out; torch in, torch out.

    A list becomes a float64 array; an integer tensor becomes a float tensor of
    torch's default dtype (rotations are not whole numbers).

    Raises:
        ValueError: if ``X`` is not ``[..., n, d]`` with ``d`` even, is empty or
            holds NaN or inf, ``positions`` does not have one finite entry per row,
            or ``base`` is not a finite number > 0.
        TypeError: if ``X`` or ``positions`` is complex or not numbers.
    """
    is_torch = is_tensor(X)
    X = float_tensor("X", X) if is_torch else float_input("X", X)
    if X.ndim < 2:
        raise ValueError(f"X must have shape [..., n, d]; got shape {list(X.shape)}")
    d, n = X.shape[-1], X.shape[-2]
    _check_even("the last dimension of X", d)
    pos = np.arange(n) if positions is None else float_input("positions", positions)
    if pos.shape != (n,):
        raise ValueError(f"positions must have one entry per row ({n}); got shape {pos.shape}")
    angles = pos[:, None] * _frequencies(d, base)[None, :]  # [n, d/2]
    cos, sin = np.cos(angles), np.sin(angles)  # [n, d/2] each
    if is_torch:
        cos, sin = (torch.as_tensor(a, dtype=X.dtype, device=X.device) for a in (cos, sin))
    even, odd = X[..., 0::2], X[..., 1::2]  # [..., n, d/2] each
    rotated_even = even * cos - odd * sin  # [..., n, d/2]
    rotated_odd = even * sin + odd * cos  # [..., n, d/2]
    if is_torch:
        return torch.stack([rotated_even, rotated_odd], dim=-1).flatten(-2)  # [..., n, d]
    return np.stack([rotated_even, rotated_odd], axis=-1).reshape(X.shape)  # [..., n, d]


def alibi_slopes(num_heads: int) -> np.ndarray:
    """ALiBi's per-head slopes ``m_g``, ``[h]``, by the rule of the ALiBi paper's code (chapter 8).

    For ``h`` a power of two, ``m_g = 2^(-8 (g + 1) / h)`` for heads ``g = 0 .. h - 1``: a
    geometric sequence that starts at ``2^(-8/h)``, shrinks by that same factor from head
    to head and ends at ``2^-8``. For other ``h`` (Press et al. train only powers of two)
    the formula would give slopes that are no model's, so the paper's code, and BLOOM
    after it, does this instead: take the ``p`` slopes of ``p``, the largest power of two
    below ``h``, then the first ``h - p`` slopes of ``2p`` heads that those skip, every
    other one from the first: ``2^(-4/p), 2^(-12/p), ...``. Each lies geometrically
    halfway before one of the first slopes, so the heads still cover the same range of
    distances evenly, and a model with ``h`` heads keeps the slopes of one with ``p``.
    6 heads get 1/4, 1/16, 1/64, 1/256 (those of 4 heads), then 1/2 and 1/8.
    """
    positive_int("num_heads", num_heads)
    below = 1 << (num_heads.bit_length() - 1)  # p, the largest power of two <= h
    slopes = 2.0 ** (-8.0 * np.arange(1, below + 1) / below)  # [p], geometric
    if below == num_heads:
        return slopes
    skipped = 2.0 ** (-8.0 * np.arange(1, 2 * below, 2) / (2 * below))  # [p]: 2p's others
    return np.concatenate([slopes, skipped[: num_heads - below]])  # [h]


def alibi_bias(n: int, num_heads: int, causal: bool = True) -> np.ndarray:
    """ALiBi biases ``[h, n, n]`` to add to the scores before softmax (chapter 8).

    Entry ``(g, i, j)`` is ``-slope[g] * (i - j)`` for head ``g``, query ``i`` and
    key ``j``: zero for a token itself, more negative the further back key ``j``
    lies. With ``causal=True`` (ALiBi's setting) later keys get ``-inf``; with
    ``causal=False`` the penalty is ``-slope * |i - j|`` in both directions.

    Raises:
        ValueError: if ``n`` or ``num_heads`` is not a positive integer, or the
            biases would not fit in ``lessons.MEMORY_BUDGET``.
    """
    positive_int("n", n)
    positive_int("num_heads", num_heads)
    check_budget("n and num_heads are", 8 * num_heads * n * n)
    distance = np.arange(n)[:, None] - np.arange(n)[None, :]  # [n, n], i - j
    bias = (
        0.0 - alibi_slopes(num_heads)[:, None, None] * np.abs(distance)[None]
    )  # [h, n, n], no -0.0
    if causal:
        bias = np.where(distance[None] < 0, -np.inf, bias)
    return bias
