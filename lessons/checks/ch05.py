"""Self-checks of chapter 5 (A hand-worked example)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_qkv_shapes, float_input
from ..softmax import softmax
from .verdict import Verdict, as_float_array, catalogued, generic, judge, wrong

__all__ = ["check_attention_weights"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
#: (``attention_weight_mistakes`` spells the names with hyphens, as chapter 5's in-page
#: question shows them; a verdict reports them in snake_case.)
MISTAKES: dict[str, dict[str, str]] = {
    "check_attention_weights": {
        "raw_scores": "stopped at the raw scores Q @ K.T, before scaling and the softmax",
        "scaled_scores": "stopped at the scaled scores, before the softmax",
        "no_scaling": "forgot to divide the scores by sqrt(d_k) before the softmax",
        "transpose": "gave the transpose, a row per key instead of per query",
        "softmax_over_columns": "took the softmax down the columns instead of along each row",
        "rows_not_normalised": "gave weights whose rows do not sum to 1",
        **generic("not_a_number", "other"),
    },
}


def attention_weight_mistakes(Q: ArrayLike, K: ArrayLike) -> dict[str, tuple[Any, str]]:
    """The named mistakes of attention weights ``[n_q, n_k]`` (chapter 5).

    ``{name: (what the wrong method computes, the explanation)}``, shared by
    ``check_attention_weights`` and the in-page questions. Every mistake applies
    whatever the shapes: a softmax down the columns of ``[2, 3]`` scores is still
    ``[2, 3]``, and the transpose ``[3, 2]`` is told apart by its shape.
    """
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    scores = Q @ K.T  # [n_q, n_k]
    scaled = scores / np.sqrt(Q.shape[-1])  # [n_q, n_k]
    return {
        "raw-scores": (scores, "These are the raw scores Q @ K.T: scale them and apply softmax."),
        "scaled-scores": (scaled, "These are the scaled scores: apply softmax to each row."),
        "no-scaling": (
            softmax(scores),
            "You forgot the scaling: divide the scores by sqrt(d_k) first.",
        ),
        "transpose": (
            softmax(scaled).T,
            "This is the transpose: rows are queries, columns are keys.",
        ),
        "softmax-over-columns": (
            softmax(scaled, axis=0),  # [n_q, n_k] whatever n_q and n_k are
            "Each column sums to 1; softmax each row instead.",
        ),
    }


@catalogued(MISTAKES)
def check_attention_weights(answer: Any, Q: ArrayLike, K: ArrayLike) -> Verdict:
    """Check attention weights ``softmax(Q K^T / sqrt(d_k))``, shape ``[n_q, n_k]`` (chapter 5)."""
    Q, K = float_input("Q", Q), float_input("K", K)  # [n_q, d_k], [n_k, d_k]
    check_qkv_shapes(Q, K, K)
    scores = Q @ K.T  # [n_q, n_k]
    scaled = scores / np.sqrt(Q.shape[-1])  # [n_q, n_k]
    expected = softmax(scaled)  # [n_q, n_k]
    verdict = judge(
        answer,
        expected,
        what="the weights, shape [n_q, n_k]",
        praise="Every row sums to 1 and follows the scaled scores.",
        mistakes=attention_weight_mistakes(Q, K),
    )
    if verdict is not None:
        return verdict
    got = as_float_array(answer)
    if got.shape == expected.shape and not np.allclose(got.sum(axis=-1), 1.0):
        return wrong(
            "Your rows do not sum to 1: the weights are a softmax of each row.",
            "rows_not_normalised",
        )
    return wrong("Compute Q @ K.T, divide by sqrt(d_k), then softmax along each row.", "other")
