"""Chapter 1's wrong answers (Why attention): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from checks.library import (
    Givens,
    Right,
    Wrong,
    as_float32,
    seeded,
    softmax,
)


def _lookup_parts(q, keys, values):
    q, keys, values = (np.asarray(a, dtype=float) for a in (q, keys, values))
    s = keys @ q  # [n]
    return q, keys, values, s


def _soft(fn):
    def make(q, keys, values):
        return fn(*_lookup_parts(q, keys, values))

    return make


SOFT_LOOKUP = [
    Wrong("raw scores", _soft(lambda q, k, v, s: s), "raw_scores"),
    Wrong("the weights", _soft(lambda q, k, v, s: softmax(s)), "weights_not_output"),
    Wrong("weighted, not summed", _soft(lambda q, k, v, s: softmax(s)[:, None] * v), "not_summed"),
    Wrong("no softmax", _soft(lambda q, k, v, s: s @ v), "no_softmax"),
    Wrong("scores over their sum", _soft(lambda q, k, v, s: (s / s.sum()) @ v), "scores_over_sum"),
    Wrong("hard look-up", _soft(lambda q, k, v, s: v[np.argmax(s)]), "hard_lookup"),
    Wrong("plain average", _soft(lambda q, k, v, s: v.mean(axis=0)), "plain_average"),
    Wrong("averaged the keys", _soft(lambda q, k, v, s: softmax(s) @ k), "averaged_keys"),
    Wrong("scaled by sqrt(d)", _soft(lambda q, k, v, s: softmax(s / np.sqrt(q.size)) @ v)),
    Wrong("exp, not normalised", _soft(lambda q, k, v, s: np.exp(s) @ v)),
    Wrong("softmax of minus the scores", _soft(lambda q, k, v, s: softmax(-s) @ v)),
    Wrong("last key's value", _soft(lambda q, k, v, s: v[-1])),
]


def _split(fn):
    def make(keys, pair, **_):
        keys = np.asarray(keys, dtype=float)
        return fn(keys, *pair)

    return make


def _others(keys, one, two):
    return [j for j in range(len(keys)) if j not in (one, two)]


SPLIT_QUERY = [
    Wrong("the zero query", _split(lambda k, a, b: np.zeros(k.shape[1])), "zero_query"),
    Wrong("one key of the pair", _split(lambda k, a, b: 5 * k[a]), "uneven_split"),
    Wrong(
        "between two other keys",
        _split(lambda k, a, b: 5 * k[_others(k, a, b)].sum(axis=0)),
        "points_elsewhere",
    ),
    Wrong("right way, too short", _split(lambda k, a, b: (k[a] + k[b]) / 40), "too_short"),
    Wrong("the difference of the keys", _split(lambda k, a, b: 5 * (k[a] - k[b]))),
    Wrong("a value, one number", _split(lambda k, a, b: 25.0), "value_not_query"),
    Wrong("a [1, d_k] row", _split(lambda k, a, b: (k[a] + k[b])[None, :]), "wrong_shape"),
    Wrong("lopsided sum", _split(lambda k, a, b: 3 * k[a] + k[b]), "uneven_split"),
]


def _count(fn):
    return lambda n: fn(n)


PAIR_COUNT = [
    Wrong("unordered pairs", _count(lambda n: n * (n - 1) // 2), "unordered_pairs"),
    Wrong("no diagonal", _count(lambda n: n * (n - 1)), "no_diagonal"),
    Wrong("one each", _count(lambda n: n), "one_each"),
    Wrong("unordered pairs with the diagonal", _count(lambda n: n * (n + 1) // 2), "other"),
    Wrong("2n", _count(lambda n: 2 * n)),
    Wrong("n² as a fraction", _count(lambda n: n * n + 0.5), "not_a_whole_number"),
    Wrong("n² as text", _count(lambda n: str(n * n)), "not_a_whole_number"),
]


WRONG: dict[str, list[Wrong]] = {
    "check_pair_count": PAIR_COUNT,
    "check_soft_lookup": SOFT_LOOKUP,
    "check_split_query": SPLIT_QUERY,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_pair_count": lambda: [Givens(f"n = {n}", (n,), {}) for n in (12, 5, 7)],
    "check_soft_lookup": lambda: [
        Givens("random, n = 4, d = 3, d_v = 2", tuple(seeded(1, (3,), (4, 3), (4, 2))), {})
    ],
    "check_split_query": lambda: [
        Givens("three keys", (np.array([[3.0, 0.0], [0.0, 3.0], [-3.0, -3.0]]), (0, 1)), {})
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_pair_count": [
        Right("int", lambda n: n * n),
        Right("float", lambda n: float(n * n)),
        Right("NumPy integer", lambda n: np.int64(n) ** 2),
        Right("tensor", lambda n: torch.tensor(n * n)),
    ],
    "check_soft_lookup": [
        Right(
            "values.T @ weights",
            lambda q, k, v: np.asarray(v, float).T @ softmax(np.asarray(k, float) @ q),
        ),
        Right(
            "float32",
            as_float32(lambda q, k, v: softmax(np.asarray(k) @ q) @ np.asarray(v)),
            everywhere=False,
        ),
        Right("list", lambda q, k, v: (softmax(np.asarray(k) @ q) @ np.asarray(v)).tolist()),
        Right(
            "tensor",
            lambda q, k, v: (
                torch.softmax(torch.as_tensor(np.asarray(k, float) @ np.asarray(q, float)), 0)
                @ torch.as_tensor(np.asarray(v, float))
            ),
        ),
    ],
    "check_split_query": [
        Right("the sum of the keys", lambda k, pair, **_: np.asarray(k)[list(pair)].sum(axis=0)),
        Right("longer", lambda k, pair, **_: 3 * np.asarray(k)[list(pair)].sum(axis=0)),
        Right("list", lambda k, pair, **_: (2 * np.asarray(k)[list(pair)].sum(axis=0)).tolist()),
        Right(
            "tensor",
            lambda k, pair, **_: torch.as_tensor(2 * np.asarray(k)[list(pair)].sum(axis=0)),
        ),
    ],
}  # fmt: skip
