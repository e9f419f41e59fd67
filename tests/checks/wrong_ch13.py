"""Chapter 13's wrong answers (Attention in today's models): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

import lessons
from checks.library import (
    NOT_APPLICABLE,
    Givens,
    Right,
    Wrong,
    seeded,
    softmax,
)

CH13 = "13_attention_in_todays_models.ipynb"


def _band(fn):
    """A window mask written with query and key positions ``i [n, 1]``, ``j [1, n]``."""

    def make(n, window):
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        return fn(i, j, window)

    return make


WINDOW_MASK = [
    Wrong("i - j <= w: one key too many", _band(lambda i, j, w: (j <= i) & (i - j <= w)),
          "window_plus_one"),
    Wrong("j > i - w + 1: one key too few", _band(lambda i, j, w: (j <= i) & (j > i - w + 1)),
          "window_minus_one"),
    Wrong("the band above the diagonal", _band(lambda i, j, w: (j >= i) & (j - i < w)),
          "mask_direction"),
    Wrong("the plain causal mask", _band(lambda i, j, w: np.broadcast_to(j <= i, (i.size, i.size))),
          "no_window"),
    Wrong("one row short", lambda n, window: np.tril(np.ones((n - 1, n), dtype=bool)),
          "wrong_shape"),
    Wrong("the band without the causal part", _band(lambda i, j, w: np.abs(i - j) < w)),
]  # fmt: skip


def _kv(fn):
    def make(K, num_heads):
        return fn(torch.as_tensor(K), num_heads)

    return make


KV_HEADS = [
    Wrong("repeat, not repeat_interleave",
          _kv(lambda K, h: K.repeat(1, h // K.shape[1], 1, 1)), "repeat_not_interleave"),
    Wrong("cat of copies", _kv(lambda K, h: torch.cat([K] * (h // K.shape[1]), dim=1)),
          "repeat_not_interleave"),
    Wrong("the KV heads unshared", _kv(lambda K, h: K), "not_shared"),
    Wrong("one KV head for all", _kv(lambda K, h: K[:, :1].repeat(1, h, 1, 1))),
    Wrong("interleaved over tokens", _kv(lambda K, h: K.repeat_interleave(h // K.shape[1], dim=2)),
          "wrong_shape"),
]  # fmt: skip


def _sink(fn):
    def make(Z, sinks):
        Z, s = torch.as_tensor(Z), torch.as_tensor(sinks)
        return fn(Z, s.view(-1, 1, 1))  # s: [h, 1, 1]

    return make


SINK_WEIGHTS = [
    Wrong("the sink in the numerator too",
          _sink(lambda Z, s: (Z.exp() + s.exp()) / (Z.exp().sum(-1, keepdim=True) + s.exp())),
          "sink_in_numerator"),
    Wrong("a plain softmax", _sink(lambda Z, s: Z.softmax(-1)), "sink_ignored"),
    Wrong("the sink logit, not exp(s)",
          _sink(lambda Z, s: Z.exp() / (Z.exp().sum(-1, keepdim=True) + s)),
          "sink_not_exponentiated"),
    Wrong("the sink's column kept",
          _sink(lambda Z, s: torch.cat([Z, s.expand(*Z.shape[:-1], 1)], -1).softmax(-1)),
          "sink_column_kept"),
    Wrong("the softmax over queries",
          _sink(lambda Z, s: Z.exp() / (Z.exp().sum(-2, keepdim=True) + s.exp()))),
]  # fmt: skip


def _absorbed_right(q_nope, q_rope, W_UK, C, k_rope):
    n = C.shape[0]
    q_r = lessons.rope(q_rope[None], [n - 1])[0]  # [d_R]: the query at the newest position
    return (C @ (W_UK @ q_nope) + lessons.rope(k_rope) @ q_r) / math.sqrt(len(q_nope) + len(q_rope))


def _absorbed_naive(q_nope, q_rope, W_UK, C, k_rope):
    """Another right form: build each key ``[C W_UK, RoPE(k_rope)]`` and the whole query."""
    n = C.shape[0]
    keys = np.concatenate([C @ W_UK, lessons.rope(k_rope)], axis=1)  # [n, d_nope + d_R]
    query = np.concatenate([q_nope, lessons.rope(q_rope[None], [n - 1])[0]])  # [d_nope + d_R]
    return keys @ query / math.sqrt(len(query))


def _absorbed_rope_on_latent(q_nope, q_rope, W_UK, C, k_rope):
    n = C.shape[0]
    if C.shape[1] % 2:
        return NOT_APPLICABLE  # RoPE pairs columns: an odd latent cannot be rotated
    q_latent = lessons.rope((W_UK @ q_nope)[None], [n - 1])[0]  # [r]
    q_r = lessons.rope(q_rope[None], [n - 1])[0]  # [d_R]
    scores = lessons.rope(C) @ q_latent + lessons.rope(k_rope) @ q_r  # [n]
    return scores / math.sqrt(len(q_nope) + len(q_rope))


def _absorbed_query_at_0(q_nope, q_rope, W_UK, C, k_rope):
    """RoPE positions after prefill: the newest query rotated as if it were the first token."""
    scores = C @ (W_UK @ q_nope) + lessons.rope(k_rope) @ q_rope  # [n]: position 0 turns nothing
    return scores / math.sqrt(len(q_nope) + len(q_rope))


def _absorbed_by_r(q_nope, q_rope, W_UK, C, k_rope):
    if C.shape[1] == len(q_nope) + len(q_rope):
        return NOT_APPLICABLE  # sqrt(r) is the right scale there
    right = _absorbed_right(q_nope, q_rope, W_UK, C, k_rope)
    return right * math.sqrt(len(q_nope) + len(q_rope)) / math.sqrt(C.shape[1])


ABSORBED_SCORES = [
    Wrong("RoPE on the latent", _absorbed_rope_on_latent, "rope_on_latent"),
    Wrong("no RoPE",
          lambda q_nope, q_rope, W_UK, C, k_rope: (
              (C @ (W_UK @ q_nope) + k_rope @ q_rope) / math.sqrt(len(q_nope) + len(q_rope))
          ), "no_rope"),
    Wrong("the latent part only",
          lambda q_nope, q_rope, W_UK, C, k_rope: (
              C @ (W_UK @ q_nope) / math.sqrt(len(q_nope) + len(q_rope))
          ), "latent_part_only"),
    Wrong("divided by sqrt(r)", _absorbed_by_r, "scaled_by_latent_width"),
    Wrong("not scaled",
          lambda *a: _absorbed_right(*a) * math.sqrt(len(a[0]) + len(a[1])), "no_scaling"),
    Wrong("the weights, not the scores", lambda *a: softmax(_absorbed_right(*a))),
    Wrong("the query rotated at position 0", _absorbed_query_at_0),
]  # fmt: skip


WRONG: dict[str, list[Wrong]] = {
    "check_window_mask": WINDOW_MASK,
    "check_kv_heads": KV_HEADS,
    "check_sink_weights": SINK_WEIGHTS,
    "check_absorbed_scores": ABSORBED_SCORES,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_window_mask": lambda: [
        Givens(f"n = {n}, w = {w}", (), {"n": n, "window": w}) for n, w in ((7, 2), (5, 4))
    ],
    "check_kv_heads": lambda: [
        Givens(
            "h_kv = 4 shared by 8 heads",
            (torch.from_numpy(seeded(15, (2, 4, 3, 5))[0]),),
            {"num_heads": 8},
        )
    ],
    "check_sink_weights": lambda: [
        Givens(
            "4 heads, n_q = 2, n_k = 6",
            tuple(map(torch.from_numpy, seeded(16, (4, 2, 6), (4,)))),
            {},
        )
    ],
    "check_absorbed_scores": lambda: [
        Givens(
            "r = d_nope + d_R = 6, n = 7",
            tuple(seeded(17, (4,), (2,), (6, 4), (7, 6), (7, 2))),
            {},
        ),
        Givens(
            "r = 4, d_nope = 2, d_R = 4", tuple(seeded(18, (2,), (4,), (4, 2), (6, 4), (6, 4))), {}
        ),
    ],
}


RIGHT: dict[str, list[Right]] = {
    "check_window_mask": [
        Right("tril & triu", lambda n, window: np.tril(np.ones((n, n), dtype=bool))
              & np.triu(np.ones((n, n), dtype=bool), -(window - 1))),
        Right("a tensor", lambda n, window: torch.as_tensor(
            lessons.window_mask(np.arange(n), np.arange(n), window))),
    ],
    "check_kv_heads": [
        Right("an axis expanded, then flattened", _kv(lambda K, h: K[:, :, None].expand(
            K.shape[0], K.shape[1], h // K.shape[1], *K.shape[2:]).reshape(
            K.shape[0], h, *K.shape[2:]))),
        Right("NumPy's repeat", lambda K, num_heads: np.repeat(
            np.asarray(K), num_heads // K.shape[1], axis=1)),
    ],
    "check_sink_weights": [
        Right("a sink column, then dropped", _sink(lambda Z, s: torch.cat(
            [Z, s.expand(*Z.shape[:-1], 1)], -1).softmax(-1)[..., :-1])),
        Right("exp / (sum + exp(s))", _sink(lambda Z, s: Z.exp()
              / (Z.exp().sum(-1, keepdim=True) + s.exp()))),
    ],
    "check_absorbed_scores": [
        Right("the absorbed form", _absorbed_right),
        Right("the keys built in full", _absorbed_naive),
    ],
}  # fmt: skip
