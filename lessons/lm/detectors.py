"""Head detectors, each written as its formula (chapter 12).

Every detector takes attention weights ``A [..., n, n]`` (rows are queries ``i``,
columns keys ``j``, causal, rows summing to 1) and returns one score per head: a
float for one ``[n, n]`` pattern, an array ``[...]`` for a stack such as
``forward(...)["attention"]`` of shape ``[layers, h, n, n]``. The arithmetic is in
float64. Row 0 can only look at itself, so the first-token and current-token scores
skip it (it would count 1 for free).

- previous-token:  mean_i A[i, i - 1]                      for i = 1 .. n - 1
- induction:       mean_i A[i, i - L + 1]                  for i = L + 1 .. 2L, on the
  sequence ``[start, t_1 .. t_L, t_1 .. t_L]`` (``n = 2L + 1``): from a token of the
  second copy to the token after its first occurrence (the diagonal at offset 1 - L)
- first-token:     mean_i A[i, 0]                          for i = 1 .. n - 1
- current-token:   mean_i A[i, i]                          for i = 1 .. n - 1
- by offset k:     mean_i A[i, i - k]                      for i = max(k, 1) .. n - 1: offset 0
  is the current-token score, offset 1 the previous-token score
- detection score: sum(A * P) / sum(A)                     for a pattern ``P [n, n]``
- in-context learning: loss late in a context minus loss early in it (negative: the
  model predicts better once it has read more).

``INDUCTION_THRESHOLD`` (0.4) is this package's own convention for calling a head "an
induction head" in tests; it comes from no source, and chapter 12 does not rely on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import float_input, positive_int
from .text import VOCAB

__all__ = [
    "INDUCTION_THRESHOLD",
    "current_token_score",
    "detection_score",
    "first_token_score",
    "in_context_learning",
    "induction_score",
    "induction_text",
    "offset_weights",
    "previous_token_score",
]

INDUCTION_THRESHOLD = 0.4


def _weights(A: Any, min_n: int = 2) -> np.ndarray:
    """``A`` as float64 ``[..., n, n]`` with ``n >= min_n``, or a ``ValueError`` naming ``A``."""
    A = float_input("A", A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"A must have shape [..., n, n] (square); got shape {list(A.shape)}")
    if A.shape[-1] < min_n:
        raise ValueError(f"A must have n >= {min_n} positions here; got shape {list(A.shape)}")
    return A


def _score(values: np.ndarray) -> float | np.ndarray:
    """Mean over the last axis: a float for one head, an array for a stack of heads."""
    mean = values.mean(axis=-1)
    return float(mean) if mean.ndim == 0 else mean


def previous_token_score(A: Any) -> float | np.ndarray:
    """Mean weight on the diagonal just below the main one, ``A[i, i - 1]`` (chapter 12).

    1.0 for a head that always reads the previous position; shapes ``[..., n, n] -> [...]``.
    """
    A = _weights(A)
    return _score(np.diagonal(A, offset=-1, axis1=-2, axis2=-1))


def current_token_score(A: Any) -> float | np.ndarray:
    """Mean weight on the main diagonal ``A[i, i]``, rows ``1 .. n - 1`` (chapter 12)."""
    A = _weights(A)
    return _score(np.diagonal(A, axis1=-2, axis2=-1)[..., 1:])


def first_token_score(A: Any) -> float | np.ndarray:
    """Mean weight on the first position ``A[i, 0]``, rows ``1 .. n - 1`` (chapter 12)."""
    A = _weights(A)
    return _score(A[..., 1:, 0])


def offset_weights(A: Any, max_offset: int) -> np.ndarray:
    """Mean weight ``k`` positions back, ``A[i, i - k]``, for ``k = 0 .. max_offset`` (chapter 12).

    Shapes ``[..., n, n] -> [..., max_offset + 1]``. Entry ``k`` averages the diagonal at
    offset ``-k`` over rows ``i = max(k, 1) .. n - 1`` (row 0 can only read itself): entry 0
    is ``current_token_score``, entry 1 ``previous_token_score``. A head's weights by
    offset show how broad its local habit is, which one score cannot.

    Raises:
        ValueError: unless ``0 <= max_offset < n``.
    """
    A = _weights(A)
    if isinstance(max_offset, bool) or not isinstance(max_offset, int | np.integer):
        raise ValueError(f"max_offset must be an integer; got {max_offset!r}")
    if not 0 <= max_offset < A.shape[-1]:
        raise ValueError(f"max_offset must be in 0 .. n - 1 = {A.shape[-1] - 1}; got {max_offset}")
    diagonals = [np.diagonal(A, offset=-k, axis1=-2, axis2=-1) for k in range(max_offset + 1)]
    diagonals[0] = diagonals[0][..., 1:]  # row 0 only reads itself
    return np.stack([d.mean(axis=-1) for d in diagonals], axis=-1)


def induction_score(A: Any, L: int) -> float | np.ndarray:
    """Mean ``A[i, i - L + 1]`` over the second copy ``i = L + 1 .. 2L`` (chapter 12).

    ``A [..., n, n]`` is the attention on ``[start, t_1 .. t_L, t_1 .. t_L]`` (``n = 2L + 1``,
    see ``induction_text``); position ``i`` of the second copy holds the token first
    seen at ``i - L``, and ``i - L + 1`` is the token that came after it.

    Raises:
        ValueError: if ``L`` is not an integer >= 2 or ``n != 2L + 1``.
    """
    L = positive_int("L", L)
    if L < 2:
        raise ValueError(
            f"L must be >= 2 (with L = 1 the induction target is the token itself); got {L}"
        )
    A = _weights(A, min_n=5)
    if A.shape[-1] != 2 * L + 1:
        raise ValueError(
            f"A must be the attention on [start, L tokens, the same L] of n = 2L + 1 = {2 * L + 1} "
            f"positions; got shape {list(A.shape)}"
        )
    return _score(np.diagonal(A, offset=1 - L, axis1=-2, axis2=-1)[..., 2:])


def detection_score(A: Any, P: Any) -> float | np.ndarray:
    """``sum(A * P) / sum(A)`` over each head's ``[n, n]`` pattern (chapter 12).

    ``P [n, n]`` marks where the head is expected to look (1) and elsewhere (0); the score
    is the share of the head's weight inside the pattern: 1.0 all inside, 0.0 none.

    Raises:
        ValueError: if ``P`` is not ``[n, n]`` with ``A``'s ``n``, or ``A`` sums to 0.
    """
    A = _weights(A, min_n=1)
    P = float_input("P", P)
    if P.shape != A.shape[-2:]:
        raise ValueError(
            f"P must have shape {list(A.shape[-2:])} (as A's [n, n]); got {list(P.shape)}"
        )
    total = A.sum(axis=(-2, -1))
    if np.any(total == 0):
        raise ValueError("A sums to 0 for some head; the detection score divides by sum(A)")
    score = (A * P).sum(axis=(-2, -1)) / total
    return float(score) if np.ndim(score) == 0 else score


def in_context_learning(losses: Any, early: int, late: int) -> float:
    """Loss at position ``late`` minus loss at ``early``, averaged over the rows of ``losses [..., n]``.

    Negative when the model predicts later characters better than early ones: it
    used the context (chapter 12).

    Raises:
        ValueError: unless ``0 <= early < late < n``.
    """
    losses = float_input("losses", losses)
    n = losses.shape[-1]
    if not (isinstance(early, int) and isinstance(late, int) and 0 <= early < late < n):
        raise ValueError(f"need 0 <= early < late < n = {n}; got early={early!r}, late={late!r}")
    return float(losses[..., late].mean() - losses[..., early].mean())


def induction_text(L: int, seed: int = 0) -> str:
    """``"\\n"`` then ``L`` random printable characters, then the same ``L`` again: ``2L + 1`` characters.

    The start token is the newline (the character that begins every line of the training
    text); the characters are drawn uniformly from the 95 printable ones by NumPy's
    generator seeded with ``seed`` (chapter 12).
    """
    L = positive_int("L", L)
    rng = np.random.default_rng(seed)
    tokens = "".join(VOCAB[1 + i] for i in rng.integers(0, len(VOCAB) - 1, size=L))
    return "\n" + tokens + tokens
