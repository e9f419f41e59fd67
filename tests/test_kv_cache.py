"""lessons.kv_cache and the pieces of lessons.modern (chapter 13): masks, caches, sizes, sinks."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import (
    CacheLayout,
    KVCache,
    RMSNorm,
    causal_mask,
    kv_cache_bytes,
    repeat_kv,
    rope_halves,
    sink_softmax,
    soft_cap,
    window_mask,
)
from lessons.kv_cache import PUBLISHED


@given(st.integers(1, 30), st.integers(1, 30))
def test_a_window_mask_keeps_the_last_w_keys_and_nothing_later(n, w):
    keep = window_mask(np.arange(n), np.arange(n), w)  # [n, n]
    assert (keep <= causal_mask(n)).all()  # never a later key
    assert (keep.sum(1) == np.minimum(np.arange(n) + 1, w)).all()  # exactly min(i + 1, w) keys
    i, j = np.nonzero(keep)
    assert (i - j < w).all() and (i - j >= 0).all()


@given(st.integers(1, 20), st.integers(1, 20))
def test_without_a_window_the_mask_of_new_rows_is_the_causal_mask_shifted(n_cached, n_new):
    keep = window_mask(np.arange(n_cached, n_cached + n_new), np.arange(n_cached + n_new))
    assert keep.shape == (n_new, n_cached + n_new)
    full = causal_mask(n_cached + n_new)
    assert (keep == full[n_cached:]).all()


def test_window_mask_refuses_positions_that_are_not_whole_numbers():
    with pytest.raises(ValueError, match="q_positions"):
        window_mask(np.array([0.5]), np.arange(3))
    with pytest.raises(ValueError, match="window"):
        window_mask(np.arange(3), np.arange(3), 0)


def test_a_rolling_cache_keeps_the_last_window_minus_one_tokens():
    cache = KVCache(window=4)
    K = torch.arange(10.0).view(1, 1, 10, 1)  # [B, h, n, d]: the token's position as its key
    (everything,), positions = cache.append(K[:, :, :6], positions=np.arange(6))
    assert everything.shape[-2] == 6 and positions.tolist() == list(range(6))
    assert cache.positions.tolist() == [3, 4, 5]
    assert cache.tensors[0].flatten().tolist() == [3.0, 4.0, 5.0]
    (everything,), positions = cache.append(K[:, :, 6:7], positions=[6])
    assert positions.tolist() == [3, 4, 5, 6] and cache.next_position == 7
    with pytest.raises(ValueError, match="run on from 7"):
        cache.append(K[:, :, 7:8], positions=[3])  # the cache's length, not the next position


@pytest.mark.parametrize(
    ("name", "per_token", "at_8k", "at_128k"),
    [
        # hand computation: bytes = 2 (bf16) x [2 x KV heads x head size | latent] x token rows
        (
            "Llama 3 8B",
            2 * 2 * 8 * 128 * 32,
            2 * 2 * 8 * 128 * 32 * 8192,
            2 * 2 * 8 * 128 * 32 * 131072,
        ),
        (
            "Qwen3-8B",
            2 * 2 * 8 * 128 * 36,
            2 * 2 * 8 * 128 * 36 * 8192,
            2 * 2 * 8 * 128 * 36 * 131072,
        ),
        (
            "Mistral 7B",
            2 * 2 * 8 * 128 * 32,
            2 * 2 * 8 * 128 * 32 * 4096,
            2 * 2 * 8 * 128 * 32 * 4096,
        ),
        (
            "Gemma 3 27B",
            2 * 2 * 16 * 128 * 62,
            2 * 2 * 16 * 128 * (10 * 8192 + 52 * 1024),
            2 * 2 * 16 * 128 * (10 * 131072 + 52 * 1024),
        ),
        (
            "gpt-oss-120b",
            2 * 2 * 8 * 64 * 36,
            2 * 2 * 8 * 64 * (18 * 8192 + 18 * 128),
            2 * 2 * 8 * 64 * (18 * 131072 + 18 * 128),
        ),
        ("DeepSeek-V3", 2 * 576 * 61, 2 * 576 * 61 * 8192, 2 * 576 * 61 * 131072),
    ],
)
def test_the_calculator_matches_a_hand_computation_for_each_published_model(
    name, per_token, at_8k, at_128k
):
    (layout,) = [m for m in PUBLISHED if m.name == name]
    assert layout.source  # every number says where it comes from
    assert kv_cache_bytes(layout, 1) == per_token
    assert kv_cache_bytes(layout, 8192) == at_8k
    assert kv_cache_bytes(layout, 131072) == at_128k


def test_a_layout_refuses_windowed_layers_without_a_window():
    with pytest.raises(ValueError, match="windowed_layers"):
        CacheLayout("x", layers=4, kv_heads=2, head_dim=8, windowed_layers=2)
    with pytest.raises(ValueError, match="tokens"):
        kv_cache_bytes(PUBLISHED[0], 0)


def test_repeat_kv_gives_each_group_of_query_heads_its_own_kv_head():
    K = torch.arange(3.0).view(1, 3, 1, 1)  # [B, h_kv = 3, n, d]: KV head g holds g
    shared = repeat_kv(K, 6)  # [1, 6, 1, 1]
    assert shared.flatten().tolist() == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
    assert K.repeat(1, 2, 1, 1).flatten().tolist() != shared.flatten().tolist()
    with pytest.raises(ValueError, match="h_kv"):
        repeat_kv(K, 4)


@given(st.integers(1, 6), st.sampled_from([2, 4, 8]), st.integers(0, 2**31 - 1))
def test_rope_halves_rotates_column_f_with_column_f_plus_half(n, d, seed):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(2, n, d, generator=g, dtype=torch.float64)  # [B, n, d]
    half = d // 2
    angles = torch.arange(n, dtype=torch.float64)[:, None] * 100.0 ** (
        -torch.arange(half, dtype=torch.float64) * 2 / d
    )  # [n, d/2]
    cos, sin = torch.cos(angles), torch.sin(angles)
    first, second = X[..., :half], X[..., half:]
    expected = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
    torch.testing.assert_close(rope_halves(X, np.arange(n), base=100.0), expected)
    # like chapter 8's rope, the score depends on the offset only: shift both, same scores
    Q, K = X, X.flip(1)
    scores = rope_halves(Q, np.arange(n)) @ rope_halves(K, np.arange(n)).transpose(-2, -1)
    shifted = rope_halves(Q, np.arange(n) + 7) @ rope_halves(K, np.arange(n) + 7).transpose(-2, -1)
    torch.testing.assert_close(scores, shifted)


@given(st.integers(1, 5), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_a_sink_takes_weight_from_every_row_and_rows_then_sum_below_one(h, n, seed):
    g = torch.Generator().manual_seed(seed)
    Z = torch.randn(1, h, n, n, generator=g, dtype=torch.float64)  # [B, h, n, n]
    sinks = torch.randn(h, generator=g, dtype=torch.float64)  # [h]
    A = sink_softmax(Z, sinks)  # [1, h, n, n]
    total = Z.exp().sum(-1) + sinks.exp().view(1, h, 1)  # [1, h, n]
    torch.testing.assert_close(A, Z.exp() / total[..., None])
    assert (A.sum(-1) < 1).all()
    torch.testing.assert_close(sink_softmax(Z, torch.full((h,), -torch.inf)), Z.softmax(-1))


def test_soft_cap_bounds_every_score_and_keeps_small_ones():
    Z = torch.tensor([-1e4, -0.01, 0.0, 0.01, 1e4], dtype=torch.float64)
    capped = soft_cap(Z, 50.0)
    assert capped.abs().max() <= 50.0
    torch.testing.assert_close(capped[1:4], Z[1:4], atol=1e-7, rtol=0)


def test_rms_norm_gives_unit_root_mean_square_and_offset_starts_as_identity():
    x = torch.randn(3, 8, dtype=torch.float64)
    plain, offset = RMSNorm(8, eps=0.0).double(), RMSNorm(8, eps=0.0, offset=True).double()
    y = plain(x)
    torch.testing.assert_close(y.pow(2).mean(-1), torch.ones(3, dtype=torch.float64))
    torch.testing.assert_close(offset(x), y)  # weight 0 means scale 1 + 0


@pytest.mark.parametrize("layout", PUBLISHED, ids=lambda m: m.name)
def test_recorded_query_heads_are_those_the_source_states(layout):
    """`heads` is recorded only where the source names the query heads, and as it names them."""
    if layout.heads:
        assert f"{layout.heads} heads" in layout.source or f"{layout.heads} query" in layout.source
        assert layout.latent or layout.heads % layout.kv_heads == 0  # whole groups of query heads
    else:
        assert "query" not in layout.source and " heads," not in layout.source.split("KV")[0]
