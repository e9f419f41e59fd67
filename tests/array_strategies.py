"""Hypothesis strategies shared by the tests of `lessons`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


def float_arrays(shape, low=-10.0, high=10.0):
    """Strategy: float64 arrays of the given shape with finite entries in [low, high]."""
    return st.builds(
        lambda seed: np.random.default_rng(seed).uniform(low, high, size=shape),
        st.integers(0, 2**32 - 1),
    )
