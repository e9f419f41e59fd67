"""Chapter 8's statements about ALiBi's slopes and RoPE's frequencies, for every size."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import alibi_slopes, rope


@given(st.integers(0, 7).map(lambda k: 2**k))
def test_alibi_slopes_are_geometric_from_2_to_the_minus_8_over_h_down_to_2_to_the_minus_8(h):
    # for h a power of two; other h follow the paper's code (test_alibi_slopes_any_head_count)
    slopes = alibi_slopes(h)  # [h]
    assert slopes.shape == (h,)
    np.testing.assert_allclose(slopes[0], 2.0 ** (-8 / h))  # the first slope ...
    np.testing.assert_allclose(slopes[1:] / slopes[:-1], slopes[0])  # ... is also the ratio
    np.testing.assert_allclose(slopes[-1], 2.0**-8)  # whatever h, the last head ends at 2^-8
    assert (np.diff(slopes) < 0).all()  # the first head penalises distance most


def test_alibi_slopes_match_the_papers_examples_for_8_and_16_heads():
    np.testing.assert_allclose(alibi_slopes(8), [2.0**-g for g in range(1, 9)])  # 1/2 .. 1/256
    np.testing.assert_allclose(alibi_slopes(16), [2.0 ** (-g / 2) for g in range(1, 17)])


@given(st.integers(0, 5).map(lambda k: 2**k))
def test_doubling_the_heads_keeps_the_old_slopes_and_puts_one_between_each_pair(h):
    np.testing.assert_allclose(alibi_slopes(2 * h)[1::2], alibi_slopes(h))
    between = alibi_slopes(2 * h)[2::2]  # geometric means of neighbouring old slopes
    old = alibi_slopes(h)
    np.testing.assert_allclose(between, np.sqrt(old[:-1] * old[1:]))


@given(st.integers(1, 16).map(lambda x: 2 * x), st.integers(0, 40), st.data())
def test_rope_takes_its_frequencies_from_the_head_width_d_k(d_k, position, data):
    f = data.draw(st.integers(0, d_k // 2 - 1))  # a pair of the head
    unit = torch.zeros(2, 3, position + 1, d_k, dtype=torch.float64)  # [B, h, n, d_k]
    unit[..., 2 * f] = 1.0  # the point (1, 0) in pair f, at every position
    turned = rope(unit)  # [B, h, n, d_k]
    angle = position * 10000.0 ** (-2 * f / d_k)  # omega_f from d_k
    expected = torch.tensor([np.cos(angle), np.sin(angle)], dtype=torch.float64)
    torch.testing.assert_close(turned[:, :, position, 2 * f : 2 * f + 2], expected.expand(2, 3, 2))
