"""Chapter 11's wrong answers (Seeing attention learn): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from exercise_givens import givens as notebook_givens

import lessons
from checks.library import (
    Givens,
    Right,
    Wrong,
)


def _cls(fn):
    def make(model, tokens):
        with torch.no_grad():
            X = model.embed(tokens) + model.positions  # [1, n, d_model]
            w_q, w_k, _ = model.attention.in_proj.weight.chunk(3)
            b_q, b_k, _ = model.attention.in_proj.bias.chunk(3)
            return np.asarray(fn(X[0], w_q, w_k, b_q, b_k), dtype=float)

    return make


def _row(X, w_q, w_k, b_q, b_k, *, query=0, scale=True, bias=True, transpose=False, axis=-1):
    W_q, W_k = (w_q, w_k) if transpose else (w_q.T, w_k.T)
    Q = X @ W_q + (b_q if bias else 0)  # [n, d_k]
    K = X @ W_k + (b_k if bias else 0)  # [n, d_k]
    S = Q[query : query + 1] @ K.T  # [1, n]
    if scale:
        S = S / math.sqrt(K.shape[-1])
    return torch.softmax(S, dim=axis)


CLS_ROW = [
    Wrong("no sqrt(d_k)", _cls(lambda *a: _row(*a, scale=False)), "other"),
    Wrong("no biases", _cls(lambda *a: _row(*a, bias=False)), "other"),
    Wrong("weights not transposed", _cls(lambda *a: _row(*a, transpose=True)), "other"),
    Wrong("row 1, not the [CLS] row", _cls(lambda *a: _row(*a, query=1)), "other"),
    Wrong("softmax over the query axis", _cls(lambda *a: _row(*a, axis=0)), "not_normalised"),
    Wrong(
        "raw scores",
        _cls(lambda X, w_q, w_k, b_q, b_k: (X[:1] @ w_q.T + b_q) @ (X @ w_k.T + b_k).T),
        "not_normalised",
    ),
    Wrong("a 1-D row", _cls(lambda *a: _row(*a)[0]), "wrong_shape"),
    Wrong(
        "the [CLS] column",
        _cls(
            lambda X, w_q, w_k, b_q, b_k: torch.softmax(
                (X @ w_q.T + b_q) @ (X @ w_k.T + b_k).T / math.sqrt(w_q.shape[0]), dim=-1
            )[:, 0][None]
        ),
    ),
]


def _accuracy(fn):
    def make(model, tokens, labels, position):
        n = tokens.shape[1]
        return fn(model, tokens, labels, position, n)

    return make


def _on_training_set(model, tokens, labels, position, n):
    """Exercise 11.2's training data (its cell draws it with seed 1), blocked as asked."""
    x, y = lessons.tasks.position_task(2000, target_positions=(position,), seed=1)
    return lessons.accuracy(model, x, y, mask=torch.arange(n) != position)


BLOCKED_ACCURACY = [
    Wrong("not blocked", _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y)), "unblocked"),
    Wrong(
        "mask True and False swapped (only that key kept)",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) == p)),
    ),
    Wrong(
        "the next position blocked",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != p + 1)),
    ),
    Wrong(
        "the previous position blocked",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != p - 1)),
    ),
    Wrong(
        "the [CLS] key blocked",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != 0)),
    ),
    Wrong(
        "the error rate",
        _accuracy(lambda m, x, y, p, n: 1 - lessons.accuracy(m, x, y, mask=torch.arange(n) != p)),
    ),
    Wrong(
        "as a percentage",
        _accuracy(lambda m, x, y, p, n: 100 * lessons.accuracy(m, x, y, mask=torch.arange(n) != p)),
    ),
    Wrong("two numbers", _accuracy(lambda m, x, y, p, n: [0.5, 0.5]), "not_a_number"),
    Wrong("measured on the training set", _accuracy(_on_training_set)),
]


def _trained_move_model():
    """Exercise 11.2's model, trained as its solution trains it."""
    (model, tokens, labels, position), _ = notebook_givens("11_seeing_attention_learn.ipynb")[
        "check_blocked_accuracy"
    ][0]
    if not getattr(model, "_trained_for_the_library", False):
        x, y = lessons.tasks.position_task(2000, target_positions=(position,), seed=1)
        lessons.train(model, x, y, steps=40, lr=0.02, batch_size=64, seed=0)
        model._trained_for_the_library = True
    return Givens("11 exercise, trained", (model, tokens, labels, position), {})


WRONG: dict[str, list[Wrong]] = {
    "check_blocked_accuracy": BLOCKED_ACCURACY,
    "check_cls_row": CLS_ROW,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_blocked_accuracy": lambda: [_trained_move_model()],
    "check_cls_row": lambda: [
        Givens(
            "chapter 11's model, another held-out example",
            (
                notebook_givens("11_seeing_attention_learn.ipynb")["check_cls_row"][0][0][0],
                lessons.tasks.position_task(1000, seed=2)[0][5:6],  # test_x[5:6]
            ),
            {},
        )
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_blocked_accuracy": [
        Right(
            "keep-mask",
            _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != p)),
        ),
        Right(
            "NumPy keep-mask",
            _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=np.arange(n) != p)),
        ),
    ],
    "check_cls_row": [
        Right("the solution", _cls(lambda *a: _row(*a))),
        Right(
            "lessons.attention",
            _cls(
                lambda X, w_q, w_k, b_q, b_k: lessons.attention(
                    (X @ w_q.T + b_q)[:1], X @ w_k.T + b_k, X @ w_k.T + b_k
                )[1]
            ),
        ),
        Right("the model's weights", lambda model, tokens: model(tokens)[1][0, 0, :1].detach()),
    ],
}  # fmt: skip
