"""Properties of lessons.causal_mask and lessons.padding_mask (chapter 6)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons import attention, causal_mask, padding_mask


@given(st.integers(1, 30))
def test_causal_mask_lets_each_token_see_itself_and_the_past_only(n):
    mask = causal_mask(n)
    assert mask.shape == (n, n) and mask.dtype == np.bool_
    rows, cols = np.indices((n, n))
    np.testing.assert_array_equal(mask, cols <= rows)


@given(st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_causal_attention_puts_exactly_zero_weight_on_later_tokens(n, seed):
    X = np.random.default_rng(seed).normal(size=(n, 3))  # [n, d]
    _, weights = attention(X, X, X, causal_mask(n))  # [n, n]
    assert (weights[np.triu_indices(n, k=1)] == 0.0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    assert weights[0, 0] == 1.0  # the first token can only look at itself


@given(st.lists(st.integers(0, 9), min_size=1, max_size=5))
def test_padding_mask_marks_exactly_the_real_tokens(lengths):
    mask = padding_mask(lengths, 9)
    assert mask.shape == (len(lengths), 1, 9) and mask.dtype == np.bool_
    np.testing.assert_array_equal(mask.sum(axis=-1)[:, 0], lengths)
    for b, length in enumerate(lengths):
        assert mask[b, 0, :length].all() and not mask[b, 0, length:].any()


def test_padding_and_causal_masks_combine_by_broadcasting():
    combined = padding_mask([2, 3], 3) & causal_mask(3)  # [B, 1, n] & [n, n] -> [B, n, n]
    assert combined.shape == (2, 3, 3)
    np.testing.assert_array_equal(combined[0], [[1, 0, 0], [1, 1, 0], [1, 1, 0]])


@pytest.mark.parametrize("n", [0, -2, 2.5, True, "3"])
def test_causal_mask_rejects_a_length_that_is_not_a_positive_integer(n):
    with pytest.raises(ValueError, match="positive integer"):
        causal_mask(n)


@pytest.mark.parametrize(
    ("lengths", "n", "message"),
    [
        ([2, 5], 3, r"between 0 and n=3; got \[5\]"),
        ([-1], 3, r"got \[-1\]"),
        ([[1, 2]], 3, "flat list of integers"),
        ([1.5], 3, "flat list of integers"),
        ([1], 0, "positive integer"),
    ],
)
def test_padding_mask_rejects_bad_lengths_naming_them(lengths, n, message):
    with pytest.raises(ValueError, match=message):
        padding_mask(lengths, n)
