"""Chapter 13's notes on DeepSeek-V3's multi-head latent attention in ``transformers``,
and its YaRN scale (our ``lessons.latent.LatentAttention``).
"""

from __future__ import annotations

#: ``"module:qualified name"`` -> ``(anchor, note)`` pairs in the order of the source; an anchor
#: is a piece of exactly one line of that function in the release pinned in ``requirements.txt``.
READING: dict[str, tuple[tuple[str, str], ...]] = {
    "transformers.models.deepseek_v3.modeling_deepseek_v3:DeepseekV3Attention.forward": (
        ("batch_size, seq_length = ", "B, n"),
        ("query_shape = ", "[B, n, heads, d_nope + d_R]: each head's query has both parts"),
        (
            "if self.q_lora_rank is None:",
            "models without the query's low-rank path "
            "(DeepSeek-V2-Lite) project X straight to the queries",
        ),
        (
            "q_states = self.q_b_proj(",
            "X W_DQ, an RMSNorm, the up-projection: LatentAttention.queries",
        ),
        ("q_states = q_states.view(", "split_heads (chapter 7): [B, h, n, d_nope + d_R]"),
        ("q_pass, q_rot = torch.split(", "Q_nope,g (no position) and Q_R,g (to be rotated)"),
        ("compressed_kv = ", "X [W_DKV, W_KR]: both in one matrix, [B, n, r + d_R]"),
        ("kv_nope, k_rot = torch.split(", "the latent's r columns and the RoPE key's d_R"),
        ("kv_nope = self.kv_a_layernorm(", "C = RMSNorm(X W_DKV) [B, n, r]"),
        (
            "kv_nope = kv_nope.view(",
            "C as one 'head', [B, 1, n, r], so the cache stores it as it stores keys",
        ),
        (
            "k_rot = k_rot.view(",
            "K_R [B, 1, n, d_R]: one key head that every query head "
            "reads, as in multi-query attention (chapter 10)",
        ),
        (
            "cos, sin = position_embeddings",
            "RoPE's angles, made once by the model: [1, n, d_R], since V3's "
            "configuration sets head_dim, which sizes the rotary module, to d_R",
        ),
        (
            "if self.config.rope_interleave:",
            "DeepSeek's weights pair neighbouring columns (2f, 2f + 1), "
            "chapter 8's pairing, as LatentAttention's lessons.rope does; but the function "
            "(below) returns the turned pairs in halves order",
        ),
        ("apply_rotary_pos_emb_interleave(", "RoPE on Q_R and K_R only"),
        (
            "q_rot, k_rot = apply_rotary_pos_emb(",
            "halves paired instead (rope_halves), for weights laid out that way",
        ),
        (
            "kv_nope, k_rot = cache.update(",
            "the cache holds C (where it keeps keys) and the rotated K_R "
            "(where it keeps values), r + d_R numbers a token, and returns all so far: our "
            "KVCache in LatentAttention, K_R's columns in halves order",
        ),
        ("query_states = torch.cat(", "Q_g = [Q_nope,g, RoPE(Q_R,g)]"),
        (
            "self.expand_kv(",
            "decompress after reading the cache: K_g = [C W_UK,g, K_R], "
            "V_g = C W_UV,g for every cached token. transformers runs only this "
            "non-absorbed form; the absorbed one (ours with absorbed=True) is what inference "
            "engines run when decoding",
        ),
        (
            "ALL_ATTENTION_FUNCTIONS.get_interface(",
            "the same registry as Qwen3's: "
            "eager_attention_forward here (its repeat_kv does nothing when num_key_value_heads "
            "equals the heads, as in V3's config)",
        ),
        (
            "scaling=self.scaling",
            "1 / sqrt(d_nope + d_R), times mscale^2 when YaRN stretches RoPE (__init__, below)",
        ),
        ("attn_output = attn_output.reshape(", "merge_heads: [B, n, h * d_v]"),
        ("attn_output = self.o_proj(", "times W_O: [B, n, d_model]"),
    ),
    "transformers.models.deepseek_v3.modeling_deepseek_v3:apply_rotary_pos_emb_interleave": (
        (
            "cos = cos[..., : cos.shape[-1] // 2]",
            "cos arrives doubled, cat(freqs, freqs); its "
            "first half holds one angle per pair: [1, 1, n, d_R / 2]",
        ),
        (
            "q1, q2 = q[..., 0::2], q[..., 1::2]",
            "the pairs (x_2f, x_2f+1): neighbouring columns, chapter 8's pairing",
        ),
        (
            "q_embed = torch.cat([q1 * cos - q2 * sin",
            "each pair turned by its angle, as "
            "lessons.rope turns it, but written back as all first members, then all second "
            "members: columns 0, 2, 4, .., 1, 3, 5, .. of ours",
        ),
        (
            "k_embed = torch.cat([k1 * cos - k2 * sin",
            "the same for K_R, which is what the "
            "cache stores: our rope_key with its columns reordered. Q_R is reordered alike, "
            "so every score Q_R K_R^T is the same",
        ),
    ),
    "transformers.models.deepseek_v3.modeling_deepseek_v3:DeepseekV3Attention.expand_kv": (
        (
            "kv_nope = self.kv_b_proj(",
            "C [W_UK,g, W_UV,g] for every head in one product: "
            "[B, h, n, d_nope + d_v] (LatentAttention.up_projections splits the same weight)",
        ),
        ("k_nope, value_states = torch.split(", "C W_UK,g and V_g = C W_UV,g"),
        ("k_rot = k_rot.expand(", "the one RoPE key, shared by all h heads"),
        ("key_states[..., : self.qk_nope_head_dim]", "K_g = [C W_UK,g, K_R], written in place"),
    ),
    "transformers.models.deepseek_v3.modeling_deepseek_v3:DeepseekV3Attention.__init__": (
        ("self.scaling = ", "1 / sqrt(d_nope + d_R), corrected when YaRN stretches RoPE"),
    ),
    "transformers.models.deepseek_v3.modeling_deepseek_v3:yarn_apply_mscale": (
        (
            'rope_parameters.get("rope_type", "default") != "default"',
            "only when RoPE's "
            "angles are rescaled for a longer context than training had (rope_type other than "
            "default; DeepSeek-V3's is YaRN)",
        ),
        ("mscale = yarn_get_mscale(", "m = 0.1 * mscale_all_dim * ln(factor) + 1"),
        (
            "scaling = scaling * mscale * mscale",
            "scores times m^2, as if Q and K were each "
            "times m: a sharper softmax, the factor YaRN's authors fitted to the perplexity "
            "they measured at long context",
        ),
    ),
}
