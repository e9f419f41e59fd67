"""Positional encodings (chapter 8): the properties the chapter verifies, for random sizes."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import alibi_bias, alibi_slopes, attention, offset_matrix, rope, sinusoidal_encoding

even = st.integers(1, 32).map(lambda i: 2 * i)


def _assert_constant_diagonals(table: np.ndarray) -> None:
    """Entry (p, q) of a square table depends on p - q only."""
    n = table.shape[0]
    for offset in range(-n + 1, n):
        diagonal = np.diagonal(table, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-9)


@given(st.integers(1, 60), even)
def test_sinusoidal_encoding_interleaves_sines_and_cosines(n, d_model):
    pe = sinusoidal_encoding(n, d_model)  # [n, d_model]
    assert pe.shape == (n, d_model)
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0)  # each pair on a circle
    np.testing.assert_allclose(pe[:, 0], np.sin(np.arange(n)))  # pair 0 turns 1 radian a step
    np.testing.assert_allclose(pe[0, 1::2], 1.0)  # position 0: every cosine is 1


@given(even)
def test_sinusoidal_wavelengths_form_a_geometric_progression(d_model):
    pe = sinusoidal_encoding(2, d_model)
    frequencies = np.arcsin(pe[1, 0::2])  # angle turned in one step, pair by pair
    wavelengths = 2 * np.pi / frequencies
    ratios = wavelengths[1:] / wavelengths[:-1]
    np.testing.assert_allclose(ratios, 10000 ** (2 / d_model))


@given(st.integers(2, 40), even, st.integers(0, 30))
def test_shifting_by_k_positions_is_one_fixed_linear_map(n, d_model, k):
    pe = sinusoidal_encoding(n + k, d_model)  # [n + k, d_model]
    M = offset_matrix(k, d_model)  # [d_model, d_model]
    np.testing.assert_allclose(pe[:n] @ M, pe[k:], atol=1e-9)
    np.testing.assert_allclose(M @ M.T, np.eye(d_model), atol=1e-12)  # a rotation


@given(st.integers(3, 40), even)
def test_dot_product_of_two_encodings_depends_only_on_their_offset(n, d_model):
    pe = sinusoidal_encoding(n, d_model)
    G = pe @ pe.T  # [n, n]
    _assert_constant_diagonals(G)


@given(st.integers(2, 12), even, st.integers(0, 2**32 - 1))
def test_rope_scores_depend_only_on_the_offset(n, d, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=d), rng.normal(size=d)  # [d], one query and one key vector
    Q = rope(np.tile(q, (n, 1)))  # [n, d]: the same query at every position
    K = rope(np.tile(k, (n, 1)))  # [n, d]
    S = Q @ K.T  # [n, n]
    _assert_constant_diagonals(S)


@given(st.integers(1, 10), even, st.integers(0, 2**32 - 1))
def test_rope_keeps_lengths_and_agrees_between_numpy_and_torch(n, d, seed):
    X = np.random.default_rng(seed).normal(size=(2, n, d))  # [B, n, d]
    rotated = rope(X)
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=-1), np.linalg.norm(X, axis=-1))
    np.testing.assert_allclose(rope(torch.from_numpy(X)).numpy(), rotated, atol=1e-12)
    np.testing.assert_allclose(rope(X, positions=np.zeros(n)), X)  # position 0: no turn


def test_alibi_penalises_distance_per_head_and_blocks_the_future():
    bias = alibi_bias(5, 4)  # [h, n, n]
    slopes = alibi_slopes(4)
    np.testing.assert_allclose(slopes, [2**-2, 2**-4, 2**-6, 2**-8])
    assert (np.diagonal(bias, axis1=1, axis2=2) == 0).all()
    np.testing.assert_allclose(bias[:, 4, 0], -4 * slopes)
    assert np.isneginf(bias[:, 0, 1]).all()
    symmetric = alibi_bias(5, 4, causal=False)
    np.testing.assert_allclose(symmetric, np.swapaxes(symmetric, 1, 2))


def test_alibi_biased_weights_still_sum_to_one_and_favour_near_keys():
    X = np.ones((1, 6, 4))  # [B, n, d]: equal scores, only the bias differs
    bias = alibi_bias(6, 2)  # [h, n, n]
    scores = X @ np.swapaxes(X, -1, -2) / 2 + bias  # [h, n, n]
    _, weights = attention(X, X, X)  # baseline, uniform
    from lessons import softmax

    alibi_weights = softmax(scores)  # [h, n, n]
    np.testing.assert_allclose(alibi_weights.sum(axis=-1), 1.0)
    assert (np.diff(alibi_weights[:, 5, :], axis=-1) > 0).all()  # nearer keys weigh more


@pytest.mark.parametrize("d", [0, 3, 7])
def test_odd_widths_are_a_value_error(d):
    with pytest.raises(ValueError, match="positive even integer"):
        sinusoidal_encoding(4, d)
    with pytest.raises(ValueError, match="positive even integer"):
        rope(np.zeros((2, max(d, 1))) if d else np.zeros((2, 3)))


def test_rope_rejects_positions_that_do_not_fit():
    with pytest.raises(ValueError, match=r"one entry per row \(3\)"):
        rope(np.zeros((3, 4)), positions=[0, 1])
