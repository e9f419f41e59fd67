"""The explorer's inputs: tokens, heads and embeddings checked and arranged (chapters 4 to 7).

``lessons.explorer`` accepts what a reader has at hand (lists, NumPy arrays, torch
tensors; one head or several, stacked or side by side in the columns); these
functions turn it into float64 NumPy arrays rounded for the page, or raise a
``ValueError`` naming the input and its shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lessons._validate import float_input, is_int, positive_int
from lessons.multihead import split_heads

__all__ = [
    "DECIMALS",
    "MAX_NUMBERS",
    "MAX_TOKENS",
    "embeddings",
    "float_array",
    "heads_from",
    "number",
    "padding_length",
    "rounded",
    "rows",
    "slider_value",
    "tokens_from",
]

#: The most tokens the explorer shows: an n x n matrix of weights stays readable at the
#: book's width up to here (and the page stays small: its size grows like n^2).
MAX_TOKENS = 32

#: Embedded numbers are rounded to this many decimals, so the page is the same everywhere.
DECIMALS = 10

#: The most numbers the page embeds (Q, K, V and X together), about 1.5 MB of HTML.
MAX_NUMBERS = 65_536


def heads_from(
    Q: Any, K: Any, V: Any, heads: Any, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``Q, K [h, n, d_k]`` and ``V [h, n, d_v]`` from one head, stacked heads, or columns to split.

    Returns the three arrays and whether they were split from wider columns.
    """
    arrays = {name: float_array(name, a, (2, 3)) for name, a in (("Q", Q), ("K", K), ("V", V))}
    shapes = ", ".join(f"{name} {tuple(a.shape)}" for name, a in arrays.items())
    if len({a.ndim for a in arrays.values()}) != 1:
        raise ValueError(f"Q, K and V must all be 2-D or all 3-D; got {shapes}")
    Q, K, V = arrays["Q"], arrays["K"], arrays["V"]
    heads = positive_int("heads", heads, allow_none=True)
    split = False
    if heads is not None and Q.ndim == 2:
        for name, a in arrays.items():
            if a.shape[-1] % heads:
                raise ValueError(
                    f"heads={heads} must divide the width of {name} to split it into heads; "
                    f"got {shapes}"
                )
        Q, K, V = (split_heads(a[None], heads)[0] for a in (Q, K, V))  # [h, n, d]
        split = heads > 1
    elif heads is not None and Q.shape[0] != heads:
        raise ValueError(f"heads={heads} but the inputs hold {Q.shape[0]} heads: {shapes}")
    if Q.ndim == 2:
        Q, K, V = Q[None], K[None], V[None]  # [1, n, d]
    if not Q.shape[0] == K.shape[0] == V.shape[0]:
        raise ValueError(f"Q, K and V must hold the same number of heads; got {shapes}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"Q and K must have the same d_k (last dimension) to be compared; got {shapes}"
        )
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.shape[1] != n:
            raise ValueError(
                f"one row per token: there are {n} tokens, but {name} has {a.shape[1]} rows "
                f"({shapes})"
            )
    total = Q.size + K.size + V.size
    if total > MAX_NUMBERS:
        raise ValueError(
            f"Q, K and V hold {total} numbers together; the explorer's page embeds at most "
            f"{MAX_NUMBERS}: use fewer heads or narrower Q, K, V ({shapes})"
        )
    return rounded(Q), rounded(K), rounded(V), split


