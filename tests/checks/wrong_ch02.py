"""Chapter 2's wrong answers (Dot products and softmax): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

import lessons
from checks.library import (
    Givens,
    Right,
    Wrong,
    as_float32,
    seeded,
    softmax,
    where_shapes_fit,
)


def _ab(fn):
    def make(a, b):
        return fn(np.asarray(a, dtype=float), np.asarray(b, dtype=float))

    return make


def _qk(fn):
    def make(Q, K):
        return fn(np.asarray(Q, dtype=float), np.asarray(K, dtype=float))

    return make


def _perp(fn):
    def make(a, b, k):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        rest = a @ b - a[k] * b[k]
        return fn(a, b, k, rest)

    return make


PERPENDICULAR = [
    Wrong("sign slip", _perp(lambda a, b, k, rest: rest / a[k]), "sign_slip"),
    Wrong("not divided", _perp(lambda a, b, k, rest: -rest), "not_divided"),
    Wrong("the dot product", _perp(lambda a, b, k, rest: rest), "dot_product"),
    Wrong("multiplied by a_k", _perp(lambda a, b, k, rest: -rest * a[k])),
    Wrong(
        "solved for the next entry (1-based k)",
        where_shapes_fit(_perp(lambda a, b, k, rest: -(a @ b - a[k + 1] * b[k + 1]) / a[k + 1])),
    ),
    Wrong("a vector", _perp(lambda a, b, k, rest: np.full(2, -rest / a[k])), "wrong_shape"),
]


def _key(fn):
    def make(Q, scores):
        return fn(np.asarray(Q, dtype=float), np.asarray(scores, dtype=float))

    return make


KEY_FOR_SCORES = [
    Wrong("the scores themselves", _key(lambda Q, s: s), "scores_as_key"),
    Wrong("columns of Q", _key(lambda Q, s: np.linalg.solve(Q.T, s)), "columns_of_q"),
    Wrong("the best query", _key(lambda Q, s: Q[np.argmax(s)]), "a_query"),
    Wrong("Q @ scores (multiplied, not solved)", _key(lambda Q, s: Q @ s)),
    Wrong("Q.T @ scores", _key(lambda Q, s: Q.T @ s)),
    Wrong("scores @ Q", _key(lambda Q, s: s @ Q)),
    Wrong("divided entry by entry", _key(lambda Q, s: s / np.diag(Q))),
    Wrong("a [n_q, 1] column", _key(lambda Q, s: np.linalg.solve(Q, s)[:, None]), "wrong_shape"),
]


def _function(fn):
    return lambda: fn


def _naive(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _shifted(shift):
    def softmax_(x):
        e = np.exp(x - shift(x))
        return e / e.sum(axis=-1, keepdims=True)

    return softmax_


def _raises(x):
    if x.ndim > 1:
        raise ValueError("only rows")
    return _naive(x - x.max())


SOFTMAX_FUNCTION = [
    Wrong("not a function", lambda: softmax(np.array([1.0, 2.0, 3.0])), "not_a_function"),
    Wrong("no max subtraction", _function(_naive), "overflows"),
    Wrong("the table's max, not each row's", _function(_shifted(lambda x: x.max())), "overflows"),
    Wrong(
        "the row's min", _function(_shifted(lambda x: x.min(axis=-1, keepdims=True))), "overflows"
    ),
    Wrong(
        "the row's mean", _function(_shifted(lambda x: x.mean(axis=-1, keepdims=True))), "overflows"
    ),
    Wrong(
        "max without keepdims",
        _function(lambda x: (e := np.exp(x - x.max(axis=-1))) / e.sum(axis=-1, keepdims=True)),
    ),
    Wrong(
        "sum without keepdims",
        _function(lambda x: (e := np.exp(x - x.max(axis=-1, keepdims=True))) / e.sum(axis=-1)),
    ),
    Wrong(
        "over the columns",
        _function(lambda x: (e := np.exp(x - x.max(axis=0))) / e.sum(axis=0)),
        "softmax_over_columns",
    ),
    Wrong(
        "over the whole table",
        _function(lambda x: (e := np.exp(x - x.max())) / e.sum()),
        "softmax_over_table",
    ),
    Wrong(
        "not normalised",
        _function(lambda x: np.exp(x - x.max(axis=-1, keepdims=True))),
        "not_normalised",
    ),
    Wrong(
        "divided by the max",
        _function(lambda x: (e := np.exp(x - x.max(axis=-1, keepdims=True))) / e.max()),
    ),
    Wrong(
        "temperature 2",
        _function(lambda x: softmax(x / 2)),
    ),
    Wrong("rows only", _function(_raises), "raises"),
    Wrong("flattened", _function(lambda x: softmax(x).ravel()), "returns_wrong_shape"),
    Wrong("returns None", _function(lambda x: None), "returns_wrong_shape"),
]


def _solution_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


WRONG: dict[str, list[Wrong]] = {
    "check_key_for_scores": KEY_FOR_SCORES,
    "check_perpendicular_entry": PERPENDICULAR,
    "check_softmax_function": SOFTMAX_FUNCTION,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_key_for_scores": lambda: [Givens("random [3, 3]", tuple(seeded(7, (3, 3), (3,))), {})],
    "check_perpendicular_entry": lambda: [
        Givens("random, d = 4, k = 2", (*seeded(8, (4,), (4,)), 2), {})
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_key_for_scores": [
        Right("inverse", lambda Q, s: np.linalg.inv(np.asarray(Q, float)) @ np.asarray(s, float)),
        Right(
            "lstsq",
            lambda Q, s: np.linalg.lstsq(np.asarray(Q, float), np.asarray(s, float), rcond=None)[0],
        ),
        Right("list", lambda Q, s: np.linalg.solve(Q, s).tolist()),
        Right("float32", as_float32(lambda Q, s: np.linalg.solve(Q, s)), everywhere=False),
    ],
    "check_perpendicular_entry": [
        Right("solved", lambda a, b, k: -(np.dot(a, b) - a[k] * b[k]) / a[k]),
        Right("a 1-element list", lambda a, b, k: [-(np.dot(a, b) - a[k] * b[k]) / a[k]]),
        Right(
            "float32",
            lambda a, b, k: np.float32(-(np.dot(a, b) - a[k] * b[k]) / a[k]),
            everywhere=False,
        ),
    ],
    "check_softmax_function": [
        Right("the solution", lambda: _solution_softmax),
        Right("lessons.softmax", lambda: lessons.softmax),
        Right("torch", lambda: lambda x: torch.softmax(torch.as_tensor(x), dim=-1)),
        Right("a list", lambda: lambda x: _solution_softmax(x).tolist()),
        Right(
            "log-sum-exp",
            lambda: (
                lambda x: np.exp(
                    x
                    - (m := x.max(-1, keepdims=True))
                    - np.log(np.exp(x - m).sum(-1, keepdims=True))
                )
            ),
        ),
        Right("in float32", lambda: lambda x: _solution_softmax(x.astype(np.float32))),
    ],
}  # fmt: skip
