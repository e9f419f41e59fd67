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

``READING`` maps lines of ``transformers``' own code to the course's names, for chapter 13's
section on reading that code: Qwen3's (model, block, RoPE, attention layer, attention
function, ``repeat_kv``), the mask builders (causal, window, the cache's offset), gpt-oss's
sinks and Gemma 2's soft-capping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

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
    return cap * torch.tanh(Z / cap)  # same shape as Z


def sink_softmax(Z: torch.Tensor, sinks: torch.Tensor) -> torch.Tensor:
    """Softmax with one learned sink logit per head in the denominator (chapter 13).

    ``A[i, j] = exp(Z[i, j]) / (exp(s) + sum_j' exp(Z[i, j']))``: the sink ``s`` takes part
    of each row's weight and gives back no value, so a row sums to less than 1.

    Shapes: ``Z [B, h, n_q, n_k]`` (``-inf`` where masked), ``sinks [h]``; returns
    ``A [B, h, n_q, n_k]``.
    """
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


#: Chapter 13's reading of the code that ``transformers`` runs for Qwen3 (and, line for line,
#: Llama and Mistral), its masks, gpt-oss's sinks and Gemma 2's cap: for each function,
#: named ``"module:qualified name"``, pairs ``(anchor, note)`` in the order of its source. An anchor is a piece of exactly one line of
#: that function in the release pinned in ``requirements.txt``; the note says which part of
#: the course the line is. ``tests/test_reading_transformers.py`` checks every anchor against the
#: installed source, so a release that moves a line fails there.
READING: dict[str, tuple[tuple[str, str], ...]] = {
    "transformers.models.qwen3.modeling_qwen3:Qwen3Model.forward": (
        (
            "attention_mask: torch.Tensor",
            "the model's attention_mask is the 2-D padding mask "
            "[B, n_cached + n] (1 for a real token, 0 for padding), not the layer's M; "
            "the builders below make M from it",
        ),
        (
            "past_seen_tokens = ",
            "how many tokens the cache already holds: new tokens' positions "
            "start there (our cache.next_position, chapter 13's Prefill section)",
        ),
        (
            "position_ids = torch.arange(",
            "positions n_cached .. n_cached + n - 1: our lessons.kv_cache.new_positions",
        ),
        (
            "mask_kwargs = {",
            "what the mask builders read: the config (for w), the padding mask, "
            "the cache (for n_cached, below) and the positions",
        ),
        (
            '"full_attention": create_causal_mask(',
            "the mask M of chapter 6, built once for "
            "all layers from positions (and the padding mask, if any): [B, 1, n_q, n_k]. For "
            "eager attention it is additive (0 where kept, the most negative number where "
            "hidden: our additive_mask); for sdpa it is boolean, True where kept (our keep-mask), "
            "or None when the kernel's own causal flag says it all",
        ),
        (
            "create_sliding_window_causal_mask(",
            "the window layers' mask, 0 <= i - j < w: our "
            "lessons.window_mask(query positions, key positions, w)",
        ),
        (
            "position_embeddings = self.rotary_emb(",
            "RoPE's cos and sin for these positions, "
            "computed once and handed to every layer (chapter 8's angles; ours are computed "
            "inside rope_halves in each layer, the same numbers)",
        ),
        (
            "attention_mask=causal_mask_mapping[",
            "each layer takes the mask of its type in "
            "config.layer_types: the chapter's window_of(config, i)",
        ),
    ),
    "transformers.models.qwen3.modeling_qwen3:Qwen3RotaryEmbedding.forward": (
        (
            "freqs = position_ids",
            "angle i * theta_f for position i, theta_f = base^(-2f/d_k) "
            "(inv_freq), chapter 8; in float32, one reason a float64 model agrees with ours "
            "only to float32's precision",
        ),
        (
            "emb = torch.cat((freqs, freqs)",
            "each angle twice, for column f and column f + d_k/2: the pairing of rope_halves",
        ),
        (
            "cos = emb.cos() * self.attention_scaling",
            "attention_scaling is 1 for plain RoPE; YaRN can set it (DeepSeek-V3's section below)",
        ),
    ),
    "transformers.models.qwen3.modeling_qwen3:apply_rotary_pos_emb": (
        (
            "q_embed = ",
            "each pair (x_f, x_{f + d_k/2}) turned by its angle: "
            "rope_halves(Q, positions), chapter 8's rope with the halves paired",
        ),
        ("k_embed = ", "the same rotation of the keys"),
    ),
    "transformers.models.qwen3.modeling_qwen3:Qwen3Attention.forward": (
        (
            "deprecate_kwarg(",
            "the cache argument, past_key_values in earlier releases, is called cache here",
        ),
        (
            "hidden_states: torch.Tensor,",
            "X [B, n, d_model], after the block's pre-norm (chapter 9)",
        ),
        ("position_embeddings: tuple", "(cos, sin) made once by the model (above)"),
        ("attention_mask: torch.Tensor", "M [B, 1, n_q, n_k] (above), broadcast over heads"),
        ("input_shape = ", "[B, n]"),
        ("hidden_shape = ", "[B, n, heads, d_k]: d_k is head_dim, its own setting"),
        (
            "query_states = self.q_norm(",
            "Q = RMSNorm(split(X W_Q)) [B, h, n, d_k]: view and "
            "transpose(1, 2) are split_heads (chapter 7); q_norm is QK-norm per head "
            "(lessons.RMSNorm(d_k))",
        ),
        (
            "key_states = self.k_norm(",
            "K [B, h_kv, n, d_k]: h_kv heads, not h (grouped-query attention, chapter 10)",
        ),
        ("value_states = self.v_proj(", "V [B, h_kv, n, d_k], no norm"),
        ("cos, sin = position_embeddings", "the angles of these tokens' positions"),
        (
            "apply_rotary_pos_emb(query_states",
            "RoPE on Q and K after the norm: rope_halves in ModernAttention.rotate",
        ),
        (
            "if cache is not None:",
            "only when generating: a forward pass over a whole text has no cache",
        ),
        (
            "cache.update(",
            "store this layer's new K and V (already rotated) and get back "
            "every key and value so far, [B, h_kv, n_cached + n, d_k]: our KVCache.append. One "
            "cache object holds all layers, picked by layer_idx; ours is one per layer. kwargs= "
            "hands on the layer's other keyword arguments for cache types that want them; the "
            "caches of this release ignore them",
        ),
        (
            "ALL_ATTENTION_FUNCTIONS.get_interface(",
            "which function computes "
            "softmax(Q K^T * scaling + M) V: config._attn_implementation names one in a "
            "registry ('sdpa': PyTorch's fused kernel; 'flash_attention_2': tiled, chapter 10); "
            "'eager', as this chapter sets, is eager_attention_forward below",
        ),
        (
            "dropout=0.0",
            "dropout on the weights, in training only; our comparisons run in eval mode",
        ),
        (
            "scaling=self.scaling",
            "1 / sqrt(d_k), chapter 4 (head_dim ** -0.5 in __init__), a factor, not a division",
        ),
        (
            "sliding_window=self.sliding_window",
            "read by kernels that build the window "
            "themselves; the eager path takes it from the mask",
        ),
        ("attn_output = attn_output.reshape(", "merge_heads (chapter 7): [B, n, h * d_k]"),
        ("attn_output = self.o_proj(", "times W_O: [B, n, d_model]"),
        (
            "return attn_output, attn_weights",
            "the weights A as well; the chapter's hook keeps the first, the output",
        ),
    ),
    "transformers.models.qwen3.modeling_qwen3:eager_attention_forward": (
        (
            "key_states = repeat_kv(",
            "each KV head side by side h / h_kv times: "
            "lessons.repeat_kv, repeat_interleave (chapter 10; its docstring says so)",
        ),
        ("value_states = repeat_kv(", "the same for V: [B, h, n_k, d_k]"),
        ("attn_weights = torch.matmul(", "Z = Q K^T / sqrt(d_k) [B, h, n_q, n_k] (chapter 4)"),
        ("attn_weights = attn_weights + attention_mask", "Z + M, the additive mask (chapter 6)"),
        (
            "nn.functional.softmax(",
            "softmax over the keys (chapter 2), in float32 even for "
            "float64 inputs, then back: with RoPE's angles and the norms, why float64 agrees "
            "only to float32's precision",
        ),
        ("nn.functional.dropout(", "nothing in eval mode"),
        ("attn_output = torch.matmul(", "A V [B, h, n_q, d_k]"),
        (
            "attn_output.transpose(1, 2)",
            "[B, n_q, h, d_k]: the first half of merge_heads; the caller's reshape is the second",
        ),
    ),
    "transformers.models.qwen3.modeling_qwen3:Qwen3DecoderLayer.forward": (
        (
            "hidden_states = self.input_layernorm(",
            "the block's pre-norm (chapter 9), here an RMSNorm over d_model: "
            "x / sqrt(mean(x^2) + eps) * w, chapter 9's layer norm without subtracting the "
            "mean and without beta (the same norm as QK-norm's, over a wider row)",
        ),
        (
            "hidden_states, _ = self.self_attn(",
            "the attention layer (below); the weights A it also returns are dropped",
        ),
        ("hidden_states = self.post_attention_layernorm(", "the same kind of norm before the MLP"),
    ),
    "transformers.models.qwen3.modeling_qwen3:rotate_half": (
        ("x1 = x[", "the first halves of the pairs: columns 0 .. d_k/2 - 1"),
        ("x2 = x[", "their partners: columns d_k/2 .. d_k - 1"),
        (
            "return torch.cat((-x2, x1)",
            "each pair (a, b) = (x_f, x_{f + d_k/2}) becomes (-b, a): "
            "the pair turned a quarter turn, so x cos + rotate_half(x) sin turns it by the "
            "angle (chapter 8's 2-D rotation)",
        ),
    ),
    "transformers.models.qwen3.modeling_qwen3:repeat_kv": (
        ("if n_rep == 1:", "as many KV heads as query heads: nothing to repeat"),
        (
            "hidden_states[:, :, None, :, :].expand(",
            "a new axis of n_rep copies after the KV-head "
            "axis, [B, h_kv, n_rep, n_k, d_k]; expand copies no memory",
        ),
        (
            "return hidden_states.reshape(",
            "(KV head, copy) merged into one axis: head index "
            "kv * n_rep + copy, so query heads kv * n_rep .. kv * n_rep + n_rep - 1 read KV "
            "head kv: repeat_interleave, [B, h, n_k, d_k]",
        ),
    ),
    "transformers.masking_utils:causal_mask_function": (
        (
            "return kv_idx <= q_idx",
            "keep key position j for query position i when j <= i (chapter 6)",
        ),
    ),
    "transformers.masking_utils:sliding_window_overlay": (
        (
            "return kv_idx > q_idx - sliding_window",
            "and when j > i - w, that is i - j < w: with the causal rule, "
            "0 <= i - j < w, our window_mask (Mistral, Gemma and gpt-oss all build it here)",
        ),
    ),
    "transformers.masking_utils:_preprocess_mask_arguments": (
        (
            "len(attention_mask.shape) == 4:",
            "a 4-D mask is used as given; the model's own "
            "attention_mask argument is the 2-D padding mask [B, n_cached + n], 1 for a real "
            "token and 0 for padding, not M",
        ),
        (
            "q_offset = cache.get_query_offset(",
            "n_cached, read from the cache: the position of the first new query",
        ),
        (
            "kv_length, kv_offset = cache.get_mask_sizes(",
            "how many keys this layer will "
            "hold after its update (n_cached + n, or at most w - 1 + n in a rolling window "
            "layer) and the position of the first of them",
        ),
    ),
    "transformers.masking_utils:sdpa_mask": (
        (
            "q_arange = torch.arange(q_length",
            "the new queries' positions n_cached .. n_cached + n - 1; "
            "leave out + q_offset and you have the Prefill section's mask-offset bug",
        ),
        ("kv_arange = torch.arange(kv_length", "the keys' positions"),
        (
            "attention_mask = mask_function(*_non_vmap_expansion_sdpa(",
            "the rule at every (query, key) pair of positions: [B, 1, n_q, n_k], True where kept",
        ),
    ),
    "transformers.masking_utils:eager_mask": (
        (
            "mask = torch.where(mask,",
            "for eager attention, True becomes 0 and False the most "
            "negative number of the dtype: the additive M",
        ),
    ),
    "transformers.models.gpt_oss.modeling_gpt_oss:GptOssAttention.forward": (
        (
            "s_aux=self.sinks",
            "the sinks s_g [h] under the name fused kernels take them by (s_aux, "
            "auxiliary logits); the eager function below reads module.sinks instead",
        ),
    ),
    "transformers.models.gpt_oss.modeling_gpt_oss:eager_attention_forward": (
        ("attn_weights = attn_weights + attention_mask", "Z + M [B, h, n_q, n_k], as in Qwen3's"),
        (
            "sinks = module.sinks.reshape(",
            "head g's logit s_g, once for every row: [B, h, n_q, 1]",
        ),
        (
            "combined_logits = torch.cat(",
            "[Z + M, s_g]: the sink as one more column, [B, h, n_q, n_k + 1]",
        ),
        (
            "combined_logits = combined_logits - combined_logits.max(",
            "each row's largest "
            "logit taken off before exp, so that nothing overflows (chapter 2); the "
            "softmax is unchanged",
        ),
        (
            "probs = F.softmax(",
            "softmax over the n_k + 1 columns, in the model's own dtype (Qwen3's "
            "eager function computes it in float32)",
        ),
        (
            "scores = probs[..., :-1]",
            "the sink's column dropped: A [B, h, n_q, n_k], rows summing "
            "to less than 1, our sink_softmax",
        ),
        ("attn_output = torch.matmul(", "A V: the sink brings no value"),
    ),
    "transformers.models.gemma2.modeling_gemma2:Gemma2Attention.__init__": (
        (
            "self.scaling = config.query_pre_attn_scalar**-0.5",
            "1 / sqrt(query_pre_attn_scalar), "
            "Gemma's own setting, in place of 1 / sqrt(d_k) (our AttentionConfig.scale)",
        ),
        ("self.attn_logit_softcapping = ", "the cap c, a setting of the configuration"),
    ),
    "transformers.models.gemma2.modeling_gemma2:eager_attention_forward": (
        ("attn_weights = torch.matmul(", "Z = Q K^T * scaling [B, h, n_q, n_k]"),
        ("if softcap is not None:", "only where the configuration sets a cap"),
        ("attn_weights = attn_weights / softcap", "Z / c"),
        ("attn_weights = torch.tanh(", "tanh(Z / c), between -1 and 1"),
        ("attn_weights = attn_weights * softcap", "c tanh(Z / c): our soft_cap"),
        (
            "attn_weights = attn_weights + attention_mask",
            "the mask after the cap, so hidden keys keep the most negative number",
        ),
        ("nn.functional.softmax(", "softmax in float32, as Qwen3's"),
    ),
}
