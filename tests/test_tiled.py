"""lessons.tiled_attention (chapter 10): exact, by blocks, with linear memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons import attention, causal_mask, tiled_attention


@st.composite
def problems(draw):
    n_q, n_k = draw(st.integers(1, 40)), draw(st.integers(1, 40))
    d_k, d_v = draw(st.integers(1, 8)), draw(st.integers(1, 6))
    batch = draw(st.sampled_from([(), (2,), (2, 3)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([1.0, 10.0]))  # large scores test the running maximum
    Q = scale * rng.normal(size=batch + (n_q, d_k))  # [..., n_q, d_k]
    K = rng.normal(size=batch + (n_k, d_k))  # [..., n_k, d_k]
    V = rng.normal(size=batch + (n_k, d_v))  # [..., n_k, d_v]
    return Q, K, V, draw(st.integers(1, 17))


@given(problems())
def test_tiled_attention_equals_attention_for_any_block_size(problem):
    Q, K, V, block = problem
    expected, _ = attention(Q, K, V)
    np.testing.assert_allclose(tiled_attention(Q, K, V, block_size=block), expected, atol=1e-10)


@given(problems())
def test_causal_tiled_attention_equals_attention_with_a_causal_mask(problem):
    Q, K, V, block = problem
    n = min(Q.shape[-2], K.shape[-2])
    Q, K, V = Q[..., :n, :], K[..., :n, :], V[..., :n, :]
    expected, _ = attention(Q, K, V, causal_mask(n))
    got = tiled_attention(Q, K, V, block_size=block, causal=True)
    np.testing.assert_allclose(got, expected, atol=1e-10)


def test_causal_tiled_attention_with_more_keys_than_queries_uses_the_top_left_rule():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(7, 4)), rng.normal(size=(7, 2))
    keep = np.tril(np.ones((3, 7), dtype=bool))  # query i sees keys 0..i
    expected, _ = attention(Q, K, V, keep)
    np.testing.assert_allclose(tiled_attention(Q, K, V, 2, causal=True), expected, atol=1e-12)


def _peak_bytes(function) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_tiled_attention_needs_far_less_memory_than_the_full_matrix():
    rng = np.random.default_rng(0)
    n, d = 2048, 64
    Q, K, V = (rng.normal(size=(n, d)) for _ in range(3))  # [n, d] each
    naive = _peak_bytes(lambda: attention(Q, K, V))
    tiled = _peak_bytes(lambda: tiled_attention(Q, K, V, block_size=128))
    assert naive > 8 * n * n  # at least one float64 [n, n] matrix
    assert tiled * 10 < naive


@pytest.mark.parametrize("block_size", [0, -3, 2.5, True])
def test_tiled_attention_rejects_a_bad_block_size(block_size):
    X = np.ones((4, 2))
    with pytest.raises(ValueError, match="block_size"):
        tiled_attention(X, X, X, block_size=block_size)


def test_tiled_attention_rejects_mismatched_shapes_like_attention():
    with pytest.raises(ValueError, match="same d_k"):
        tiled_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 3)))


def test_float32_inputs_stay_float32_and_stay_close():
    rng = np.random.default_rng(0)
    Q, K, V = (rng.normal(size=(50, 8)).astype(np.float32) for _ in range(3))  # [n, d] each
    got = tiled_attention(Q, K, V, block_size=16)
    assert got.dtype == np.float32
    expected, _ = attention(Q, K, V)  # float64
    np.testing.assert_allclose(got, expected, atol=1e-5)


# Chapter 10 asserts, on its own measurement, that the tiled peak grows with a log-log slope
# of at most about 1 while the plain formula's grows with slope 2: the property behind it.


def _inputs(n: int, d: int, dtype) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(n)
    return tuple(rng.standard_normal((n, d)).astype(dtype) for _ in range(3))  # [n, d] each


def test_tiled_peak_memory_at_most_doubles_when_n_doubles():
    peaks = []
    for n in (256, 512, 1024):
        Q, K, V = _inputs(n, 16, np.float32)
        peaks.append(_peak_bytes(lambda: tiled_attention(Q, K, V, block_size=128)))  # noqa: B023
    growth = [later / earlier for earlier, later in zip(peaks, peaks[1:], strict=False)]
    assert all(g <= 2.0 for g in growth), f"tiled peaks {peaks} grow faster than n"


def test_plain_attention_peak_memory_quadruples_when_n_doubles():
    # The contrast the chapter draws: the full [n, n] weights make the peak grow like n².
    peaks = []
    for n in (512, 1024):
        Q, K, V = _inputs(n, 16, np.float64)
        peaks.append(_peak_bytes(lambda: attention(Q, K, V)))  # noqa: B023
    assert 3.5 <= peaks[1] / peaks[0] <= 4.5
