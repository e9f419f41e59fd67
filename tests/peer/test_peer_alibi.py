"""The ALiBi paper's head slopes (ofirpress/attention_with_linear_biases, its ``get_slopes``,
which BLOOM's code follows), run on ``lessons.alibi_slopes`` and ``lessons.alibi_bias``.

The paper's rule for ``h`` heads, ``h`` a power of two: a geometric sequence from
``2^(-8/h)`` with that same ratio. For other ``h``: the slopes of the largest power of two
``p`` below ``h``, then every other slope of ``2p`` heads for the ``h - p`` heads left. The
reference below is written from that description.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import lessons


def paper_slopes(h: int) -> list[float]:
    """The ALiBi paper's slopes for ``h`` heads, from the rule in the module docstring."""

    def geometric(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    if math.log2(h).is_integer():
        return geometric(h)
    p = 2 ** math.floor(math.log2(h))
    return geometric(p) + geometric(2 * p)[0::2][: h - p]


@pytest.mark.agree
@pytest.mark.parametrize("heads", [1, 2, 4, 8, 16, 32, 64])
def test_alibi_slopes_equal_the_papers_for_a_power_of_two_heads(heads):
    """attention_with_linear_biases, get_slopes (the power-of-two branch): float64, 1e-12."""
    np.testing.assert_allclose(lessons.alibi_slopes(heads), paper_slopes(heads), rtol=1e-12)


@pytest.mark.agree
@pytest.mark.parametrize("heads", [3, 5, 6, 12, 20, 24])
def test_alibi_slopes_equal_the_papers_for_other_head_counts(heads):
    """attention_with_linear_biases, get_slopes (the other branch), as BLOOM uses: 1e-12."""
    np.testing.assert_allclose(lessons.alibi_slopes(heads), paper_slopes(heads), rtol=1e-12)


@pytest.mark.agree
@pytest.mark.parametrize("heads", [4, 8])
def test_alibi_bias_is_minus_slope_times_distance(heads):
    """attention_with_linear_biases: the bias ``-m_g (i - j)`` on key j of query i, future keys
    masked (its causal language models); n=7, exactly."""
    bias = lessons.alibi_bias(7, heads)  # [h, n, n]
    i, j = np.arange(7)[:, None], np.arange(7)[None, :]
    expected = np.where(j <= i, -np.asarray(paper_slopes(heads))[:, None, None] * (i - j), -np.inf)
    np.testing.assert_array_equal(bias, expected + 0.0)
