"""Self-checks of chapter 13 (Attention in today's models): windows, shared KV heads, sinks, latents."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from .._validate import as_numpy
from ..kv_cache import window_mask
from ..modern import repeat_kv, sink_softmax
from ..positions import rope
from .verdict import Verdict, as_float_array, catalogued, generic, judge, wrong

__all__ = [  # in the order of the chapter's exercises
    "check_window_mask",
    "check_kv_heads",
    "check_sink_weights",
    "check_absorbed_scores",
]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_window_mask": {
        "window_plus_one": "let each query see w + 1 keys (i - j <= w instead of i - j < w)",
        "window_minus_one": "let each query see only w - 1 keys, dropping the oldest one it may see",
        "mask_direction": "turned the mask around, letting queries see later keys instead of earlier",
        "no_window": "gave the plain causal mask, without the window",
        **generic("not_a_number", "wrong_shape", "other"),
    },
    "check_kv_heads": {
        "repeat_not_interleave": "used repeat where repeat_interleave maps query heads to KV heads, "
        "so query head g read KV head g mod h_kv",
        "not_shared": "left the KV heads unshared, one per KV head instead of one per query head",
        **generic("not_a_number", "wrong_shape", "other"),
    },
    "check_sink_weights": {
        "sink_in_numerator": "added the sink to each weight's numerator as well as to the "
        "denominator",
        "sink_ignored": "left the sink out, so every row summed to 1",
        "sink_not_exponentiated": "added the sink logit itself to the denominator instead of exp(s)",
        "sink_column_kept": "kept the sink's own column, one weight more per row",
        **generic("not_a_number", "wrong_shape", "other"),
    },
    "check_absorbed_scores": {
        "rope_on_latent": "rotated the latent (and the query in latent space) with RoPE, which "
        "breaks the absorption of W_UK into the query",
        "no_rope": "forgot to rotate the RoPE parts of the query and the keys",
        "latent_part_only": "left out the decoupled RoPE part of the score",
        "scaled_by_latent_width": "divided by sqrt(r), the latent's width, instead of "
        "sqrt(d_nope + d_R), the width of a head's query",
        "no_scaling": "did not divide the scores by the square root of the head's query width",
        **generic("not_a_number", "wrong_shape", "other"),
    },
}


def _described(check: str, mistakes: dict[str, tuple[Any, str]]) -> dict[str, tuple[Any, str]]:
    """Each message starts with what the answer looks like, in the catalogue's words."""
    return {
        name: (value, f"It looks as if you {MISTAKES[check][name]}. {fix}")
        for name, (value, fix) in mistakes.items()
    }


def window_mask_mistakes(n: int, window: int) -> dict[str, tuple[Any, str]]:
    """The named wrong masks for ``n`` tokens and a window of ``window`` (chapter 13)."""
    positions = np.arange(n)
    return _described(
        "check_window_mask",
        {
            "window_plus_one": (
                window_mask(positions, positions, window + 1),
                "Each query sees w + 1 keys: the window counts the query itself, so keep i - j < w.",
            ),
            "window_minus_one": (
                window_mask(positions, positions, window - 1) if window > 1 else None,
                "Each query sees only w - 1 keys: keep i - j < w, which counts the query itself.",
            ),
            "mask_direction": (
                window_mask(positions, positions, window).T,
                "Your mask lets queries see later keys: rows are queries, and key j is seen when "
                "j <= i.",
            ),
            "no_window": (
                window_mask(positions, positions),
                "That is chapter 6's causal mask: also drop the keys w or more positions back.",
            ),
        },
    )


@catalogued(MISTAKES)
def check_window_mask(answer: Any, n: int, window: int) -> Verdict:
    """Check a sliding-window causal mask ``[n, n]``, True = may attend (chapter 13)."""
    expected = window_mask(np.arange(n), np.arange(n), window)  # [n, n]
    verdict = judge(
        answer,
        expected,
        what=f"a boolean [{n}, {n}] mask",
        praise=f"Each query sees itself and the {window - 1} keys before it, never a later one.",
        mistakes=window_mask_mistakes(n, window),
        shape_message="The mask is [n_q, n_k] = {expected}; yours is {got}.",
    )
    if verdict is not None:
        return verdict
    return wrong("Keep key j for query i when 0 <= i - j < w.", "other")


