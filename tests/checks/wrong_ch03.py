"""Chapter 3's wrong answers (Queries, keys and values): the slips its checks must reject.

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
    seeded,
    softmax,
    where_shapes_fit,
)
from lessons.toy import FEATURES


def _xw(fn):
    def make(X, W):
        return fn(np.asarray(X, dtype=float), np.asarray(W, dtype=float))

    return make


PROJECTION = [
    Wrong("the transpose", _xw(lambda X, W: (X @ W).T), "transpose"),
    Wrong("W.T @ X.T", _xw(lambda X, W: W.T @ X.T), "transpose"),
    Wrong("X @ W.T", where_shapes_fit(_xw(lambda X, W: X @ W.T)), "w_transposed", exercise=False),
    Wrong("W @ X", where_shapes_fit(_xw(lambda X, W: W @ X)), exercise=False),
    Wrong("X.T @ W", where_shapes_fit(_xw(lambda X, W: X.T @ W)), exercise=False),
    Wrong("X * W", where_shapes_fit(_xw(lambda X, W: X * W)), exercise=False),
    Wrong("rows summed", _xw(lambda X, W: (X @ W).sum(axis=0))),
]


def _fused(fn):
    def make(weight, X, i, j):
        weight, X = np.asarray(weight, dtype=float), np.asarray(X, dtype=float)
        Q, K, V = np.split(X @ weight.T, 3, axis=1)
        return fn(weight, X, i, j, Q, K, V)

    return make


def _not_transposed(weight, X, i, j, Q, K, V):
    Q_s, K_s, _ = np.split(X @ weight, 3, axis=1)
    return Q_s[i] @ K_s[j]


FUSED_SCORE = [
    Wrong("X @ weight", where_shapes_fit(_fused(_not_transposed)), "not_transposed"),
    Wrong("q_j · k_i", _fused(lambda w, X, i, j, Q, K, V: Q[j] @ K[i]), "wrong_direction"),
    Wrong("thirds as K, Q, V", _fused(lambda w, X, i, j, Q, K, V: K[i] @ Q[j]), "wrong_direction"),
    Wrong("values as keys", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ V[j]), "value_for_key"),
    Wrong("own key", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ K[i]), "own_key"),
    Wrong("two queries", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ Q[j])),
    Wrong("two keys", _fused(lambda w, X, i, j, Q, K, V: K[i] @ K[j])),
    Wrong("scaled score", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ K[j] / np.sqrt(Q.shape[1]))),
    Wrong(
        "the attention weight",
        _fused(lambda w, X, i, j, Q, K, V: softmax(Q @ K.T / np.sqrt(Q.shape[1]))[i, j]),
    ),
    Wrong(
        "interleaved thirds",
        _fused(lambda w, X, i, j, Q, K, V: (X @ w[0::3].T)[i] @ (X @ w[1::3].T)[j]),
    ),
    Wrong("the whole score row", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ K.T), "wrong_shape"),
]


def _look(fn):
    def make(words, looker, target, *_, **__):
        negation, quality = FEATURES.index("negation"), FEATURES.index("quality")
        W_Q, W_K = np.zeros((len(FEATURES), 1)), np.zeros((len(FEATURES), 1))
        return fn(W_Q, W_K, negation, quality)

    return make


def _solution(W_Q, W_K, negation, quality, strength=2.0):
    W_Q[quality, 0], W_Q[negation, 0] = strength, -0.3 * strength
    W_K[negation, 0] = strength
    return W_Q, W_K


def _looks(*, swap=False, strength=2.0, cancel=True, key_feature=None):
    def design(W_Q, W_K, negation, quality):
        W_Q, W_K = _solution(W_Q, W_K, negation, quality, strength)
        if not cancel:
            W_Q[negation, 0] = 0.0
        if key_feature is not None:
            W_K[:, 0] = 0.0
            W_K[FEATURES.index(key_feature), 0] = strength
        return (W_K, W_Q) if swap else (W_Q, W_K)

    return design


ONE_WAY_LOOK = [
    Wrong("W_Q and W_K swapped", _look(_looks(swap=True)), "wrong_way"),
    Wrong(
        "nn.Linear's layout", _look(lambda *a: tuple(W.T for W in _looks()(*a))), "linear_layout"
    ),
    Wrong(
        "1-D vectors", _look(lambda *a: tuple(W.ravel() for W in _looks()(*a))), "one_dimensional"
    ),
    Wrong("one shared matrix", _look(lambda *a: (_looks()(*a)[0],) * 2), "shared_matrix"),
    Wrong("too weak", _look(_looks(strength=0.2)), "too_weak"),
    Wrong("a little too weak", _look(_looks(strength=1.0)), "too_weak"),
    Wrong("no cancelling entry", _look(_looks(cancel=False)), "target_not_idle"),
    Wrong(
        "a query that reads nothing",
        _look(lambda W_Q, *a: (np.zeros_like(W_Q), _looks()(W_Q, *a)[1])),
        "looker_asks_nothing",
    ),
    Wrong("scores that overflow", _look(_looks(strength=1e200)), "overflow"),
    Wrong(
        "queries and keys of different widths",
        _look(lambda *a: (_looks()(*a)[0], np.hstack([_looks()(*a)[1]] * 2))),
        "different_d_k",
    ),
    Wrong("keys read function words", _look(_looks(key_feature="function")), "other_target"),
    Wrong("text for a matrix", _look(lambda *a: ("W_Q", "W_K")), "not_a_number"),
]


def _linear_score(w, X, i, j):
    layer = torch.nn.Linear(w.shape[1], w.shape[0], bias=False, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.copy_(torch.as_tensor(w))
        Q, K, _ = layer(torch.as_tensor(X)).chunk(3, dim=-1)
    return Q[i] @ K[j]


WRONG: dict[str, list[Wrong]] = {
    "check_fused_score": FUSED_SCORE,
    "check_one_way_look": ONE_WAY_LOOK,
    "check_projection": PROJECTION,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_fused_score": lambda: [
        Givens(
            "random [6, 4] weight",
            (*seeded(11, (6, 4), (5, 4)), 1, 3),
            {},
        )
    ],
    "check_one_way_look": lambda: [],
    "check_projection": lambda: [
        Givens("random [3, 4] @ [4, 2]", tuple(seeded(9, (3, 4), (4, 2))), {}),
        Givens("square [3, 3] @ [3, 3]", tuple(seeded(10, (3, 3), (3, 3))), {}),
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_fused_score": [
        Right(
            "weights sliced",
            lambda w, X, i, j: (
                (X @ w[: len(w) // 3].T)[i] @ (X @ w[len(w) // 3 : 2 * len(w) // 3].T)[j]
            ),
        ),
        Right(
            "nn.Linear",
            lambda w, X, i, j: _linear_score(w, X, i, j),
        ),
        Right(
            "a 1-element array",
            lambda w, X, i, j: np.array(
                [np.split(X @ w.T, 3, axis=1)[0][i] @ np.split(X @ w.T, 3, axis=1)[1][j]]
            ),
        ),
    ],
    "check_one_way_look": [
        Right(
            "the solution",
            lambda words, looker, target, *a, **k: _look(_looks())(words, looker, target),
        ),
        Right(
            "stronger",
            lambda words, looker, target, *a, **k: _look(_looks(strength=4.0))(
                words, looker, target
            ),
        ),
        Right(
            "tensors",
            lambda words, looker, target, *a, **k: tuple(
                torch.as_tensor(W) for W in _look(_looks())(words, looker, target)
            ),
        ),
    ],
    "check_projection": [
        Right("einsum", lambda X, W: np.einsum("nd,do->no", X, W)),
        Right(
            "tensor", lambda X, W: torch.as_tensor(np.asarray(X)) @ torch.as_tensor(np.asarray(W))
        ),
        Right("list", lambda X, W: (np.asarray(X) @ np.asarray(W)).tolist()),
    ],
}  # fmt: skip
