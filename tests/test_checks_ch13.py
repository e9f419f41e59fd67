"""Chapter 13's self-checks, against a library of plausible wrong implementations.

Each wrong implementation below is code a learner could write for the chapter's exercises
(a window of w + 1, `repeat` where `repeat_interleave` belongs, a sink in the numerator,
RoPE on the latent ...). Every one is asserted judged wrong, with its mistake's name;
the right implementations are asserted judged right.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lessons import rope
from lessons.checks import ch13
from lessons.checks.ch13 import (
    MISTAKES,
    check_absorbed_scores,
    check_kv_heads,
    check_sink_weights,
    check_window_mask,
)

N, W = 9, 3
_g = torch.Generator().manual_seed(13)
K = torch.randn(1, 2, 4, 3, generator=_g, dtype=torch.float64)  # [B, h_kv, n, d]
H = 6
Z = torch.randn(2, 3, 5, generator=_g, dtype=torch.float64)  # [h, n_q, n_k]
SINKS = torch.randn(2, generator=_g, dtype=torch.float64)  # [h]
_r = np.random.default_rng(13)
Q_NOPE, Q_ROPE = _r.normal(size=3), _r.normal(size=2)  # [d_nope], [d_R]
W_UK = _r.normal(size=(4, 3))  # [r, d_nope]
C, K_ROPE = _r.normal(size=(5, 4)), _r.normal(size=(5, 2))  # [n, r], [n, d_R]


def _says(verdict, check, name):
    assert not verdict.ok and verdict.answered and verdict.mistake == name, verdict
    assert MISTAKES[check][name] in verdict.message, verdict.message


def test_every_check_of_the_module_has_a_catalogue_entry_in_order():
    assert list(MISTAKES) == ch13.__all__
    for name in ch13.__all__:
        assert getattr(ch13, name).mistakes is MISTAKES[name]


# --- the window mask: right and wrong implementations --------------------------------------------


def window_right(n, w):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (i - j < w)


def window_tril_triu(n, w):  # another right one: the band between two diagonals
    return np.tril(np.ones((n, n), dtype=bool)) & np.triu(np.ones((n, n), dtype=bool), -(w - 1))


def window_le(n, w):  # i - j <= w: one key too many
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (i - j <= w)


def window_strict(n, w):  # j > i - w + 1: one key too few
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j > i - w + 1)


def window_upper(n, w):  # the band above the diagonal
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j >= i) & (j - i < w)


def window_causal_only(n, w):  # noqa: ARG001
    return np.tril(np.ones((n, n), dtype=bool))


@pytest.mark.parametrize("right", [window_right, window_tril_triu])
def test_a_right_window_mask_passes(right):
    assert check_window_mask(right(N, W), N, W).ok


@pytest.mark.parametrize(
    ("wrong", "name"),
    [
        (window_le, "window_plus_one"),
        (window_strict, "window_minus_one"),
        (window_upper, "mask_direction"),
        (window_causal_only, "no_window"),
    ],
)
def test_each_wrong_window_mask_is_named(wrong, name):
    _says(check_window_mask(wrong(N, W), N, W), "check_window_mask", name)


def test_window_mask_placeholder_text_and_shape():
    assert not check_window_mask(..., N, W).answered
    assert check_window_mask("mask", N, W).mistake == "not_a_number"
    assert check_window_mask(np.ones((N, N - 1)), N, W).mistake == "wrong_shape"
    assert check_window_mask(np.eye(N), N, W).mistake == "other"


# --- shared KV heads -----------------------------------------------------------------------------


def kv_interleave(K, h):
    return K.repeat_interleave(h // K.shape[1], dim=1)


def kv_expand(K, h):  # another right one: a new axis, expanded, then flattened
    B, h_kv, n, d = K.shape
    return K[:, :, None].expand(B, h_kv, h // h_kv, n, d).reshape(B, h, n, d)


def kv_repeat(K, h):
    return K.repeat(1, h // K.shape[1], 1, 1)


def kv_cat(K, h):  # the same mistake written with cat
    return torch.cat([K] * (h // K.shape[1]), dim=1)


def kv_unshared(K, h):  # noqa: ARG001
    return K


@pytest.mark.parametrize("right", [kv_interleave, kv_expand])
def test_right_kv_sharing_passes(right):
    assert check_kv_heads(right(K, H), K, H).ok


@pytest.mark.parametrize(
    ("wrong", "name"),
    [
        (kv_repeat, "repeat_not_interleave"),
        (kv_cat, "repeat_not_interleave"),
        (kv_unshared, "not_shared"),
    ],
)
def test_each_wrong_kv_sharing_is_named(wrong, name):
    _says(check_kv_heads(wrong(K, H), K, H), "check_kv_heads", name)


def test_kv_heads_shape_text_and_unknown():
    assert check_kv_heads(K[:, :1], K, H).mistake == "wrong_shape"
    assert check_kv_heads([[1, 2], [3]], K, H).mistake == "not_a_number"
    assert check_kv_heads(kv_interleave(K, H) + 1, K, H).mistake == "other"


# --- sinks ---------------------------------------------------------------------------------------


def sink_right(Z, s):
    e = Z.exp()
    return e / (e.sum(-1, keepdim=True) + s.exp().view(-1, 1, 1))


def sink_column_then_drop(Z, s):  # another right one: gpt-oss's way
    both = torch.cat([Z, s.view(-1, 1, 1).expand(*Z.shape[:-1], 1)], dim=-1)
    return both.softmax(-1)[..., :-1]


def sink_numerator(Z, s):
    e, es = Z.exp(), s.exp().view(-1, 1, 1)
    return (e + es) / (e.sum(-1, keepdim=True) + es)


def sink_plain(Z, s):  # noqa: ARG001
    return Z.softmax(-1)


def sink_logit_in_denominator(Z, s):
    e = Z.exp()
    return e / (e.sum(-1, keepdim=True) + s.view(-1, 1, 1))


def sink_column_kept(Z, s):
    return torch.cat([Z, s.view(-1, 1, 1).expand(*Z.shape[:-1], 1)], dim=-1).softmax(-1)


@pytest.mark.parametrize("right", [sink_right, sink_column_then_drop])
def test_right_sink_weights_pass(right):
    assert check_sink_weights(right(Z, SINKS), Z, SINKS).ok


@pytest.mark.parametrize(
    ("wrong", "name"),
    [
        (sink_numerator, "sink_in_numerator"),
        (sink_plain, "sink_ignored"),
        (sink_logit_in_denominator, "sink_not_exponentiated"),
        (sink_column_kept, "sink_column_kept"),
    ],
)
def test_each_wrong_sink_softmax_is_named(wrong, name):
    _says(check_sink_weights(wrong(Z, SINKS), Z, SINKS), "check_sink_weights", name)


def test_sink_weights_shape_text_and_overflow():
    assert check_sink_weights(Z[0], Z, SINKS).mistake == "wrong_shape"
    assert check_sink_weights("weights", Z, SINKS).mistake == "not_a_number"
    overflowed = check_sink_weights(torch.full_like(Z, torch.nan), Z, SINKS)
    assert overflowed.mistake == "other" and "maximum" in overflowed.message


# --- multi-head latent attention's absorbed scores -----------------------------------------------


def absorbed_right(q_nope, q_rope, W_UK, C, k_rope):
    n = C.shape[0]
    q_latent = W_UK @ q_nope  # [r]
    q_r = rope(q_rope[None], [n - 1])[0]  # [d_R]
    return (C @ q_latent + rope(k_rope) @ q_r) / math.sqrt(len(q_nope) + len(q_rope))


def absorbed_naive(q_nope, q_rope, W_UK, C, k_rope):  # another right one: build the keys
    n = C.shape[0]
    keys = np.concatenate([C @ W_UK, rope(k_rope)], axis=1)  # [n, d_nope + d_R]
    query = np.concatenate([q_nope, rope(q_rope[None], [n - 1])[0]])  # [d_nope + d_R]
    return keys @ query / math.sqrt(len(query))


def absorbed_rope_on_latent(q_nope, q_rope, W_UK, C, k_rope):
    n = C.shape[0]
    q_latent = rope((W_UK @ q_nope)[None], [n - 1])[0]
    q_r = rope(q_rope[None], [n - 1])[0]
    return (rope(C) @ q_latent + rope(k_rope) @ q_r) / math.sqrt(len(q_nope) + len(q_rope))


def absorbed_no_rope(q_nope, q_rope, W_UK, C, k_rope):
    return (C @ (W_UK @ q_nope) + k_rope @ q_rope) / math.sqrt(len(q_nope) + len(q_rope))


def absorbed_latent_only(q_nope, q_rope, W_UK, C, k_rope):  # noqa: ARG001
    return C @ (W_UK @ q_nope) / math.sqrt(len(q_nope) + len(q_rope))


def absorbed_by_r(q_nope, q_rope, W_UK, C, k_rope):
    return absorbed_right(q_nope, q_rope, W_UK, C, k_rope) * math.sqrt(5) / math.sqrt(C.shape[1])


def absorbed_unscaled(q_nope, q_rope, W_UK, C, k_rope):
    return absorbed_right(q_nope, q_rope, W_UK, C, k_rope) * math.sqrt(5)


ARGS = (Q_NOPE, Q_ROPE, W_UK, C, K_ROPE)


@pytest.mark.parametrize("right", [absorbed_right, absorbed_naive])
def test_right_absorbed_scores_pass(right):
    assert check_absorbed_scores(right(*ARGS), *ARGS).ok


@pytest.mark.parametrize(
    ("wrong", "name"),
    [
        (absorbed_rope_on_latent, "rope_on_latent"),
        (absorbed_no_rope, "no_rope"),
        (absorbed_latent_only, "latent_part_only"),
        (absorbed_by_r, "scaled_by_latent_width"),
        (absorbed_unscaled, "no_scaling"),
    ],
)
def test_each_wrong_absorbed_score_is_named(wrong, name):
    _says(check_absorbed_scores(wrong(*ARGS), *ARGS), "check_absorbed_scores", name)


def test_absorbed_scores_shape_text_and_unknown():
    assert check_absorbed_scores(np.zeros(4), *ARGS).mistake == "wrong_shape"
    assert check_absorbed_scores(object(), *ARGS).mistake == "not_a_number"
    assert check_absorbed_scores(absorbed_right(*ARGS) + 0.5, *ARGS).mistake == "other"
