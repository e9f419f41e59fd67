"""What every ``lessons`` module checks about its inputs, written once.

Private: the chapters never call these; the public functions do, so that a learner's
mistake gets the same clear message wherever it is made. The rules:

- A *size* (a length, a width, a head count, a number of steps) is an integer >= 1.
  Python and NumPy integers are accepted; ``bool`` is refused (``True`` is not a size,
  though Python lets it pass as 1), and so are floats, even whole ones like ``8.0``.
- An *array-or-tensor* becomes a NumPy array with ``as_numpy``: a torch tensor is
  detached from autograd and moved to the CPU first, so the same call works on a
  tensor that needs grad or lives on a GPU.
- A shape error names the argument, the shape it has and the shape it should have,
  in the book's notation (``[n, d_k]``).
- A *seed* is an integer >= 0 or a ``torch.Generator``.

Every message names the argument at fault, so the reader knows what to change.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import torch

__all__ = [
    "as_numpy",
    "broadcast",
    "check_ndim",
    "check_qkv_shapes",
    "check_task_targets",
    "finite_number",
    "generator",
    "is_tensor",
    "positive_int",
]


def is_tensor(x: Any) -> bool:
    """True for a torch tensor (the one test used everywhere in ``lessons``)."""
    return isinstance(x, torch.Tensor)


def positive_int(name: str, value: Any, *, allow_none: bool = False) -> int | None:
    """``value`` as an ``int`` if it is an integer >= 1, else a ``ValueError`` naming ``name``.

    ``bool`` and floats are refused; NumPy integers are accepted. With
    ``allow_none``, ``None`` passes through unchanged.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)) and value >= 1:
        return int(value)
    wanted = "a positive integer" + (" or None" if allow_none else "")
    raise ValueError(f"{name} must be {wanted}; got {value!r}")


def finite_number(name: str, value: Any, *, positive: bool = False) -> float:
    """``value`` as a ``float`` if it is a finite real number (and > 0 with ``positive``)."""
    if isinstance(value, Real) and not isinstance(value, (bool, np.bool_)):
        number = float(value)
        if math.isfinite(number) and (number > 0 or not positive):
            return number
    wanted = "a finite number" + (" > 0" if positive else "")
    raise ValueError(f"{name} must be {wanted}; got {value!r}")


def as_numpy(value: Any, *, dtype: Any = None) -> np.ndarray:
    """A NumPy array from an array, a nested list or a torch tensor (detached, on the CPU)."""
    if is_tensor(value):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=dtype)


def check_ndim(name: str, a: Any, ndims: tuple[int, ...], wanted: str) -> None:
    """A ``ValueError`` unless ``a`` has one of ``ndims`` dimensions.

    ``wanted`` is the shape in the book's notation, as the message shows it:
    ``check_ndim("Q", Q, (2,), "[n, d_k]")``.
    """
    if np.ndim(a) not in ndims:
        raise ValueError(f"{name} must have shape {wanted}; got shape {list(np.shape(a))}")


def check_qkv_shapes(Q: Any, K: Any, V: Any) -> None:
    """``ValueError`` unless Q ``[..., n_q, d_k]``, K ``[..., n_k, d_k]``, V ``[..., n_k, d_v]`` fit."""
    for name, a, wanted in (("Q", Q, "n_q, d_k"), ("K", K, "n_k, d_k"), ("V", V, "n_k, d_v")):
        if a.ndim < 2:
            raise ValueError(
                f"{name} must have at least 2 dimensions [..., {wanted}]; got shape {tuple(a.shape)}"
            )
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"Q and K must have the same d_k (last dimension) to be compared: "
            f"Q has shape {tuple(Q.shape)} (d_k={Q.shape[-1]}), "
            f"K has shape {tuple(K.shape)} (d_k={K.shape[-1]})"
        )
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"V needs one row per key: K has shape {tuple(K.shape)} ({K.shape[-2]} keys), "
            f"V has shape {tuple(V.shape)} ({V.shape[-2]} rows)"
        )


def broadcast(shapes: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The common shape of the named leading (batch/head) shapes, or a ``ValueError`` listing them."""
    try:
        return tuple(np.broadcast_shapes(*(tuple(s) for s in shapes.values())))
    except ValueError:
        listed = ", ".join(f"{name} {list(s)}" for name, s in shapes.items())
        raise ValueError(
            f"the leading (batch/head) dimensions do not broadcast: {listed}"
        ) from None


def generator(seed: int | torch.Generator, name: str = "seed") -> torch.Generator:
    """A ``torch.Generator``: ``seed`` itself, or a fresh one seeded with the integer ``seed``."""
    if isinstance(seed, torch.Generator):
        return seed
    if not isinstance(seed, Integral) or isinstance(seed, (bool, np.bool_)) or seed < 0:
        raise ValueError(
            f"{name} must be a non-negative integer or a torch.Generator; got {seed!r}"
        )
    return torch.Generator().manual_seed(int(seed))


def check_task_targets(
    target_positions: Sequence[int], target_value: int, n_tokens: int, vocab_size: int
) -> tuple[int, ...]:
    """The target positions of a ``position_task`` as ints, checked against its sizes."""
    targets = tuple(target_positions)
    if not targets:
        raise ValueError("target_positions must name at least one position")
    bad = [t for t in targets if not isinstance(t, Integral) or not 1 <= t <= n_tokens]
    if bad:
        raise ValueError(
            f"target positions must lie between 1 and n_tokens={n_tokens} "
            f"(position 0 is [CLS]); got {bad}"
        )
    if len(set(targets)) != len(targets):
        raise ValueError(f"target positions must be distinct; got {list(targets)}")
    if not isinstance(target_value, Integral) or not 0 <= target_value < vocab_size:
        raise ValueError(
            f"target_value must be an ordinary token, between 0 and vocab_size - 1 = "
            f"{vocab_size - 1}; got {target_value!r}"
        )
    return tuple(int(t) for t in targets)