def embeddings(X: Any, features: Any, n: int) -> tuple[np.ndarray | None, tuple[str, ...] | None]:
    """``X [n, d_model]`` rounded, and the names of its columns; both optional."""
    if X is None:
        if features is not None:
            raise ValueError("features name the columns of X; give X too")
        return None, None
    X_array = float_array("X", X, (2,))
    if X_array.shape[0] != n:
        raise ValueError(
            f"one row of X per token: there are {n} tokens, but X has shape {tuple(X_array.shape)}"
        )
    if X_array.size > MAX_NUMBERS:
        raise ValueError(
            f"X holds {X_array.size} numbers; the explorer's page embeds at most {MAX_NUMBERS}: "
            f"use fewer columns (X has shape {tuple(X_array.shape)})"
        )
    if features is None:
        return rounded(X_array), None
    if isinstance(features, str) or not hasattr(features, "__iter__"):
        raise ValueError(f"features must be a list of names, one per column of X; got {features!r}")
    names = tuple(str(f) for f in features)
    if len(names) != X_array.shape[1]:
        raise ValueError(
            f"features must name each of X's {X_array.shape[1]} columns; "
            f"got {len(names)} names for X of shape {tuple(X_array.shape)}"
        )
    return rounded(X_array), names


def tokens_from(tokens: Any) -> tuple[str, ...]:
    """The tokens as strings: a list (ints allowed) or one string split on spaces."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    try:
        items = list(tokens)
    except TypeError:
        raise ValueError(
            f"tokens must be a list of strings, one per row; got {type(tokens).__name__}"
        ) from None
    if not items:
        raise ValueError("tokens must hold at least one token")
    if len(items) > MAX_TOKENS:
        raise ValueError(
            f"tokens: the explorer shows at most {MAX_TOKENS} tokens readably; got "
            f"{len(items)}. Explore a slice of the sequence (tokens[:{MAX_TOKENS}] and "
            f"the same rows of Q, K and V)"
        )
    for i, item in enumerate(items):
        if not isinstance(item, str | int) or isinstance(item, bool):
            raise ValueError(
                f"tokens must be a flat list of strings (one per row of Q, K, V); "
                f"item {i} is {item!r}, a {type(item).__name__}"
            )
    return tuple(str(item) for item in items)


def float_array(name: str, a: Any, ndims: tuple[int, ...]) -> np.ndarray:
    """``a`` as a float64 array with one of ``ndims`` dimensions, non-empty and finite."""
    array = float_input(name, a, allow_empty=True)
    if array.ndim not in ndims:
        wanted = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {wanted}; got shape {tuple(array.shape)}")
    if 0 in array.shape:
        raise ValueError(f"{name} must not be empty; got shape {tuple(array.shape)}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} of shape {tuple(array.shape)} holds NaN or inf")
    return array


def number(x: Any) -> float:
    """A Python float rounded to ``DECIMALS`` decimals, without a sign on zero."""
    return round(float(x), DECIMALS) + 0.0


def rows(a: Any) -> list[list[float]]:
    """A 2-D array ``[r, c]`` as nested lists of rounded floats, ready for JSON."""
    return [[number(x) for x in row] for row in np.asarray(a)]


def rounded(a: np.ndarray) -> np.ndarray:
    """``a`` with every entry rounded as the page shows it (``number``)."""
    return np.vectorize(number, otypes=[np.float64])(a)


def padding_length(length: Any, n: int) -> int | None:
    """``length``, the number of real tokens of ``n`` (chapter 6), checked; ``None`` passes.

    Raises:
        ValueError: naming ``length`` unless it is an integer from 1 to ``n``
            (``bool`` refused).
    """
    if length is None:
        return None
    if not is_int(length) or not 1 <= length <= n:
        raise ValueError(
            f"length must be an integer from 1 to {n} (the number of tokens), "
            f"or None for no padding; got {length!r}"
        )
    return int(length)


def slider_value(t: Any, slider: tuple[float, float, float]) -> float:
    """The temperature ``t`` snapped to the slider ``(low, high, step)``'s nearest value.

    Raises:
        ValueError: naming ``temperature`` unless it is a number on the slider.
    """
    low, high, step = slider
    if isinstance(t, bool) or not isinstance(t, int | float):
        raise ValueError(f"temperature must be a number; got {t!r}")
    steps = float(t) / step
    if not (low <= t <= high and abs(steps - round(steps)) < 1e-9):
        raise ValueError(
            f"temperature must lie between {low} and {high} in steps of {step} "
            f"(the slider's values); got {float(t)}"
        )
    return round(round(steps) * step, 2)
