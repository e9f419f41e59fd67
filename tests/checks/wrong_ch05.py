"""Chapter 5's wrong answers (A hand-worked example): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from checks.library import (
    Givens,
    Right,
    Wrong,
    as_float32,
    root_d_k,
    seeded,
    softmax,
    softmax_of_the_whole_table,
)


def _weights(fn):
    def make(Q, K):
        Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
        return fn(Q, K, Q @ K.T)

    return make


ATTENTION_WEIGHTS = [
    Wrong("raw scores", _weights(lambda Q, K, S: S), "raw_scores"),
    Wrong("scaled scores", _weights(lambda Q, K, S: S / root_d_k(Q)), "scaled_scores"),
    Wrong("no scaling", _weights(lambda Q, K, S: softmax(S)), "no_scaling"),
    Wrong("the transpose", _weights(lambda Q, K, S: softmax(S / root_d_k(Q)).T), "transpose"),
    Wrong(
        "softmax down the columns",
        _weights(lambda Q, K, S: softmax(S / root_d_k(Q), axis=0)),
        "softmax_over_columns",
    ),
    Wrong(
        "exp, not normalised",
        _weights(lambda Q, K, S: np.exp(S / root_d_k(Q))),
        "rows_not_normalised",
    ),
    Wrong("divided by d_k", _weights(lambda Q, K, S: softmax(S / Q.shape[1]))),
    Wrong("sqrt(Q.shape[0])", _weights(lambda Q, K, S: softmax(S / math.sqrt(Q.shape[0])))),
    Wrong("sqrt(K.shape[0])", _weights(lambda Q, K, S: softmax(S / math.sqrt(K.shape[0])))),
    Wrong("divided by Q.shape[0]", _weights(lambda Q, K, S: softmax(S / Q.shape[0]))),
    Wrong(
        "softmax over the table",
        _weights(lambda Q, K, S: softmax_of_the_whole_table(S / root_d_k(Q))),
    ),
    Wrong("multiplied by sqrt(d_k)", _weights(lambda Q, K, S: softmax(S * root_d_k(Q)))),
]


WRONG: dict[str, list[Wrong]] = {
    "check_attention_weights": ATTENTION_WEIGHTS,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_attention_weights": lambda: [
        Givens("random [3, 4], [5, 4]", tuple(seeded(12, (3, 4), (5, 4))), {})
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_attention_weights": [
        Right(
            "exp over the row sum",
            lambda Q, K: (
                (e := np.exp(np.asarray(Q) @ np.asarray(K).T / np.sqrt(np.shape(Q)[1])))
                / e.sum(1, keepdims=True)
            ),
        ),
        Right(
            "float32",
            as_float32(lambda Q, K: softmax(np.asarray(Q) @ np.asarray(K).T / np.sqrt(np.shape(Q)[1]))),
        ),
        Right(
            "tensor",
            lambda Q, K: torch.softmax(
                torch.as_tensor(np.asarray(Q, float) @ np.asarray(K, float).T)
                / math.sqrt(np.shape(Q)[1]),
                -1,
            ),
        ),
    ],
}  # fmt: skip
