"""Chapter 8's self-checks (Positional encoding): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest

import lessons


def _pe_variant(kind):
    pe = lessons.sinusoidal_encoding(6, 8)  # [n, d_model]
    if kind == "swapped":
        out = pe.copy()
        out[:, 0::2], out[:, 1::2] = pe[:, 1::2], pe[:, 0::2]
        return out
    if kind == "halves":
        return np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)
    if kind == "exponent":
        i = np.arange(4)[None, :]
        angles = np.arange(6)[:, None] / 10000 ** (i / 8)
        out = np.empty_like(pe)
        out[:, 0::2], out[:, 1::2] = np.sin(angles), np.cos(angles)
        return out
    return pe


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("right", "Correct"),
        ("swapped", "swapped"),
        ("halves", "interleaves"),
        ("exponent", "2i / d_model"),
    ],
)
def test_check_sinusoidal_encoding_names_the_mistake(kind, expected):
    assert expected in repr(lessons.check_sinusoidal_encoding(_pe_variant(kind), 6, 8))
