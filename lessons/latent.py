"""Multi-head latent attention (DeepSeek-V2, V3), built from the course's parts (chapter 13).

Keys and values come from one shared low-rank *latent* per token, so the cache holds the
latent instead of ``h`` keys and ``h`` values:

- latent ``C = RMSNorm(X W_DKV)`` ``[B, n, r]`` (``r = kv_rank``, 512 in DeepSeek-V3);
- per head ``g``: keys ``K_g = [C W_UK_g, K_R]`` and values ``V_g = C W_UV_g``;
- ``K_R = RoPE(X W_KR)`` ``[B, n, d_R]``: a small RoPE key shared by all heads (64 dims in
  V3), *decoupled* from the latent because a rotation between ``C`` and ``W_UK`` would stop
  ``W_UK`` from moving into the query;
- queries ``Q_g = [Q_nope_g, RoPE(Q_rope_g)]`` from ``X`` (through their own low-rank step
  when ``q_rank`` is set).

The cache per token and layer is ``r + d_R`` numbers. When decoding, the *absorbed* form
never builds ``K`` or ``V``: ``q_nope W_UK_g^T`` is a query in latent space, the weights
``A`` average the latents, and ``W_UV_g W_O_g`` maps the result straight to ``d_model``.
Weights are named as ``transformers`` names them, so a DeepSeek-V3 ``state_dict`` loads;
chapter 13's notes on ``transformers``' DeepSeek-V3 code are in ``lessons.book.reading``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from ._layer_inputs import layer_input
from ._validate import positive_int
from .attention import attention
from .kv_cache import KVCache, new_positions, window_mask
from .modern import RMSNorm
from .multihead import merge_heads, split_heads
from .positions import rope

__all__ = ["LatentAttention", "LatentConfig"]


@dataclass(frozen=True)
class LatentConfig:
    """The sizes of one multi-head latent attention layer (chapter 13).

    ``kv_rank`` is the latent's width ``r``; ``nope_dim`` and ``rope_dim`` the two parts of
    each head's query and key (``d_k = nope_dim + rope_dim``); ``v_dim`` each head's value
    width; ``q_rank`` the queries' own low-rank width (None: one plain projection).
    """

    d_model: int
    num_heads: int
    kv_rank: int
    nope_dim: int
    rope_dim: int
    v_dim: int
    q_rank: int | None = None
    rope_base: float = 10000.0
    eps: float = 1e-6
    bias: bool = False

    def __post_init__(self) -> None:
        for name in ("d_model", "num_heads", "kv_rank", "nope_dim", "rope_dim", "v_dim"):
            positive_int(name, getattr(self, name))
        positive_int("q_rank", self.q_rank, allow_none=True)


class LatentAttention(nn.Module):
    """Multi-head latent attention: ``[B, n, d_model]`` in and out (chapter 13).

    ``forward(X, positions=None, cache=None, absorbed=False)``; a ``KVCache`` stores the
    latent ``[B, 1, n, r]`` and the RoPE key ``[B, 1, n, d_R]``, nothing per head.
    ``absorbed=True`` computes the same outputs without building keys or values.
    ``X`` that is not ``[B, n, d_model]`` of the layer's dtype is refused with a
    ``ValueError`` that names its shape or dtype and what to pass.
    """

    def __init__(self, config: LatentConfig) -> None:
        super().__init__()
        c = self.config = config
        d_k = c.nope_dim + c.rope_dim
        if c.q_rank is None:
            self.q_proj = nn.Linear(c.d_model, c.num_heads * d_k, bias=False)
        else:
            self.q_a_proj = nn.Linear(c.d_model, c.q_rank, bias=c.bias)
            self.q_a_layernorm = RMSNorm(c.q_rank, c.eps)
            self.q_b_proj = nn.Linear(c.q_rank, c.num_heads * d_k, bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(c.d_model, c.kv_rank + c.rope_dim, bias=c.bias)
        self.kv_a_layernorm = RMSNorm(c.kv_rank, c.eps)
        self.kv_b_proj = nn.Linear(c.kv_rank, c.num_heads * (c.nope_dim + c.v_dim), bias=False)
        self.o_proj = nn.Linear(c.num_heads * c.v_dim, c.d_model, bias=c.bias)

    def queries(self, X: torch.Tensor) -> torch.Tensor:
        """Each head's query ``[B, h, n, nope_dim + rope_dim]`` (RoPE not yet applied)."""
        if self.config.q_rank is None:
            q = self.q_proj(X)  # [B, n, h * d_k]
        else:
            q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(X)))  # [B, n, h * d_k]
        return split_heads(q, self.config.num_heads)  # [B, h, n, d_k]

    def up_projections(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``W_UK [h, r, nope_dim]`` and ``W_UV [h, r, v_dim]``, as row-vector matrices."""
        c = self.config
        W = self.kv_b_proj.weight.view(c.num_heads, c.nope_dim + c.v_dim, c.kv_rank)  # [h, ., r]
        W_UK, W_UV = W.split([c.nope_dim, c.v_dim], dim=1)  # [h, nope, r], [h, v, r]
        return W_UK.transpose(1, 2), W_UV.transpose(1, 2)  # [h, r, nope], [h, r, v]

    def forward(
        self,
        X: torch.Tensor,
        positions: object = None,
        cache: KVCache | None = None,
        absorbed: bool = False,
    ) -> torch.Tensor:
        c = self.config
        X = layer_input("X", X, c.d_model, self.kv_a_proj_with_mqa.weight.dtype)  # [B, n, d]
        B, n, _ = X.shape
        positions = new_positions(n, cache, positions)  # [n]
        # [B, h, n, nope_dim] and [B, h, n, d_R]
        Q_nope, Q_rope = self.queries(X).split([c.nope_dim, c.rope_dim], dim=-1)
        Q_rope = rope(Q_rope, positions, c.rope_base)  # [B, h, n, d_R]
        # [B, n, r] and [B, n, d_R]: one latent and one RoPE key per token, for every head
        latent, K_rope = self.kv_a_proj_with_mqa(X).split([c.kv_rank, c.rope_dim], dim=-1)
        C = self.kv_a_layernorm(latent)[:, None]  # [B, 1, n, r]: what is cached
        K_rope = rope(K_rope[:, None], positions, c.rope_base)  # [B, 1, n, d_R], cached rotated
        key_positions = positions
        if cache is not None:
            # [B, 1, n_k, r] and [B, 1, n_k, d_R]: the cached tokens, then the new ones
            (C, K_rope), key_positions = cache.append(C, K_rope, positions=positions)
        keep = torch.as_tensor(window_mask(positions, key_positions))  # [n, n_k]
        if absorbed:
            return self.absorbed(Q_nope, Q_rope, C, K_rope, keep)
        kv = self.kv_b_proj(C[:, 0])  # [B, n_k, h * (nope + v)]
        # [B, h, n_k, nope_dim] and [B, h, n_k, v_dim]
        K_nope, V = split_heads(kv, c.num_heads).split([c.nope_dim, c.v_dim], dim=-1)
        K = torch.cat([K_nope, K_rope.expand(-1, c.num_heads, -1, -1)], dim=-1)  # [B, h, n_k, d_k]
        Q = torch.cat([Q_nope, Q_rope], dim=-1)  # [B, h, n, d_k]
        heads = attention(Q, K, V, mask=keep)[0]  # [B, h, n, v_dim]
        return self.o_proj(merge_heads(heads))  # [B, n, d_model]

    def absorbed(
        self,
        Q_nope: torch.Tensor,
        Q_rope: torch.Tensor,
        C: torch.Tensor,
        K_rope: torch.Tensor,
        keep: torch.Tensor,
    ) -> torch.Tensor:
        """The decoding form: scores and output straight from the latents, ``[B, n, d_model]``.

        ``Z_g = (Q_nope_g W_UK_g^T C^T + Q_rope_g K_R^T) / sqrt(d_k)``, ``A_g = softmax(Z_g)``,
        output ``sum_g (A_g C) W_UV_g W_O_g``: ``W_UK`` moved into the query, ``W_UV`` into
        the output projection.
        """
        c = self.config
        W_UK, W_UV = self.up_projections()  # [h, r, nope], [h, r, v]
        Q_latent = Q_nope @ W_UK.transpose(1, 2)  # [B, h, n, nope] @ [h, nope, r] -> [B, h, n, r]
        Z = Q_latent @ C.transpose(-2, -1) + Q_rope @ K_rope.transpose(-2, -1)  # [B, h, n, n_k]
        Z = Z / math.sqrt(c.nope_dim + c.rope_dim)  # [B, h, n, n_k]
        A = torch.softmax(Z.masked_fill(~keep, float("-inf")), dim=-1)  # [B, h, n, n_k]
        O_latent = A @ C  # [B, h, n, r]: the average of the latents
        W_O = self.o_proj.weight.T.view(c.num_heads, c.v_dim, c.d_model)  # [h, v, d_model]
        W_OV = W_UV @ W_O  # [h, r, d_model]: W_UV folded into W_O
        out = torch.einsum("bhnr,hrd->bnd", O_latent, W_OV)  # [B, n, d_model]
        return out if self.o_proj.bias is None else out + self.o_proj.bias
