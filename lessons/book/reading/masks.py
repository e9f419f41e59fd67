"""Chapter 13's notes on ``transformers``' mask builders (``masking_utils``): the causal
rule, the sliding window, the cache's offset, and the additive mask for eager attention.
"""

from __future__ import annotations

#: ``"module:qualified name"`` -> ``(anchor, note)`` pairs in the order of the source; an anchor
#: is a piece of exactly one line of that function in the release pinned in ``requirements.txt``.
READING: dict[str, tuple[tuple[str, str], ...]] = {
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
}
