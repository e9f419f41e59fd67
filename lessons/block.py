"""The transformer block: attention and a feed-forward network, each with a residual and a norm.

Taught in chapter 9 (Encoder, decoder and cross-attention; the transformer block).
Built from ``lessons.MultiHeadAttention``; equal to
``torch.nn.TransformerEncoderLayer(batch_first=True, dropout=0)`` once the
weights are copied with ``TransformerBlock.from_torch``, which the tests assert,
in both the post-norm (original) and pre-norm (most modern models) arrangement.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from ._validate import float_tensor, positive_int
from .multihead import MultiHeadAttention

__all__ = ["TransformerBlock"]


class TransformerBlock(nn.Module):
    """One encoder block (chapter 9): self-attention, then a position-wise feed-forward net.

    Post-norm (``norm_first=False``, as in Vaswani et al. 2017)::

        x = norm1(x + attention(x))
        x = norm2(x + feed_forward(x))

    Pre-norm (``norm_first=True``)::

        x = x + attention(norm1(x))
        x = x + feed_forward(norm2(x))

    ``feed_forward`` is ``Linear(d_model, d_ff) -> ReLU -> Linear(d_ff, d_model)``,
    applied to every token on its own. Input and output are ``[B, n, d_model]``.
    In pre-norm the path from input to output is a plain sum, along which the
    gradient passes unchanged; in post-norm every path goes through a norm.
    There is no dropout: the block equals PyTorch's with ``dropout=0`` (or in eval mode).
    With ``bias=False`` no linear layer and no norm has a bias, as
    ``nn.TransformerEncoderLayer(..., bias=False)``.
    """

    def __init__(
        self, d_model: int, num_heads: int, d_ff: int, norm_first: bool = False, bias: bool = True
    ) -> None:
        super().__init__()
        positive_int("d_ff", d_ff)
        self.norm_first = norm_first
        self.attention = MultiHeadAttention(d_model, num_heads, bias=bias)
        self.feed_forward = nn.Sequential(
            nn.Linear(d_model, d_ff, bias=bias), nn.ReLU(), nn.Linear(d_ff, d_model, bias=bias)
        )
        self.norm1 = nn.LayerNorm(d_model, bias=bias)
        self.norm2 = nn.LayerNorm(d_model, bias=bias)

    def forward(self, x: torch.Tensor, mask: Any = None) -> torch.Tensor:
        """``x [B, n, d_model]`` to ``[B, n, d_model]``; ``mask`` is a keep-mask as in ``MultiHeadAttention``.

        A list or NumPy array is converted to a tensor of the block's dtype.

        Raises:
            ValueError: as ``MultiHeadAttention.forward``, naming ``x``.
        """
        x = float_tensor("x", x, self.norm1.weight.dtype)  # [B, n, d_model]
        if self.norm_first:
            x = x + self.attention(self.norm1(x), mask=mask)[0]  # [B, n, d_model]
            return x + self.feed_forward(self.norm2(x))  # [B, n, d_model]
        x = self.norm1(x + self.attention(x, mask=mask)[0])  # [B, n, d_model]
        return self.norm2(x + self.feed_forward(x))  # [B, n, d_model]

    @classmethod
    def from_torch(cls, layer: nn.TransformerEncoderLayer) -> TransformerBlock:
        """A copy of ``layer`` (an ``nn.TransformerEncoderLayer``, ReLU) with the same weights (chapter 9).

        A layer built with ``bias=False`` gives a block without biases. The copy has no
        dropout: a layer with dropout is copied only in eval mode (``layer.eval()``),
        where dropout does nothing and both compute the same.

        Raises:
            ValueError: if ``layer`` does not use ReLU, which this block hard-codes, if
                its attention is one ``MultiHeadAttention.from_torch`` refuses, or if it
                has dropout > 0 while in training mode.
        """
        if not isinstance(layer, nn.TransformerEncoderLayer):
            raise ValueError(
                f"layer must be an nn.TransformerEncoderLayer; got {type(layer).__name__}"
            )
        if layer.activation_relu_or_gelu != 1:
            raise ValueError("TransformerBlock.from_torch needs a layer with activation='relu'")
        rates = [layer.dropout.p, layer.dropout1.p, layer.dropout2.p, layer.self_attn.dropout]
        if layer.training and max(rates) > 0:
            raise ValueError(
                f"layer has dropout={max(rates)} and is in training mode, where it zeroes "
                "random activations on every call; the copy has no dropout, so the two "
                "would differ: call layer.eval() first (dropout then does nothing) or "
                "build it with dropout=0"
            )
        d_model, d_ff = layer.linear1.in_features, layer.linear1.out_features
        bias = layer.linear1.bias is not None
        copy = cls(d_model, layer.self_attn.num_heads, d_ff, norm_first=layer.norm_first, bias=bias)
        copy = copy.to(layer.linear1.weight.dtype)
        copy.attention = MultiHeadAttention.from_torch(layer.self_attn)
        pairs = [
            (copy.feed_forward[0], layer.linear1),
            (copy.feed_forward[2], layer.linear2),
            (copy.norm1, layer.norm1),
            (copy.norm2, layer.norm2),
        ]
        with torch.no_grad():
            for ours, theirs in pairs:
                ours.weight.copy_(theirs.weight)
                if bias:
                    ours.bias.copy_(theirs.bias)
        for ours, theirs in ((copy.norm1, layer.norm1), (copy.norm2, layer.norm2)):
            ours.eps = theirs.eps
        return copy
