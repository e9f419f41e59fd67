"""Self-checks of chapter 4 (Scaled dot-product attention)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_qkv_shapes, float_input
from ..softmax import softmax
from .verdict import Verdict, judge, wrong

__all__ = ["check_attention"]


def attention_mistakes(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> dict[str, tuple[Any, str]]:
    """The named mistakes of an attention output ``[n_q, d_v]`` (chapter 4).

    ``{name: (what the wrong method computes, or None where it cannot apply, the
    explanation)}``, shared by ``check_attention`` and the in-page questions.
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = Q @ K.T  # [n_q, n_k]
    weights = softmax(scores / np.sqrt(d_k))  # [n_q, n_k]
    square = K.shape[0] == Q.shape[0]
    return {
        "weights-not-output": (weights, "Those are the weights A; the output is A @ V."),
        "no-scaling": (
            softmax(scores) @ V,
            "You forgot to divide the scores by sqrt(d_k) before the softmax.",
        ),
        "divided-by-d_k": (
            softmax(scores / d_k) @ V,
            "You divided by d_k; the scale is sqrt(d_k).",
        ),
        "softmax-over-columns": (
            softmax(scores / np.sqrt(d_k), axis=0) @ V if square else None,
            "The softmax went down the columns; each query's row must sum to 1 (axis=-1).",
        ),
        "no-softmax": (
            (scores / np.sqrt(d_k)) @ V,
            "You skipped the softmax: scores are not weights.",
        ),
    }


def check_attention(answer: Any, Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Verdict:
    """Check a scaled dot-product attention output ``softmax(Q K^T / sqrt(d_k)) V`` (chapter 4)."""
    Q, K, V = (float_input(name, a) for name, a in zip("QKV", (Q, K, V), strict=True))
    check_qkv_shapes(Q, K, V)
    d_k = Q.shape[-1]
    scores = Q @ K.T  # [n_q, n_k]
    weights = softmax(scores / np.sqrt(d_k))  # [n_q, n_k]
    expected = weights @ V  # [n_q, d_v]
    verdict = judge(
        answer,
        expected,
        what="the attention output, shape [n_q, d_v]",
        praise="softmax(Q K^T / sqrt(d_k)) V: each row a weighted average of value rows.",
        shape_message="The output has one row per query: shape {expected}; yours {got}.",
        mistakes=list(attention_mistakes(Q, K, V).values()),
    )
    if verdict is not None:
        return verdict
    return wrong("Scores Q @ K.T, divide by sqrt(d_k), softmax each row, then multiply by V.")
