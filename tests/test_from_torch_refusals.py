"""``from_torch`` copies only what it models: refusals that say why, and bias-free layers.

A copy that computes something else than the module it came from is worse than a refusal:
``MultiHeadAttention.from_torch`` refuses what it does not model (``kdim``/``vdim``,
``add_bias_kv``, ``add_zero_attn``, dropout in training mode), and
``TransformerBlock.from_torch`` copies a layer built with ``bias=False`` (PyTorch's own
``test_transformer_bias_is_none`` runs one) so that both compute the same.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from lessons import MultiHeadAttention, TransformerBlock, causal_mask

F64 = torch.float64


def _x(B=2, n=5, d=8, seed=0):
    return torch.randn(B, n, d, dtype=F64, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"kdim": 4, "vdim": 4}, "kdim=4, vdim=4"),
        ({"add_bias_kv": True}, "add_bias_kv=False"),
        ({"add_zero_attn": True}, "add_zero_attn=False"),
        ({"dropout": 0.5}, "mha.eval()"),
    ],
)
def test_multihead_from_torch_refuses_what_it_does_not_model_saying_what_to_do(kwargs, words):
    mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=F64, **kwargs)
    with pytest.raises(ValueError, match="mha has") as caught:
        MultiHeadAttention.from_torch(mha)
    assert words in str(caught.value)


def test_zero_attn_really_differs_so_the_refusal_is_needed():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=F64, add_zero_attn=True)
    plain = nn.MultiheadAttention(8, 2, batch_first=True, dtype=F64)
    plain.load_state_dict(mha.state_dict())
    x = _x()
    with torch.no_grad():
        assert (mha(x, x, x)[0] - plain(x, x, x)[0]).abs().max() > 1e-3


def test_multihead_with_dropout_in_eval_mode_is_copied_and_equal():
    torch.manual_seed(1)
    mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=F64, dropout=0.5).eval()
    ours = MultiHeadAttention.from_torch(mha)
    x = _x(seed=1)
    with torch.no_grad():
        torch.testing.assert_close(ours(x)[0], mha(x, x, x)[0])


@pytest.mark.parametrize("norm_first", [False, True])
def test_block_from_a_bias_free_layer_equals_it(norm_first):
    torch.manual_seed(2)
    layer = nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, batch_first=True, norm_first=norm_first, bias=False, dtype=F64
    ).eval()
    block = TransformerBlock.from_torch(layer)
    assert all(p.ndim == 2 or name.endswith("weight") for name, p in block.named_parameters())
    assert sum(p.numel() for p in block.parameters()) == sum(p.numel() for p in layer.parameters())
    x = _x(seed=2)
    keep = torch.from_numpy(causal_mask(5))  # [n, n]
    with torch.no_grad():
        torch.testing.assert_close(block(x), layer(x))
        torch.testing.assert_close(block(x, mask=keep), layer(x, src_mask=~keep))


def test_block_from_a_layer_with_dropout_needs_eval_mode():
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dtype=F64)  # dropout 0.1
    with pytest.raises(ValueError, match=r"layer\.eval\(\)"):
        TransformerBlock.from_torch(layer)
    block = TransformerBlock.from_torch(layer.eval())
    x = _x(seed=3)
    with torch.no_grad():
        torch.testing.assert_close(block(x), layer(x))
