"""``KVCache.next_position`` counts every token appended, whatever the window (chapter 13).

A rolling cache keeps the last ``window - 1`` tokens; with ``window=1`` it keeps none, and
the next position must still be the count of tokens seen (chapter 13: "``cache.next_position``,
not 0"), so that passing the true position works and RoPE turns the new query correctly.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import lessons
from lessons import KVCache

WINDOWS = [1, 2, 3, 7, None]


def _kv(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(1, 2, n, 4, generator=g), torch.randn(1, 2, n, 4, generator=g)


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("prefill", [1, 2, 5])
def test_next_position_is_the_count_of_tokens_appended(window, prefill):
    cache = KVCache(window=window)
    cache.append(*_kv(prefill), positions=np.arange(prefill))
    assert cache.next_position == prefill
    for t in range(prefill, prefill + 4):
        keys, positions = cache.append(*_kv(1, seed=t), positions=[cache.next_position])
        assert cache.next_position == t + 1
        kept = t if window is None else min(t, window - 1)  # what the cache held before
        assert positions.tolist() == list(range(t - kept, t + 1))
        assert keys[0].shape[-2] == kept + 1
        assert cache.positions.size == (t + 1 if window is None else min(t + 1, window - 1))


@pytest.mark.parametrize("window", WINDOWS)
def test_a_wrong_position_is_still_refused(window):
    cache = KVCache(window=window)
    cache.append(*_kv(3), positions=[0, 1, 2])
    with pytest.raises(ValueError, match="run on from 3"):
        cache.append(*_kv(1), positions=[0])


@pytest.mark.parametrize("window", WINDOWS)
def test_decoding_with_any_window_equals_the_full_pass(window):
    torch.manual_seed(0)
    config = lessons.AttentionConfig(
        d_model=16, num_heads=4, num_kv_heads=2, head_dim=4, window=window
    )
    layer = lessons.ModernAttention(config).double()
    X = torch.randn(1, 9, 16, dtype=torch.float64)  # [B, n, d_model]
    cache = KVCache(window=window)
    with torch.no_grad():
        outs = [layer(X[:, :4], cache=cache)]
        for t in range(4, 9):
            outs.append(layer(X[:, t : t + 1], positions=[t], cache=cache))  # [B, 1, d]
        torch.testing.assert_close(torch.cat(outs, dim=1), layer(X))
