"""Self-checks of chapter 2 (Dot products and softmax)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_qkv_shapes, float_input
from ..softmax import softmax
from .verdict import (
    TOLERANCE,
    Verdict,
    as_float_array,
    close,
    is_missing,
    judge,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_dot_product", "check_score_matrix", "check_softmax_function"]


def score_matrix_mistakes(Q: ArrayLike, K: ArrayLike) -> dict[str, tuple[Any, str]]:
    """The named mistakes of a score table ``Q @ K.T`` ``[n_q, n_k]`` (chapter 2).

    ``{name: (what the wrong method computes, or None where it cannot apply, the
    explanation)}``, shared by ``check_score_matrix`` and the in-page questions.
    """
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    expected = Q @ K.T  # [n_q, n_k]
    return {
        "transpose": (
            expected.T,
            f"This is K @ Q.T, the transpose: rows must be queries and columns keys, "
            f"so the shape is [n_q, n_k] = {list(expected.shape)}.",
        ),
        "elementwise": (
            Q * K if Q.shape == K.shape else None,
            "Q * K multiplies entries one by one; a table of dot products needs Q @ K.T.",
        ),
    }


def check_dot_product(answer: Any, a: ArrayLike, b: ArrayLike) -> Verdict:
    """Check a dot product ``a · b`` worked out by the reader (chapter 2)."""
    if is_missing(answer):
        return unanswered("the dot product of a and b, a single number")
    a, b = float_input("a", a), float_input("b", b)  # [d], [d]
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape; got {a.shape} and {b.shape}")
    expected = float(a @ b)
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be a number; got {type(answer).__name__}.")
    if got.shape == a.shape and close(got, a * b):
        return wrong(
            "You have the element-wise products a_k * b_k; the dot product adds them up "
            "into one number (np.sum, or a @ b)."
        )
    if got.size != 1:
        return wrong(f"The dot product is one number; your answer has shape {got.shape}.")
    value = float(got.reshape(()))
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norms > 0 and abs(value - expected / norms) < TOLERANCE and abs(expected) > TOLERANCE:
        return wrong(
            "That is the cosine similarity (the dot product divided by both lengths); "
            "the dot product keeps the lengths."
        )
    if abs(value - expected) < TOLERANCE:
        return right(f"a · b = {expected:g}.")
    if abs(value + expected) < TOLERANCE:
        return wrong("The sign is flipped: check the products of entries with opposite signs.")
    return wrong(f"{value:g} is not a · b: multiply matching entries, then add the products.")


def check_score_matrix(answer: Any, Q: ArrayLike, K: ArrayLike) -> Verdict:
    """Check a table of all query-key dot products, ``Q @ K.T`` (chapter 2)."""
    Q, K = float_input("Q", Q), float_input("K", K)  # [n_q, d_k], [n_k, d_k]
    check_qkv_shapes(Q, K, K)
    expected = Q @ K.T  # [n_q, n_k]
    verdict = judge(
        answer,
        expected,
        what="the [n_q, n_k] table of dot products q_i · k_j",
        praise=f"Entry (i, j) is q_i · k_j, and the table has shape {expected.shape}.",
        kind="a 2-D array",
        shape_message=(
            "The table should have one row per query and one column per key, shape "
            "{expected}; yours has shape {got}."
        ),
        mistakes=list(score_matrix_mistakes(Q, K).values()),
    )
    if verdict is not None:
        return verdict
    got = as_float_array(answer)
    off = np.argwhere(~np.isclose(got, expected, atol=TOLERANCE))
    i, j = (int(v) for v in off[0])
    return wrong(
        f"Entry ({i}, {j}) should be q_{i} · k_{j} = {expected[i, j]:g}; yours is {got[i, j]:g}."
    )


def check_softmax_function(fn: Callable[[np.ndarray], Any]) -> Verdict:
    """Check a reader's softmax function on the cases that catch the usual bugs (chapter 2).

    ``fn(x)`` must normalise the last axis of a NumPy array, and survive large scores.
    """
    if is_missing(fn):
        return unanswered("your softmax function")
    if not callable(fn):
        return wrong(
            f"Pass the function itself (softmax, not softmax(x)); got {type(fn).__name__}."
        )
    cases = [
        ("a small row [1, 2, 3]", np.array([1.0, 2.0, 3.0])),
        ("a 2-row table", np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])),
        ("large scores [1000, 1001, 1002]", np.array([1000.0, 1001.0, 1002.0])),
    ]
    for label, x in cases:
        with np.errstate(all="ignore"):
            try:
                got = as_float_array(fn(x.copy()))
            except Exception as error:  # the reader's code failing is part of the verdict
                return wrong(f"On {label} your function raised {type(error).__name__}: {error}")
        expected = softmax(x)
        if got is None or got.shape != x.shape:
            shape = None if got is None else got.shape
            return wrong(f"On {label} the result should have shape {x.shape}; got {shape}.")
        if np.isnan(got).any():
            return wrong(
                f"On {label} you get NaN: exp overflows to inf and inf / inf is NaN. "
                "Subtract each row's maximum before exp; the result does not change."
            )
        if close(got, expected):
            continue
        if x.ndim == 2 and close(got, softmax(x, axis=0)):
            return wrong(
                f"On {label} you normalised columns; softmax normalises each row (axis=-1)."
            )
        if x.ndim == 2 and np.isclose(got.sum(), 1.0):
            return wrong(
                f"On {label} the whole table sums to 1; each row should (use axis=-1 and keepdims=True)."
            )
        if not np.allclose(got.sum(axis=-1), 1.0):
            return wrong(
                f"On {label} the rows do not sum to 1: divide the exponentials by their sum."
            )
        return wrong(
            f"On {label} you get {np.round(got, 4)}; softmax gives {np.round(expected, 4)}."
        )
    return right("Rows sum to 1, order is kept, and large scores do not overflow.")
