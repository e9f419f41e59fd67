"""Values out of the kernel (plain JSON, never pickle), and givens compared by value."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

#: A given equal to the chapter's within these (a float32 copy of a float64 given is equal).
GIVEN_RTOL, GIVEN_ATOL = 1e-5, 1e-8


@dataclass(frozen=True)
class Opaque:
    """A value that could not leave the kernel (a function, a model): its type's name."""

    type: str
    state: dict | None = None


def decode(data: dict):
    """The value `kernel_side.py` encoded (no pickle: nothing in it runs code)."""
    kind = data.get("t")
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind == "bool":
        return bool(data["v"])
    if kind == "int":
        return int(data["v"])
    if kind == "float":
        return float(data["v"])
    if kind == "complex":
        return complex(float(data["v"][0]), float(data["v"][1]))
    if kind == "str":
        return str(data["v"])
    if kind == "array":
        raw = base64.b64decode(data["b64"])
        dtype = np.dtype(data["dtype"])
        if dtype.kind not in "biufc":
            raise ValueError(f"dtype {dtype} cannot travel")
        return np.frombuffer(raw, dtype=dtype).reshape(data["shape"]).copy()
    if kind == "npscalar":
        return decode(data["v"])[()]
    if kind == "tensor":
        import torch

        tensor = torch.from_numpy(decode(data["v"]))
        return tensor.to(getattr(torch, data["dtype"])) if data.get("dtype") else tensor
    if kind in ("list", "tuple", "set"):
        items = [decode(x) for x in data["v"]]
        return {"list": list, "tuple": tuple, "set": set}[kind](items)
    if kind == "dict":
        return {decode(k): decode(v) for k, v in data["v"]}
    state = data.get("state")
    return Opaque(str(data.get("type", "?")), state)


def same(student: dict, chapter: dict) -> bool:
    """Whether a given, as the student's kernel held it, equals the chapter's (tolerant)."""
    try:
        a, b = decode(student), decode(chapter)
    except Exception:  # a malformed record
        return False
    return same_value(a, b)


def _numbers(value) -> np.ndarray | None:
    if isinstance(value, str | Opaque | dict | set) or value is None or value is Ellipsis:
        return None
    try:
        array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    except (ValueError, TypeError, RuntimeError):
        return None
    return array.astype(float) if array.dtype.kind in "biuf" else None


def same_value(a, b) -> bool:
    """Whether two decoded values are equal (numbers within the tolerances, any type)."""
    if isinstance(a, Opaque) or isinstance(b, Opaque):
        if not (isinstance(a, Opaque) and isinstance(b, Opaque)) or a.type != b.type:
            return False
        if a.state is None or b.state is None:
            return a.state is b.state
        return a.state.keys() == b.state.keys() and all(
            same(a.state[k], b.state[k]) for k in a.state
        )
    x, y = _numbers(a), _numbers(b)
    if x is not None and y is not None:
        return x.shape == y.shape and bool(
            np.allclose(x, y, rtol=GIVEN_RTOL, atol=GIVEN_ATOL, equal_nan=True)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, set) and isinstance(b, set):
        return a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same_value(p, q) for p, q in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def difference(student: dict, chapter: dict) -> str:
    """What differs between a given as the student's kernel held it and the chapter's, in
    words ("" where nothing more can be said): a model's training, a shape, the largest gap."""
    try:
        a, b = decode(student), decode(chapter)
    except Exception:  # a malformed record
        return ""
    if isinstance(a, Opaque) and isinstance(b, Opaque):
        if a.type != b.type:
            return f"a {a.type} where the chapter's is a {b.type}"
        mine, theirs = student.get("training"), chapter.get("training")
        if mine is not None and theirs is not None and not same(mine, theirs):
            return f"{_trained(mine)}, where the chapter's model had {_trained(theirs)}"
        gaps = [
            (gap, name)
            for name in sorted(set(a.state or {}) & set(b.state or {}))
            if (gap := _gap(a.state[name], b.state[name])) is not None
        ]
        return (
            f"its weights differ, by up to {max(gaps)[0]:.3g} in `{max(gaps)[1]}`" if gaps else ""
        )
    x, y = _numbers(a), _numbers(b)
    if x is not None and y is not None:
        if x.shape != y.shape:
            return f"shape {list(x.shape)} where the chapter's is {list(y.shape)}"
        return f"by up to {float(np.nanmax(np.abs(x - y))):.3g}" if x.size else ""
    return ""


def _gap(student: dict, chapter: dict) -> float | None:
    x, y = _numbers(decode(student)), _numbers(decode(chapter))
    if x is None or y is None or x.shape != y.shape or not x.size:
        return None
    return float(np.nanmax(np.abs(x - y)))


def _trained(plain: dict) -> str:
    """A model's `training_runs` in chapter 11's words (`lessons.checks.ch11.training_of`)."""
    from types import SimpleNamespace

    from lessons.checks.ch11 import training_of

    try:
        return training_of(SimpleNamespace(training_runs=decode(plain)))
    except (KeyError, TypeError, ValueError):
        return "another training"
