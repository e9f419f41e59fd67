"""Self-checks of chapter 8 (Positional encoding)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..positions import sinusoidal_encoding
from .verdict import (
    Verdict,
    as_float_array,
    catalogued,
    close,
    generic,
    is_missing,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_sinusoidal_encoding"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_sinusoidal_encoding": {
        "sine_cosine_swapped": "swapped sine and cosine, putting the cosines in the even columns",
        "halves_layout": "put all the sines first and all the cosines after instead of "
        "interleaving them",
        "wrong_exponent": "used f / d_model as the exponent instead of 2f / d_model",
        **generic("not_a_number", "wrong_shape", "other"),
    },
}


@catalogued(MISTAKES)
def check_sinusoidal_encoding(answer: Any, n_positions: int, d_model: int) -> Verdict:
    """Check a sinusoidal positional encoding ``[n_positions, d_model]`` (chapter 8)."""
    if is_missing(answer):
        return unanswered(f"a [{n_positions}, {d_model}] array")
    expected = sinusoidal_encoding(n_positions, d_model)  # [n, d_model]
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be an array; got {type(answer).__name__}.", "not_a_number")
    if got.shape != expected.shape:
        return wrong(
            f"One row per position and one column per dimension: shape {list(expected.shape)}; yours {list(got.shape)}.",
            "wrong_shape",
        )
    if close(got, expected):
        return right("Even columns are sines, odd columns cosines, with geometric wavelengths.")
    swapped = expected.copy()
    swapped[:, 0::2], swapped[:, 1::2] = expected[:, 1::2], expected[:, 0::2]
    if close(got, swapped):
        return wrong(
            "Sine and cosine are swapped: column 2f is the sine, column 2f+1 the cosine.",
            "sine_cosine_swapped",
        )
    halves = np.concatenate([expected[:, 0::2], expected[:, 1::2]], axis=1)
    if close(got, halves):
        return wrong(
            "All sines first, then all cosines: a layout some code uses, but this book "
            "interleaves them (column 2f sine, 2f+1 cosine).",
            "halves_layout",
        )
    positions = np.arange(n_positions)[:, None]  # [n, 1]
    f = np.arange(d_model // 2)[None, :]  # [1, d/2], pair index
    wrong_exponent = np.empty_like(expected)
    wrong_exponent[:, 0::2] = np.sin(positions / 10000 ** (f / d_model))
    wrong_exponent[:, 1::2] = np.cos(positions / 10000 ** (f / d_model))
    if close(got, wrong_exponent):
        return wrong(
            "The exponent is 2f / d_model, where f indexes the pair (the paper's 2i / "
            "d_model): you used f / d_model.",
            "wrong_exponent",
        )
    return wrong(
        "Row i is position i: PE[i, 2f] = sin(i / 10000^(2f/d_model)), PE[i, 2f+1] = cos(the same).",
        "other",
    )
