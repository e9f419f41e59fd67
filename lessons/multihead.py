"""Multi-head attention: several attentions side by side, each on a slice of the width.

Taught in chapter 7 (Multi-head attention) and reused by chapter 9's transformer
block. ``split_heads`` and ``merge_heads`` are the two reshapes that confuse
learners most; chapter 7 works them through on a tiny tensor. The module equals
``torch.nn.MultiheadAttention(batch_first=True)`` once its weights are copied
with ``MultiHeadAttention.from_torch``, which the tests assert.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._masks_in import checked_mask
from ._validate import check_budget, float_input, float_tensor, is_tensor, positive_int
from .attention import attention

__all__ = ["MultiHeadAttention", "merge_heads", "split_heads"]


def split_heads(X: Any, num_heads: int) -> Any:
    """Split ``X [B, n, d_model]`` into heads: ``[B, h, n, d_k]`` with ``d_k = d_model / h`` (chapter 7).

    Head ``i`` gets columns ``i * d_k`` to ``(i + 1) * d_k - 1`` of every token.
    The reshape is ``view(B, n, h, d_k)`` followed by ``transpose(1, 2)``; a plain
    ``view(B, h, n, d_k)`` would mix tokens into heads (chapter 7 shows it).

    A torch tensor gives a view of it; a NumPy array (or nested list) gives a NumPy
    array, split the same way (the explorer uses it on NumPy heads).

    Raises:
        ValueError: if ``X`` is not 3-D (or is empty, or holds NaN or inf) or
            ``num_heads`` is not a positive integer that divides ``d_model``.
        TypeError: if ``X`` is complex or not numbers.
    """
    X = _reshape_input(X)
    if X.ndim != 3:
        raise ValueError(f"split_heads expects [B, n, d_model]; got shape {tuple(X.shape)}")
    _check_heads(X.shape[-1], num_heads)
    return _split(X, num_heads)


def _split(X: Any, h: int) -> Any:
    """``[B, n, d_model]`` to ``[B, h, n, d_k]``, on a checked ``X`` (``split_heads``)."""
    B, n, d_model = X.shape
    if not is_tensor(X):
        return X.reshape(B, n, h, d_model // h).transpose(0, 2, 1, 3)  # [B, h, n, d_k]
    return X.view(B, n, h, d_model // h).transpose(1, 2)  # [B, h, n, d_k]


def merge_heads(X: Any) -> Any:
    """Concatenate heads back: ``[B, h, n, d_k]`` to ``[B, n, h * d_k]`` (chapter 7).

    The inverse of ``split_heads``: ``merge_heads(split_heads(X, h))`` is ``X``.
    Torch in, torch out; a NumPy array (or nested list) gives a NumPy array.

    Raises:
        ValueError: if ``X`` is not 4-D, is empty, or holds NaN or inf.
        TypeError: if ``X`` is complex or not numbers.
    """
    X = _reshape_input(X)
    if X.ndim != 4:
        raise ValueError(f"merge_heads expects [B, h, n, d_k]; got shape {tuple(X.shape)}")
    return _merge(X)


def _merge(X: Any) -> Any:
    """``[B, h, n, d_k]`` to ``[B, n, h * d_k]``, on a checked ``X`` (``merge_heads``)."""
    B, h, n, d_k = X.shape
    if not is_tensor(X):
        return X.transpose(0, 2, 1, 3).reshape(B, n, h * d_k)  # [B, n, d_model]
    return X.transpose(1, 2).reshape(B, n, h * d_k)  # [B, n, d_model]


def _reshape_input(X: Any) -> Any:
    """``X`` checked (real, finite, not empty), dtype kept: a reshape needs no floats."""
    if is_tensor(X) and X.dtype.is_floating_point:
        return float_tensor("X", X)
    array = float_input("X", X, dtype=None)  # [...]
    return X if is_tensor(X) else array


def _check_heads(d_model: int, num_heads: int) -> None:
    positive_int("num_heads", num_heads)
    if d_model % num_heads:
        raise ValueError(
            f"num_heads must divide d_model so every head gets d_k = d_model / num_heads "
            f"columns; got d_model={d_model}, num_heads={num_heads}"
        )


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention, written out (chapter 7).

    ``h = num_heads`` heads of width ``d_k = d_model / h``. One fused projection
    ``in_proj`` (weight ``[3 d_model, d_model]``, rows for Q, then K, then V, the
    layout of ``nn.MultiheadAttention.in_proj_weight``) makes queries, keys and
    values; each head attends on its own slice; ``out_proj`` (``W_O``) mixes the
    concatenated heads. Parameters: ``4 d_model^2`` weights, plus ``4 d_model``
    biases when ``bias=True``.
    """

    def __init__(self, d_model: int, num_heads: int, bias: bool = True) -> None:
        super().__init__()
        positive_int("d_model", d_model)
        _check_heads(d_model, num_heads)
        check_budget("d_model is", 4 * 4 * d_model * d_model)
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.in_proj = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor | None = None,
        value: torch.Tensor | None = None,
        mask: Any = None,
        need_weights: bool = True,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Attend from ``query [B, n_q, d_model]`` to ``key``/``value [B, n_k, d_model]``.

        With ``key`` and ``value`` omitted this is self-attention (``key = value =
        query``); with only ``value`` omitted, ``value = key`` (cross-attention,
        chapter 9). ``mask`` is a boolean keep-mask (True = may attend), as in
        ``lessons.attention``, broadcastable to ``[B, h, n_q, n_k]``: a causal
        ``[n, n]`` or a padding mask ``[B, 1, 1, n_k]``.

        Returns ``(output [B, n_q, d_model], weights [B, h, n_q, n_k])``. With
        ``need_weights=False`` the heads attend through PyTorch's fused
        ``F.scaled_dot_product_attention`` (the same maths, faster, chapter 10) and
        ``weights`` is None. The mask follows one rule on both paths: boolean (a NumPy
        array or a tensor), broadcasting to ``[B, h, n_q, n_k]``; a float mask is refused
        on both, with what to do for what it holds (an additive 0/-inf mask becomes
        ``mask == 0``; a bias such as ALiBi's is added to the scores, chapter 8).

        ``query``, ``key`` and ``value`` are checked once, here; ``lessons.attention``
        checks the projections ``Q``, ``K``, ``V`` it is given. Lists and NumPy arrays are
        converted to tensors of the module's dtype.

        Raises:
            ValueError: naming the shapes, if an input is not ``[B, n, d_model]``,
                is empty, holds NaN or inf, has another floating dtype than the
                module, or the batch sizes differ; if the mask is not boolean or does
                not broadcast to ``[B, h, n_q, n_k]``.
        """
        query, key, value = self._checked(query, key, value)  # [B, n_q | n_k, d_model]
        w_q, w_k, w_v = self.in_proj.weight.chunk(3)  # 3 x [d_model, d_model] ([out, in])
        b_q, b_k, b_v = (None,) * 3 if self.in_proj.bias is None else self.in_proj.bias.chunk(3)
        Q = _split(F.linear(query, w_q, b_q), self.num_heads)  # [B, h, n_q, d_k]
        K = _split(F.linear(key, w_k, b_k), self.num_heads)  # [B, h, n_k, d_k]
        V = _split(F.linear(value, w_v, b_v), self.num_heads)  # [B, h, n_k, d_k]
        if need_weights:
            heads, weights = attention(Q, K, V, mask)  # [B, h, n_q, d_k], [B, h, n_q, n_k]
        else:  # the same rule for the mask as lessons.attention: boolean, broadcasting to it
            keep = None if mask is None else checked_mask(mask, (*Q.shape[:-1], K.shape[-2]), Q)
            heads, weights = F.scaled_dot_product_attention(Q, K, V, attn_mask=keep), None
        return self.out_proj(_merge(heads)), weights  # [B, n_q, d_model]

    def _checked(self, query: Any, key: Any, value: Any) -> tuple[torch.Tensor, ...]:
        """``query``, ``key`` and ``value`` as tensors of the module's dtype, each checked once."""
        dtype = self.in_proj.weight.dtype
        query = float_tensor("query", query, dtype)
        key = query if key is None else float_tensor("key", key, dtype)
        value = key if value is None else float_tensor("value", value, dtype)
        for name, tensor in (("query", query), ("key", key), ("value", value)):
            if tensor.dim() != 3 or tensor.shape[-1] != self.d_model:
                raise ValueError(
                    f"{name} must have shape [B, n, d_model={self.d_model}]; "
                    f"got {tuple(tensor.shape)}"
                )
        if not query.shape[0] == key.shape[0] == value.shape[0]:
            raise ValueError(
                f"query, key and value must share the batch size B; got shapes "
                f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}"
            )
        return query, key, value

    @classmethod
    def from_torch(cls, mha: nn.MultiheadAttention) -> MultiHeadAttention:
        """A copy of ``mha`` (an ``nn.MultiheadAttention``) with the same weights (chapter 7).

        Afterwards both give equal outputs; note that ``mha`` returns weights
        averaged over heads unless called with ``average_attn_weights=False``,
        and that its boolean masks use True = *blocked*. The copy has no dropout:
        a module with ``dropout > 0`` is copied only in eval mode (``mha.eval()``),
        where its dropout does nothing and both compute the same.

        Raises:
            ValueError: if ``mha`` has separate key/value widths (``kdim``/``vdim``),
                biases on keys and values (``add_bias_kv``) or an extra all-zero key
                and value (``add_zero_attn``), which this module does not model, or
                has ``dropout > 0`` while in training mode.
        """
        if not isinstance(mha, nn.MultiheadAttention):
            raise ValueError(f"mha must be an nn.MultiheadAttention; got {type(mha).__name__}")
        if not mha._qkv_same_embed_dim:
            raise ValueError(
                f"mha has kdim={mha.kdim}, vdim={mha.vdim} and embed_dim={mha.embed_dim}: "
                "MultiHeadAttention projects keys and values from inputs of width "
                "embed_dim only; build it with kdim = vdim = embed_dim (the default)"
            )
        if mha.bias_k is not None:
            raise ValueError(
                "mha has add_bias_kv=True: it appends a learned key and value to every "
                "sequence, which MultiHeadAttention does not model; build it with "
                "add_bias_kv=False (the default)"
            )
        if mha.add_zero_attn:
            raise ValueError(
                "mha has add_zero_attn=True: it appends an all-zero key and value to every "
                "sequence, so each query has one more key to weigh and its outputs differ "
                "from MultiHeadAttention's; build it with add_zero_attn=False (the default)"
            )
        if mha.dropout > 0 and mha.training:
            raise ValueError(
                f"mha has dropout={mha.dropout} and is in training mode, where it zeroes "
                "random weights on every call; the copy has no dropout, so the two would "
                "differ: call mha.eval() first (dropout then does nothing) or build it "
                "with dropout=0"
            )
        bias = mha.in_proj_bias is not None
        copy = cls(mha.embed_dim, mha.num_heads, bias=bias).to(mha.in_proj_weight.dtype)
        with torch.no_grad():
            copy.in_proj.weight.copy_(mha.in_proj_weight)
            copy.out_proj.weight.copy_(mha.out_proj.weight)
            if bias:
                copy.in_proj.bias.copy_(mha.in_proj_bias)
                copy.out_proj.bias.copy_(mha.out_proj.bias)
        return copy
