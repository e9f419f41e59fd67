"""Chapter 13's layers against `transformers`' own, on random weights and random sizes.

Every family (Llama's plain GQA, Qwen3's QK-norm, OLMo 2's QK-norm over the whole
projection, Mistral's window, Gemma 2's soft-capping with alternating windows, Gemma 3's
window layers before each global one with QK-norm and its own score scale, gpt-oss's sinks
with alternating windows, DeepSeek-V3's latent attention, Qwen3-Next's gated attention) is
built small from its config, given random
weights, and each of its attention layers is compared with ours loaded from its
`state_dict`: to 1e-5 in float64 and 1e-4 in float32, for several drawn configurations.
Then prefill, then decoding token by token with a cache, equals the full forward pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hf_layers import FAMILIES, attention_io, ours_for, random_model

from lessons.kv_cache import KVCache
from lessons.latent import LatentAttention
from lessons.modern import AttentionConfig

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("family", FAMILIES)
def test_every_layer_equals_the_transformers_layer_in_float64(family, seed):
    model, ids = random_model(family, seed)
    for layer, (x, expected) in enumerate(attention_io(model, ids)):
        ours = ours_for(model, layer, family)
        with torch.no_grad():
            got = ours(x)  # [B, n, d_model]
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)
        assert expected.abs().max() > 1e-2  # the layer does something worth comparing


@pytest.mark.parametrize("family", FAMILIES)
def test_every_layer_equals_the_transformers_layer_in_float32(family):
    model, ids = random_model(family, 3, dtype=torch.float32)
    for layer, (x, expected) in enumerate(attention_io(model, ids)):
        with torch.no_grad():
            got = ours_for(model, layer, family)(x)
        torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-4)


def test_the_configurations_drawn_cover_what_the_chapter_claims():
    """Grouping, windows narrower than the sequence, and alternation really occur."""
    seen = {"grouped": False, "window": False, "alternating": False, "q_rank": set()}
    seen |= {"gemma3_scale": False, "gemma3_types": set(), "olmo2_grouped": False}
    for seed in SEEDS:
        for family in FAMILIES:
            model, ids = random_model(family, seed)
            c = model.config
            if family != "deepseek_v3":
                seen["grouped"] |= c.num_attention_heads > c.num_key_value_heads > 1
            if family == "gpt_oss":
                seen["window"] |= c.sliding_window < ids.shape[1]
                seen["alternating"] |= len(set(c.layer_types)) == 2
            if family == "deepseek_v3":
                seen["q_rank"].add(c.q_lora_rank)
            if family == "gemma3":
                seen["gemma3_scale"] |= c.query_pre_attn_scalar != c.head_dim
                seen["gemma3_types"] |= set(c.layer_types)
            if family == "olmo2":
                seen["olmo2_grouped"] |= c.num_attention_heads > c.num_key_value_heads
    assert seen["grouped"] and seen["window"] and seen["alternating"]
    assert seen["gemma3_scale"] and seen["olmo2_grouped"]
    assert seen["gemma3_types"] == {"sliding_attention", "full_attention"}
    assert seen["q_rank"] == {None, 12}


def _decode(ours: torch.nn.Module, X: torch.Tensor, prefill: int, **kwargs) -> torch.Tensor:
    """Prefill `prefill` tokens, then feed the rest one at a time with one cache."""
    window = getattr(ours.config, "window", None)
    cache = KVCache(window=window)
    outs = [ours(X[:, :prefill], cache=cache)]
    for t in range(prefill, X.shape[1]):
        outs.append(ours(X[:, t : t + 1], cache=cache, **kwargs))  # [B, 1, d_model]
        if window is not None:
            assert cache.positions.size <= window - 1  # the rolling cache never grows
    return torch.cat(outs, dim=1)  # [B, n, d_model]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("family", FAMILIES)
def test_prefill_then_decoding_with_a_cache_equals_the_full_forward_pass(family, seed):
    model, ids = random_model(family, seed)
    rng = np.random.default_rng(seed)
    for layer, (x, _) in enumerate(attention_io(model, ids)):
        ours = ours_for(model, layer, family)
        prefill = int(rng.integers(1, x.shape[1]))
        with torch.no_grad():
            full = ours(x)  # [B, n, d_model]
            stepped = _decode(ours, x, prefill)
        torch.testing.assert_close(stepped, full, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_latent_attention_absorbed_form_equals_the_naive_form_when_decoding(seed):
    model, ids = random_model("deepseek_v3", seed)
    x, expected = attention_io(model, ids)[0]
    ours = ours_for(model, 0, "deepseek_v3")
    assert isinstance(ours, LatentAttention)
    with torch.no_grad():
        torch.testing.assert_close(ours(x, absorbed=True), expected, atol=1e-5, rtol=1e-5)
        stepped = _decode(ours, x, prefill=2, absorbed=True)
    torch.testing.assert_close(stepped, expected, atol=1e-5, rtol=1e-5)


def test_the_latent_cache_holds_one_latent_and_one_rope_key_per_token():
    model, ids = random_model("deepseek_v3", 0)
    x, _ = attention_io(model, ids)[0]
    c = model.config
    cache = KVCache()
    with torch.no_grad():
        ours_for(model, 0, "deepseek_v3")(x, cache=cache)
    latent, rope_key = cache.tensors
    assert latent.shape == (2, 1, x.shape[1], c.kv_lora_rank)
    assert rope_key.shape == (2, 1, x.shape[1], c.qk_rope_head_dim)


def test_after_the_window_rolls_the_next_position_is_not_the_cache_length():
    """RoPE positions after prefill: a rolling cache's length is not the next token's position."""
    model, ids = random_model("mistral", 0)
    x, expected = attention_io(model, ids)[0]
    ours = ours_for(model, 0, "mistral")
    window, n = ours.config.window, x.shape[1]
    cache = KVCache(window=window)
    with torch.no_grad():
        ours(x[:, : n - 1], cache=cache)
        assert cache.next_position == n - 1 != cache.positions.size == window - 1
        with pytest.raises(ValueError, match="run on from"):
            ours(x[:, n - 1 :], positions=np.array([cache.positions.size]), cache=cache)
        last = ours(x[:, n - 1 :], cache=cache)  # [B, 1, d_model]
    torch.testing.assert_close(last, expected[:, n - 1 :], atol=1e-5, rtol=1e-5)


def _qwen3_grouped():
    """A Qwen3 model with 2 KV heads of 3 query heads each, its first layer's input and output."""
    import transformers
    from hf_layers import build

    sizes = {
        "hidden_size": 24,
        "num_hidden_layers": 1,
        "num_attention_heads": 6,
        "num_key_value_heads": 2,
        "head_dim": 4,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
    }
    model = build(transformers.Qwen3Config, transformers.Qwen3Model, torch.float64, 0, **sizes)
    ids = torch.randint(0, 40, (2, 9), generator=torch.Generator().manual_seed(0))
    return model, attention_io(model, ids)[0]


