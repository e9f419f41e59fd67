"""rasbt/LLMs-from-scratch's tests of attention, RoPE, RMSNorm, GQA, sliding windows and the
KV cache, run on lessons.

Its tests compare whole models (GPT-2, Llama 3, Qwen3) built from its own layers; the
adapter takes each case down to the attention layer, which is what lessons implements:
``lessons.MultiHeadAttention`` for chapter 3's causal multi-head attention and
``lessons.ModernAttention`` (chapter 13) for the Qwen3-style layer with grouped KV heads,
RoPE, QK-norm, sliding windows and ``lessons.KVCache``. Sizes, seeds' roles and tolerances
are the originals'. Files named below are paths in that repository.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
import transformers
from hf_layers import attention_io
from peer_common import DEFAULT_TOL, close, rand, randn, refused
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
from transformers.models.qwen3.modeling_qwen3 import Qwen3RotaryEmbedding, apply_rotary_pos_emb

import lessons
from lessons.modern import AttentionConfig, ModernAttention

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def seeded(module, seed, scale=0.3):
    """Every parameter of ``module`` drawn at random (norm scales too), so none is trivial."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(randn(*p.shape, seed=seed + i, dtype=p.dtype) * scale)
    return module.eval()


# --- chapter 3: causal multi-head attention -------------------------------------------------


def chapter3_mha(x, w_q, w_k, w_v, w_o, b_o, num_heads):
    """The book's chapter 3 layer, written from its description: no Q/K/V bias, a ``triu``
    mask of blocked future keys, ``softmax(scores / sqrt(head_dim))``, heads concatenated,
    then ``out_proj`` with a bias."""
    B, n, _ = x.shape
    d_out = w_q.shape[0]
    hd = d_out // num_heads

    def split(t):
        return t.view(B, n, num_heads, hd).transpose(1, 2)  # [B, h, n, hd]

    q, k, v = split(x @ w_q.T), split(x @ w_k.T), split(x @ w_v.T)
    scores = (q @ k.transpose(2, 3)).masked_fill(torch.ones(n, n).triu(1).bool(), -torch.inf)
    context = (torch.softmax(scores / hd**0.5, dim=-1) @ v).transpose(1, 2).reshape(B, n, d_out)
    return context @ w_o.T + b_o


@pytest.mark.agree
def test_multihead_attention_equals_chapter_3s_layer_when_d_in_equals_d_out():
    """ch03/02_bonus_efficient-multihead-attention/tests/test_mha_implementations.py,
    test_mha_einsum_matches_ch03 (d_in = d_out = 768, batch 2, length 4, 12 heads, seed 123).

    Chapter 3's layer (``qkv_bias=False``, causal) against lessons' with its fused input
    projection set to ``[W_q; W_k; W_v]``, a zero input bias and ``causal_mask(4)``; the
    original's atol 1e-5.
    """
    d, h = 768, 12
    w_q, w_k, w_v, w_o = (randn(d, d, seed=s) * d**-0.5 for s in (1, 2, 3, 4))
    b_o = randn(d, seed=5) * 0.1
    x = randn(2, 4, d, seed=123)
    ours = lessons.MultiHeadAttention(d, h)
    with torch.no_grad():
        ours.in_proj.weight.copy_(torch.cat([w_q, w_k, w_v]))
        ours.in_proj.bias.zero_()
        ours.out_proj.weight.copy_(w_o)
        ours.out_proj.bias.copy_(b_o)
        out, _ = ours(x, mask=lessons.causal_mask(4))
        expected = chapter3_mha(x, w_q, w_k, w_v, w_o, b_o, h)
    close(out, expected, 1e-5, 0)


