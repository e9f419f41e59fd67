"""What the tensor-only parts of chapter 13 check about their inputs, written once.

Private, like ``_validate``: a layer's input ``X`` is ``[B, n, d_model]`` of the layer's
dtype (lists and NumPy arrays converted), and a helper that computes with torch only
(``RMSNorm``, ``repeat_kv``, ``soft_cap``, ``sink_softmax``) is given a floating tensor;
otherwise a ``ValueError`` says what was passed and what to pass instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._validate import float_tensor, is_tensor

__all__ = ["layer_input", "need_tensor"]


def layer_input(name: str, X: Any, d_model: int, dtype: torch.dtype) -> torch.Tensor:
    """``X`` as a ``[B, n, d_model]`` tensor of a layer's ``dtype``, or a ``ValueError`` saying what to pass.

    A list or NumPy array becomes a tensor of ``dtype``; a tensor of another floating
    dtype is refused with the conversion to make (``float_tensor``).
    """
    X = float_tensor(name, X, dtype)
    if X.dim() != 3 or X.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have shape [B, n, d_model={d_model}]; got {list(X.shape)}"
            + (
                " (add a batch axis with X[None])"
                if X.dim() == 2 and X.shape[-1] == d_model
                else ""
            )
        )
    return X


def need_tensor(
    name: str,
    value: Any,
    wanted: str,
    *,
    ndim: int | None = None,
    last: int | None = None,
    shape: tuple[int, ...] | None = None,
) -> None:
    """A ``ValueError`` unless ``value`` is a floating torch tensor of the shape ``wanted``.

    ``wanted`` is the shape in the book's notation, as the message shows it; ``ndim``,
    ``last`` (the last dimension) and ``shape`` are what is checked, when given.
    """
    if not is_tensor(value):
        hint = f" (torch.from_numpy({name}))" if isinstance(value, np.ndarray) else ""
        raise ValueError(
            f"{name} must be a floating torch tensor {wanted}; got {_what(value)}{hint}"
        )
    if not value.dtype.is_floating_point:
        raise ValueError(
            f"{name} must be a floating torch tensor {wanted}; got {_what(value)} (use .float())"
        )
    if (
        (ndim is not None and value.ndim != ndim)
        or (last is not None and value.shape[-1:] != (last,))
        or (shape is not None and tuple(value.shape) != shape)
    ):
        raise ValueError(f"{name} must have shape {wanted}; got {list(value.shape)}")


def _what(value: Any) -> str:
    """What ``value`` is, in a few words, for a message."""
    if is_tensor(value) or isinstance(value, np.ndarray):
        kind = "torch tensor" if is_tensor(value) else "NumPy array"
        return f"a {kind} of dtype {value.dtype}"
    return f"a {type(value).__name__}"