def test_the_comparison_fails_for_repeat_where_repeat_interleave_belongs(monkeypatch):
    import lessons.modern

    model, (x, expected) = _qwen3_grouped()
    ours = ours_for(model, 0, "qwen3")
    with torch.no_grad():
        torch.testing.assert_close(ours(x), expected, atol=1e-5, rtol=1e-5)
        monkeypatch.setattr(
            lessons.modern, "repeat_kv", lambda K, h: K.repeat(1, h // K.shape[1], 1, 1)
        )
        assert not torch.allclose(ours(x), expected, atol=1e-3)


def test_the_comparison_fails_for_a_window_one_too_wide():
    model, ids = random_model("mistral", 0)
    x, expected = attention_io(model, ids)[0]
    ours = ours_for(model, 0, "mistral")
    assert ours.config.window < x.shape[1] - 1  # the window really cuts
    wider = type(ours)(type(ours.config)(**{**vars(ours.config), "window": ours.config.window + 1}))
    wider = wider.double()
    wider.load_state_dict(ours.state_dict())
    with torch.no_grad():
        assert not torch.allclose(wider(x), expected, atol=1e-3)


def _first_seed(family: str, wanted: Callable[[Any], bool]) -> int:
    """The first seed whose drawn `family` config has the property `wanted`."""
    return next(s for s in range(20) if wanted(random_model(family, s)[0].config))


def test_gemma3_needs_its_own_score_scale():
    """With 1 / sqrt(d_k) in place of 1 / sqrt(query_pre_attn_scalar) the layer differs."""
    seed = _first_seed("gemma3", lambda c: c.query_pre_attn_scalar != c.head_dim)
    model, ids = random_model("gemma3", seed)
    x, expected = attention_io(model, ids)[0]
    ours = ours_for(model, 0, "gemma3")
    plain = type(ours)(dataclasses.replace(ours.config, scale=None)).double()
    plain.load_state_dict(ours.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(ours(x), expected, atol=1e-5, rtol=1e-5)
        assert not torch.allclose(plain(x), expected, atol=1e-3)


def test_olmo2_norms_the_whole_projection_not_each_head():
    """Only the norm's span differs (the same d_k scales in every head): the layer differs."""
    seed = _first_seed("olmo2", lambda c: c.num_attention_heads > 1)
    model, ids = random_model("olmo2", seed)
    theirs = model.layers[0].self_attn
    d_k = theirs.head_dim
    with torch.no_grad():  # every head gets head 0's scales, so a per-head norm can match them
        for norm in (theirs.q_norm, theirs.k_norm):
            norm.weight.copy_(norm.weight[:d_k].repeat(norm.weight.numel() // d_k))
    x, expected = attention_io(model, ids)[0]
    ours = ours_for(model, 0, "olmo2")
    assert ours.q_norm.weight.shape == (ours.config.num_heads * d_k,)
    per_head = type(ours)(dataclasses.replace(ours.config, norm_whole=False)).double()
    state = ours.state_dict()
    state["q_norm.weight"], state["k_norm.weight"] = (
        state["q_norm.weight"][:d_k], state["k_norm.weight"][:d_k]
    )  # fmt: skip
    per_head.load_state_dict(state)
    with torch.no_grad():
        torch.testing.assert_close(ours(x), expected, atol=1e-5, rtol=1e-5)
        assert not torch.allclose(per_head(x), expected, atol=1e-3)


def test_norm_whole_without_qk_norm_is_refused():
    with pytest.raises(ValueError, match="norm_whole"):
        AttentionConfig(8, 2, 1, 4, norm_whole=True)