def kv_heads_mistakes(K: torch.Tensor, num_heads: int) -> dict[str, tuple[Any, str]]:
    """The named wrong ways to share ``K [B, h_kv, n, d]`` with ``num_heads`` query heads."""
    group = num_heads // K.shape[1]
    return _described(
        "check_kv_heads",
        {
            "repeat_not_interleave": (
                K.repeat(1, group, 1, 1).numpy() if K.shape[1] > 1 and group > 1 else None,
                "Query head g reads KV head g mod h_kv: that is repeat. Query heads 0 .. group - 1 "
                "share KV head 0, so use repeat_interleave along the head axis.",
            ),
            "not_shared": (
                K.numpy() if group > 1 else None,
                "These are the KV heads as they are: give each query head its KV head.",
            ),
        },
    )


@catalogued(MISTAKES)
def check_kv_heads(answer: Any, K: Any, num_heads: int) -> Verdict:
    """Check ``K [B, h_kv, n, d]`` shared out to ``num_heads`` query heads, ``[B, h, n, d]`` (chapter 13)."""
    K = torch.as_tensor(as_numpy(K, dtype=np.float64))  # [B, h_kv, n, d]
    expected = repeat_kv(K, num_heads)  # [B, h, n, d]
    verdict = judge(
        answer,
        expected.numpy(),
        what="a [B, h, n, d] tensor",
        praise="Query heads 0 .. group - 1 read KV head 0, the next group KV head 1, and so on.",
        mistakes=kv_heads_mistakes(K, num_heads),
        kind="a tensor",
        shape_message="One key block per query head: [B, h, n, d] = {expected}; yours is {got}.",
    )
    if verdict is not None:
        return verdict
    return wrong("Repeat each KV head group = h / h_kv times, next to itself.", "other")


def sink_weights_mistakes(Z: torch.Tensor, sinks: torch.Tensor) -> dict[str, tuple[Any, str]]:
    """The named wrong sink softmaxes of ``Z [h, n_q, n_k]`` with ``sinks [h]`` (chapter 13)."""
    e, s = Z.exp(), sinks.view(-1, 1, 1)  # [h, n_q, n_k], [h, 1, 1]
    denominator = e.sum(-1, keepdim=True)  # [h, n_q, 1]
    with_column = torch.cat([Z, s.expand(*Z.shape[:-1], 1)], dim=-1).softmax(-1)  # [h, n_q, n_k+1]
    return _described(
        "check_sink_weights",
        {
            "sink_in_numerator": (
                ((e + s.exp()) / (denominator + s.exp())).numpy(),
                "The sink belongs to the denominator only: it takes weight and gives back no value.",
            ),
            "sink_ignored": (
                Z.softmax(-1).numpy(),
                "Your rows sum to 1: the sink's exp(s) is missing from the denominator.",
            ),
            "sink_not_exponentiated": (
                (e / (denominator + s)).numpy(),
                "The sink is a logit, like a score: add exp(s) to the denominator, not s.",
            ),
            "sink_column_kept": (
                with_column.numpy(),
                "Drop the sink's column after the softmax: it has no value to average.",
            ),
        },
    )


@catalogued(MISTAKES)
def check_sink_weights(answer: Any, Z: Any, sinks: Any) -> Verdict:
    """Check the weights ``[h, n_q, n_k]`` of scores ``Z`` with one sink logit per head (chapter 13)."""
    Z = torch.as_tensor(as_numpy(Z, dtype=np.float64))  # [h, n_q, n_k]
    sinks = torch.as_tensor(as_numpy(sinks, dtype=np.float64))  # [h]
    expected = sink_softmax(Z[None], sinks)[0]  # [h, n_q, n_k]
    verdict = judge(
        answer,
        expected.numpy(),
        what="an [h, n_q, n_k] array of weights",
        praise="exp(z) over exp(s) plus the row's exp(z)s: each row sums to less than 1.",
        mistakes=sink_weights_mistakes(Z, sinks),
        shape_message="The weights are [h, n_q, n_k] = {expected}; yours is {got}.",
    )
    if verdict is not None:
        return verdict
    got = as_float_array(answer)
    if got is not None and not np.isfinite(got).all():
        return wrong("Subtract each row's maximum before exp, as in chapter 2.", "other")
    return wrong("A[i, j] = exp(Z[i, j]) / (exp(s) + sum over j' of exp(Z[i, j'])).", "other")


