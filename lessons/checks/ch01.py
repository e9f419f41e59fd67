"""Self-checks of chapter 1 (Why attention): the soft look-up, a query to design, the count of scores."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_ndim, finite_number, float_input
from ..softmax import softmax
from .verdict import (
    Verdict,
    as_float_array,
    as_whole_number,
    catalogued,
    generic,
    is_missing,
    judge,
    named_mistake,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_pair_count", "check_soft_lookup", "check_split_query"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_pair_count": {
        "unordered_pairs": "counted unordered pairs, n(n - 1)/2, as if i's score for j were "
        "j's score for i",
        "no_diagonal": "left out each token's score with itself, counting n(n - 1)",
        "one_each": "counted one score per token, n, instead of one per pair",
        **generic("not_a_whole_number", "other"),
    },
    "check_soft_lookup": {
        "raw_scores": "stopped at the raw scores, before the softmax and the weighted average",
        "weights_not_output": "stopped at the softmax weights instead of averaging the values "
        "with them",
        "not_summed": "weighted each value but did not add them up",
        "no_softmax": "averaged the values with the raw scores, skipping the softmax",
        "scores_over_sum": "divided the scores by their sum instead of taking the softmax",
        "hard_lookup": "returned only the best-matching key's value (a hard look-up)",
        "plain_average": "took the plain average of the values, ignoring the query",
        "averaged_keys": "averaged the keys instead of the values",
        **generic("not_a_number", "wrong_shape", "other"),
    },
    "check_split_query": {
        "value_not_query": "gave one number (what a look-up returns) instead of a query vector",
        "zero_query": "gave the zero query, which weighs every key alike",
        "points_elsewhere": "pointed the query at another key than the two to split between",
        "uneven_split": "favoured one key of the pair over the other",
        "too_short": "pointed between the two keys but made the query too short, so the "
        "look-up stays soft",
        **generic("not_a_number", "wrong_shape", "not_finite"),
    },
}


def soft_lookup_mistakes(
    query: ArrayLike, keys: ArrayLike, values: ArrayLike
) -> dict[str, tuple[Any, str]]:
    """The named mistakes of a soft look-up ``softmax(keys @ query) @ values`` (chapter 1).

    ``query [d]``, ``keys [n, d]``, ``values [n, d_v]``. Returns ``{name: (what the
    wrong method computes, or None where it cannot apply, the explanation)}``;
    the mistakes have the shapes a reader gets, ``[n]`` or ``[n, d_v]`` as well as
    ``[d_v]``, so a raw score vector is named even though its shape is wrong.
    """
    query, keys, values = (np.asarray(a, dtype=float) for a in (query, keys, values))
    scores = keys @ query  # [n]
    weights = softmax(scores)  # [n]
    total = scores.sum()
    return {
        "raw_scores": (
            scores,
            "Those are the raw scores keys @ query: apply the softmax to turn them into "
            "weights, then average the values with those weights.",
        ),
        "weights_not_output": (
            weights,
            "Those are the weights; the answer is the weighted average of the values, "
            "weights @ values.",
        ),
        "not_summed": (
            weights[:, None] * values,
            "You weighted each value but did not add them up: the answer is one vector, "
            "weights @ values.",
        ),
        "no_softmax": (
            scores @ values,
            "The raw scores are not weights: apply the softmax first, so they are "
            "positive and sum to 1.",
        ),
        "scores_over_sum": (
            (scores / total) @ values if abs(total) > 1e-12 else None,
            "You divided the scores by their sum; softmax exponentiates them first, so "
            "every weight is positive and a larger score counts for more.",
        ),
        "hard_lookup": (
            values[int(np.argmax(scores))],
            "That is a hard look-up (the value of the best key only); a soft look-up "
            "mixes every value with softmax weights.",
        ),
        "plain_average": (
            values.mean(axis=0),
            "That is the plain average: the weights must come from the query-key scores.",
        ),
        "averaged_keys": (
            weights @ keys,
            "You averaged the keys; the keys only decide the weights, and the answer "
            "averages the values.",
        ),
    }


@catalogued(MISTAKES)
def check_soft_lookup(answer: Any, query: ArrayLike, keys: ArrayLike, values: ArrayLike) -> Verdict:
    """Check a soft dictionary look-up: ``softmax(keys @ query) @ values`` (chapter 1).

    ``query [d]``, ``keys [n, d]``, ``values [n, d_v]``; the answer is ``[d_v]``.
    """
    query = float_input("query", query)  # [d]
    keys = float_input("keys", keys)  # [n, d]
    values = float_input("values", values)  # [n, d_v]
    check_ndim("query", query, (1,), "[d]")
    check_ndim("keys", keys, (2,), "[n, d]")
    check_ndim("values", values, (2,), "[n, d_v]")
    if keys.shape[1] != query.shape[0] or values.shape[0] != keys.shape[0]:
        raise ValueError(
            "keys need the query's width and values one row per key: got query "
            f"{list(query.shape)}, keys {list(keys.shape)}, values {list(values.shape)}"
        )
    expected = softmax(keys @ query) @ values  # [d_v]
    verdict = judge(
        answer,
        expected,
        what="the weighted average of the values, one vector",
        praise="Each value counts in proportion to how well its key matches the query.",
        kind="a vector",
        mistakes=soft_lookup_mistakes(query, keys, values),
    )
    if verdict is not None:
        return verdict
    got = as_float_array(answer)  # not None: judge has ruled that out
    if got.shape != expected.shape:
        return wrong(
            f"The result is one value-sized vector, shape {expected.shape}; "
            f"yours has shape {got.shape}.",
            "wrong_shape",
        )
    return wrong(
        "Score each key against the query (a dot product), softmax the scores, then "
        "average the values with those weights.",
        "other",
    )


@catalogued(MISTAKES)
def check_split_query(
    answer: Any,
    keys: ArrayLike,
    pair: tuple[int, int],
    *,
    names: list[str] | None = None,
    share: float = 0.45,
    rest: float | None = None,
) -> Verdict:
    """Check a query whose soft look-up gives each key of ``pair`` at least ``share`` (chapter 1).

    ``keys [n_k, d_k]``; the answer is a query ``[d_k]``, scored against the keys
    and softmaxed as in ``check_soft_lookup``. ``rest``, when given, is the most
    the other keys may keep together (by default ``1 - 2 * share``, which the
    shares imply). ``names`` (one per key) make the messages read "east" rather
    than "key 1". A query pointing at another key, one that favours one key of the
    pair, and one that points the right way but is too short (its split is even
    but too soft: the other keys keep more than ``rest``) are each named.
    """
    keys = float_input("keys", keys)  # [n_k, d_k]
    check_ndim("keys", keys, (2,), "[n_k, d_k]")
    n_k, d_k = keys.shape
    labels = [f"key {j}" for j in range(n_k)] if names is None else [str(n) for n in names]
    if len(labels) != n_k:
        raise ValueError(f"names must give one name per key: {n_k} keys, {len(labels)} names")
    if (
        not isinstance(pair, tuple | list)
        or len(pair) != 2
        or not all(isinstance(j, int | np.integer) and 0 <= j < n_k for j in pair)
        or pair[0] == pair[1]
    ):
        raise ValueError(f"pair must be two different key indices in [0, {n_k}); got {pair!r}")
    share = finite_number("share", share, positive=True)
    if share > 0.5:
        raise ValueError(f"share must be at most 0.5 (two keys share 1); got {share}")
    most = 1 - 2 * share if rest is None else finite_number("rest", rest, positive=True)
    if most > 1 - 2 * share + 1e-12:
        raise ValueError(f"rest must be at most 1 - 2 * share = {1 - 2 * share:g}; got {rest}")
    first, second = (int(j) for j in pair)
    one, two = labels[first], labels[second]
    One = one[:1].upper() + one[1:]  # at the start of a sentence
    if is_missing(answer):
        return unanswered(f"a query vector of {d_k} numbers")
    got = as_float_array(answer)
    if got is None:
        return wrong(
            f"The answer should be a query vector; got {type(answer).__name__}.", "not_a_number"
        )
    if got.shape != (d_k,):
        if got.size == 1:
            return wrong(
                f"Give the query itself, a vector of {d_k} numbers like a key, not the "
                "value the look-up returns.",
                "value_not_query",
            )
        return wrong(
            f"A query has the keys' width: shape [{d_k}]; yours has shape {list(got.shape)}.",
            "wrong_shape",
        )
    if not np.isfinite(got).all():
        return wrong("The query must hold finite numbers.", "not_finite")
    weights = softmax(keys @ got)  # [n_k]
    w_one, w_two = weights[first], weights[second]
    left = 1 - w_one - w_two  # what the other keys keep
    if w_one >= share and w_two >= share and left <= most:
        return right(
            f"{One} gets {w_one:.3f} and {two} {w_two:.3f}: the query points between the "
            "two keys, and its length makes the look-up sharp."
        )
    if not got.any():
        return wrong(
            "The zero query scores every key 0, so every key gets the same weight. "
            "Point the query between the two keys.",
            "zero_query",
        )
    best = int(np.argmax(weights))
    if best not in (first, second):
        return wrong(
            f"Your query matches {labels[best]} best ({weights[best]:.2f} of the weight): "
            f"point it between {one} and {two}, for example along the sum of their keys.",
            "points_elsewhere",
        )
    if abs(w_one - w_two) > 1 - 2 * share or left <= most:  # sharp enough, not even
        return wrong(
            f"{One} gets {w_one:.2f} and {two} {w_two:.2f}: the split is uneven. Turn "
            "the query so that its dot products with the two keys are equal.",
            "uneven_split",
        )
    digits = 2 if most >= 0.01 else 4
    return wrong(
        f"The direction is right but the query is too short: the split is even ({one} "
        f"{w_one:.{digits}f}, {two} {w_two:.{digits}f}), yet the other keys still take "
        f"{left:.{digits}f}, more than {most:g}. Make the query longer: a longer query "
        "makes the score differences larger and the weights sharper.",
        "too_short",
    )


def pair_count_mistakes(n: int) -> dict[str, tuple[Any, str]]:
    """The named mistakes of counting the scores of ``n`` tokens (chapter 1).

    ``{name: (the wrong count, the explanation)}``, shared by ``check_pair_count``
    and the in-page question of chapter 1.
    """
    return {
        "unordered-pairs": (
            n * (n - 1) // 2,
            "You counted unordered pairs: the score of i for j and of j for i are "
            "separate, and each token scores itself too.",
        ),
        "no-diagonal": (n * (n - 1), "Close: each token also scores itself (the diagonal)."),
        "one-each": (n, "Every token scores every other token, not just one each."),
    }


@catalogued(MISTAKES)
def check_pair_count(answer: Any, n: int) -> Verdict:
    """Check the number of query-key scores self-attention computes for ``n`` tokens (chapter 1)."""
    if is_missing(answer):
        return unanswered("a whole number")
    value = as_whole_number(answer)
    if value is None:
        return wrong(f"The answer should be a whole number; got {answer!r}.", "not_a_whole_number")
    if value == n * n:
        return right(f"{n} queries times {n} keys: {n * n} scores, so the work grows like n².")
    mistake = named_mistake(np.asarray(float(value)), pair_count_mistakes(n))
    if mistake is not None:
        return mistake
    return wrong(
        "Count one score for every (query, key) pair, a token with itself included.", "other"
    )
