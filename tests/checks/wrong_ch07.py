"""Chapter 7's wrong answers (Multi-head attention): the slips its checks must reject.

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
    seeded,
)


def _heads(fn):
    def make(X, h):
        X = torch.as_tensor(np.asarray(X, dtype=float))
        B, n, d_model = X.shape
        return fn(X, B, n, h, d_model // h)

    return make


SPLIT_HEADS = [
    Wrong(
        "view without the transpose",
        _heads(lambda X, B, n, h, d: X.reshape(B, h, n, d)),
        "view_without_transpose",
    ),
    Wrong(
        "stopped at [B, n, h, d_k]",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d)),
        "heads_after_tokens",
    ),
    Wrong(
        "strided heads (d_k before h)",
        _heads(lambda X, B, n, h, d: X.view(B, n, d, h).permute(0, 3, 1, 2)),
        "other",
    ),
    Wrong(
        "all axes reversed (.T)",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d).permute(3, 2, 1, 0)),
    ),
    Wrong(
        "h and d_k swapped",
        _heads(lambda X, B, n, h, d: X.view(B, n, d, h).transpose(1, 2)),
        "wrong_shape",
    ),
    Wrong(
        "tokens and features",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d).transpose(1, 3)),
        "wrong_shape",
    ),
    Wrong("heads and batch", _heads(lambda X, B, n, h, d: X.view(B, n, h, d).permute(2, 1, 0, 3))),
    Wrong(
        "tokens reversed",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d).transpose(1, 2).flip(2)),
        "other",
    ),
]


def _count3(fn):
    return lambda d_model, num_heads, d_k: fn(d_model, num_heads, d_k, num_heads * d_k)


HEAD_WIDTH = [
    Wrong("4 d_model²", _count3(lambda d, h, k, w: 4 * d * d), "d_k_is_d_model_over_h"),
    Wrong("square W_O", _count3(lambda d, h, k, w: 3 * d * w + d * d), "square_output_projection"),
    Wrong("one head", _count3(lambda d, h, k, w: 4 * d * k), "one_head"),
    Wrong("all h·d_k square", _count3(lambda d, h, k, w: 4 * w * w), "all_square_in_head_width"),
    Wrong("biases counted", _count3(lambda d, h, k, w: 4 * d * w + 3 * w + d), "biases_counted"),
    Wrong("no W_O", _count3(lambda d, h, k, w: 3 * d * w), "other"),
    Wrong("every bias h·d_k", _count3(lambda d, h, k, w: 4 * d * w + 4 * w)),
    Wrong("per head, d_k² each", _count3(lambda d, h, k, w: 4 * h * k * k)),
]


def _mha(fn):
    return lambda d_model, bias=True: fn(d_model, bias)


MHA_COUNT = [
    Wrong("no W_O", _mha(lambda d, b: 3 * d * d + (3 * d if b else 0)), "no_output_projection"),
    Wrong("weights only", _mha(lambda d, b: 4 * d * d if b else NOT_APPLICABLE), "no_biases"),
    Wrong(
        "biases counted",
        _mha(lambda d, b: NOT_APPLICABLE if b else 4 * d * d + 4 * d),
        "biases_counted",
        exercise=False,
    ),
    Wrong("one bias per layer", _mha(lambda d, b: 4 * d * d + 4), "other"),
    Wrong("h times d_model²", _mha(lambda d, b: 8 * d * d), "other"),
]


WRONG: dict[str, list[Wrong]] = {
    "check_head_width_parameter_count": HEAD_WIDTH,
    "check_mha_parameter_count": MHA_COUNT,
    "check_split_heads": SPLIT_HEADS,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_head_width_parameter_count": lambda: [
        Givens("d_model = 512, h = 8, d_k = 80", (), {"d_model": 512, "num_heads": 8, "d_k": 80})
    ],
    "check_mha_parameter_count": lambda: [
        Givens("d_model = 512", (512,), {}),
        Givens("d_model = 8, no biases", (8,), {"bias": False}),
    ],
    "check_split_heads": lambda: [
        Givens("random [3, 5, 12], h = 4", (torch.from_numpy(seeded(13, (3, 5, 12))[0]), 4), {})
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_head_width_parameter_count": [
        Right("4 d_model h d_k", lambda d_model, num_heads, d_k: 4 * d_model * num_heads * d_k),
        Right("float", lambda d_model, num_heads, d_k: float(4 * d_model * num_heads * d_k)),
        Right(
            "NumPy integer", lambda d_model, num_heads, d_k: np.int64(4) * d_model * num_heads * d_k
        ),
    ],
    "check_mha_parameter_count": [
        Right("count", lambda d, bias=True: 4 * d * d + (4 * d if bias else 0)),
        Right(
            "nn.MultiheadAttention",
            lambda d, bias=True: sum(
                p.numel() for p in torch.nn.MultiheadAttention(d, 1, bias=bias).parameters()
            ),
        ),
    ],
    "check_split_heads": [
        Right(
            "view, transpose",
            lambda X, h: torch.as_tensor(X).view(X.shape[0], X.shape[1], h, -1).transpose(1, 2),
        ),
        Right(
            "NumPy",
            lambda X, h: np.asarray(X).reshape(X.shape[0], X.shape[1], h, -1).transpose(0, 2, 1, 3),
        ),
        Right(
            "float32 tensor",
            lambda X, h: torch.as_tensor(X).float().unflatten(-1, (h, -1)).permute(0, 2, 1, 3),
        ),
        Right(
            "lists",
            lambda X, h: (
                np.asarray(X).reshape(X.shape[0], X.shape[1], h, -1).transpose(0, 2, 1, 3).tolist()
            ),
        ),
    ],
}  # fmt: skip
