"""Chapter 6's wrong answers (Masking): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from checks.library import (
    NOT_APPLICABLE,
    Givens,
    Right,
    Wrong,
)


def _causal(fn):
    def make(n, prefix=0):
        rows, cols = np.arange(n)[:, None], np.arange(n)[None, :]
        return fn(n, prefix, rows, cols)

    return make


def _prompt(fn):
    """A slip in the prompt rule: none where there is no prompt (``prefix = 0``)."""
    inner = _causal(fn)
    return lambda n, prefix=0: inner(n, prefix) if prefix else NOT_APPLICABLE


CAUSAL_MASK = [
    Wrong(
        "True means blocked",
        _causal(lambda n, p, i, j: ~((j <= i) | (j < p))),
        "true_means_blocked",
    ),
    Wrong("the transpose", _causal(lambda n, p, i, j: (i <= j) | (i < p)), "transpose"),
    Wrong(
        "no diagonal", _causal(lambda n, p, i, j: ((j <= i) | (j < p)) & (i != j)), "no_diagonal"
    ),
    Wrong(
        "the plain causal mask",
        _prompt(lambda n, p, i, j: np.broadcast_to(j <= i, (n, n))),
        "plain_causal",
    ),
    Wrong("AND, not OR", _prompt(lambda n, p, i, j: (j <= i) & (j < p)), "and_not_or"),
    Wrong(
        "nothing blocked",
        _prompt(lambda n, p, i, j: np.ones((n, n), dtype=bool)),
        "nothing_blocked",
    ),
    Wrong("j <= p", _prompt(lambda n, p, i, j: (j <= i) | (j <= p)), "prompt_too_long"),
    Wrong("j < p - 1", _prompt(lambda n, p, i, j: (j <= i) | (j < p - 1)), "other"),
    Wrong("prompt rows, not prompt keys", _prompt(lambda n, p, i, j: (j <= i) | (i < p)), "other"),
    Wrong("strictly below the diagonal", _causal(lambda n, p, i, j: (j < i) | (j < p))),
    Wrong(
        "as numbers",
        _causal(lambda n, p, i, j: ((j <= i) | (j < p)).astype(int)),
        "numbers_not_booleans",
    ),
    Wrong(
        "additive 0 / -inf",
        _causal(lambda n, p, i, j: np.where((j <= i) | (j < p), 0.0, -np.inf)),
        "additive_mask",
    ),
    Wrong(
        "additive, True and False swapped",
        _causal(lambda n, p, i, j: np.where((j <= i) | (j < p), -np.inf, 0.0)),
        "not_boolean",
    ),
    Wrong(
        "a [1, n, n] mask", _causal(lambda n, p, i, j: ((j <= i) | (j < p))[None]), "wrong_shape"
    ),
]


def _padding(fn):
    def make(lengths, n):
        lengths = np.asarray(lengths)[:, None]  # [B, 1]
        return fn(lengths, np.arange(n)[None, :])  # [B, n] comparisons

    return make


PADDING_MASK = [
    Wrong("no query axis", _padding(lambda L, j: j < L), "missing_query_axis"),
    Wrong("True means padding", _padding(lambda L, j: (j >= L)[:, None, :]), "true_means_padding"),
    Wrong("j <= length", _padding(lambda L, j: (j <= L)[:, None, :]), "other"),
    Wrong("j < length - 1", _padding(lambda L, j: (j < L - 1)[:, None, :]), "other"),
    Wrong("query axis last", _padding(lambda L, j: (j < L)[:, :, None]), "wrong_shape"),
    Wrong("[B, 1, 1, n]", _padding(lambda L, j: (j < L)[:, None, None, :]), "wrong_shape"),
    Wrong("as numbers", _padding(lambda L, j: (j < L)[:, None, :].astype(float)), "not_boolean"),
    Wrong(
        "additive", _padding(lambda L, j: np.where(j < L, 0.0, -np.inf)[:, None, :]), "not_boolean"
    ),
    Wrong("sequences reversed", _padding(lambda L, j: (j < L[::-1])[:, None, :]), "other"),
]


WRONG: dict[str, list[Wrong]] = {
    "check_causal_mask": CAUSAL_MASK,
    "check_padding_mask": PADDING_MASK,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_causal_mask": lambda: [
        Givens("n = 5", (5,), {}),
        Givens("n = 7, p = 2", (7,), {"prefix": 2}),
    ],
    "check_padding_mask": lambda: [Givens("lengths [3, 1, 5, 2], n = 5", ([3, 1, 5, 2], 5), {})],
}


RIGHT: dict[str, list[Right]] = {
    "check_causal_mask": [
        Right(
            "tril | prompt",
            lambda n, prefix=0: np.tril(np.ones((n, n), dtype=bool)) | (np.arange(n) < prefix),
        ),
        Right(
            "tensor",
            lambda n, prefix=0: (
                torch.ones(n, n, dtype=torch.bool).tril() | (torch.arange(n) < prefix)
            ),
        ),
        Right(
            "nested lists",
            lambda n, prefix=0: [[j <= i or j < prefix for j in range(n)] for i in range(n)],
        ),
    ],
    "check_padding_mask": [
        Right(
            "comparison",
            lambda lengths, n: (np.arange(n) < np.asarray(lengths)[:, None])[:, None, :],
        ),
        Right(
            "tensor",
            lambda lengths, n: (torch.arange(n) < torch.tensor(lengths)[:, None]).unsqueeze(1),
        ),
        Right("lists", lambda lengths, n: [[[j < L for j in range(n)]] for L in lengths]),
    ],
}  # fmt: skip
