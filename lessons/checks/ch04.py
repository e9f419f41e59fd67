"""Self-checks of chapter 4 (Scaled dot-product attention)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_ndim, check_qkv_shapes, float_input
from ..softmax import softmax
from .verdict import Verdict, catalogued, generic, judge, wrong

__all__ = ["check_attention"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
#: (``attention_mistakes`` spells the names with hyphens, as chapter 4's in-page question
#: shows them; a verdict reports them in snake_case.)
MISTAKES: dict[str, dict[str, str]] = {
    "check_attention": {
        "weights_not_output": "stopped at the weights A instead of computing A @ V",
        "transposed_output": "gave the output transposed, a row per value feature instead of "
        "per query",
        "no_scaling": "forgot to divide the scores by sqrt(d_k)",
        "divided_by_d_k": "divided the scores by d_k instead of sqrt(d_k)",
        "multiplied_by_sqrt": "multiplied the scores by sqrt(d_k) instead of dividing by it",
        "scaled_by_n_k": "scaled by the square root of the number of keys instead of d_k",
        "scaled_by_n_q": "scaled by the square root of the number of queries instead of d_k",
        "scaled_by_d_v": "scaled by the square root of the value width d_v instead of d_k",
        "softmax_over_columns": "took the softmax down the columns instead of along each row",
        "softmax_over_table": "normalised the whole table at once instead of each row",
        "no_softmax": "skipped the softmax, averaging the values with the scaled scores",
        "no_softmax_no_scaling": "multiplied the raw scores by V, with neither scaling nor softmax",
        **generic("not_a_number", "wrong_shape", "other"),
    },
}

#: Where a reader finds each size that is not d_k, for the "wrong size" mistakes.
_SIZE_NAMES = {
    "n_k": "K.shape[0] (the number of keys)",
    "n_q": "Q.shape[0] (the number of queries)",
    "d_v": "V.shape[-1] (the width of a value)",
}


def attention_mistakes(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> dict[str, tuple[Any, str]]:
    """The named mistakes of an attention output ``O = A V`` ``[n_q, d_v]`` (chapter 4).

    ``Q [n_q, d_k]``, ``K [n_k, d_k]``, ``V [n_k, d_v]``, in the book's notation:
    ``S = Q K^T`` (raw scores), ``Z = S / sqrt(d_k)`` (scaled), ``A = softmax(Z)``.
    Returns ``{name: (what the wrong method computes, or None where it cannot apply
    or gives the right answer, the explanation)}``, shared by ``check_attention``
    and the in-page questions. Every mistake applies whatever the shapes, with
    ``n_q != n_k`` as well as square ones.
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    (n_q, d_k), (n_k, d_v) = Q.shape, V.shape
    S = Q @ K.T  # [n_q, n_k] raw scores
    Z = S / np.sqrt(d_k)  # [n_q, n_k] scaled scores
    A = softmax(Z)  # [n_q, n_k], each row sums to 1
    output = A @ V  # [n_q, d_v], the right answer
    whole = np.exp(Z - Z.max())  # [n_q, n_k]
    mistakes: dict[str, tuple[Any, str]] = {
        "weights-not-output": (A, "Those are the weights A; the output is A @ V."),
        "transposed-output": (
            output.T,
            f"This is the output transposed, shape {list(output.shape[::-1])}: the output has "
            f"one row per query, shape [n_q, d_v] = {list(output.shape)}. Use A @ V, "
            "not V.T @ A.T or (A @ V).T.",
        ),
        "no-scaling": (
            softmax(S) @ V,
            "You forgot to divide the scores by sqrt(d_k) before the softmax.",
        ),
        "divided-by-d_k": (
            softmax(S / d_k) @ V,
            "You divided by d_k; the scale is sqrt(d_k).",
        ),
        "multiplied-by-sqrt": (
            softmax(S * np.sqrt(d_k)) @ V,
            "You multiplied the scores by sqrt(d_k); divide them by it.",
        ),
    }
    sizes: dict[int, list[str]] = {}
    for name, size in (("n_k", n_k), ("n_q", n_q), ("d_v", d_v)):
        if size != d_k:
            sizes.setdefault(size, []).append(name)
    for size, names in sizes.items():
        where = " as well as ".join(_SIZE_NAMES[name] for name in names)
        mistakes[f"scaled-by-{names[0]}"] = (
            softmax(S / np.sqrt(size)) @ V,
            f"You divided by sqrt({size}), but {size} is {where}. The scale uses d_k, "
            f"the width of the queries and keys: Q.shape[-1] = {d_k}.",
        )
    mistakes |= {
        "softmax-over-columns": (
            softmax(Z, axis=0) @ V,
            "The softmax went down the columns (over the queries); each query's row of "
            "weights must sum to 1 (axis=-1).",
        ),
        "softmax-over-table": (
            (whole / whole.sum()) @ V if n_q > 1 else None,
            "Your softmax made the whole table sum to 1; each query's row must sum to 1 "
            "on its own (axis=-1).",
        ),
        "no-softmax": (Z @ V, "You skipped the softmax: scores are not weights."),
        "no-softmax-no-scaling": (
            S @ V if d_k != 1 else None,
            "You multiplied the raw scores Q @ K.T by V: scale them by 1/sqrt(d_k) and "
            "apply the softmax to each row first.",
        ),
    }
    return {
        name: (None if value is None or _same(value, output) else value, why)
        for name, (value, why) in mistakes.items()
    }


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """True when a mistake gives the right answer for these inputs (then it is not one)."""
    return a.shape == b.shape and bool(np.allclose(a, b))


@catalogued(MISTAKES)
def check_attention(answer: Any, Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Verdict:
    """Check an attention output ``O = softmax(Q K^T / sqrt(d_k)) V`` ``[n_q, d_v]`` (chapter 4).

    ``Q [n_q, d_k]``, ``K [n_k, d_k]``, ``V [n_k, d_v]``. A wrong answer that matches
    one of ``attention_mistakes`` is told which mistake it looks like.
    """
    Q, K, V = (float_input(name, a) for name, a in zip("QKV", (Q, K, V), strict=True))
    for name, a, wanted in (("Q", Q, "n_q, d_k"), ("K", K, "n_k, d_k"), ("V", V, "n_k, d_v")):
        check_ndim(name, a, (2,), f"[{wanted}]")
    check_qkv_shapes(Q, K, V)
    expected = softmax(Q @ K.T / np.sqrt(Q.shape[-1])) @ V  # [n_q, d_v]
    verdict = judge(
        answer,
        expected,
        what="the attention output, shape [n_q, d_v]",
        praise="softmax(Q K^T / sqrt(d_k)) V: each row a weighted average of value rows.",
        shape_message="The output has one row per query: shape {expected}; yours {got}.",
        mistakes=attention_mistakes(Q, K, V),
    )
    if verdict is not None:
        return verdict
    return wrong(
        "Raw scores S = Q @ K.T, scale them to Z = S / sqrt(d_k), softmax each row "
        "(A = softmax(Z)), then O = A @ V.",
        "other",
    )
