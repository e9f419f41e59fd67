"""Properties of lessons.causal_mask and lessons.padding_mask (chapter 6)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import additive_mask, attention, causal_mask, combine_masks, padding_mask


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


@given(st.lists(st.integers(0, 5), min_size=1, max_size=4))
def test_combined_padding_and_causal_mask_keeps_only_real_past_tokens(lengths):
    mask = combine_masks(padding_mask(lengths, 5)[:, None], causal_mask(5))  # [B, 1, n, n]
    assert mask.shape == (len(lengths), 1, 5, 5)
    rows, cols = np.indices((5, 5))
    for b, length in enumerate(lengths):
        np.testing.assert_array_equal(mask[b, 0], (cols <= rows) & (cols < length))


def test_combine_masks_names_the_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"shapes \[2, 1, 3\], \[4, 4\] do not broadcast"):
        combine_masks(padding_mask([1, 2], 3), causal_mask(4))
    with pytest.raises(ValueError, match="mask 1 must be boolean"):
        combine_masks(causal_mask(2), np.ones((2, 2)))
    with pytest.raises(ValueError, match="at least one mask"):
        combine_masks()


def test_additive_mask_gives_the_same_weights_as_the_boolean_mask():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 3))  # [n, d]
    keep = causal_mask(4)
    _, expected = attention(X, X, X, keep)
    scores = X @ X.T / np.sqrt(3) + additive_mask(keep)  # [n, n]
    from lessons import softmax

    np.testing.assert_array_equal(softmax(scores) == 0, ~keep)
    np.testing.assert_allclose(softmax(scores), expected)


def test_additive_mask_rejects_non_boolean_masks_and_positive_fill():
    with pytest.raises(ValueError, match="boolean"):
        additive_mask(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="fill must be negative"):
        additive_mask(causal_mask(2), fill=1.0)


def test_a_large_negative_constant_overflows_to_minus_infinity_in_float16():
    assert torch.tensor(-1e9, dtype=torch.float16).item() == float("-inf")
    assert torch.tensor(-1e9, dtype=torch.float32).item() == -1e9


def test_pytorch_boolean_conventions_are_opposite_and_give_equal_weights():
    torch.manual_seed(0)
    n, d = 4, 3
    X = torch.randn(1, n, d, dtype=torch.float64)  # [B, n, d]
    keep = torch.from_numpy(causal_mask(n))  # [n, n], True = may attend
    mha = torch.nn.MultiheadAttention(d, 1, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.eye(d).repeat(3, 1))  # Q = K = V = X
    _, mha_weights = mha(X, X, X, attn_mask=~keep)  # True = masked out
    _, ours = attention(X, X, X, keep)
    torch.testing.assert_close(mha_weights, ours)
    sdpa = torch.nn.functional.scaled_dot_product_attention(X, X, X, attn_mask=keep)
    torch.testing.assert_close(sdpa, ours @ X)