def absorbed_scores(
    q_nope: Any, q_rope: Any, W_UK: Any, C: Any, k_rope: Any, *, rotate_latent: bool = False
) -> np.ndarray:
    """One head's scores ``[n]`` for the newest token from the latent cache (chapter 13).

    ``q_nope [d_nope]``, ``q_rope [d_R]`` (not rotated; the query is at position ``n - 1``),
    ``W_UK [r, d_nope]``, the cached latents ``C [n, r]`` and RoPE keys ``k_rope [n, d_R]``
    (not rotated; positions ``0 .. n - 1``). ``rotate_latent`` makes the mistake of rotating
    the latent side too.
    """
    C, k_rope = as_numpy(C, dtype=np.float64), as_numpy(k_rope, dtype=np.float64)
    n = C.shape[0]
    q_latent = as_numpy(W_UK, dtype=np.float64) @ as_numpy(q_nope, dtype=np.float64)  # [r]
    if rotate_latent:
        q_latent = rope(q_latent[None], [n - 1])[0]  # [r]
        C = rope(C)  # [n, r]
    q_r = rope(as_numpy(q_rope, dtype=np.float64)[None], [n - 1])[0]  # [d_R]
    width = len(q_nope) + len(q_r)
    return (C @ q_latent + rope(k_rope) @ q_r) / math.sqrt(width)  # [n]


def absorbed_scores_mistakes(
    q_nope: Any, q_rope: Any, W_UK: Any, C: Any, k_rope: Any
) -> dict[str, tuple[Any, str]]:
    """The named wrong absorbed scores (chapter 13)."""
    C, k_rope = as_numpy(C, dtype=np.float64), as_numpy(k_rope, dtype=np.float64)
    q_nope, q_rope = as_numpy(q_nope, dtype=np.float64), as_numpy(q_rope, dtype=np.float64)
    n, r = C.shape
    width = len(q_nope) + len(q_rope)
    latent = C @ (as_numpy(W_UK, dtype=np.float64) @ q_nope)  # [n]
    rotated = rope(k_rope) @ rope(q_rope[None], [n - 1])[0]  # [n]
    return _described(
        "check_absorbed_scores",
        {
            "rope_on_latent": (
                absorbed_scores(q_nope, q_rope, W_UK, C, k_rope, rotate_latent=True)
                if r % 2 == 0
                else None,
                "RoPE goes on the small decoupled part only: the latent stays unrotated, so W_UK can "
                "move into the query.",
            ),
            "no_rope": (
                (latent + k_rope @ q_rope) / math.sqrt(width),
                "Rotate q_rope to position n - 1 and each k_rope to its own position first.",
            ),
            "latent_part_only": (
                latent / math.sqrt(width),
                "Add the decoupled part, q_rope · k_rope, rotated, to the latent part.",
            ),
            "scaled_by_latent_width": (
                (latent + rotated) / math.sqrt(r),
                "Divide by sqrt(d_nope + d_R), the width of the head's query, not by sqrt(r).",
            ),
            "no_scaling": (
                latent + rotated,
                "Divide the scores by sqrt(d_nope + d_R), as the naive form's Q K^T / sqrt(d_k).",
            ),
        },
    )


@catalogued(MISTAKES)
def check_absorbed_scores(
    answer: Any, q_nope: Any, q_rope: Any, W_UK: Any, C: Any, k_rope: Any
) -> Verdict:
    """Check one head's decoding scores ``[n]`` computed straight from the latent cache (chapter 13)."""
    expected = absorbed_scores(q_nope, q_rope, W_UK, C, k_rope)  # [n]
    verdict = judge(
        answer,
        expected,
        what=f"{len(expected)} scores, one per cached token",
        praise="W_UK moved into the query; the cache was read as it is, latents and RoPE keys.",
        mistakes=absorbed_scores_mistakes(q_nope, q_rope, W_UK, C, k_rope),
        shape_message="One score per cached token: {expected}; yours is {got}.",
    )
    if verdict is not None:
        return verdict
    return wrong(
        "Score = ((W_UK q_nope) · c_j + RoPE(q_rope) · RoPE(k_rope_j)) / sqrt(d_nope + d_R).",
        "other",
    )
