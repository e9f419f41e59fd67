"""Chapter 10 measures how the peak memory of lessons.tiled_attention grows with n.

The chapter asserts, on its own measurement, that the tiled peak grows with a
log-log slope of at most about 1 while the plain formula's grows with slope 2.
These tests hold the function to the property behind that claim: doubling ``n``
at most doubles the tiled peak (the output is ``[n, d_v]``, the tiles are fixed),
whereas an implementation that built an ``[n, n]`` table would quadruple it.
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from lessons import attention, tiled_attention


def _peak_bytes(function, *args, **kwargs) -> int:
    tracemalloc.start()
    try:
        function(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _inputs(n: int, d: int, dtype) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(n)
    return tuple(rng.standard_normal((n, d)).astype(dtype) for _ in range(3))  # [n, d] each


def test_tiled_peak_memory_at_most_doubles_when_n_doubles():
    d, block = 16, 128
    peaks = []
    for n in (256, 512, 1024):
        Q, K, V = _inputs(n, d, np.float32)
        peaks.append(_peak_bytes(tiled_attention, Q, K, V, block_size=block))
    growth = [later / earlier for earlier, later in zip(peaks, peaks[1:], strict=False)]
    assert all(g <= 2.0 for g in growth), f"tiled peaks {peaks} grow faster than n"


def test_plain_attention_peak_memory_quadruples_when_n_doubles():
    # The contrast the chapter draws: the full [n, n] weights make the peak grow like n².
    d = 16
    peaks = []
    for n in (512, 1024):
        Q, K, V = _inputs(n, d, np.float64)
        peaks.append(_peak_bytes(attention, Q, K, V))
    assert 3.5 <= peaks[1] / peaks[0] <= 4.5


def test_tiled_peak_holds_no_n_by_n_table_in_float32():
    n, d, block = 1024, 64, 128
    Q, K, V = _inputs(n, d, np.float32)
    peak = _peak_bytes(tiled_attention, Q, K, V, block_size=block)
    table = 4 * n * n  # bytes of one [n, n] float32 table
    assert peak < table / 4
    assert peak >= 4 * n * d  # it does hold the [n, d_v] float32 output
