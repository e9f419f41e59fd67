"""Reading what a question's author gives and what a reader types (the in-page questions).

``lessons.book.widgets.question`` builds a ``Question``; the rules it needs to read its inputs live
here: the two lenient parsers the page's script applies too (``parse_number``,
``parse_shape``), and the checks that turn an author's slip into a ``ValueError``
naming the argument.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

from lessons._validate import as_numpy, is_tensor

from .widget import embed_json

__all__ = [
    "EMPTY",
    "KINDS",
    "UNREADABLE",
    "answer_kind",
    "as_array",
    "choice_index",
    "labels",
    "mistakes_at",
    "parse_number",
    "parse_shape",
    "shape_entries",
    "stable_name",
    "valid_name",
]

#: The kinds of question, and what the reader fills in for each.
KINDS = ("number", "array", "shape", "choice")

#: What the page says to an empty answer, and to one it cannot read, for each kind.
EMPTY = {
    "number": "Type a number first.",
    "array": "Fill in every entry first.",
    "shape": "Type a shape first, like [2, 3].",
    "choice": "Pick one answer first.",
}
UNREADABLE = {
    "number": "Type a number, like 0.25, -1 or 2/3.",
    "array": "Type a number in every entry, like 0.25, -1 or 2/3.",
    "shape": "Write the shape as sizes or names in brackets, like [2, 3].",
    "choice": "Pick one of the answers.",
}


_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def parse_number(text: str) -> float | None:
    """A typed number as a float, or None: ``0.4``, ``-.5``, ``1e-3``, ``2/3``, ``0,4``, ``−1``.

    The page's script applies the same rule: spaces around it are ignored, a
    Unicode minus is a minus, one decimal comma is a decimal point, and ``a/b``
    divides (not by zero).
    """
    text = text.strip().replace("\u2212", "-")
    if re.fullmatch(r"[+-]?[0-9]+,[0-9]+", text):
        text = text.replace(",", ".")
    parts = [p.strip() for p in text.split("/")]
    if len(parts) > 2 or not all(_NUMBER.fullmatch(p) for p in parts):
        return None
    if len(parts) == 2 and float(parts[1]) == 0:
        return None
    value = float(parts[0]) / float(parts[1]) if len(parts) == 2 else float(parts[0])
    return value if math.isfinite(value) else None


def parse_shape(text: str) -> tuple[str, ...]:
    """A typed shape as a tuple of entries, read leniently (the page's script does the same).

    Brackets, parentheses, commas, semicolons, spaces, ``×`` and a lone ``x``
    separate entries and ``2x4x9`` splits; a leading ``torch.Size`` is ignored;
    spaces around ``/ * + -`` are dropped (``d_model / h`` is one entry); case and
    underscores do not count (``d_k`` is ``dk``); numbers lose leading zeros.
    ``"[B, h, n, n]"``, ``"B x h x n x n"`` and ``"(b,h,n,n)"`` all give
    ``("b", "h", "n", "n")``.
    """
    text = re.sub(r"^\s*(torch\.)?size", "", text.lower().replace("_", ""))
    text = re.sub(r"\s*([/*+-])\s*", r"\1", text)
    entries: list[str] = []
    for token in re.split(r"[\s,;()\[\]\u00d7]+", text):
        if re.fullmatch(r"[0-9]+(x[0-9]+)+", token):
            entries += token.split("x")
        elif token and token != "x":
            entries.append(token)
    return tuple(re.sub(r"^0+(?=[0-9])", "", e) for e in entries)


def answer_kind(kind: str | None, answer: Any, choices: Any) -> str:
    """The question's kind: ``kind`` checked, or guessed from the answer and ``choices``."""
    if kind is None:
        if choices is not None:
            return "choice"
        is_number = isinstance(answer, Real) and not isinstance(answer, bool)
        return "number" if is_number or np.ndim(answer) == 0 else "array"
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}; got {kind!r}")
    if (kind == "choice") != (choices is not None):
        raise ValueError("choices must be given exactly when kind is 'choice'")
    return kind


def as_array(name: str, value: Any, ndims: tuple[int, ...] = (1, 2)) -> np.ndarray:
    """``value`` as a float64 array of ``ndims`` dimensions with finite entries, or a ``ValueError``."""
    try:
        array = as_numpy(value, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"{name} must be numbers; got {value!r}") from None
    wanted = {0: "a number", 1: "a vector [c]", 2: "a matrix [r, c]"}
    if array.ndim not in ndims or array.size == 0 or not np.isfinite(array).all():
        raise ValueError(
            f"{name} must be {' or '.join(wanted[d] for d in ndims)} of finite numbers; "
            f"got {value!r} of shape {list(array.shape)}"
        )
    return array


def shape_entries(name: str, value: Any) -> tuple[str, ...]:
    """A shape given as text, a sequence of sizes or names, or an array (its shape), as entries."""
    if isinstance(value, np.ndarray) or is_tensor(value):
        value = tuple(value.shape)
    if isinstance(value, str):
        entries = parse_shape(value)
    elif isinstance(value, Sequence) and all(
        isinstance(v, (str, Integral)) and not isinstance(v, bool) for v in value
    ):
        entries = parse_shape(", ".join(str(v) for v in value))
    else:
        entries = ()
    if not entries:
        raise ValueError(
            f"{name} must be a shape: text such as '[B, h, n, n]', a tuple of sizes or names, "
            f"or an array; got {value!r}"
        )
    return entries


def choice_index(name: str, value: Any, choices: tuple[str, ...]) -> int:
    """The index of ``value`` in ``choices``: ``value`` is one of them, or an index."""
    if isinstance(value, str) and value in choices:
        return choices.index(value)
    if isinstance(value, Integral) and not isinstance(value, bool) and 0 <= value < len(choices):
        return int(value)
    raise ValueError(
        f"{name} must be one of the choices {list(choices)} or its index; got {value!r}"
    )


def labels(name: str, value: Any, count: int) -> tuple[str, ...] | None:
    """``count`` labels as strings (or None), or a ``ValueError`` naming ``name``."""
    if value is None:
        return None
    if isinstance(value, str) or len(value) != count:
        raise ValueError(f"{name} must be {count} labels, one per entry; got {value!r}")
    return tuple(str(v) for v in value)


def mistakes_at(mistakes: dict[str, tuple[Any, str]], index: Any) -> dict[str, tuple[Any, str]]:
    """Each mistake's value at ``index`` (a row ``1``, an entry ``(1, 2)``), for a question on a part.

    ``mistakes_at(attention_weight_mistakes(Q, K), 1)`` gives the mistakes of row 2
    of ``A``. A mistake that cannot apply (None) or has no such part is left out.
    """
    picked = {}
    for name, (value, explanation) in mistakes.items():
        if value is None:
            continue
        try:
            picked[name] = (np.asarray(value, dtype=float)[index], explanation)
        except (IndexError, TypeError, ValueError):
            continue
    return picked


def valid_name(name: Any, what: str) -> str:
    """``name`` if it is a usable id (lower case, digits, ``-``, ``_``), else a ``ValueError``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"{what} must be lower-case letters, digits, '-' and '_' (like 'no-scaling'); "
            f"got {name!r}"
        )
    return name


def stable_name(prompt: str, kind: str, answer: Any) -> str:
    """``q-`` and 10 hex digits of a hash of the prompt, the kind and the answer."""
    text = embed_json([prompt, kind, np.asarray(answer).tolist() if kind == "array" else answer])
    return "q-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
