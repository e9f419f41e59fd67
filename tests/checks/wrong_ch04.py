"""Chapter 4's wrong answers (Scaled dot-product attention): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from exercise_givens import givens as notebook_givens

from checks.library import (
    Givens,
    Right,
    Wrong,
    as_float32,
    root_d_k,
    seeded,
    softmax,
    softmax_of_the_whole_table,
    where_shapes_fit,
)


def _qkv(fn):
    def make(Q, K, V):
        Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
        return fn(Q, K, V, Q @ K.T)

    return make


def _by(scale):
    return _qkv(lambda Q, K, V, S: softmax(S / scale(Q, K, V)) @ V)


ATTENTION = [
    Wrong("the weights", _qkv(lambda Q, K, V, S: softmax(S / root_d_k(Q))), "weights_not_output"),
    Wrong(
        "(A @ V).T", _qkv(lambda Q, K, V, S: (softmax(S / root_d_k(Q)) @ V).T), "transposed_output"
    ),
    Wrong("no scaling", _qkv(lambda Q, K, V, S: softmax(S) @ V), "no_scaling"),
    Wrong("divided by d_k", _by(lambda Q, K, V: Q.shape[1]), "divided_by_d_k"),
    Wrong(
        "multiplied by sqrt(d_k)",
        _qkv(lambda Q, K, V, S: softmax(S * root_d_k(Q)) @ V),
        "multiplied_by_sqrt",
    ),
    Wrong("sqrt(K.shape[0])", _by(lambda Q, K, V: math.sqrt(K.shape[0])), "scaled_by_n_k"),
    Wrong("sqrt(Q.shape[0])", _by(lambda Q, K, V: math.sqrt(Q.shape[0])), "scaled_by_n_q"),
    Wrong("sqrt(V.shape[1])", _by(lambda Q, K, V: math.sqrt(V.shape[1])), "scaled_by_d_v"),
    Wrong("divided by Q.shape[0]", _by(lambda Q, K, V: Q.shape[0])),
    Wrong("divided by V.shape[1]", _by(lambda Q, K, V: V.shape[1])),
    Wrong("divided by K.shape[0]", _by(lambda Q, K, V: K.shape[0])),
    Wrong("divided by a literal 2", _by(lambda Q, K, V: 2.0)),
    Wrong("sqrt(d_model) guessed as 8", _by(lambda Q, K, V: 8.0)),
    Wrong(
        "softmax down the columns",
        _qkv(lambda Q, K, V, S: softmax(S / root_d_k(Q), axis=0) @ V),
        "softmax_over_columns",
    ),
    Wrong(
        "softmax over the table",
        _qkv(lambda Q, K, V, S: softmax_of_the_whole_table(S / root_d_k(Q)) @ V),
        "softmax_over_table",
    ),
    Wrong("no softmax", _qkv(lambda Q, K, V, S: S / root_d_k(Q) @ V), "no_softmax"),
    Wrong("neither softmax nor scaling", _qkv(lambda Q, K, V, S: S @ V), "no_softmax_no_scaling"),
    Wrong("scaled after the softmax", _qkv(lambda Q, K, V, S: softmax(S) / root_d_k(Q) @ V)),
    Wrong("output scaled", _qkv(lambda Q, K, V, S: softmax(S) @ V / root_d_k(Q))),
    Wrong("exp, not normalised", _qkv(lambda Q, K, V, S: np.exp(S / root_d_k(Q)) @ V)),
    Wrong(
        "A @ V.T",
        where_shapes_fit(_qkv(lambda Q, K, V, S: softmax(S / root_d_k(Q)) @ V.T)),
        exercise=False,
    ),
    Wrong(
        "A.T @ V",
        where_shapes_fit(_qkv(lambda Q, K, V, S: softmax(S / root_d_k(Q)).T @ V)),
        exercise=False,
    ),
    Wrong(
        "keys for values", where_shapes_fit(_qkv(lambda Q, K, V, S: softmax(S / root_d_k(Q)) @ K))
    ),
]


def _extra_attention():
    Q, K, V = seeded(4, (3, 6), (5, 6), (5, 7))
    out = [Givens("random [3, 6], [5, 6], [5, 7]", (Q, K, V), {})]
    Q, K, V = seeded(5, (4, 9), (4, 9), (4, 4), scale=2.0)
    out.append(Givens("square, n = d_v = 4, d_k = 9", (Q, K, V), {}))
    ch05 = notebook_givens("05_hand_worked_example.ipynb")["check_attention"]
    out += [Givens("05 exercise", args, kwargs) for args, kwargs in ch05]
    return out


def _attention_einsum(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    A = softmax(np.einsum("qd,kd->qk", Q, K) / np.sqrt(Q.shape[1]))
    return np.einsum("qk,kv->qv", A, V)


def _attention_torch(Q, K, V):
    Q, K, V = (torch.as_tensor(np.asarray(a, dtype=np.float32)) for a in (Q, K, V))
    return torch.nn.functional.scaled_dot_product_attention(Q, K, V)


WRONG: dict[str, list[Wrong]] = {
    "check_attention": ATTENTION,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_attention": _extra_attention,
}


RIGHT: dict[str, list[Right]] = {
    "check_attention": [
        Right("einsum", _attention_einsum),
        Right("float32", as_float32(_attention_einsum)),
        Right("torch's fused kernel", _attention_torch),
        Right("list", lambda Q, K, V: _attention_einsum(Q, K, V).tolist()),
    ],
}  # fmt: skip
