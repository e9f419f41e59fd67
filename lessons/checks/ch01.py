"""Self-checks of chapter 1 (Why attention): the soft look-up and the count of scores."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import float_input
from ..softmax import softmax
from .verdict import (
    Verdict,
    as_float_array,
    as_whole_number,
    close,
    is_missing,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_pair_count", "check_soft_lookup"]


def check_soft_lookup(answer: Any, query: ArrayLike, keys: ArrayLike, values: ArrayLike) -> Verdict:
    """Check a soft dictionary look-up: ``softmax(keys @ query) @ values`` (chapter 1).

    ``query [d]``, ``keys [n, d]``, ``values [n, d_v]``; the answer is ``[d_v]``.
    """
    if is_missing(answer):
        return unanswered("the weighted average of the values, one vector")
    query = float_input("query", query)  # [d]
    keys = float_input("keys", keys)  # [n, d]
    values = float_input("values", values)  # [n, d_v]
    scores = keys @ query  # [n]
    weights = softmax(scores)  # [n]
    expected = weights @ values  # [d_v]
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be a vector; got {type(answer).__name__}.")
    if close(got, expected):
        return right("Each value counts in proportion to how well its key matches the query.")
    if close(got, weights):
        return wrong(
            "Those are the weights; the answer is the weighted average of the values, weights @ values."
        )
    if got.shape != expected.shape:
        return wrong(
            f"The result is one value-sized vector, shape {expected.shape}; yours has shape {got.shape}."
        )
    if close(got, values[int(np.argmax(scores))]):
        return wrong(
            "That is a hard look-up (the value of the best key only); a soft look-up mixes "
            "every value with softmax weights."
        )
    if close(got, values.mean(axis=0)):
        return wrong("That is the plain average: the weights must come from the query-key scores.")
    if close(got, scores @ values):
        return wrong(
            "The raw scores are not weights: pass them through softmax first, so they sum to 1."
        )
    return wrong(
        "Score each key against the query (a dot product), softmax the scores, then "
        "average the values with those weights."
    )


def check_pair_count(answer: Any, n: int) -> Verdict:
    """Check the number of query-key scores self-attention computes for ``n`` tokens (chapter 1)."""
    if is_missing(answer):
        return unanswered("a whole number")
    value = as_whole_number(answer)
    if value is None:
        return wrong(f"The answer should be a whole number; got {answer!r}.")
    if value == n * n:
        return right(f"{n} queries times {n} keys: {n * n} scores, so the work grows like n².")
    if value == n * (n - 1) // 2:
        return wrong(
            "You counted unordered pairs: the score of i for j and of j for i are separate, and each token scores itself too."
        )
    if value == n * (n - 1):
        return wrong("Close: each token also scores itself (the diagonal).")
    if value == n:
        return wrong("Every token scores every other token, not just one each.")
    return wrong("Count one score for every (query, key) pair, a token with itself included.")
