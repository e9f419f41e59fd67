"""The attention layer of 2024-26 open-weight models, built from the course's parts (chapter 13).

Chapter 7's layer with the changes today's models make, each a few lines:

- grouped-query attention: ``num_kv_heads < num_heads``, each KV head shared by a group of
  query heads (``repeat_kv``, with ``repeat_interleave``: query head ``g`` reads KV head
  ``g // group``) (Llama 3, Qwen3, Mistral, gpt-oss);
- RoPE (chapter 8's ``rope``) on queries and keys, pairing column ``f`` with ``f + d_k/2``
  (``rope_halves``), as Llama-family code does;
- QK-norm: RMSNorm of each head's query and key before RoPE (Qwen3, Gemma 3), or of the
  whole projection before the split into heads (OLMo 2; ``norm_whole``);
- a sliding window (``lessons.kv_cache.window_mask``) on some or all layers (Mistral, Gemma,
  gpt-oss), with a rolling cache;
- attention sinks: one learned logit per head that joins the softmax's denominator and
  carries no value (gpt-oss; ``sink_softmax``);
- logit soft-capping ``cap * tanh(Z / cap)`` (Gemma 2; ``soft_cap``);
- an output gate ``sigmoid(X W_G)`` on each head's output before ``W_O`` (Qwen3-Next).

``ModernAttention`` names its weights as ``transformers`` does (``q_proj``, ``k_proj``,
``v_proj``, ``o_proj``, ``q_norm``, ``k_norm``, ``sinks``), so a model's ``state_dict``
loads into it; chapter 13 and the tests prove the two equal.
Chapter 13's notes on ``transformers``' own code for these layers are in
``lessons.book.reading``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ._layer_inputs import layer_input, need_tensor
from ._validate import positive_int
from .attention import attention
from .kv_cache import KVCache, new_positions, window_mask
from .multihead import merge_heads, split_heads
from .positions import rope

__all__ = [
    "AttentionConfig",
    "ModernAttention",
    "RMSNorm",
    "repeat_kv",
    "rope_halves",
    "sink_softmax",
    "soft_cap",
]


class RMSNorm(nn.Module):
    """RMSNorm over the last axis: ``x / sqrt(mean(x^2) + eps) * weight`` (chapter 13).

    With ``offset=True`` the scale is ``1 + weight`` (Gemma and Qwen3-Next store it that
    way, so a fresh weight of zeros is the identity). Any shape ``[..., d]`` in and out.
    """

    def __init__(self, d: int, eps: float = 1e-6, offset: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(d) if offset else torch.ones(d))
        self.eps, self.offset = eps, offset

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x [..., d]`` normalised over its last axis; a ``ValueError`` if ``d`` is not the norm's."""
        d = self.weight.shape[0]
        need_tensor("x", x, f"[..., d={d}] (the norm's width)", last=d)
        rms = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # [..., 1]
        return x / rms * (1 + self.weight if self.offset else self.weight)  # [..., d]


