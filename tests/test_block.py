"""lessons.TransformerBlock (chapter 9) against nn.TransformerEncoderLayer."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import TransformerBlock, causal_mask


@given(
    st.booleans(),
    st.sampled_from([(8, 2, 16), (12, 3, 24), (16, 4, 32)]),
    st.integers(1, 3),
    st.integers(1, 6),
    st.integers(0, 2**31 - 1),
)
def test_block_equals_transformer_encoder_layer(norm_first, dims, B, n, seed):
    d_model, h, d_ff = dims
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(
        d_model, h, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=torch.float64
    ).eval()
    block = TransformerBlock.from_torch(layer)
    x = torch.randn(B, n, d_model, dtype=torch.float64)  # [B, n, d_model]
    with torch.no_grad():
        torch.testing.assert_close(block(x), layer(x))
        keep = torch.from_numpy(causal_mask(n))  # [n, n]
        torch.testing.assert_close(block(x, mask=keep), layer(x, src_mask=~keep))


def test_causal_block_leaks_nothing_from_later_tokens():
    torch.manual_seed(0)
    block = TransformerBlock(8, 2, 16).double()
    x = torch.randn(1, 5, 8, dtype=torch.float64, requires_grad=True)  # [B, n, d_model]
    out = block(x, mask=causal_mask(5))  # [B, n, d_model]
    probe = torch.randn(8, dtype=torch.float64)  # a LayerNorm output always sums to 0: weigh it
    (grad,) = torch.autograd.grad((out[0, 1] * probe).sum(), x)
    assert (grad[0, 2:] == 0).all() and (grad[0, :2] != 0).any()


def test_from_torch_rejects_a_gelu_layer():
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", batch_first=True)
    with pytest.raises(ValueError, match="relu"):
        TransformerBlock.from_torch(layer)
