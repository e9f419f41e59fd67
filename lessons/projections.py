"""Queries, keys and values: three learned projections of the same embeddings.

Taught in chapter 3 (Queries, keys and values). Row vectors throughout: a
projection is ``X @ W`` with ``X [..., n, d_model]`` and ``W [d_model, d_k]``.
(PyTorch's ``nn.Linear`` stores its weight as ``[d_k, d_model]`` and computes
``X @ weight.T``; chapter 3 shows both.) Queries meet keys in the raw scores
``S = Q K^T`` ``[n_q, n_k]``, which chapter 4 scales to ``Z = S / sqrt(d_k)``.
``split_qkv`` splits one fused projection in three, in the layout that
``lessons.MultiHeadAttention`` (chapter 7) and ``nn.MultiheadAttention`` pack
their weights.
"""

from __future__ import annotations

from typing import Any

from ._validate import float_input, float_tensor, is_tensor

__all__ = ["project", "qkv", "split_qkv"]


def project(X: Any, W: Any) -> Any:
    """Project embeddings ``X [..., n, d_model]`` with ``W [d_model, d_out]`` (chapter 3).

    Returns ``X @ W`` of shape ``[..., n, d_out]``, the same kind (NumPy or torch)
    as the inputs.

    Raises:
        ValueError: if ``X`` has fewer than 2 dimensions, ``W`` is not 2-D, or
            ``X``'s last dimension is not ``W``'s first (naming both shapes; a
            ``W`` given as ``[d_out, d_model]``, the ``nn.Linear`` layout, is
            pointed out), or an input is empty or holds NaN or inf.
        TypeError: if an input is complex or not numbers.

    Lists and NumPy arrays give NumPy; if either input is a torch tensor the
    other is converted to its dtype and the result is a tensor.
    """
    X, W = _operands(X=X, W=W)
    X_shape, W_shape = tuple(X.shape), tuple(W.shape)
    if len(X_shape) < 2:
        raise ValueError(
            f"X must hold one embedding per row, shape [..., n, d_model]; got shape {X_shape}"
        )
    if len(W_shape) != 2:
        raise ValueError(f"W must be a 2-D matrix [d_model, d_out]; got shape {W_shape}")
    if X_shape[-1] != W_shape[0]:
        hint = ""
        if X_shape[-1] == W_shape[1]:
            hint = (
                " It looks like [d_out, d_model], the layout nn.Linear stores: "
                "use W.T (X @ W.T is what nn.Linear computes)."
            )
        raise ValueError(
            f"X @ W needs X's last dimension to equal W's first: X has shape {X_shape}, "
            f"W has shape {W_shape}.{hint}"
        )
    return X @ W  # [..., n, d_out]


def qkv(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> tuple[Any, Any, Any]:
    """Queries, keys and values of the same embeddings (chapter 3).

    ``X [..., n, d_model]``; ``W_Q, W_K [d_model, d_k]``; ``W_V [d_model, d_v]``.
    Returns ``(Q, K, V)`` with ``Q, K [..., n, d_k]`` and ``V [..., n, d_v]``.

    Raises:
        ValueError: as ``project`` does, or if ``W_Q`` and ``W_K`` give different
            ``d_k`` (queries and keys must live in one space to be compared in
            ``S = Q K^T``).
    """
    X, W_Q, W_K, W_V = _operands(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V)
    if tuple(W_Q.shape)[-1:] != tuple(W_K.shape)[-1:]:
        raise ValueError(
            f"W_Q and W_K must give the same d_k: W_Q has shape {tuple(W_Q.shape)}, "
            f"W_K has shape {tuple(W_K.shape)}"
        )
    return project(X, W_Q), project(X, W_K), project(X, W_V)


def split_qkv(QKV: Any) -> tuple[Any, Any, Any]:
    """Split the output of one fused projection into ``Q, K, V`` (chapter 3).

    A fused projection ``X @ W_QKV`` with ``W_QKV = [W_Q | W_K | W_V]`` of shape
    ``[d_model, 3 d_k]`` computes all three at once. ``QKV [..., n, 3 d_k]``
    is split along its last axis into three ``[..., n, d_k]`` parts, in the
    order Q, K, V (the order ``nn.MultiheadAttention`` packs its ``in_proj_weight``).

    Raises:
        ValueError: if the last dimension is not divisible by 3, or ``QKV`` is
            empty or holds NaN or inf.
    """
    (QKV,) = _operands(QKV=QKV)
    if QKV.ndim < 1:
        raise ValueError(f"QKV must have shape [..., n, 3 d_k]; got a scalar {QKV!r}")
    width = tuple(QKV.shape)[-1]
    if width % 3:
        raise ValueError(
            f"a fused QKV has last dimension 3 * d_k; got shape {tuple(QKV.shape)}, "
            f"and {width} is not divisible by 3"
        )
    d_k = width // 3
    return QKV[..., :d_k], QKV[..., d_k : 2 * d_k], QKV[..., 2 * d_k :]  # 3 x [..., n, d_k]


def _operands(**named: Any) -> list[Any]:
    """The named inputs as NumPy float64 arrays, or all as tensors of one dtype if any is one."""
    tensors = [v for v in named.values() if is_tensor(v) and v.dtype.is_floating_point]
    if not any(is_tensor(v) for v in named.values()):
        return [float_input(name, v) for name, v in named.items()]
    dtype = tensors[0].dtype if tensors else None
    out = [float_tensor(name, v, dtype) for name, v in named.items()]
    dtype = out[0].dtype
    for name, v in zip(named, out, strict=True):
        if v.dtype != dtype:
            raise ValueError(f"{name} has dtype {v.dtype}, but {next(iter(named))} has {dtype}")
    return out
