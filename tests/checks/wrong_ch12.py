"""Chapter 12's wrong answers (Attention in a language model trained on real text): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

import lessons.lm as lm
from checks.library import (
    Givens,
    Right,
    Wrong,
    seeded,
    softmax,
)


def _prev(fn):
    return lambda A: float(fn(np.asarray(A, dtype=float), np.asarray(A).shape[0]))


PREVIOUS_TOKEN = [
    Wrong("main diagonal", _prev(lambda A, n: np.diagonal(A)[1:].mean()), "main_diagonal"),
    Wrong(
        "whole main diagonal", _prev(lambda A, n: np.diagonal(A).mean()), "main_diagonal_all_rows"
    ),
    Wrong("divided by n", _prev(lambda A, n: np.diagonal(A, -1).sum() / n), "divided_by_n"),
    Wrong(
        "loop over every row (A[0, -1] wraps round)",
        _prev(lambda A, n: np.mean([A[i, i - 1] for i in range(n)])),
        "divided_by_n",
    ),
    Wrong("diagonal above", _prev(lambda A, n: np.diagonal(A, 1).mean()), "diagonal_above"),
    Wrong(
        "A[i - 1, i]",
        _prev(lambda A, n: np.mean([A[i - 1, i] for i in range(1, n)])),
        "diagonal_above",
    ),
    Wrong(
        "whole lower triangle",
        _prev(lambda A, n: A[np.tril_indices(n, -1)].mean()),
        "whole_lower_triangle",
    ),
    Wrong("two steps back", _prev(lambda A, n: np.diagonal(A, -2).mean()), "other"),
    Wrong("the sum", _prev(lambda A, n: np.diagonal(A, -1).sum()), "other"),
    Wrong("the median", _prev(lambda A, n: np.median(np.diagonal(A, -1))), "other"),
    Wrong("rows 2 .. n - 1", _prev(lambda A, n: np.diagonal(A, -1)[1:].mean()), "other"),
]


def _ind(fn):
    def make(A, L):
        A = np.asarray(A, dtype=float)
        return float(fn(A, L, np.arange(L + 1, 2 * L + 1)))

    return make


INDUCTION = [
    Wrong("offset -L (same token)", _ind(lambda A, L, r: A[r, r - L].mean()), "same_token"),
    Wrong(
        "every row of the diagonal", _ind(lambda A, L, r: np.diagonal(A, 1 - L).mean()), "every_row"
    ),
    Wrong("previous token", _ind(lambda A, L, r: A[r, r - 1].mean()), "previous_token"),
    Wrong("offset -L - 1", _ind(lambda A, L, r: A[r, r - L - 1].mean()), "other"),
    Wrong("offset 2 - L", _ind(lambda A, L, r: A[r, r - L + 2].mean()), "other"),
    Wrong("rows L .. 2L - 1", _ind(lambda A, L, r: A[r - 1, r - L].mean()), "other"),
    Wrong("rows L + 1 .. 2L - 1", _ind(lambda A, L, r: A[r[:-1], r[:-1] - L + 1].mean()), "other"),
    Wrong("the sum", _ind(lambda A, L, r: A[r, r - L + 1].sum()), "other"),
    Wrong("keys and queries swapped", _ind(lambda A, L, r: A[r - L + 1, r].mean()), "other"),
]


_LOSSES: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _copy(fn):
    def make(snippet, model, blocked=None):
        key = (snippet, id(model), frozenset(blocked or ()))
        if key not in _LOSSES:  # the same two forward passes serve every slip
            _LOSSES[key] = (
                lm.token_losses(snippet * 2, model, blocked=blocked),
                lm.token_losses(snippet * 2, model),
            )
        losses, plain = _LOSSES[key]
        return float(fn(losses, plain, len(snippet)))

    return make


COPY_RATIO = [
    Wrong("inverted", _copy(lambda ls, p, m: ls[: m - 1].mean() / ls[m:].mean()), "inverted"),
    Wrong("difference", _copy(lambda ls, p, m: ls[m:].mean() - ls[: m - 1].mean()), "difference"),
    Wrong("not blocked", _copy(lambda ls, p, m: p[m:].mean() / p[: m - 1].mean()), "not_blocked"),
    Wrong(
        "second copy from m - 1",
        _copy(lambda ls, p, m: ls[m - 1 :].mean() / ls[: m - 1].mean()),
        "shifted_copy",
    ),
    Wrong(
        "first copy to m",
        _copy(lambda ls, p, m: ls[m:].mean() / ls[:m].mean()),
        "first_includes_boundary",
    ),
    Wrong(
        "both shifted", _copy(lambda ls, p, m: ls[m - 1 :].mean() / ls[:m].mean()), "both_shifted"
    ),
    Wrong(
        "halves of the losses",
        _copy(lambda ls, p, m: ls[len(ls) // 2 :].mean() / ls[: len(ls) // 2].mean()),
        "shifted_copy",
    ),
    Wrong(
        "second copy without its last", _copy(lambda ls, p, m: ls[m:-1].mean() / ls[: m - 1].mean())
    ),
    Wrong("blocked over trained", _copy(lambda ls, p, m: ls[m:].mean() / p[m:].mean()), "other"),
]


@cache
def _last_model():
    return lm.load(lm.checkpoints()[-1])


def _last_model_attention(text: str) -> np.ndarray:
    return lm.forward(text, _last_model())["attention"]  # [layers, h, n, n]


WRONG: dict[str, list[Wrong]] = {
    "check_copy_ratio": COPY_RATIO,
    "check_induction_score": INDUCTION,
    "check_previous_token_score": PREVIOUS_TOKEN,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_copy_ratio": lambda: [
        Givens(
            "another snippet, head 1.3 blocked",
            ("total = total + value\n", _last_model(), {(1, 3)}),
            {},
        )
    ],
    "check_induction_score": lambda: [
        Givens(
            "head 1.3 on a repeat of 12",
            (_last_model_attention(lm.induction_text(12, seed=1))[1, 3].astype(float), 12),
            {},
        )
    ],
    "check_previous_token_score": lambda: [
        Givens(
            "a random causal table",
            (
                softmax(
                    np.tril(seeded(14, (9, 9), scale=2.0)[0]) - np.triu(np.full((9, 9), np.inf), 1)
                ),
            ),
            {},
        )
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_copy_ratio": [
        Right("the solution", _copy(lambda ls, p, m: ls[m:].mean() / ls[: m - 1].mean())),
        Right(
            "float32",
            _copy(lambda ls, p, m: np.float32(ls[m:].mean() / ls[: m - 1].mean())),
            everywhere=False,
        ),
    ],
    "check_induction_score": [
        Right("fancy indexing", _ind(lambda A, L, r: A[r, r - L + 1].mean())),
        Right("lm", lambda A, L: lm.induction_score(A, L)),
        Right("diagonal", _ind(lambda A, L, r: np.diagonal(A, 1 - L)[2:].mean())),
    ],
    "check_previous_token_score": [
        Right("loop", _prev(lambda A, n: np.mean([A[i, i - 1] for i in range(1, n)]))),
        Right("diagonal", _prev(lambda A, n: np.diagonal(A, -1).mean())),
        Right("lm", lambda A: lm.previous_token_score(A)),
    ],
}  # fmt: skip
