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
- *Numbers in* (``float_input``, ``float_tensor``) are real and finite; complex,
  text, ragged, NaN/inf and empty inputs (a dimension is a size, >= 1) are refused.
- A list or array given where a tensor is needed is converted (``float_tensor``,
  ``id_tensor``) or refused with a message saying what to pass.
- *Memory*: no array over ``MEMORY_BUDGET`` bytes; ``check_budget`` says how much.

Every message names the argument at fault, so the reader knows what to change.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np
import torch

__all__ = [
    "MEMORY_BUDGET",
    "InputTypeError",
    "all_finite",
    "as_numpy",
    "check_budget",
    "float_input",
    "float_tensor",
    "id_tensor",
    "broadcast",
    "check_ndim",
    "check_qkv_shapes",
    "finite_number",
    "generator",
    "human_bytes",
    "is_int",
    "is_tensor",
    "positive_int",
]


def is_tensor(x: Any) -> bool:
    """True for a torch tensor (the one test used everywhere in ``lessons``)."""
    return isinstance(x, torch.Tensor)


class InputTypeError(TypeError, ValueError):
    """An input of the wrong kind (complex, text): a ``TypeError``, and a ``ValueError``
    too (as NumPy's ``AxisError`` is both), so catching either of the two catches it."""


#: The most bytes one array built by ``lessons`` may take (1 GiB): a typo'd size fails at once.
MEMORY_BUDGET = 2**30


