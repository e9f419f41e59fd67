"""lessons.MultiHeadAttention, split_heads and merge_heads (chapter 7) against PyTorch."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import MultiHeadAttention, causal_mask, merge_heads, padding_mask, split_heads

shapes = st.tuples(
    st.integers(1, 3),  # B
    st.integers(1, 6),  # n_q
    st.integers(1, 6),  # n_k
    st.sampled_from([(4, 1), (4, 2), (6, 3), (8, 4), (8, 8)]),  # (d_model, h)
    st.booleans(),  # bias
    st.integers(0, 2**31 - 1),  # seed
)


def _pair(d_model, h, bias, seed):
    torch.manual_seed(seed)
    theirs = torch.nn.MultiheadAttention(
        d_model, h, bias=bias, batch_first=True, dtype=torch.float64
    )
    if bias:  # PyTorch starts biases at zero: make them matter
        with torch.no_grad():
            theirs.in_proj_bias.normal_()
            theirs.out_proj.bias.normal_()
    return theirs, MultiHeadAttention.from_torch(theirs)


@given(shapes)
def test_self_attention_equals_nn_multiheadattention_with_copied_weights(shape):
    B, n, _, (d_model, h), bias, seed = shape
    theirs, ours = _pair(d_model, h, bias, seed)
    x = torch.randn(B, n, d_model, dtype=torch.float64)  # [B, n, d_model]
    expected, expected_weights = theirs(x, x, x, average_attn_weights=False)
    output, weights = ours(x)
    torch.testing.assert_close(output, expected)
    torch.testing.assert_close(weights, expected_weights)  # [B, h, n, n]


@given(shapes)
def test_cross_attention_with_a_padding_mask_equals_pytorch(shape):
    B, n_q, n_k, (d_model, h), bias, seed = shape
    theirs, ours = _pair(d_model, h, bias, seed)
    query = torch.randn(B, n_q, d_model, dtype=torch.float64)  # [B, n_q, d_model]
    memory = torch.randn(B, n_k, d_model, dtype=torch.float64)  # [B, n_k, d_model]
    lengths = [max(1, n_k - b) for b in range(B)]
    keep = torch.from_numpy(padding_mask(lengths, n_k))  # [B, 1, n_k]
    expected, expected_weights = theirs(query, memory, memory, key_padding_mask=~keep[:, 0])
    output, weights = ours(query, memory, mask=keep[:, None])  # mask [B, 1, 1, n_k]
    torch.testing.assert_close(output, expected)
    torch.testing.assert_close(weights.mean(dim=1), expected_weights)  # PyTorch averages heads


@given(shapes)
def test_causal_self_attention_equals_pytorch_with_its_opposite_mask(shape):
    B, n, _, (d_model, h), bias, seed = shape
    theirs, ours = _pair(d_model, h, bias, seed)
    x = torch.randn(B, n, d_model, dtype=torch.float64)  # [B, n, d_model]
    keep = torch.from_numpy(causal_mask(n))  # [n, n], True = may attend
    expected, _ = theirs(x, x, x, attn_mask=~keep)  # PyTorch: True = blocked
    output, weights = ours(x, mask=keep)
    torch.testing.assert_close(output, expected)
    assert (weights[..., ~keep] == 0).all()


@pytest.mark.parametrize(("d_model", "h", "bias"), [(8, 2, True), (8, 4, False), (12, 3, True)])
def test_parameter_count_is_four_d_model_squared_whatever_the_heads(d_model, h, bias):
    count = sum(p.numel() for p in MultiHeadAttention(d_model, h, bias=bias).parameters())
    assert count == 4 * d_model**2 + (4 * d_model if bias else 0)


@given(st.integers(1, 3), st.integers(1, 5), st.sampled_from([(4, 2), (6, 3), (8, 1)]))
def test_split_heads_gives_each_head_its_own_columns_and_merge_undoes_it(B, n, dims):
    d_model, h = dims
    X = torch.arange(B * n * d_model, dtype=torch.float64).reshape(B, n, d_model)  # [B, n, d_model]
    heads = split_heads(X, h)  # [B, h, n, d_k]
    d_k = d_model // h
    for i in range(h):
        torch.testing.assert_close(heads[:, i], X[..., i * d_k : (i + 1) * d_k])
    torch.testing.assert_close(merge_heads(heads), X)


def test_the_naive_view_mixes_tokens_into_heads():
    X = torch.arange(24.0).reshape(1, 3, 8)  # [B, n, d_model]
    wrong = X.view(1, 2, 3, 4)  # [B, h, n, d_k], but heads hold other tokens' numbers
    assert not torch.equal(wrong, split_heads(X, 2))


@pytest.mark.parametrize(
    ("d_model", "h", "message"),
    [
        (10, 3, "d_model=10, num_heads=3"),
        (8, 0, "num_heads must be a positive integer; got 0"),
        (8, True, "num_heads must be a positive integer; got True"),
        (8, 2.0, "num_heads must be a positive integer; got 2.0"),
    ],
)
def test_heads_that_do_not_divide_d_model_are_a_value_error(d_model, h, message):
    with pytest.raises(ValueError, match=message):
        MultiHeadAttention(d_model, h)


def test_inputs_of_the_wrong_width_or_batch_are_named():
    mha = MultiHeadAttention(8, 2)
    with pytest.raises(
        ValueError, match=r"query must have shape \[B, n, d_model=8\]; got \(2, 3, 6\)"
    ):
        mha(torch.randn(2, 3, 6))
    with pytest.raises(ValueError, match="share the batch size"):
        mha(torch.randn(2, 3, 8), torch.randn(3, 3, 8))
    with pytest.raises(ValueError, match=r"expects \[B, n, d_model\]"):
        split_heads(torch.randn(3, 8), 2)
