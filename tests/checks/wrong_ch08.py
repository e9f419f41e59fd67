"""Chapter 8's wrong answers (Positional encoding): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import lessons
from checks.library import (
    Givens,
    Right,
    Wrong,
    as_float32,
)


def _pe(fn):
    def make(n_positions, d_model):
        pos = np.arange(n_positions)[:, None]
        f = np.arange(d_model // 2)[None, :]
        return fn(pos, f, d_model)

    return make


def _interleave(sines, cosines):
    out = np.empty((sines.shape[0], 2 * sines.shape[1]))
    out[:, 0::2], out[:, 1::2] = sines, cosines
    return out


def _pe_from(omega):
    return _pe(lambda p, f, d: _interleave(np.sin(p * omega(f, d)), np.cos(p * omega(f, d))))


def _right_omega(f, d):
    return 1 / 10000 ** (2 * f / d)


SINUSOIDAL = [
    Wrong(
        "sine and cosine swapped",
        _pe(
            lambda p, f, d: _interleave(
                np.cos(p * _right_omega(f, d)), np.sin(p * _right_omega(f, d))
            )
        ),
        "sine_cosine_swapped",
    ),
    Wrong(
        "sines first, then cosines",
        _pe(
            lambda p, f, d: np.hstack(
                [np.sin(p * _right_omega(f, d)), np.cos(p * _right_omega(f, d))]
            )
        ),
        "halves_layout",
    ),
    Wrong("exponent f / d_model", _pe_from(lambda f, d: 1 / 10000 ** (f / d)), "wrong_exponent"),
    Wrong("multiplied by 10000^(2f/d)", _pe_from(lambda f, d: 10000 ** (2 * f / d)), "other"),
    Wrong("base 1000", _pe_from(lambda f, d: 1 / 1000 ** (2 * f / d)), "other"),
    Wrong(
        "positions from 1",
        _pe(
            lambda p, f, d: _interleave(
                np.sin((p + 1) * _right_omega(f, d)), np.cos((p + 1) * _right_omega(f, d))
            )
        ),
        "other",
    ),
    Wrong(
        "column index in the exponent",
        _pe(
            lambda p, f, d: _interleave(
                np.sin(p / 10000 ** (2 * f / d)), np.cos(p / 10000 ** ((2 * f + 1) / d))
            )
        ),
        "other",
    ),
    Wrong("the transpose", lambda n, d: _pe_from(_right_omega)(n, d).T, "wrong_shape"),
]


WRONG: dict[str, list[Wrong]] = {
    "check_sinusoidal_encoding": SINUSOIDAL,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_sinusoidal_encoding": lambda: [Givens("n = 7, d = 12", (7, 12), {})],
}


RIGHT: dict[str, list[Right]] = {
    "check_sinusoidal_encoding": [
        Right("lessons", lambda n, d: lessons.sinusoidal_encoding(n, d)),
        Right(
            "halves interleaved by stack",
            lambda n, d: np.stack(
                [
                    np.sin(np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)),
                    np.cos(np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)),
                ],
                axis=-1,
            ).reshape(n, d),
        ),
        Right("float32", as_float32(lambda n, d: lessons.sinusoidal_encoding(n, d)), everywhere=False),
    ],
}  # fmt: skip