def human_bytes(num_bytes: float) -> str:
    """Bytes as a short string in B, KiB, MiB, GiB or TiB (powers of 1024)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if num_bytes < 1024:
            return f"{num_bytes:g} {unit}"
        num_bytes /= 1024
    return f"{num_bytes:g} TiB"


def check_budget(name: str, n_bytes: float) -> None:
    """A ``ValueError`` naming ``name`` if one array of ``n_bytes`` would exceed ``MEMORY_BUDGET``."""
    if n_bytes > MEMORY_BUDGET:
        raise ValueError(
            f"{name} too large: one array would need {human_bytes(n_bytes)}, more than "
            f"the {human_bytes(MEMORY_BUDGET)} that lessons allows (lessons.MEMORY_BUDGET)"
        )


def is_int(value: Any) -> bool:
    """True for a Python or NumPy integer that is not a ``bool``."""
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def positive_int(name: str, value: Any, *, allow_none: bool = False) -> int | None:
    """``value`` as an ``int`` if it is an integer >= 1, else a ``ValueError`` naming ``name``.

    ``bool`` and floats are refused; NumPy integers are accepted. With
    ``allow_none``, ``None`` passes through unchanged.
    """
    if value is None and allow_none:
        return None
    if is_int(value) and value >= 1:
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


def all_finite(t: torch.Tensor) -> bool:
    """True when a floating tensor holds no NaN or inf (fast: one sum, exact check if it is not finite)."""
    return math.isfinite(t.detach().sum().item()) or bool(torch.isfinite(t).all())


def _kind(value: Any) -> str:
    """What ``value`` is, in a few words, for a message."""
    if is_tensor(value):
        return f"a torch tensor of dtype {value.dtype}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array of dtype {value.dtype}"
    return f"a {type(value).__name__}"


def float_input(
    name: str,
    value: Any,
    *,
    dtype: Any = np.float64,
    allow_neg_inf: bool = False,
    allow_empty: bool = False,
) -> np.ndarray:
    """``value`` (number, nested list, array or tensor) as a finite real NumPy array of ``dtype``.

    With ``dtype=None`` the array keeps its own (real) dtype: integers stay integers.

    Raises:
        TypeError: naming ``name``, for complex, text or other non-numeric input.
        ValueError: naming ``name``, for ragged lists, an empty array (unless
            ``allow_empty``), NaN or inf (``-inf`` is allowed with ``allow_neg_inf``).
    """
    raw = value.detach().cpu() if is_tensor(value) else value
    if is_tensor(raw) and raw.dtype == torch.bfloat16:
        raise InputTypeError(
            f"{name} is a torch.bfloat16 tensor, and this function computes in NumPy, which "
            f"has no bfloat16: convert it first with {name}.float() (every bfloat16 value is "
            "exact in float32)"
        )
    try:
        array = np.asarray(raw.resolve_conj().numpy() if is_tensor(raw) else raw)
    except (TypeError, ValueError, RuntimeError):
        array = np.asarray(None)
    if np.iscomplexobj(array):
        raise InputTypeError(f"{name} must hold real numbers; got complex values ({_kind(value)})")
    if array.dtype == object or not (
        np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_
    ):
        ragged = array.dtype == object and isinstance(raw, list | tuple)
        shape = "a ragged list (rows of different lengths)" if ragged else None
        raise (ValueError if shape else InputTypeError)(
            f"{name} must be a rectangular array of real numbers; got {shape or _kind(value)}"
        )
    array = array if dtype is None else array.astype(dtype, copy=False)
    if array.size == 0 and not allow_empty:
        raise ValueError(
            f"{name} is empty (shape {list(array.shape)}); every dimension must be >= 1"
        )
    bad = np.isnan(array) | (np.isposinf(array) if allow_neg_inf else np.isinf(array))
    if bad.any():
        where = [int(i) for i in np.argwhere(bad)[0]]
        first = "NaN" if np.isnan(array[tuple(where)]) else str(array[tuple(where)])
        what, allowed = ("NaN or +inf", " and -inf") if allow_neg_inf else ("NaN or inf", "")
        raise ValueError(
            f"{name} holds {what}: {name} of shape {tuple(array.shape)} holds {first} at "
            f"index {where}; only finite numbers{allowed} are allowed"
        )
    return array


def float_tensor(name: str, value: Any, dtype: torch.dtype | None = None) -> torch.Tensor:
    """``value`` as a non-empty, finite, real floating torch tensor.

    A list, a NumPy array or an integer tensor becomes a tensor of ``dtype`` (torch's
    default dtype when None). A floating tensor is returned as it is (autograd
    intact); with ``dtype`` given it must already have that dtype (a module's).

    Raises:
        TypeError / ValueError: as ``float_input``, naming ``name``; ValueError for a
            floating tensor of another ``dtype``, saying how to convert it.
    """
    if is_tensor(value) and value.dtype.is_floating_point:
        if dtype is not None and value.dtype != dtype:
            raise ValueError(
                f"{name} has dtype {value.dtype} where {dtype} is needed (the dtype of "
                f"the module or of the other inputs): pass {name}.to({dtype})"
            )
        if value.numel() == 0 or not all_finite(value):
            float_input(name, value.detach().double())  # raises, naming what is wrong
        return value
    target = dtype or torch.get_default_dtype()
    device = value.device if is_tensor(value) else None
    return torch.as_tensor(float_input(name, value), dtype=target, device=device)


def id_tensor(name: str, value: Any, size: int, what: str) -> torch.Tensor:
    """``value`` as an int64 tensor of ids in ``0 .. size - 1`` (tokens or class labels).

    Raises:
        TypeError: naming ``name``, for floats, complex or text.
        ValueError: naming ``name``, for an empty input or an id out of range.
    """
    if is_tensor(value):
        if value.dtype.is_floating_point or value.is_complex() or value.dtype == torch.bool:
            raise InputTypeError(
                f"{name} must hold integer {what}; got {_kind(value)} (use .long())"
            )
        ids = value.long()
    else:
        try:
            array = np.asarray(None if isinstance(value, str) else value)
        except ValueError:  # a ragged list
            array = np.asarray(None)
        if not np.issubdtype(array.dtype, np.integer):
            raise InputTypeError(
                f"{name} must hold integer {what}; got {_kind(value)}. "
                f"Pass torch.as_tensor({name}, dtype=torch.long)"
            )
        ids = torch.as_tensor(array, dtype=torch.long)
    if ids.numel() == 0:
        raise ValueError(f"{name} is empty (shape {list(ids.shape)}); it needs at least one id")
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= size:
        raise ValueError(
            f"{name} must hold {what} between 0 and {size - 1}; got values from {low} to {high}"
        )
    return ids


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
    if not is_int(seed) or seed < 0:
        raise ValueError(
            f"{name} must be a non-negative integer or a torch.Generator; got {seed!r}"
        )
    return torch.Generator().manual_seed(int(seed))
