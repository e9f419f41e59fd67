"""Self-checks of chapter 6 (Masking)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import as_numpy
from ..masks import causal_mask, padding_mask
from .verdict import Verdict, is_missing, right, unanswered, wrong


def _as_array(answer: Any) -> np.ndarray | None:
    """The answer as a NumPy array, or None when it is ragged or not an array at all."""
    try:
        array = as_numpy(answer)
    except (TypeError, ValueError, RuntimeError):
        return None
    return None if array.dtype == object else array


__all__ = ["check_causal_mask", "check_padding_mask"]


def _prefix_mask(n: int, prefix: int) -> np.ndarray:
    """The keep-mask ``[n, n]`` of a decoder whose first ``prefix`` tokens see each other."""
    return causal_mask(n) | (np.arange(n) < prefix)[None, :]  # [n_q, n_k]


def check_causal_mask(answer: Any, n: int, prefix: int = 0) -> Verdict:
    """Check a causal keep-mask ``[n, n]`` for ``n`` tokens, ``True`` = may attend (chapter 6).

    With ``prefix = p > 0`` the first ``p`` tokens form a prompt read in both
    directions: query ``i`` may attend to key ``j`` when ``j <= i`` *or* ``j < p``
    (a prefix language model). The mistakes named: the plain causal mask, AND
    instead of OR, a prompt one token too long, the transpose, ``True`` = blocked,
    a missing diagonal, numbers or an additive mask instead of booleans.
    """
    if is_missing(answer):
        return unanswered(f"a boolean [{n}, {n}] mask")
    if isinstance(prefix, bool) or not isinstance(prefix, int) or not 0 <= prefix <= n:
        raise ValueError(f"prefix must be an integer between 0 and n={n}; got {prefix!r}")
    expected = _prefix_mask(n, prefix)  # [n, n]
    got = _as_array(answer)
    if got is None:
        return wrong(f"The answer should be a boolean array; got {type(answer).__name__}.")
    if got.shape != (n, n):
        return wrong(
            f"One row per query and one column per key: shape [{n}, {n}]; yours {list(got.shape)}."
        )
    if got.dtype != np.bool_:
        if np.issubdtype(got.dtype, np.number) and np.array_equal(got, expected):
            return wrong("Right pattern, but as numbers: make it boolean (dtype=bool).")
        if np.issubdtype(got.dtype, np.floating) and np.array_equal(np.isfinite(got), expected):
            return wrong(
                "That is an additive mask (0 and -inf); this exercise asks for a boolean keep-mask."
            )
        return wrong(f"A keep-mask is boolean; yours has dtype {got.dtype}.")
    if np.array_equal(got, expected):
        if prefix:
            return right(
                f"The {prefix} prompt tokens see the whole prompt; every later token sees the "
                "prompt and its own past, never its future."
            )
        return right("Token t may look at tokens 0..t and never at a later one.")
    if np.array_equal(got, ~expected):
        return wrong(
            "True marks the blocked keys here: that is nn.MultiheadAttention's convention. "
            "This course (and F.scaled_dot_product_attention) uses True = may attend."
        )
    if np.array_equal(got, expected.T):
        return wrong(
            "Rows are queries and columns are keys: yours is the transpose, so tokens see "
            "the future and not the past (np.tril, not np.triu)."
        )
    if np.array_equal(got, expected & ~np.eye(n, dtype=bool)):
        return wrong("The diagonal is missing: a token may attend to itself.")
    if prefix:
        causal = causal_mask(n)  # [n, n]
        prompt = (np.arange(n) < prefix)[None, :]  # [1, n], True = prompt key
        if np.array_equal(got, causal):
            return wrong(
                "That is the plain causal mask: the prompt's tokens may also read the prompt "
                f"tokens after them (every key j < {prefix})."
            )
        if np.array_equal(got, causal & prompt):
            return wrong(
                "AND keeps a key only where both rules allow it, so no token may read past the "
                "prompt. Here either rule is enough: combine them with OR (|)."
            )
        if np.array_equal(got, np.ones((n, n), dtype=bool)):
            return wrong(
                "Nothing is blocked: the tokens after the prompt must not see their future."
            )
        if prefix < n and np.array_equal(got, _prefix_mask(n, prefix + 1)):
            return wrong(
                f"The prompt is one token too long: its {prefix} tokens are positions "
                f"0..{prefix - 1}, so use j < {prefix}, not j <= {prefix}."
            )
        return wrong(
            f"Key j is kept for query i when j <= i or j < {prefix}: causal_mask(n) | "
            "(np.arange(n) < prefix)."
        )
    return wrong("Row t should be True in columns 0..t and False after: np.tril of ones.")


def check_padding_mask(answer: Any, lengths: list[int], n: int) -> Verdict:
    """Check a padding keep-mask ``[B, 1, n]``, ``True`` at real tokens (chapter 6)."""
    if is_missing(answer):
        return unanswered(f"a boolean [{len(lengths)}, 1, {n}] mask")
    expected = padding_mask(lengths, n)  # [B, 1, n]
    rows = expected[:, 0, :]  # [B, n]
    got = _as_array(answer)
    if got is None:
        return wrong(f"The answer should be a boolean array; got {type(answer).__name__}.")
    if got.dtype != np.bool_:
        return wrong(f"A keep-mask is boolean; yours has dtype {got.dtype}.")
    if got.shape == rows.shape and np.array_equal(got, rows):
        return wrong(
            f"Right values, but shape [B, n] = {list(rows.shape)} would broadcast over the "
            f"wrong axis: add the query axis, [B, 1, n] (mask[:, None, :])."
        )
    if got.shape != expected.shape:
        return wrong(
            f"The mask should have shape [B, 1, n] = {list(expected.shape)}; yours {list(got.shape)}."
        )
    if np.array_equal(got, expected):
        return right(
            "Real tokens are True, padding False, and the middle axis broadcasts over queries."
        )
    if np.array_equal(got, ~expected):
        return wrong(
            "True marks padding here (key_padding_mask's convention); this course keeps True = real token."
        )
    return wrong("Position j of sequence b is real when j < lengths[b].")
