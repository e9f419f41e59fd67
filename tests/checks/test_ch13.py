"""Chapter 13's self-checks (Attention in today's models): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from checks.wrong_ch13 import WRONG, _absorbed_right
from lessons import repeat_kv, sink_softmax, window_mask
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


ARGS = (Q_NOPE, Q_ROPE, W_UK, C, K_ROPE)


#: The answers every check names alike (tested below, not slips of the formula).
GENERIC = {"not_a_number", "wrong_shape", "other"}


def test_every_check_of_the_module_has_a_catalogue_entry_in_order():
    assert list(MISTAKES) == ch13.__all__
    for name in ch13.__all__:
        assert getattr(ch13, name).mistakes is MISTAKES[name]


@pytest.mark.parametrize("check", ch13.__all__)
def test_every_slip_the_catalogue_names_has_a_wrong_answer_in_the_library(check):
    assert GENERIC < set(MISTAKES[check])
    slips = set(MISTAKES[check]) - GENERIC
    named = {wrong.mistake for wrong in WRONG[check]}
    assert slips <= named, slips - named


def test_the_right_answers_pass():
    assert check_window_mask(window_mask(np.arange(N), np.arange(N), W), N, W).ok
    assert check_kv_heads(repeat_kv(K, H), K, H).ok
    assert check_sink_weights(sink_softmax(Z[None], SINKS)[0], Z, SINKS).ok
    assert check_absorbed_scores(_absorbed_right(*ARGS), *ARGS).ok


def test_window_mask_placeholder_text_and_shape():
    assert not check_window_mask(..., N, W).answered
    assert check_window_mask("mask", N, W).mistake == "not_a_number"
    assert check_window_mask(np.ones((N, N - 1)), N, W).mistake == "wrong_shape"
    assert check_window_mask(np.eye(N), N, W).mistake == "other"


def test_kv_heads_shape_text_and_unknown():
    assert check_kv_heads(K[:, :1], K, H).mistake == "wrong_shape"
    assert check_kv_heads([[1, 2], [3]], K, H).mistake == "not_a_number"
    assert check_kv_heads(repeat_kv(K, H) + 1, K, H).mistake == "other"


def test_sink_weights_shape_text_and_overflow():
    assert check_sink_weights(Z[0], Z, SINKS).mistake == "wrong_shape"
    assert check_sink_weights("weights", Z, SINKS).mistake == "not_a_number"
    overflowed = check_sink_weights(torch.full_like(Z, torch.nan), Z, SINKS)
    assert overflowed.mistake == "other" and "maximum" in overflowed.message


def test_absorbed_scores_shape_text_and_unknown():
    assert check_absorbed_scores(np.zeros(4), *ARGS).mistake == "wrong_shape"
    assert check_absorbed_scores(object(), *ARGS).mistake == "not_a_number"
    assert check_absorbed_scores(_absorbed_right(*ARGS) + 0.5, *ARGS).mistake == "other"
