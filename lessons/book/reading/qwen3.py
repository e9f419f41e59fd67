"""Chapter 13's notes on the code ``transformers`` runs for Qwen3 (the model, its block,
RoPE, the attention layer and function, ``rotate_half`` and ``repeat_kv``); Llama's and
Mistral's are the same line for line.
"""

from __future__ import annotations

#: ``"module:qualified name"`` -> ``(anchor, note)`` pairs in the order of the source; an anchor
#: is a piece of exactly one line of that function in the release pinned in ``requirements.txt``.
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
}
