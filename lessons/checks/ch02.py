"""Self-checks of chapter 2 (Dot products and softmax)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import float_input
from ..softmax import softmax
from .dot_product_mistakes import (
    key_for_scores_mistakes,
    perpendicular_entry_mistakes,
)
from .dot_product_mistakes import (
    score_matrix_mistakes as score_matrix_mistakes,  # chapter 2's question
)
from .function_inputs import softmax_cases
from .verdict import (
    TOLERANCE,
    Verdict,
    as_float_array,
    catalogued,
    close,
    generic,
    is_missing,
    judge,
    right,
    unanswered,
    wrong,
)

__all__ = [
    "check_key_for_scores",
    "check_perpendicular_entry",
    "check_softmax_function",
]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_key_for_scores": {
        "scores_as_key": "gave the wanted scores themselves instead of a key that produces them",
        "columns_of_q": "paired the key with the columns of Q instead of its rows",
        "a_query": "gave the query that should score highest instead of solving for the key",
        **generic("not_a_number", "wrong_shape", "not_finite", "other"),
    },
    "check_perpendicular_entry": {
        "sign_slip": "slipped a sign when solving for the missing entry",
        "not_divided": "solved for a_k times the entry but did not divide by a_k",
        "dot_product": "gave the dot product with the unknown set to 0 instead of solving for it",
        **generic("not_a_number", "wrong_shape", "not_finite", "other"),
    },
    "check_softmax_function": {
        "not_a_function": "passed a result, softmax(x), instead of the function itself",
        "raises": "wrote a function that raises an error on a small test input",
        "returns_wrong_shape": "wrote a function whose result is not an array of the input's shape",
        "overflows": "did not subtract the maximum, so large scores overflow into NaN",
        "softmax_over_columns": "normalised down the columns instead of along each row",
        "softmax_over_table": "normalised the whole table at once instead of each row",
        "not_normalised": "forgot to divide the exponentials by their sum",
        **generic("other"),
    },
}


@catalogued(MISTAKES)
def check_perpendicular_entry(answer: Any, a: ArrayLike, b: ArrayLike, k: int) -> Verdict:
    """Check the entry ``b[k]`` that makes ``b`` perpendicular to ``a`` (chapter 2).

    ``a [d]`` and ``b [d]`` are given; ``b[k]`` is the unknown (its stored value
    is ignored), and ``a[k]`` must not be 0. The answer is one number ``x`` with
    ``a · b = 0`` once ``b[k] = x``.

    Raises:
        ValueError: if ``a`` and ``b`` differ in shape, ``k`` is not an index of
            them, or ``a[k]`` is 0 (then no entry of ``b`` can do it).
    """
    a, b = float_input("a", a), float_input("b", b)  # [d], [d]
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"a and b must be vectors of one shape; got {a.shape} and {b.shape}")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 0 <= k < a.size:
        raise ValueError(f"k must be an index of a and b, in [0, {a.size}); got {k!r}")
    if a[k] == 0:
        raise ValueError(f"a[{k}] is 0, so no value of b[{k}] can change a · b")
    rest = float(a @ b - a[k] * b[k])  # [] the other products
    expected = -rest / a[k]
    if is_missing(answer):
        return unanswered("the missing entry of b, one number")
    got = as_float_array(answer)
    if got is None or got.size != 1:
        what = type(answer).__name__ if got is None else f"shape {list(got.shape)}"
        return wrong(
            f"The answer is the one missing entry of b, a single number; got {what}.",
            "not_a_number" if got is None else "wrong_shape",
        )
    value = float(got.reshape(()))
    if not np.isfinite(value):
        return wrong("The missing entry must be a finite number.", "not_finite")
    if abs(value - expected) < TOLERANCE * max(1.0, abs(expected)):
        return right(
            f"With b[{k}] = {expected:g} the products add up to 0: the arrows meet at 90°, "
            "and neither says anything about the other."
        )
    for name, (candidate, message) in perpendicular_entry_mistakes(a, b, k).items():
        if candidate is not None and abs(value - candidate) < TOLERANCE * max(1.0, abs(candidate)):
            return wrong(message, name)
    filled = b.copy()
    filled[k] = value
    return wrong(
        f"With b[{k}] = {value:g}, a · b = {float(a @ filled):g}, not 0: write a · b as a sum "
        f"of products, with x in place of b[{k}], set it to 0 and solve for x.",
        "other",
    )


@catalogued(MISTAKES)
def check_key_for_scores(answer: Any, Q: ArrayLike, scores: ArrayLike) -> Verdict:
    """Check a key ``k [d_k]`` whose column of the score table is ``scores`` (chapter 2).

    ``Q [n_q, d_k]`` must be square and invertible, so that one key does it;
    ``scores [n_q]`` is the column wanted: ``(Q @ k)[i] = q_i · k = scores[i]``.

    Raises:
        ValueError: naming ``Q`` or ``scores`` when their shapes do not fit, or
            when ``Q`` is not invertible.
    """
    Q, scores = float_input("Q", Q), float_input("scores", scores)  # [n_q, d_k], [n_q]
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1] or scores.shape != (Q.shape[0],):
        raise ValueError(
            f"Q must be square [n_q, n_q] and scores [n_q]; got Q {list(Q.shape)}, "
            f"scores {list(scores.shape)}"
        )
    if abs(np.linalg.det(Q)) < 1e-9:
        raise ValueError(f"Q {list(Q.shape)} is not invertible: no key, or many, would do")
    expected = np.linalg.solve(Q, scores)  # [d_k]
    verdict = judge(
        answer,
        expected,
        what=f"a key, a vector of {Q.shape[1]} numbers",
        praise=(
            f"Q @ k = {np.round(Q @ expected, 4).tolist()}: each query's score is its dot "
            "product with the key, so the key solves one equation per query."
        ),
        kind="a vector",
        mistakes=key_for_scores_mistakes(Q, scores),
        shape_message="A key is a vector like a row of K, shape {expected}; yours has shape {got}.",
    )
    if verdict is not None:
        return verdict
    got = as_float_array(answer)  # [d_k]: judge ruled out the rest
    if not np.isfinite(got).all():
        return wrong("The key must hold finite numbers.", "not_finite")
    column = np.round(Q @ got, 4).tolist()
    return wrong(
        f"Your key gets the scores {column} from the queries, not {np.round(scores, 4).tolist()}: "
        "write q_i · k = score i for each query and solve for the entries of k.",
        "other",
    )


def _nan_message(label: str) -> str:
    """Why a softmax gives NaN or inf: exp overflows, or a whole row of exps underflows to 0."""
    return (
        f"On {label} you get NaN or inf: exp overflows to inf above about 709 (inf / inf "
        "is NaN), and a row whose exps all underflow to 0 gives 0 / 0. Subtract each "
        "row's own maximum (axis=-1, keepdims=True) before exp; the result does not change."
    )


def _stack_slip(got: np.ndarray, x: np.ndarray, label: str) -> Verdict | None:
    """The slip of a softmax on a stack of tables ``x [..., m, n]``: an axis from the front."""
    for axis in range(x.ndim - 1):
        if close(got, softmax(x, axis=axis)):
            return wrong(
                f"On {label} you normalised along axis {axis}; softmax "
                "normalises the last axis of any shape [..., n]: use axis=-1, not a number "
                "counted from the front.",
                "softmax_over_columns",
            )
    sums = got.sum(axis=(-2, -1))  # [...]: one sum per table
    if np.allclose(sums, 1.0) or np.isclose(got.sum(), 1.0):
        return wrong(
            f"On {label} each table (or the whole stack) sums to 1; "
            "each row should: use axis=-1 and keepdims=True, whatever the number of axes.",
            "softmax_over_table",
        )
    if not np.allclose(got.sum(axis=-1), 1.0):
        return wrong(
            f"On {label} the rows do not sum to 1: the input may "
            "have any number of axes, [..., n]; normalise the last one (axis=-1).",
            "not_normalised",
        )
    return None


@catalogued(MISTAKES)
def check_softmax_function(fn: Callable[[np.ndarray], Any]) -> Verdict:
    """Check a reader's softmax function on the cases that catch the usual bugs (chapter 2).

    ``fn(x)`` must normalise the last axis of a NumPy array, and survive large scores.
    """
    if is_missing(fn):
        return unanswered("your softmax function")
    if not callable(fn):
        return wrong(
            f"Pass the function itself (softmax, not softmax(x)); got {type(fn).__name__}.",
            "not_a_function",
        )
    for label, x in softmax_cases():
        with np.errstate(all="ignore"):
            try:
                got = as_float_array(fn(x.copy()))
            except Exception as error:  # the reader's code failing is part of the verdict
                return wrong(
                    f"On {label} (shape {list(x.shape)}) your function raised "
                    f"{type(error).__name__}: {error}",
                    "raises",
                )
        expected = softmax(x)
        if got is None or got.shape != x.shape:
            shape = None if got is None else got.shape
            return wrong(
                f"On {label} the result should have shape {list(x.shape)}, the input's; got "
                f"{None if shape is None else list(shape)}.",
                "returns_wrong_shape",
            )
        if np.isnan(got).any() or np.isinf(got).any():
            return wrong(_nan_message(label), "overflows")
        if close(got, expected):
            continue
        if x.ndim == 2 and close(got, softmax(x, axis=0)):
            return wrong(
                f"On {label} you normalised columns; softmax normalises each row (axis=-1).",
                "softmax_over_columns",
            )
        if x.ndim > 2:
            verdict = _stack_slip(got, x, label)
            if verdict is not None:
                return verdict
        if x.ndim == 2 and np.isclose(got.sum(), 1.0):
            return wrong(
                f"On {label} the whole table sums to 1; each row should (use axis=-1 and keepdims=True).",
                "softmax_over_table",
            )
        if not np.allclose(got.sum(axis=-1), 1.0):
            return wrong(
                f"On {label} the rows do not sum to 1: divide the exponentials by their sum.",
                "not_normalised",
            )
        return wrong(
            f"On {label} you get {np.round(got, 4)}; softmax gives {np.round(expected, 4)}.",
            "other",
        )
    return right("Rows sum to 1, order is kept, and large scores do not overflow.")
