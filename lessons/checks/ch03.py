"""Self-checks of chapter 3 (Queries, keys and values)."""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from .._validate import float_input
from .verdict import Verdict, judge, wrong

__all__ = ["check_projection"]


def check_projection(answer: Any, X: ArrayLike, W: ArrayLike) -> Verdict:
    """Check a projection of embeddings ``X [n, d_model]`` by ``W [d_model, d_out]`` (chapter 3)."""
    X, W = float_input("X", X), float_input("W", W)  # [n, d_model], [d_model, d_out]
    if X.ndim != 2 or W.ndim != 2 or X.shape[1] != W.shape[0]:
        raise ValueError(f"X [n, d_model] and W [d_model, d_out] do not fit: {X.shape}, {W.shape}")
    expected = X @ W  # [n, d_out]
    verdict = judge(
        answer,
        expected,
        what="the projected rows, shape [n, d_out]",
        praise=f"X @ W maps each of the {X.shape[0]} rows to {W.shape[1]} numbers.",
        shape_message="[n, d_model] @ [d_model, d_out] gives shape {expected}; yours has {got}.",
        mistakes=[
            (
                expected.T,
                f"This is the transpose: with row vectors the result has one row per token, "
                f"shape {list(expected.shape)}.",
            ),
            (
                X @ W.T if W.shape[0] == W.shape[1] else None,
                "You used W.T: with W stored as [d_model, d_out], the projection is X @ W.",
            ),
        ],
    )
    if verdict is not None:
        return verdict
    return wrong("Each output row is the input row times W: output[i] = X[i] @ W.")
