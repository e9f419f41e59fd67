"""How ``check_one_way_look`` (chapter 3) reads a hand-set ``W_Q, W_K``: layout, weights, mistake.

Chapter 3's exercise asks for two projections that make one word look at another
while that other word looks at nothing in particular; a design can miss in many
ways, and this module names each (the names are described in ``ch03.MISTAKES``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..softmax import softmax
from .verdict import Verdict, as_float_array, wrong

__all__ = ["EVEN_TOLERANCE", "diagnose", "layout_problem", "one_way_weights", "reached"]

#: How far from ``1/n`` a weight of an "idle" row may be in ``check_one_way_look``.
EVEN_TOLERANCE = 0.01


def layout_problem(name: str, W: Any, d_model: int) -> np.ndarray | Verdict:
    """``W`` as a float ``[d_model, d_k]`` array, or the verdict that says what is wrong with it."""
    got = as_float_array(W)
    if got is None:
        return wrong(
            f"{name} should be an array of numbers; got {type(W).__name__}.", "not_a_number"
        )
    if not np.isfinite(got).all():
        return wrong(f"{name} holds NaN or inf; every entry must be a finite number.", "not_finite")
    if got.ndim == 1 and got.size == d_model:
        return wrong(
            f"{name} has shape [{d_model}]: make it a column, shape [d_model, d_k] = "
            f"[{d_model}, 1], for example {name}.reshape({d_model}, 1).",
            "one_dimensional",
        )
    if got.ndim == 2 and got.shape[0] != d_model and got.shape[1] == d_model:
        return wrong(
            f"{name} has shape {list(got.shape)}, [d_k, d_model]: that is the layout "
            f"nn.Linear stores. The book computes X @ W, so W is [d_model, d_k]: use {name}.T.",
            "linear_layout",
        )
    if got.ndim != 2 or got.shape[0] != d_model or 0 in got.shape:
        return wrong(
            f"{name} must have shape [d_model, d_k], one row per feature ({d_model} rows); "
            f"yours has shape {list(got.shape)}.",
            "wrong_shape",
        )
    return got


def one_way_weights(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray) -> np.ndarray | None:
    """``A = softmax(S / sqrt(d_k))`` with ``S = (X W_Q)(X W_K)^T``, ``[n, n]``; None if it overflows."""
    with np.errstate(all="ignore"):
        S = (X @ W_Q) @ (X @ W_K).T  # [n_q, n_k], raw scores
        Z = S / np.sqrt(W_Q.shape[1])  # [n_q, n_k], scaled scores
    if not np.isfinite(Z).all():
        return None
    return softmax(Z)  # [n_q, n_k]


def reached(A: np.ndarray, i: int, j: int, share: float) -> bool:
    """True when row ``i`` puts at least ``share`` on ``j`` and row ``j`` is even."""
    even = np.abs(A[j] - 1 / A.shape[1]).max() <= EVEN_TOLERANCE
    return bool(A[i, j] >= share and even)


def diagnose(
    A: np.ndarray,
    X: np.ndarray,
    W_Q: np.ndarray,
    W_K: np.ndarray,
    tokens: list[str],
    i: int,
    j: int,
    share: float,
) -> Verdict:
    """The named mistake of a design that misses the goal (``check_one_way_look``)."""
    looker, target, n = tokens[i], tokens[j], len(tokens)
    if W_Q.shape[0] == W_Q.shape[1] == W_K.shape[1]:
        flipped = one_way_weights(X, W_Q.T, W_K.T)  # [n, n]
        if flipped is not None and reached(flipped, i, j, share):
            return wrong(
                "Your matrices do the job as X @ W.T, the nn.Linear layout; "
                "the book computes X @ W, so transpose both.",
                "works_transposed",
            )
    if np.allclose(W_Q, W_K):
        return wrong(
            "With one matrix for queries and keys the scores are symmetric: the score "
            f"from '{looker}' to '{target}' always equals the score back, so '{looker}' "
            f"cannot single out '{target}' while '{target}' stays idle. Use separate "
            "W_Q and W_K.",
            "shared_matrix",
        )
    if A[i, j] < share and A[j, i] >= share:
        return wrong(
            f"The look goes the wrong way: '{target}' looks at '{looker}' ({A[j, i]:.2f}). "
            "The query reads what the word that looks has, the key what the word looked "
            "at has: swap W_Q and W_K.",
            "wrong_way",
        )
    if A[i, j] >= share:
        low, high = A[j].min(), A[j].max()
        return wrong(
            f"'{looker}' looks at '{target}' ({A[i, j]:.2f}), but '{target}' is not idle: "
            f"its weights run from {low:.2f} to {high:.2f} instead of {1 / n:.2f} each. "
            f"Its query must be zero: '{target}' has some of a feature your W_Q reads, "
            "and another entry of W_Q can cancel it.",
            "target_not_idle",
        )
    best = int(np.argmax(A[i]))
    asks_nothing = np.allclose(X[i] @ W_Q, 0.0, atol=1e-12)  # its query is zero
    even = np.abs(A[i] - 1 / n).max() <= EVEN_TOLERANCE
    if asks_nothing or (even and best != j):  # a weak look the right way is "too weak"
        return wrong(
            f"'{looker}' asks nothing: its weights are even, {1 / n:.2f} each. "
            f"W_Q must read a feature that '{looker}' has.",
            "looker_asks_nothing",
        )
    if best == j:
        return wrong(
            f"The right direction, but too weak: '{target}' gets the largest share of "
            f"the attention of '{looker}', {A[i, j]:.2f}, not yet {share}. Make the scores larger "
            "(a bigger entry in W_Q or W_K), as a lower temperature does (chapter 2).",
            "too_weak",
        )
    return wrong(
        f"'{looker}' looks most at '{tokens[best]}' ({A[i, best]:.2f}), not at '{target}' "
        f"({A[i, j]:.2f}). W_K should read a feature that makes '{target}' stand out.",
        "other_target",
    )