@pytest.mark.refuse
@pytest.mark.parametrize("d_in,d_out,batch,seq_len,heads", [
    (768, 1536, 2, 4, 12),  # test_mha_implementations.py: d_in != d_out
    (1024, 512, 2, 4, 8),  # test_mha_implementations.py: d_in > d_out
    (256, 16, 8, 6, 2),  # pkg/llms_from_scratch/tests/test_ch03.py, test_mha
])  # fmt: skip
def test_an_input_wider_or_narrower_than_d_model_is_refused_naming_both(
    d_in, d_out, batch, seq_len, heads
):
    """ch03/02_bonus_efficient-multihead-attention/tests/test_mha_implementations.py,
    test_mha_einsum_matches_ch03 (d_in != d_out); pkg/llms_from_scratch/tests/test_ch03.py, test_mha.

    Chapter 3's layer maps ``d_in`` to ``d_out``; chapter 7's maps ``d_model`` to ``d_model``
    (its docstring: weights ``[3 d_model, d_model]``). Input of width ``d_in`` into the
    layer of width ``d_out`` is refused, naming the width it needs and the shape it got.
    """
    layer = lessons.MultiHeadAttention(d_out, heads)
    x = rand(batch, seq_len, d_in, seed=1)
    refused(lambda: layer(x), f"d_model={d_out}", f"({batch}, {seq_len}, {d_in})")


@pytest.mark.agree
@pytest.mark.parametrize(
    "need_weights,mask_kind",
    [
        (True, "numpy"),
        (True, "tensor"),
        (False, "tensor"),
        (False, "numpy"),
    ],
)
def test_multihead_attention_with_a_causal_mask_never_reads_future_tokens(need_weights, mask_kind):
    """ch03/02_bonus_efficient-multihead-attention/tests/test_mha_implementations.py,
    test_sdpa_without_flash_does_not_attend_to_future_tokens.

    Width 12, 3 heads, length 4, no bias (``qkv_bias=False``); tokens 2 and 3 shifted by 10:
    the outputs at tokens 0 and 1 do not change (atol 1e-5). The original's layer calls SDPA
    directly; here through both of lessons' paths (``need_weights=False`` is SDPA), with the
    course's ``causal_mask(4)`` as it comes (NumPy) or as a tensor.
    """
    torch.manual_seed(123)
    layer = seeded(lessons.MultiHeadAttention(12, 3, bias=False), seed=1)
    mask = lessons.causal_mask(4)
    mask = torch.as_tensor(mask) if mask_kind == "tensor" else mask
    x = randn(1, 4, 12, seed=2)
    changed = x.clone()
    changed[:, 2:] += 10
    with torch.no_grad():
        out, _ = layer(x, mask=mask, need_weights=need_weights)
        out_changed, _ = layer(changed, mask=mask, need_weights=need_weights)
    close(out[:, :2], out_changed[:, :2], 1e-5, 0)


# --- RoPE and RMSNorm (pkg/llms_from_scratch/tests/test_qwen3.py) ----------------------------


ROPE_CASES = {  # original: (transformers family, positions, base)
    "pkg/llms_from_scratch/tests/test_qwen3.py, test_rope": ("qwen3", 8192, 1e6),
    "ch05/07_gpt_to_llama/tests/tests_rope_and_parts.py, test_rope_llama2": ("llama", 4096, 1e4),
    "ch05/07_gpt_to_llama/tests/tests_rope_and_parts.py, test_rope_llama3": ("llama", 8192, 5e5),
}


def rotate_exactly(x: torch.Tensor, n: int, base: float) -> torch.Tensor:
    """RoPE with column ``f`` paired with ``f + d/2``, angles and products in float64."""
    d = x.shape[-1]
    freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # [d / 2]
    angle = torch.arange(n, dtype=torch.float64)[:, None] * freq  # [n, d / 2]
    cos, sin = angle.cos(), angle.sin()  # [n, d / 2]
    a, b = x.double()[..., : d // 2], x.double()[..., d // 2 :]  # [..., n, d / 2] each
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)  # [..., n, d]


