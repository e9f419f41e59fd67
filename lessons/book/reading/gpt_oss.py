"""Chapter 13's notes on gpt-oss's attention sinks in ``transformers`` (our
``lessons.modern.sink_softmax``).
"""

from __future__ import annotations

#: ``"module:qualified name"`` -> ``(anchor, note)`` pairs in the order of the source; an anchor
#: is a piece of exactly one line of that function in the release pinned in ``requirements.txt``.
READING: dict[str, tuple[tuple[str, str], ...]] = {
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
}
