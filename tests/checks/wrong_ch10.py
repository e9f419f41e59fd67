"""Chapter 10's wrong answers (Complexity and efficiency): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from checks.library import (
    Givens,
    Right,
    Wrong,
)


def _bytes(fn):
    return lambda B, h, n, bytes_per_number: fn(B, h, n, bytes_per_number)


WEIGHT_BYTES = [
    Wrong("no batch", _bytes(lambda B, h, n, b: h * n * n * b), "no_batch"),
    Wrong("no heads", _bytes(lambda B, h, n, b: B * n * n * b), "no_heads"),
    Wrong("numbers, not bytes", _bytes(lambda B, h, n, b: B * h * n * n), "numbers_not_bytes"),
    Wrong("n, not n²", _bytes(lambda B, h, n, b: B * h * n * b), "n_not_n_squared"),
    Wrong(
        "a quarter of the heads (GQA's KV heads)",
        _bytes(lambda B, h, n, b: B * (h // 4) * n * n * b),
        "kv_heads_counted",
    ),
    Wrong("bits, not bytes", _bytes(lambda B, h, n, b: B * h * n * n * b * 8), "other"),
    Wrong("in MiB", _bytes(lambda B, h, n, b: B * h * n * n * b / 2**20)),
]


def _share(fn):
    def make(n, d_model, d_ff):
        proj, quad, ff = 8 * n * d_model**2, 4 * n**2 * d_model, 4 * n * d_model * d_ff
        return fn(n, d_model, d_ff, proj, quad, ff)

    return make


BLOCK_SHARE = [
    Wrong(
        "attention layer only",
        _share(lambda n, d, f, p, q, ff: q / (p + q)),
        "attention_layer_only",
    ),
    Wrong(
        "d_ff = 4 d_model",
        _share(lambda n, d, f, p, q, ff: q / (p + q + 16 * n * d * d)),
        "d_ff_taken_as_4_d_model",
    ),
    Wrong(
        "one feed-forward product",
        _share(lambda n, d, f, p, q, ff: q / (p + q + ff / 2)),
        "one_feed_forward_product",
    ),
    Wrong(
        "scores without A V",
        _share(lambda n, d, f, p, q, ff: (q / 2) / (p + ff + q / 2)),
        "scores_without_weighted_sum",
    ),
    Wrong(
        "the linear share",
        _share(lambda n, d, f, p, q, ff: (p + ff) / (p + q + ff)),
        "linear_share",
    ),
    Wrong("a ratio", _share(lambda n, d, f, p, q, ff: q / (p + ff)), "ratio_not_share"),
    Wrong(
        "three projections, no W_O",
        _share(lambda n, d, f, p, q, ff: q / (p * 3 / 4 + q + ff)),
        "other",
    ),
    Wrong("a percentage", _share(lambda n, d, f, p, q, ff: 100 * q / (p + q + ff)), "other"),
    Wrong("no projections", _share(lambda n, d, f, p, q, ff: q / (q + ff))),
]


def _update(
    z_max,
    ell,
    acc,
    scores,
    values,
    *,
    running=True,
    rescale_acc=True,
    rescale_ell=True,
    subtract=True,
    inverted=False,
):
    z_new = max(z_max, scores.max()) if running else (scores.max() if z_max == -np.inf else z_max)
    factor = np.exp(z_new - z_max) if inverted else np.exp(z_max - z_new)
    p = np.exp(scores - z_new) if subtract else np.exp(scores)
    ell = (ell * factor if rescale_ell else ell) + p.sum()
    acc = (acc * factor if rescale_acc else acc) + p @ values
    return z_new, ell, acc


def _updates(**slip):
    return lambda: lambda z_max, ell, acc, s, v: _update(z_max, ell, acc, s, v, **slip)


def _block_max_only(z_max, ell, acc, scores, values):
    """Keeps the latest block's maximum (not the running one): exact until it drops far."""
    z_new = scores.max()
    factor = np.exp(z_max - z_new)
    p = np.exp(scores - z_new)
    return z_new, ell * factor + p.sum(), acc * factor + p @ values


