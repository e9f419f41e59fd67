"""Masks as other code writes them: convert any convention, and diagnose the classic bugs.

Chapter 6 teaches the course's mask, a boolean *keep-mask* (``True`` = may attend), and
the page *Masks in other libraries* maps every convention a reader meets elsewhere onto
it. The conventions ``keep_mask`` and ``diagnose_mask`` understand:

- ``"keep"``: ``True`` (or 1) = may attend. ``F.scaled_dot_product_attention``'s boolean
  ``attn_mask``, nanoGPT's ``tril`` buffer, the Annotated Transformer's masks.
- ``"block"``: ``True`` (or 1) = blocked. ``nn.MultiheadAttention``'s boolean ``attn_mask``
  and ``key_padding_mask``, LLMs-from-scratch's ``triu`` buffer.
- ``"additive"``: added to the scores; 0 = may attend, ``-inf`` or any value ``<= -1e4`` =
  blocked. PyTorch's float masks, ``nn.Transformer.generate_square_subsequent_mask``.
- ``"hf"``: ``[B, n_k]``, 1 = real token, 0 = padding. Hugging Face's ``attention_mask``.
- ``"lengths"``: ``[B]`` valid lengths, with ``n_k``. d2l's ``valid_lens``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from ._validate import as_numpy, check_budget, check_ndim, is_tensor, positive_int

__all__ = ["CONVENTIONS", "diagnose_mask", "keep_mask"]

CONVENTIONS = ("keep", "block", "additive", "hf", "lengths")
BLOCKED_AT = -1e4  # an additive entry at or below this blocks its key


def keep_mask(mask: Any, convention: str, *, n_k: int | None = None) -> Any:
    """The course's keep-mask (``True`` = may attend) from ``mask`` (page *Masks in other libraries*).

    ``"keep"``, ``"block"`` (booleans or 0/1) and ``"additive"`` masks keep their
    shape, broadcastable to the weights ``[..., n_q, n_k]``. ``"hf"`` ``[B, n_k]`` and
    ``"lengths"`` ``[B]`` (with ``n_k``) become ``[B, 1, 1, n_k]``, for weights
    ``[B, h, n_q, n_k]`` (take ``[:, 0]`` for ``[B, n_q, n_k]``); d2l's per-query
    lengths ``[B, n_q]`` become ``[B, 1, n_q, n_k]``. NumPy arrays or lists in give a
    NumPy bool array; a torch tensor in gives a torch bool tensor on its device.
    Through ``lessons.attention``, every convention of one pattern gives one output.

    Raises:
        ValueError: naming the argument: an unknown ``convention``; values foreign to
            the convention (an additive entry neither 0 nor blocking is a bias, not a
            mask); an ``"hf"`` mask not ``[B, n_k]``; lengths not integers in
            ``0..n_k``; ``n_k`` missing for ``"lengths"`` or not the mask's key axis.
    """
    convention = _convention(convention)
    n_k = positive_int("n_k", n_k, allow_none=True)
    values = _values(mask)
    if convention == "lengths":
        keep = _from_lengths(values, n_k)  # [B, n_k] or [B, n_q, n_k]
    else:
        keep = _to_keep(values, convention)  # the mask's shape
    if n_k is not None and keep.ndim and keep.shape[-1] not in (n_k, int(convention != "hf")):
        raise ValueError(f"mask has {keep.shape[-1]} entries on its key axis (the last); n_k={n_k}")
    if convention in ("hf", "lengths"):  # [B, 1, 1, n_k] or [B, 1, n_q, n_k]
        keep = keep[:, None, None] if keep.ndim == 2 else keep[:, None]
    keep = np.array(keep, dtype=bool)  # a fresh array, never a view of the input
    return torch.from_numpy(keep).to(mask.device) if is_tensor(mask) else keep


def diagnose_mask(mask: Any, convention: str, scores_shape: Any, *, dtype: Any = None) -> list[str]:
    """What is wrong with ``mask`` for scores ``[..., n_q, n_k]``, in plain words (page *Masks in other libraries*).

    ``mask`` is in ``convention`` (see ``keep_mask``; ``"hf"`` and ``"lengths"`` masks
    meet the scores' first axis, lengths their ``n_k``); ``scores_shape`` is a tuple, a
    list, a ``torch.Size`` or the scores themselves. Returns a list of findings, empty
    for a sound mask, naming: a mask that cannot broadcast to the scores (and on which
    axis); a padding mask laid along the query axis instead of the key axis; query rows
    with every key blocked (NaN from a hand-written softmax or ``nn.MultiheadAttention``,
    zeros from ``lessons.attention``); an inverted causal mask (the diagonal and all
    below it blocked); an additive sentinel that overflows the scores' dtype (``-1e9``
    in float16), the dtype being ``dtype`` or the scores'; a mask stored in float16
    that holds ``-inf`` is named too (``-1e9`` written into float16 becomes ``-inf``).

    Raises:
        ValueError: for what ``keep_mask`` refuses whatever the scores, a
            ``scores_shape`` not of at least 2 positive sizes, or a non-float ``dtype``.
    """
    convention = _convention(convention)
    shape, scores_dtype = _scores(scores_shape)
    if dtype is not None:
        _largest(dtype)  # a bad dtype is an error whatever the convention
    values = _values(mask)
    findings = []
    if convention == "lengths":
        keep = _from_lengths(values, shape[-1], clip=True)
        if (values > shape[-1]).any():
            findings.append(
                f"lengths {sorted(set(values[values > shape[-1]].tolist()))} exceed the "
                f"scores' {shape[-1]} keys: the lengths do not belong to this padded batch"
            )
    else:
        keep = _to_keep(values, convention)
    if convention in ("hf", "lengths") and len(shape) >= 3:  # batch on the scores' axis 0
        keep = keep.reshape(keep.shape[:1] + (1,) * (len(shape) - keep.ndim) + keep.shape[1:])
    elif convention in ("hf", "lengths"):  # scores [n_q, n_k] have no batch axis
        keep = keep[0] if keep.shape[0] == 1 else keep[:, None]
    misfits = _misfits(keep.shape, shape)
    if misfits:
        findings.append(
            f"the mask cannot broadcast to the scores {list(shape)}: as a keep-mask it has "
            f"shape {list(keep.shape)}, and {'; '.join(misfits)}"
        )
    findings += _query_axis(keep, shape, convention)
    finite = convention == "additive" and np.isfinite(values[values <= BLOCKED_AT]).any()
    findings += _blocked_rows(keep, shape, not misfits, finite)
    findings += _inverted_causal(keep)
    if convention == "additive":
        findings += _overflow(values, dtype, scores_dtype)
    return findings


def _convention(convention: Any) -> str:
    if isinstance(convention, str) and convention.strip().lower() in CONVENTIONS:
        return convention.strip().lower()
    raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}; got {convention!r}")


def _values(mask: Any) -> np.ndarray:
    """The mask as a NumPy array of booleans or numbers, or a ValueError naming it."""
    bfloat16 = is_tensor(mask) and mask.dtype == torch.bfloat16
    if bfloat16:
        mask = mask.float()  # NumPy has no bfloat16; every bfloat16 value fits float32
    try:
        values = as_numpy(mask)
    except (TypeError, ValueError, RuntimeError):
        values = np.array(None)
    if values.dtype.kind not in "biuf":
        raise ValueError(
            f"mask must be an array, a tensor or a list of booleans or numbers; got {mask!r}"
        )
    if bfloat16:  # bfloat16 stores -1e4 as -9984: still a blocking entry
        values = np.where(values <= -9984, np.minimum(values, BLOCKED_AT), values)
    return values


def _to_keep(values: np.ndarray, convention: str) -> np.ndarray:
    """Keep-mask of the same shape from a ``keep``, ``block``, ``additive`` or ``hf`` mask."""
    if convention == "hf":
        check_ndim("mask", values, (2,), "[B, n_k] for convention 'hf' (1 = real token)")
    numbers = values.astype(np.float64)
    if convention == "additive":
        odd = ~((numbers == 0) | (numbers <= BLOCKED_AT)) | (values.dtype == bool)
        if odd.any():
            raise ValueError(
                f"an additive mask holds 0 (keep) and -inf or <= {BLOCKED_AT:g} (block); mask "
                f"holds {numbers[odd].flat[0]:g}: other numbers are a bias on the scores (ALiBi, "
                "relative positions), not a mask, and booleans are convention 'keep' or 'block'"
            )
        return numbers == 0
    odd = (numbers != 0) & (numbers != 1)
    if odd.any():
        hint = " (it looks additive)" if (numbers[odd] <= BLOCKED_AT).all() else ""
        raise ValueError(
            f"a {convention!r} mask holds True/False or 1/0 only; mask holds "
            f"{numbers[odd].flat[0]:g}{hint}"
        )
    return numbers == (0 if convention == "block" else 1)


def _from_lengths(lengths: np.ndarray, n_k: int | None, clip: bool = False) -> np.ndarray:
    """``[B, n_k]`` (or ``[B, n_q, n_k]``) keep-mask: key ``j`` kept while ``j < length``."""
    if n_k is None:
        raise ValueError("convention 'lengths' needs n_k, the number of keys (padded length)")
    check_ndim("mask", lengths, (1, 2), "[B] (or d2l's [B, n_q]) for convention 'lengths'")
    if lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths (mask) must be integers; got dtype {lengths.dtype}")
    bad = lengths[(lengths < 0) | ((lengths > n_k) & (not clip))]
    if bad.size:
        raise ValueError(
            f"every length in mask must be in 0..n_k={n_k}; got {sorted(bad.tolist())}"
        )
    return np.arange(n_k) < lengths[..., None]  # [B, n_k] or [B, n_q, n_k]


def _scores(scores_shape: Any) -> tuple[tuple[int, ...], Any]:
    """``(shape, dtype)`` from a shape, or from the scores themselves (then the dtype is known)."""
    dtype = None
    if (is_tensor(scores_shape) and scores_shape.dtype.is_floating_point) or (
        isinstance(scores_shape, np.ndarray) and scores_shape.dtype.kind == "f"
    ):
        dtype, scores_shape = scores_shape.dtype, tuple(scores_shape.shape)
    try:
        dims = tuple(positive_int("scores_shape", d) for d in scores_shape)
    except (TypeError, ValueError):
        dims = ()
    if len(dims) < 2:
        raise ValueError(
            "scores_shape must be the scores' shape [..., n_q, n_k], at least 2 positive sizes "
            f"(a tuple, a list or a torch.Size); got {scores_shape!r}"
        )
    check_budget("scores_shape", 2 * math.prod(dims))  # booleans the size of the scores, twice
    return dims, dtype


def _axis(axis: int, ndim: int) -> str:
    """The name of axis ``axis`` (from the right, -1 = keys) of scores with ``ndim`` axes."""
    names = {-ndim: "the batch axis (B)", -3: "the head axis (h)"} if ndim == 4 else {}
    names.update({-ndim: "the batch axis (B)"} if ndim == 3 else {})
    names.update({-1: "the key axis (n_k)", -2: "the query axis (n_q)"})
    return names.get(axis, f"axis {ndim + axis}")


def _misfits(mask_shape: tuple[int, ...], shape: tuple[int, ...]) -> list[str]:
    """Why ``mask_shape`` does not broadcast to ``shape``: one phrase per axis at fault."""
    extra = [size for size in mask_shape[: max(len(mask_shape) - len(shape), 0)] if size != 1]
    found = [f"it has {len(mask_shape)} axes to the scores' {len(shape)}"] if extra else []
    for axis in range(-1, -min(len(mask_shape), len(shape)) - 1, -1):
        if mask_shape[axis] not in (1, shape[axis]):
            found.append(
                f"on {_axis(axis, len(shape))} it has {mask_shape[axis]} entries where the "
                f"scores have {shape[axis]} (or 1, to repeat)"
            )
    return found


def _query_axis(keep: np.ndarray, shape: tuple[int, ...], convention: str) -> list[str]:
    """A padding mask that blocks query rows (or lines its batch up with the queries)."""
    fix = "a padding mask belongs on the key axis: [B, 1, 1, n_k] for scores [B, h, n_q, n_k]"
    if (
        convention in ("keep", "block", "additive")
        and keep.ndim == 2
        and len(shape) >= 3
        and keep.shape == (shape[0], shape[-1])
        and shape[0] not in (1, shape[-2])
    ):
        return [
            "the mask looks like a [B, n_k] padding mask, but broadcasting lays its batch "
            f"along the query axis; {fix}, mask[:, None, None, :] (mask[:, None, :] for 3-D)"
        ]
    if keep.ndim >= 2 and keep.shape[-2] > 1 and shape[-1] > 1 and not keep.all():
        rows_any, rows_all = keep.any(-1), keep.all(-1)  # [..., n_q] each
        if keep.shape[-1] == 1 or (
            (rows_any == rows_all).all() and rows_all.any() and not rows_any.all()
        ):
            return [
                "the padding mask is laid along the query axis instead of the key axis: it "
                f"blocks whole query rows, never a key, so padded keys keep weight; {fix}"
            ]
    return []


def _blocked_rows(keep: np.ndarray, shape: tuple[int, ...], fits: bool, finite: bool) -> list[str]:
    """Query rows with nothing to attend to (``finite``: blocked by a finite sentinel)."""
    rows = keep.any(-1) if keep.ndim else keep  # [..., n_q], True = some key kept
    if fits:
        rows = rows.reshape(rows.shape[max(rows.ndim - len(shape) + 1, 0) :])
        rows = np.broadcast_to(rows, shape[:-1])
    empty = np.argwhere(~rows)
    if not len(empty):
        return []
    quiet = "; a finite sentinel (-1e9) quietly gives it weight on blocked keys" if finite else ""
    return [
        f"{len(empty)} of {rows.size} query rows have every key blocked (the first at index "
        f"{empty[0].tolist()}, the query rows having shape {list(rows.shape)}): a hand-written "
        "softmax or nn.MultiheadAttention gives NaN there (and NaN gradients), "
        "lessons.attention gives zeros (so does F.scaled_dot_product_attention on the CPU in "
        f"recent PyTorch){quiet}; leave every query a key, for example by blocking padding "
        "as keys only"
    ]


def _inverted_causal(keep: np.ndarray) -> list[str]:
    """A square mask keeping keys above the diagonal and blocking the diagonal and below."""
    if keep.ndim < 2 or keep.shape[-1] != keep.shape[-2] or keep.shape[-1] < 2:
        return []
    n = keep.shape[-1]
    lower = np.tril(np.ones((n, n), dtype=bool))  # [n, n], the diagonal and below
    squares = keep.reshape(-1, n, n)  # [m, n, n]
    inverted = ~(squares & lower).any(axis=(1, 2)) & (squares & ~lower).any(axis=(1, 2))
    if not inverted.any():
        return []
    return [
        f"{int(inverted.sum())} of {len(squares)} [{n}, {n}] masks block the diagonal and "
        "everything below it: an inverted causal mask, each query sees only later tokens "
        "and the last sees none. triu was used where tril was meant, or the mask was "
        "written for the opposite boolean convention (True = blocked for "
        "nn.MultiheadAttention, True = may attend for F.scaled_dot_product_attention)"
    ]


def _largest(dtype: Any) -> tuple[float, str]:
    """The largest finite value of a floating NumPy or torch dtype, and the dtype's name."""
    try:
        if isinstance(dtype, torch.dtype) and dtype.is_floating_point:
            return float(torch.finfo(dtype).max), str(dtype).removeprefix("torch.")
        if np.dtype(dtype).kind == "f":
            return float(np.finfo(np.dtype(dtype)).max), np.dtype(dtype).name
    except TypeError:
        pass
    raise ValueError(f"dtype must be a floating dtype, like torch.float16; got {dtype!r}")


def _overflow(values: np.ndarray, dtype: Any, scores_dtype: Any) -> list[str]:
    """A finite additive sentinel beyond the largest finite value of the scores' dtype."""
    target = dtype if dtype is not None else scores_dtype
    if target is None and values.dtype == np.float16 and np.isneginf(values).any():
        return [  # -1e9 written into float16 is stored as -inf: the overflow already happened
            "this float16 mask holds -inf: a sentinel like -1e9 overflows float16 (most "
            "negative finite value -65504) and is stored as -inf, so a row with every key "
            "blocked gives NaN; use torch.finfo(torch.float16).min or a boolean mask"
        ]
    if target is None:
        return []  # the mask's own dtype holds its own values: nothing overflows there
    largest, name = _largest(target)
    sentinels = values[np.isfinite(values) & (values <= BLOCKED_AT)].astype(np.float64)
    if not (np.abs(sentinels) > largest).any():
        return []
    return [
        f"the additive sentinel {sentinels.min():g} overflows {name} (most negative finite "
        f"value {-largest:g}) and becomes -inf, so a row with every key blocked gives NaN; "
        "replace blocked scores with torch.finfo(dtype).min (torch.where or masked_fill), "
        "or use a boolean mask"
    ]
