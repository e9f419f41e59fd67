"""Self-checks of chapter 4 (Scaled dot-product attention)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..softmax import softmax
from .verdict import (
    Verdict,
    as_float_array,
    close,
    is_missing,
    named_mistake,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_attention"]


def check_attention(answer: Any, Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Verdict:
    """Check a scaled dot-product attention output ``softmax(Q K^T / sqrt(d_k)) V`` (chapter 4)."""
    if is_missing(answer):
        return unanswered("the attention output, shape [n_q, d_v]")
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = Q @ K.T  # [n_q, n_k]
    weights = softmax(scores / np.sqrt(d_k))  # [n_q, n_k]
    expected = weights @ V  # [n_q, d_v]
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be an array; got {type(answer).__name__}.")
    if close(got, expected):
        return right("softmax(Q K^T / sqrt(d_k)) V: each row a weighted average of value rows.")
    mistake = named_mistake(
        got,
        [
            (weights, "Those are the weights A; the output is A @ V."),
            (
                softmax(scores) @ V,
                "You forgot to divide the scores by sqrt(d_k) before the softmax.",
            ),
            (softmax(scores / d_k) @ V, "You divided by d_k; the scale is sqrt(d_k)."),
            (
                softmax(scores / np.sqrt(d_k), axis=0) @ V if K.shape[0] == Q.shape[0] else None,
                "The softmax went down the columns; each query's row must sum to 1 (axis=-1).",
            ),
            ((scores / np.sqrt(d_k)) @ V, "You skipped the softmax: scores are not weights."),
        ],
    )
    if mistake is not None:
        return mistake
    if got.shape != expected.shape:
        return wrong(
            f"The output has one row per query: shape {list(expected.shape)}; yours {list(got.shape)}."
        )
    return wrong("Scores Q @ K.T, divide by sqrt(d_k), softmax each row, then multiply by V.")