def _normalised_acc(z_max, ell, acc, scores, values):
    """Keeps acc as the running average instead of the weighted sum."""
    z_new = max(z_max, scores.max())
    p = np.exp(scores - z_new)
    new_ell = ell * np.exp(z_max - z_new) + p.sum()
    return z_new, new_ell, (acc * ell * np.exp(z_max - z_new) + p @ values) / new_ell


ONLINE_UPDATE = [
    Wrong("not a function", lambda: (0.0, 1.0, np.zeros(3)), "not_a_function"),
    Wrong(
        "no max subtraction",
        lambda: lambda z_max, ell, acc, s, v: (z_max, ell + np.exp(s).sum(), acc + np.exp(s) @ v),
        "overflows",
    ),
    Wrong(
        "max subtracted, old state not rescaled",
        _updates(subtract=True, rescale_acc=False, rescale_ell=False),
    ),
    Wrong("max frozen at the first block", _updates(running=False), "overflows"),
    Wrong("the block's own max", lambda: _block_max_only, "overflows"),
    Wrong("acc not rescaled", _updates(rescale_acc=False), "other"),
    Wrong("ell not rescaled", _updates(rescale_ell=False), "other"),
    Wrong("rescale inverted", _updates(inverted=True)),
    Wrong("acc kept as an average", lambda: _normalised_acc, "other"),
    Wrong("raises", lambda: lambda z_max, ell, acc, s, v: s.nonexistent, "raises"),
    Wrong(
        "state not returned",
        lambda: lambda z_max, ell, acc, s, v: _update(z_max, ell, acc, s, v)[1:],
        "raises",
    ),
]


def _online(z_max, ell, acc, scores, values):
    z_new = max(z_max, float(np.max(scores)))
    rescale = math.exp(z_max - z_new) if z_max > -math.inf else 0.0
    p = np.exp(scores - z_new)
    return z_new, ell * rescale + p.sum(), acc * rescale + p @ values


def _online_inplace(z_max, ell, acc, scores, values):
    z_new = np.maximum(z_max, scores.max())
    rescale = np.exp(z_max - z_new)
    p = np.exp(scores - z_new)
    acc *= rescale
    acc += p @ values
    return z_new, ell * rescale + p.sum(), acc


def _online_torch(z_max, ell, acc, scores, values):
    scores, values = torch.as_tensor(scores), torch.as_tensor(values)
    z_new = torch.maximum(torch.as_tensor(z_max, dtype=scores.dtype), scores.max())
    rescale = torch.exp(torch.as_tensor(z_max, dtype=scores.dtype) - z_new)
    p = torch.exp(scores - z_new)
    return z_new, ell * rescale + p.sum(), torch.as_tensor(acc) * rescale + p @ values


WRONG: dict[str, list[Wrong]] = {
    "check_block_quadratic_share": BLOCK_SHARE,
    "check_online_update": ONLINE_UPDATE,
    "check_weight_bytes": WEIGHT_BYTES,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_block_quadratic_share": lambda: [
        Givens("n = 512, d = 768, d_ff = 2048", (), {"n": 512, "d_model": 768, "d_ff": 2048})
    ],
    "check_weight_bytes": lambda: [Givens("B = 3, h = 8, n = 1024, 2 bytes", (3, 8, 1024, 2), {})],
}


RIGHT: dict[str, list[Right]] = {
    "check_block_quadratic_share": [
        Right("n / (n + 2d + d_ff)", lambda n, d_model, d_ff: n / (n + 2 * d_model + d_ff)),
        Right(
            "rounded to 4 places", lambda n, d_model, d_ff: round(n / (n + 2 * d_model + d_ff), 4)
        ),
        Right("float32", lambda n, d_model, d_ff: np.float32(n / (n + 2 * d_model + d_ff))),
    ],
    "check_online_update": [
        Right("the solution", lambda: _online),
        Right("in place", lambda: _online_inplace),
        Right("torch", lambda: _online_torch),
    ],
    "check_weight_bytes": [
        Right("product", lambda B, h, n, b: B * h * n * n * b),
        Right("float", lambda B, h, n, b: float(B * h * n * n * b)),
    ],
}  # fmt: skip
