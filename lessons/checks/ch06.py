"""Self-checks of chapter 6 (Masking)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import as_numpy
from ..masks import causal_mask, padding_mask
from .verdict import Verdict, catalogued, generic, is_missing, right, unanswered, wrong


def _as_array(answer: Any) -> np.ndarray | None:
    """The answer as a NumPy array, or None when it is ragged or not an array at all."""
    try:
        array = as_numpy(answer)
    except (TypeError, ValueError, RuntimeError):
        return None
    return None if array.dtype == object else array


__all__ = ["check_causal_mask", "check_padding_mask"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_causal_mask": {
        "numbers_not_booleans": "gave the right pattern as numbers instead of booleans",
        "additive_mask": "gave an additive mask of 0 and -inf instead of a boolean keep-mask",
        "not_boolean": "gave a mask that is not boolean, in the wrong pattern too",
        "true_means_blocked": "used True for blocked keys (nn.MultiheadAttention's convention) "
        "instead of True = may attend",
        "transpose": "gave the transpose, letting tokens see the future instead of the past",
        "no_diagonal": "stopped each token from attending to itself",
        "plain_causal": "gave the plain causal mask, forgetting that the prompt reads the whole "
        "prompt",
        "and_not_or": "combined the causal and the prompt rule with AND instead of OR",
        "nothing_blocked": "blocked nothing, so the tokens after the prompt see their future",
        "prompt_too_long": "made the prompt one token too long (j <= p instead of j < p)",
        **generic("not_a_number", "wrong_shape", "other"),
    },
    "check_padding_mask": {
        "not_boolean": "gave a mask that is not boolean",
        "missing_query_axis": "left out the query axis: shape [B, n] instead of [B, 1, n]",
        "true_means_padding": "used True for padding (key_padding_mask's convention) instead "
        "of True = real token",
        **generic("not_a_number", "wrong_shape", "other"),
    },
}


def _prefix_mask(n: int, prefix: int) -> np.ndarray:
    """The keep-mask ``[n, n]`` of a decoder whose first ``prefix`` tokens see each other."""
    return causal_mask(n) | (np.arange(n) < prefix)[None, :]  # [n_q, n_k]


@catalogued(MISTAKES)
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
        return wrong(
            f"The answer should be a boolean array; got {type(answer).__name__}.", "not_a_number"
        )
    if got.shape != (n, n):
        return wrong(
            f"One row per query and one column per key: shape [{n}, {n}]; yours {list(got.shape)}.",
            "wrong_shape",
        )
    if got.dtype != np.bool_:
        if np.issubdtype(got.dtype, np.number) and np.array_equal(got, expected):
            return wrong(
                "Right pattern, but as numbers: make it boolean (dtype=bool).",
                "numbers_not_booleans",
            )
        if np.issubdtype(got.dtype, np.floating) and np.array_equal(np.isfinite(got), expected):
            return wrong(
                "That is an additive mask (0 and -inf); this exercise asks for a boolean keep-mask.",
                "additive_mask",
            )
        return wrong(f"A keep-mask is boolean; yours has dtype {got.dtype}.", "not_boolean")
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
            "This course (and F.scaled_dot_product_attention) uses True = may attend.",
            "true_means_blocked",
        )
    if np.array_equal(got, expected.T):
        return wrong(
            "Rows are queries and columns are keys: yours is the transpose, so tokens see "
            "the future and not the past (np.tril, not np.triu).",
            "transpose",
        )
    if np.array_equal(got, expected & ~np.eye(n, dtype=bool)):
        return wrong("The diagonal is missing: a token may attend to itself.", "no_diagonal")
    if prefix:
        causal = causal_mask(n)  # [n, n]
        prompt = (np.arange(n) < prefix)[None, :]  # [1, n], True = prompt key
        if np.array_equal(got, causal):
            return wrong(
                "That is the plain causal mask: the prompt's tokens may also read the prompt "
                f"tokens after them (every key j < {prefix}).",
                "plain_causal",
            )
        if np.array_equal(got, causal & prompt):
            return wrong(
                "AND keeps a key only where both rules allow it, so no token may read past the "
                "prompt. Here either rule is enough: combine them with OR (|).",
                "and_not_or",
            )
        if np.array_equal(got, np.ones((n, n), dtype=bool)):
            return wrong(
                "Nothing is blocked: the tokens after the prompt must not see their future.",
                "nothing_blocked",
            )
        if prefix < n and np.array_equal(got, _prefix_mask(n, prefix + 1)):
            return wrong(
                f"The prompt is one token too long: its {prefix} tokens are positions "
                f"0..{prefix - 1}, so use j < {prefix}, not j <= {prefix}.",
                "prompt_too_long",
            )
        return wrong(
            f"Key j is kept for query i when j <= i or j < {prefix}: causal_mask(n) | "
            "(np.arange(n) < prefix).",
            "other",
        )
    return wrong("Row t should be True in columns 0..t and False after: np.tril of ones.", "other")


@catalogued(MISTAKES)
def check_padding_mask(answer: Any, lengths: list[int], n: int) -> Verdict:
    """Check a padding keep-mask ``[B, 1, n]``, ``True`` at real tokens (chapter 6)."""
    if is_missing(answer):
        return unanswered(f"a boolean [{len(lengths)}, 1, {n}] mask")
    expected = padding_mask(lengths, n)  # [B, 1, n]
    rows = expected[:, 0, :]  # [B, n]
    got = _as_array(answer)
    if got is None:
        return wrong(
            f"The answer should be a boolean array; got {type(answer).__name__}.", "not_a_number"
        )
    if got.dtype != np.bool_:
        return wrong(f"A keep-mask is boolean; yours has dtype {got.dtype}.", "not_boolean")
    if got.shape == rows.shape and np.array_equal(got, rows):
        return wrong(
            f"Right values, but shape [B, n] = {list(rows.shape)} would broadcast over the "
            f"wrong axis: add the query axis, [B, 1, n] (mask[:, None, :]).",
            "missing_query_axis",
        )
    if got.shape != expected.shape:
        return wrong(
            f"The mask should have shape [B, 1, n] = {list(expected.shape)}; yours {list(got.shape)}.",
            "wrong_shape",
        )
    if np.array_equal(got, expected):
        return right(
            "Real tokens are True, padding False, and the middle axis broadcasts over queries."
        )
    if np.array_equal(got, ~expected):
        return wrong(
            "True marks padding here (key_padding_mask's convention); this course keeps True = real token.",
            "true_means_padding",
        )
    return wrong("Position j of sequence b is real when j < lengths[b].", "other")