def repeat_kv(K: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Share each KV head with its group of query heads: ``[B, h_kv, n, d]`` to ``[B, h, n, d]`` (chapter 13).

    Query heads ``0 .. h/h_kv - 1`` read KV head 0, the next group KV head 1, and so on:
    ``repeat_interleave``. (``K.repeat(1, h // h_kv, 1, 1)`` would give head ``g`` KV head
    ``g % h_kv``, another model.)

    Raises:
        ValueError: if ``K`` is not 4-D or ``h_kv`` does not divide ``num_heads``.
    """
    positive_int("num_heads", num_heads)
    need_tensor("K", K, "[B, h_kv, n, d]")
    if K.ndim != 4 or num_heads % K.shape[1]:
        raise ValueError(
            f"K must be [B, h_kv, n, d] with h_kv dividing num_heads ({num_heads}); got {list(K.shape)}"
        )
    return K.repeat_interleave(num_heads // K.shape[1], dim=1)  # [B, h, n, d]


def rope_halves(X: torch.Tensor, positions: object, base: float = 10000.0) -> torch.Tensor:
    """Chapter 8's RoPE with column ``f`` paired with ``f + d/2``: ``[..., n, d]`` in and out (chapter 13).

    Llama-family code rotates the first half of a head against its second half; chapter 8's
    ``rope`` rotates neighbours ``(2f, 2f + 1)``. Same angles, another pairing: interleave
    the halves, call ``rope``, put the columns back.
    """
    d = X.shape[-1]
    if d % 2:
        raise ValueError(
            f"RoPE pairs columns: X's last dimension must be even; got {list(X.shape)}"
        )
    order = torch.arange(d).view(2, d // 2).T.reshape(d)  # [d]: 0, d/2, 1, d/2 + 1, ...
    back = torch.argsort(order)  # [d]
    return rope(X[..., order], positions, base)[..., back]  # [..., n, d]


def soft_cap(Z: torch.Tensor, cap: float) -> torch.Tensor:
    """Logit soft-capping: ``cap * tanh(Z / cap)``, every score squeezed into ``(-cap, cap)`` (chapter 13).

    Near 0 it changes nothing (``tanh(x) ≈ x``); a huge score is held just under ``cap``.
    """
    need_tensor("Z", Z, "of scores")
    return cap * torch.tanh(Z / cap)  # same shape as Z


def sink_softmax(Z: torch.Tensor, sinks: torch.Tensor) -> torch.Tensor:
    """Softmax with one learned sink logit per head in the denominator (chapter 13).

    ``A[i, j] = exp(Z[i, j]) / (exp(s) + sum_j' exp(Z[i, j']))``: the sink ``s`` takes part
    of each row's weight and gives back no value, so a row sums to less than 1.

    Shapes: ``Z [B, h, n_q, n_k]`` (``-inf`` where masked), ``sinks [h]``; returns
    ``A [B, h, n_q, n_k]``.
    """
    need_tensor("Z", Z, "[B, h, n_q, n_k]", ndim=4)
    need_tensor("sinks", sinks, f"[h={Z.shape[1]}], one sink per head", shape=(Z.shape[1],))
    s = sinks.view(1, -1, 1, 1).expand(*Z.shape[:-1], 1)  # [B, h, n_q, 1]
    both = torch.cat([Z, s], dim=-1)  # [B, h, n_q, n_k + 1]
    both = both - both.amax(dim=-1, keepdim=True)  # chapter 2's max subtraction
    e = torch.exp(both)  # [B, h, n_q, n_k + 1]
    return (e / e.sum(dim=-1, keepdim=True))[..., :-1]  # [B, h, n_q, n_k]: the sink dropped


@dataclass(frozen=True)
class AttentionConfig:
    """The settings of one attention layer of a current model (chapter 13).

    ``head_dim`` is ``d_k``; ``rope_dims`` rotates only the first columns of each head
    (Qwen3-Next rotates a quarter); ``window`` makes this a sliding-window layer;
    ``norm_offset`` stores the QK-norm scale as ``1 + weight``. ``norm_whole=True`` puts
    QK-norm over the whole projection (``h * d_k`` numbers, before the split into heads, as
    OLMo 2 does) instead of over each head's ``d_k``. ``scale`` multiplies the scores in
    place of ``1 / sqrt(d_k)`` (Gemma's ``1 / sqrt(query_pre_attn_scalar)``).
    """

    d_model: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    qk_norm: bool = False
    norm_offset: bool = False
    norm_whole: bool = False
    window: int | None = None
    sinks: bool = False
    softcap: float | None = None
    gate: bool = False
    bias: bool = False
    rope_base: float = 10000.0
    rope_dims: int | None = None
    scale: float | None = None
    eps: float = 1e-6

    def __post_init__(self) -> None:
        for name in ("d_model", "num_heads", "num_kv_heads", "head_dim"):
            positive_int(name, getattr(self, name))
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"num_kv_heads ({self.num_kv_heads}) must divide num_heads ({self.num_heads})"
            )
        if self.norm_whole and not self.qk_norm:
            raise ValueError("norm_whole=True needs qk_norm=True: it says where QK-norm goes")


class ModernAttention(nn.Module):
    """Grouped-query attention with RoPE and today's options (chapter 13).

    ``forward(X [B, n, d_model], positions=None, cache=None)`` returns ``[B, n, d_model]``.
    ``positions [n]`` default to ``0 .. n - 1`` or, with a ``KVCache``, to the positions
    after the cached tokens. Prefill (all prompt tokens at once) and decoding (one token at
    a time) with one cache give the same outputs as one call on the whole sequence.
    ``X`` that is not ``[B, n, d_model]`` of the layer's dtype is refused with a
    ``ValueError`` that names its shape or dtype and what to pass.
    """

    def __init__(self, config: AttentionConfig) -> None:
        super().__init__()
        c = self.config = config
        width, kv_width = c.num_heads * c.head_dim, c.num_kv_heads * c.head_dim
        self.q_proj = nn.Linear(c.d_model, width * (2 if c.gate else 1), bias=c.bias)
        self.k_proj = nn.Linear(c.d_model, kv_width, bias=c.bias)
        self.v_proj = nn.Linear(c.d_model, kv_width, bias=c.bias)
        self.o_proj = nn.Linear(width, c.d_model, bias=c.bias)
        if c.qk_norm:  # over each head's d_k, or over the whole projection (norm_whole)
            q_width, k_width = (width, kv_width) if c.norm_whole else (c.head_dim, c.head_dim)
            self.q_norm = RMSNorm(q_width, c.eps, c.norm_offset)
            self.k_norm = RMSNorm(k_width, c.eps, c.norm_offset)
        if c.sinks:
            self.sinks = nn.Parameter(torch.zeros(c.num_heads))

    def rotate(self, X: torch.Tensor, positions: np.ndarray) -> torch.Tensor:
        """RoPE on the first ``rope_dims`` columns of each head: ``[B, h, n, d_k]`` in and out."""
        r = self.config.rope_dims or X.shape[-1]
        turned = rope_halves(X[..., :r], positions, self.config.rope_base)  # [B, h, n, r]
        return torch.cat([turned, X[..., r:]], dim=-1)  # [B, h, n, d_k]

    def forward(
        self, X: torch.Tensor, positions: object = None, cache: KVCache | None = None
    ) -> torch.Tensor:
        c = self.config
        X = layer_input("X", X, c.d_model, self.q_proj.weight.dtype)  # [B, n, d_model]
        B, n, _ = X.shape
        positions = new_positions(n, cache, positions)  # [n]
        q = self.q_proj(X)  # [B, n, h * d_k], or [B, n, 2 h d_k] with a gate
        if c.gate:  # each head's columns: its query, then its gate
            per_head = q.view(B, n, c.num_heads, 2 * c.head_dim)  # [B, n, h, 2 d_k]
            q, gate = per_head.chunk(2, dim=-1)  # [B, n, h, d_k] each
            q, gate = q.reshape(B, n, -1), gate.reshape(B, n, -1)  # [B, n, h * d_k] each
        k = self.k_proj(X)  # [B, n, h_kv * d_k]
        if c.qk_norm and c.norm_whole:  # over the whole projection, before the split
            q, k = self.q_norm(q), self.k_norm(k)  # [B, n, h * d_k], [B, n, h_kv * d_k]
        Q = split_heads(q, c.num_heads)  # [B, h, n, d_k]
        K = split_heads(k, c.num_kv_heads)  # [B, h_kv, n, d_k]
        V = split_heads(self.v_proj(X), c.num_kv_heads)  # [B, h_kv, n, d_k]
        if c.qk_norm and not c.norm_whole:  # per head, before RoPE
            Q, K = self.q_norm(Q), self.k_norm(K)  # [B, h, n, d_k], [B, h_kv, n, d_k]
        Q, K = self.rotate(Q, positions), self.rotate(K, positions)
        key_positions = positions
        if cache is not None:
            (K, V), key_positions = cache.append(K, V, positions=positions)  # [B, h_kv, n_k, d_k]
        keep = torch.as_tensor(window_mask(positions, key_positions, c.window))  # [n, n_k]
        K, V = repeat_kv(K, c.num_heads), repeat_kv(V, c.num_heads)  # [B, h, n_k, d_k]
        heads = merge_heads(self.attend(Q, K, V, keep))  # [B, n, h * d_k]
        if c.gate:
            heads = heads * torch.sigmoid(gate)  # [B, n, h * d_k]
        return self.o_proj(heads)  # [B, n, d_model]

    def attend(
        self, Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, keep: torch.Tensor
    ) -> torch.Tensor:
        """Chapter 4's attention, with soft-capping and sinks when set: ``[B, h, n, d_k]`` out."""
        c = self.config
        if c.scale is not None:  # chapter 4's 1 / sqrt(d_k) replaced by `scale`
            Q = Q * (c.scale * math.sqrt(c.head_dim))  # [B, h, n, d_k]
        if c.softcap is None and not c.sinks:
            return attention(Q, K, V, mask=keep)[0]  # [B, h, n, d_k]
        Z = Q @ K.transpose(-2, -1) / math.sqrt(c.head_dim)  # [B, h, n, n_k]
        if c.softcap is not None:
            Z = soft_cap(Z, c.softcap)  # [B, h, n, n_k], before the mask
        Z = Z.masked_fill(~keep, float("-inf"))  # [B, h, n, n_k]
        A = sink_softmax(Z, self.sinks) if c.sinks else torch.softmax(Z, dim=-1)
        return A @ V  # [B, h, n, d_k]
