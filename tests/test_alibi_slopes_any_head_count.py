"""``alibi_slopes`` follows the ALiBi paper's rule for every head count, as BLOOM does (chapter 8).

For ``h`` a power of two the slopes are ``2^(-8 (g + 1) / h)``; for other ``h`` the paper's
code takes the slopes of the largest power of two ``p`` below ``h``, then every other slope
of ``2p`` heads. BLOOM (``transformers``' ``build_alibi_tensor``) implements that rule; its
slopes are computed in float32, hence the tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import alibi_bias, alibi_slopes

bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")


def papers_rule(h: int) -> list[float]:
    """The rule as the paper states it, written out recursively (our own reference)."""
    if math.log2(h).is_integer():
        return [2.0 ** (-8 * (g + 1) / h) for g in range(h)]
    p = 2 ** math.floor(math.log2(h))
    return papers_rule(p) + papers_rule(2 * p)[0::2][: h - p]


def bloom_slopes(h: int) -> np.ndarray:
    """BLOOM's slopes: its bias at key position 1 is exactly the slope of each head."""
    mask = torch.ones(1, 2, dtype=torch.int64)  # [B, n]
    return bloom.build_alibi_tensor(mask, h, torch.float64)[:, 0, 1].numpy()  # [h]


@pytest.mark.parametrize("h", list(range(1, 65)) + [80, 96, 100, 112, 128, 200])
def test_alibi_slopes_equal_blooms_for_every_head_count(h):
    np.testing.assert_allclose(alibi_slopes(h), bloom_slopes(h), rtol=1e-5)
    np.testing.assert_allclose(alibi_slopes(h), papers_rule(h), rtol=1e-12)


@pytest.mark.parametrize("h", [3, 6, 12, 20])
def test_a_head_count_that_is_not_a_power_of_two_keeps_the_lower_powers_slopes(h):
    p = 2 ** math.floor(math.log2(h))
    slopes = alibi_slopes(h)  # [h]
    np.testing.assert_array_equal(slopes[:p], alibi_slopes(p))
    np.testing.assert_array_equal(slopes[p:], alibi_slopes(2 * p)[0::2][: h - p])
    geometric = 2.0 ** (-8 * np.arange(1, h + 1) / h)  # the old rule: no model's slopes
    assert np.abs(slopes - geometric).max() > 0.05
    assert len(set(slopes.tolist())) == h  # still one slope per head


def test_six_heads_get_the_slopes_chapter_8_prints():
    np.testing.assert_array_equal(alibi_slopes(6), [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8])


@given(st.integers(1, 40), st.integers(1, 12))
def test_alibi_bias_uses_the_same_slopes(h, n):
    bias = alibi_bias(n, h)  # [h, n, n]
    if n > 1:
        np.testing.assert_array_equal(-bias[:, 1, 0], alibi_slopes(h))
