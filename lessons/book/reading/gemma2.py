"""Chapter 13's notes on Gemma 2's logit soft-capping in ``transformers`` (our
``lessons.modern.soft_cap``).
"""

from __future__ import annotations

#: ``"module:qualified name"`` -> ``(anchor, note)`` pairs in the order of the source; an anchor
#: is a piece of exactly one line of that function in the release pinned in ``requirements.txt``.
READING: dict[str, tuple[tuple[str, str], ...]] = {
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