@pytest.mark.documented
@pytest.mark.parametrize("original", list(ROPE_CASES))
def test_rope_halves_is_the_exact_rotation_and_transformers_drifts_as_chapter_13_states(original):
    """pkg/llms_from_scratch/tests/test_qwen3.py, test_rope; ch05/07_gpt_to_llama/tests/
    tests_rope_and_parts.py, test_rope_llama2 and test_rope_llama3 (their transformers half).

    Batch 1, 4 heads, head size 16, the original's positions and base; queries rotated by
    ``lessons.rope_halves`` (Llama-family code pairs column f with f + d/2) and by
    transformers' rotary embedding and ``apply_rotary_pos_emb``. The original asserts
    ``assert_close`` at float32's default; over thousands of positions transformers is
    further off than that, as chapter 13 ("How far does the equality reach?") states:
    transformers computes RoPE's angles in float32, whose rounding error grows with the
    angle, so the rotation drifts as the position grows, while ``lessons.rope_halves``
    computes its angles in float64 and stays on the exact rotation. (The chapter measures the
    drift for its own small layer; this head size and these bases drift further.)
    Asserted: ours equals a float64 rotation (to 1e-12 on float64 input; on the original's
    float32 input, to two float32 epsilons of each pair's length at every position); the gap
    of transformers' output to the exact rotation at position i is at most
    (i + 2) float32 epsilons of each rotated pair's length (an upper bound on rounding an
    angle of size up to i, plus the float32 products); and it does grow with the position.
    """
    family, n, base = ROPE_CASES[original]
    heads, d = 4, 16
    sizes = dict(
        hidden_size=heads * d, num_attention_heads=heads, head_dim=d, max_position_embeddings=n,
        rope_parameters={"rope_type": "default", "rope_theta": base},
    )  # fmt: skip
    if family == "qwen3":
        rotary = Qwen3RotaryEmbedding(config=transformers.Qwen3Config(**sizes))
    else:
        rotary = LlamaRotaryEmbedding(config=transformers.LlamaConfig(**sizes))
    q = randn(1, heads, n, d, seed=123)  # [1, h, n, d]
    cos, sin = rotary(q, torch.arange(n)[None])
    theirs, _ = apply_rotary_pos_emb(q, q, cos, sin)  # [1, h, n, d]
    exact = rotate_exactly(q, n, base)  # [1, h, n, d], float64
    positions = np.arange(n)
    eps = torch.finfo(torch.float32).eps
    pair = q.double()[..., : d // 2].hypot(q.double()[..., d // 2 :]).repeat(1, 1, 1, 2)
    ours64 = lessons.rope_halves(q.double(), positions, base)
    torch.testing.assert_close(ours64, exact, atol=1e-12, rtol=0)
    ours_off = (lessons.rope_halves(q, positions, base).double() - exact).abs()
    assert (ours_off <= 2 * eps * pair).all(), (ours_off / (eps * pair)).max().item()
    theirs_off = (theirs.double() - exact).abs()  # [1, h, n, d]
    allowed = (torch.arange(n, dtype=torch.float64)[:, None] + 2) * eps * pair
    assert (theirs_off <= allowed).all(), (theirs_off / allowed).max().item()
    by_position = theirs_off.amax((0, 1, 3))  # [n]
    assert by_position[n // 2 :].max() > 10 * by_position[: n // 64].max()


@pytest.mark.agree
def test_rmsnorm_equals_torchs_rmsnorm():
    """ch05/07_gpt_to_llama/tests/tests_rope_and_parts.py, test_rmsnorm.

    ``x [2, 3, 4]``, eps 1e-5, against ``torch.nn.RMSNorm(4, eps=1e-5)`` with ``allclose``'s
    defaults (rtol 1e-5, atol 1e-8).
    """
    x = randn(2, 3, 4, seed=123)
    assert torch.allclose(lessons.RMSNorm(4, eps=1e-5)(x), torch.nn.RMSNorm(4, eps=1e-5)(x))


@pytest.mark.agree
def test_rmsnorm_equals_qwen3s_rmsnorm():
    """pkg/llms_from_scratch/tests/test_qwen3.py, test_rmsnorm_equivalence.

    Width 64, ``x [8, 16, 64]`` (seed 42), eps 1e-6, weight ones; against Qwen3's RMSNorm as
    the original writes it (in float32, ``x * rsqrt(mean(x^2) + eps)``), atol and rtol 1e-5.
    """
    x = randn(8, 16, 64, seed=42)
    reference = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    close(lessons.RMSNorm(64)(x), reference, 1e-5, 1e-5)


# --- the Qwen3-style layer: KV cache, transformers, grouped KV heads -------------------------

CONFIGS = {  # the originals' small configurations, as one attention layer
    "test_qwen3.py dummy_cfg_base": AttentionConfig(32, 4, 1, 8, rope_base=10000.0),
    "test_kv_cache_context_limits.py": AttentionConfig(16, 4, 2, 4, qk_norm=True, rope_base=1e6),
}


@pytest.mark.agree
@pytest.mark.parametrize("prefill", [0, 3])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_decoding_token_by_token_with_a_cache_equals_one_full_pass(name, prefill):
    """pkg/llms_from_scratch/tests/test_qwen3.py, test_qwen3_kvcache_equivalence (also the
    configuration of test_kv_cache_context_limits.py).

    Six tokens: one full pass against token-by-token decoding with a ``KVCache`` (after a
    prefill of ``prefill`` tokens); the original's atol 1e-5, rtol 1e-3.
    """
    layer = seeded(ModernAttention(CONFIGS[name]), seed=123)
    x = randn(1, 6, CONFIGS[name].d_model, seed=7)
    cache = lessons.KVCache()
    with torch.no_grad():
        full = layer(x)
        parts = [layer(x[:, :prefill], cache=cache)] if prefill else []
        parts += [layer(x[:, t : t + 1], cache=cache) for t in range(prefill, 6)]
    close(torch.cat(parts, dim=1), full, 1e-5, 1e-3)


#: The originals' tiny models (vocabulary 257, width 32, 4 heads, 2 KV heads, head size 8, two
#: full-attention layers, context 8, float32, eager), and our layer's settings for each.
TINY = dict(
    vocab_size=257, hidden_size=32, num_attention_heads=4, num_hidden_layers=2,
    intermediate_size=64, head_dim=8, num_key_value_heads=2, max_position_embeddings=8,
    attn_implementation="eager",
)  # fmt: skip
ROPE = {"rope_type": "default", "rope_theta": 1e6}
FAMILIES = {
    "qwen3": (
        "pkg/llms_from_scratch/tests/test_qwen3.py, test_qwen3_base_equivalence_with_transformers",
        lambda: transformers.Qwen3Model(transformers.Qwen3Config(**TINY, rope_parameters=ROPE)),
        dict(qk_norm=True),
    ),
    "gemma3": (
        "ch05/12_gemma3/tests/test_gemma3_nb.py, test_gemma3_base_equivalence_with_transformers",
        lambda: transformers.Gemma3TextModel(
            transformers.Gemma3TextConfig(
                **TINY,
                sliding_window=4,
                query_pre_attn_scalar=256,
                layer_types=["full_attention", "full_attention"],
                rope_parameters={
                    "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                    "full_attention": ROPE,
                },
            )
        ),  # fmt: skip
        dict(qk_norm=True, norm_offset=True, scale=256**-0.5),
    ),
    "olmo3": (
        "ch05/13_olmo3/tests/test_olmo3_nb.py, test_olmo3_base_equivalence_with_transformers",
        lambda: transformers.Olmo3Model(
            transformers.Olmo3Config(
                **TINY,
                sliding_window=4,
                layer_types=["full_attention", "full_attention"],
                rope_parameters={"sliding_attention": ROPE, "full_attention": ROPE},
            )
        ),  # fmt: skip
        dict(qk_norm=True, norm_whole=True),
    ),
}


@pytest.mark.agree
@pytest.mark.parametrize("family", list(FAMILIES))
def test_modern_attention_equals_the_families_attention_layer_by_layer(family):
    """pkg/llms_from_scratch/tests/test_qwen3.py, test_qwen3_base_equivalence_with_transformers;
    ch05/12_gemma3/tests/test_gemma3_nb.py and ch05/13_olmo3/tests/test_olmo3_nb.py, their
    ``*_base_equivalence_with_transformers``.

    The originals' tiny models (see ``TINY``; RoPE base 1e6; Gemma 3 with its QK-norm stored
    as ``1 + weight`` and scale ``1 / sqrt(256)``, OLMo 3 with QK-norm over the whole
    projection), random weights; each layer's attention input and output read from
    transformers, ours loaded from its ``state_dict``; the originals' rtol and atol 1e-5
    (they compare logits).
    """
    _, build, options = FAMILIES[family]
    torch.manual_seed(0)
    model = seeded(build(), seed=5)
    c = model.config
    ours = ModernAttention(
        AttentionConfig(32, 4, 2, 8, rope_base=1e6, eps=c.rms_norm_eps, **options)
    )
    ids = torch.randint(0, 257, (2, 8), generator=torch.Generator().manual_seed(6))
    rope = c.rope_parameters  # one per layer type (Gemma 3, OLMo 3) or one for all (Qwen3)
    assert rope.get("full_attention", rope)["rope_theta"] == 1e6
    for layer, (x, expected) in zip(model.layers, attention_io(model, ids), strict=True):
        ours.load_state_dict(layer.self_attn.state_dict())
        with torch.no_grad():
            close(ours(x), expected, 1e-5, 1e-5)


GQA_HEADS = [(4, 1), (4, 2), (4, 4), (8, 2), (6, 3)]


@pytest.mark.agree
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads,kv_heads", GQA_HEADS)
def test_repeat_kv_then_attention_equals_sdpa_with_enable_gqa(heads, kv_heads, causal):
    """pkg/llms_from_scratch/tests/test_qwen3.py and test_kv_cache_context_limits.py
    (``n_kv_groups`` 1 and 2 with 4 heads), with ch04/04_gqa's grouping; the reference is
    PyTorch's ``F.scaled_dot_product_attention(..., enable_gqa=True)``.

    Query head g reads KV head ``g // (h / h_kv)``: ``repeat_kv`` then ``attention`` equals
    SDPA's grouped attention; B=2, n=6, head size 8, float32 default tolerance.
    """
    q = randn(2, heads, 6, 8, seed=1)
    k, v = randn(2, kv_heads, 6, 8, seed=2), randn(2, kv_heads, 6, 8, seed=3)
    keep = torch.as_tensor(lessons.causal_mask(6)) if causal else None
    out, _ = lessons.attention(q, lessons.repeat_kv(k, heads), lessons.repeat_kv(v, heads), keep)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    close(out, expected, *DEFAULT_TOL[torch.float32])


@pytest.mark.refuse
def test_kv_heads_that_do_not_divide_the_heads_are_refused_naming_both():
    """ch04/04_gqa (its layer asserts ``num_heads % num_kv_groups == 0``).

    Refused, naming the number of heads and the key tensor's shape.
    """
    k = randn(1, 3, 4, 8, seed=1)
    refused(lambda: lessons.repeat_kv(k, 4), "4", "[1, 3, 4, 8]")
    refused(lambda: AttentionConfig(32, 4, 3, 8), "num_kv_heads (3)", "num_heads (4)")


# --- the KV cache: rejected appends, chunked prefill, sliding windows ------------------------


@pytest.mark.agree
def test_a_rejected_append_leaves_the_cache_usable():
    """pkg/llms_from_scratch/tests/test_kv_cache_context_limits.py,
    test_rejected_decode_preserves_cache_and_last_valid_position.

    The original's layer (width 16, 4 heads, 2 KV heads, head size 4, QK-norm) after a
    prefill of 7 tokens: a token handed at the wrong position is refused, naming where the
    positions must run on from; the cache is untouched, and the next right token equals the
    full pass's last (atol and rtol 1e-5).
    """
    layer = seeded(ModernAttention(CONFIGS["test_kv_cache_context_limits.py"]), seed=123)
    x = randn(1, 8, 16, seed=8)
    cache = lessons.KVCache()
    with torch.no_grad():
        layer(x[:, :7], cache=cache)
        refused(lambda: layer(x[:, 7:], positions=[9], cache=cache), "from 7", "[9]")
        assert cache.next_position == 7 and cache.tensors[0].shape[-2] == 7
        close(layer(x[:, 7:], cache=cache), layer(x)[:, 7:], 1e-5, 1e-5)


@pytest.mark.agree
@pytest.mark.parametrize("window", [None, 4])
def test_a_prefill_in_chunks_equals_one_pass(window):
    """ch04/03_kv-cache/tests.py, test_prefill_chunking_basic.

    Ten tokens prefilled in the original's chunks ``[0:4], [4:8], [8:10]`` through one cache
    (its window 4, and none) equal one pass over the ten (float32 default tolerance).
    """
    config = AttentionConfig(16, 4, 2, 4, window=window)
    layer = seeded(ModernAttention(config), seed=3)
    x = randn(1, 10, 16, seed=9)
    cache = lessons.KVCache(window=window)
    with torch.no_grad():
        chunks = [layer(x[:, a:b], cache=cache) for a, b in ((0, 4), (4, 8), (8, 10))]
        close(torch.cat(chunks, dim=1), layer(x), *DEFAULT_TOL[torch.float32])


WINDOWS = [1, 2, 3, 4, 5]


@pytest.mark.agree
@pytest.mark.parametrize("window", WINDOWS)
def test_a_cached_sliding_window_prefill_and_decode_equal_the_uncached_layer(window):
    """ch04/06_swa/tests.py, test_cached_prefill_matches_uncached_swa (window 4; here 1 to 5),
    then two decoded tokens as its generation test does.

    Width 8, 2 heads, x ``[1, 6, 8]``: the cached prefill equals the uncached layer (the
    original's atol 1e-6, rtol 0) and holds no NaN; two more tokens decoded one at a time
    equal the uncached layer over all eight (at the float32 default: the original compares
    the generated token ids).
    """
    layer = seeded(ModernAttention(AttentionConfig(8, 2, 2, 4, window=window)), seed=123)
    x = randn(1, 8, 8, seed=10)
    cache = lessons.KVCache(window=window)
    with torch.no_grad():
        full = layer(x)
        prefill = layer(x[:, :6], cache=cache)
        assert not torch.isnan(prefill).any()
        close(prefill, full[:, :6], 1e-6, 0)
        assert cache.next_position == 6
        decoded = torch.cat([layer(x[:, t : t + 1], cache=cache) for t in (6, 7)], dim=1)
    close(decoded, full[:, 6:], *DEFAULT_TOL[torch.float32])


@pytest.mark.documented
def test_a_sliding_window_cache_keeps_one_token_fewer_than_the_window():
    """ch04/06_swa/tests.py, test_cached_prefill_matches_uncached_swa (its cache size).

    The original's cache holds the last 4 tokens for window 4. ``KVCache``'s docstring
    (chapter 13): "after each append it keeps the last w - 1 tokens, all that the next query
    still sees besides itself". So after the prefill of 6 tokens it holds 3, at positions
    3, 4, 5, and the next token still sees 4 keys (itself included).
    """
    layer = seeded(ModernAttention(AttentionConfig(8, 2, 2, 4, window=4)), seed=123)
    cache = lessons.KVCache(window=4)
    with torch.no_grad():
        layer(randn(1, 6, 8, seed=10), cache=cache)
    assert [t.shape[-2] for t in cache.tensors] == [3, 3]
    assert cache.positions.tolist() == [3, 4, 5]
    assert lessons.window_mask([6], [3, 4, 5, 6], 4).sum() == 4


@pytest.mark.agree
def test_a_window_as_long_as_the_context_equals_full_causal_attention():
    """ch04/06_swa/tests.py, test_swa_matches_base_model_when_window_equals_context.

    Width 32, 4 heads, context 8: a window of 8 changes nothing over 8 tokens, in one pass
    (the original's atol 1e-6, rtol 0) and with a prefill of 6 then two decoded tokens (the
    original compares the generated token ids; here the outputs, at the float32 default).
    """
    windowed = seeded(ModernAttention(AttentionConfig(32, 4, 4, 8, window=8)), seed=123)
    full = ModernAttention(AttentionConfig(32, 4, 4, 8))
    full.load_state_dict(windowed.state_dict())
    x = randn(1, 8, 32, seed=11)
    cache = lessons.KVCache(window=8)
    with torch.no_grad():
        expected = full(x)
        close(windowed(x), expected, 1e-6, 0)
        steps = [windowed(x[:, :6], cache=cache)] + [
            windowed(x[:, t : t + 1], cache=cache) for t in (6, 7)
        ]
    close(torch.cat(steps, dim=1), expected, *DEFAULT_TOL[torch.float32])
