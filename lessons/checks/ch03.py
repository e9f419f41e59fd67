"""Self-checks of chapter 3 (Queries, keys and values)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import finite_number, float_input
from ..toy import word_vectors
from .one_way_look import EVEN_TOLERANCE as EVEN_TOLERANCE  # within it of 1/n is "even"
from .one_way_look import diagnose, layout_problem, one_way_weights, reached
from .verdict import (
    Verdict,
    as_float_array,
    catalogued,
    generic,
    is_missing,
    judge,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_fused_score", "check_one_way_look", "check_projection"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_fused_score": {
        "not_transposed": "computed X @ weight instead of X @ weight.T, misreading "
        "nn.Linear's [out, in] layout",
        "wrong_direction": "took the score the other way round, q_j · k_i (or swapped Q and K)",
        "value_for_key": "took the last third of the fused output, the values, as the keys",
        "own_key": "took the word's score for itself, q_i · k_i",
        **generic("not_a_number", "wrong_shape", "other"),
    },
    "check_one_way_look": {
        "one_dimensional": "gave a 1-D vector instead of a [d_model, 1] column",
        "linear_layout": "wrote a matrix in nn.Linear's [d_k, d_model] layout instead of "
        "[d_model, d_k]",
        "different_d_k": "gave W_Q and W_K different widths d_k",
        "overflow": "used entries so large that the scores overflow",
        "works_transposed": "built matrices that work only as X @ W.T, nn.Linear's layout",
        "shared_matrix": "used one matrix for queries and keys, so the scores are symmetric",
        "wrong_way": "swapped W_Q and W_K, so the look goes the wrong way",
        "target_not_idle": "made the looker look but left the target looking somewhere too",
        "looker_asks_nothing": "gave the looker a query that reads nothing, so it weighs every "
        "word alike",
        "too_weak": "pointed the look the right way but too weakly",
        "other_target": "made the looker look most at another word than the target",
        **generic("not_a_number", "wrong_shape", "not_finite"),
    },
    "check_projection": {
        "transpose": "gave the transpose, a row per output feature instead of per token",
        "w_transposed": "multiplied by W.T instead of W",
        **generic("not_a_number", "wrong_shape", "other"),
    },
}


@catalogued(MISTAKES)
def check_projection(answer: Any, X: ArrayLike, W: ArrayLike) -> Verdict:
    """Check a projection of embeddings ``X [n, d_model]`` by ``W [d_model, d_out]``, ``X @ W``.

    Exercise 3.4 of chapter 3 gives it a square ``W``, where ``X @ W.T`` runs silently.
    """
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
        mistakes={
            "transpose": (
                expected.T,
                f"This is the transpose: with row vectors the result has one row per token, "
                f"shape {list(expected.shape)}.",
            ),
            "w_transposed": (
                X @ W.T if W.shape[0] == W.shape[1] else None,
                "You used W.T: with W stored as [d_model, d_out], the projection is X @ W.",
            ),
        },
    )
    if verdict is not None:
        return verdict
    return wrong("Each output row is the input row times W: output[i] = X[i] @ W.", "other")


def fused_score_mistakes(
    weight: np.ndarray, X: np.ndarray, i: int, j: int
) -> dict[str, tuple[Any, str]]:
    """The named mistakes of reading the score ``q_i · k_j`` out of a fused weight (chapter 3).

    ``weight [3 d_k, d_model]`` in ``nn.Linear``'s layout, ``X [n, d_model]``.
    ``{name: (the wrong score, or None where it cannot apply, the explanation)}``.
    """
    Q, K, V = np.split(X @ weight.T, 3, axis=1)  # [n, d_k] each
    square = weight.shape[0] == weight.shape[1]
    Q_s, K_s, _ = np.split(X @ weight, 3, axis=1) if square else (None,) * 3  # [n, d_k] each
    return {
        "not_transposed": (
            Q_s[i] @ K_s[j] if square else None,
            "You used X @ weight: nn.Linear stores its weight as [out, in] and computes "
            "X @ weight.T. The weight is square here, so the slip runs without an error.",
        ),
        "wrong_direction": (
            Q[j] @ K[i],
            "That is the score the other way round, q_j · k_i (or Q and K swapped): the "
            "query comes from the word that looks, the key from the word it looks at, "
            "and the thirds come in the order Q, K, V.",
        ),
        "value_for_key": (
            Q[i] @ V[j],
            "You took the last third as the keys: the fused output is cut in the order "
            "Q, K, V, so the keys are the middle third.",
        ),
        "own_key": (
            Q[i] @ K[i],
            "That is the word's score for itself, q_i · k_i; the key must be the other word's.",
        ),
    }


@catalogued(MISTAKES)
def check_fused_score(answer: Any, weight: ArrayLike, X: ArrayLike, i: int, j: int) -> Verdict:
    """Check the raw score ``q_i · k_j`` read out of a fused projection's weight (chapter 3).

    ``weight [3 d_k, d_model]`` is an ``nn.Linear(d_model, 3 * d_k)`` weight, in
    PyTorch's ``[out, in]`` layout, fusing ``W_Q``, ``W_K`` and ``W_V`` in that
    order; ``X [n, d_model]``. The answer is one number, ``S[i, j]`` of
    ``S = Q K^T`` (not scaled).

    Raises:
        ValueError: naming ``weight``, ``X``, ``i`` or ``j`` when their shapes or
            indices do not fit.
    """
    weight, X = float_input("weight", weight), float_input("X", X)  # [3 d_k, d_model], [n, d_model]
    if weight.ndim != 2 or weight.shape[0] % 3 or X.ndim != 2 or X.shape[1] != weight.shape[1]:
        raise ValueError(
            f"weight must be [3 d_k, d_model] and X [n, d_model]; got weight "
            f"{list(weight.shape)}, X {list(X.shape)}"
        )
    for name, index in (("i", i), ("j", j)):
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise ValueError(f"{name} must be a row index of X; got {index!r}")
        if not 0 <= index < X.shape[0]:
            raise ValueError(f"{name} must be a row index of X, in [0, {X.shape[0]}); got {index}")
    Q, K, _ = np.split(X @ weight.T, 3, axis=1)  # [n, d_k] each
    expected = np.asarray(Q[i] @ K[j])  # []
    got = as_float_array(answer)
    if got is not None and got.size == 1:
        answer = got.reshape(())  # one number, whether written 1.7 or [1.7]
    verdict = judge(
        answer,
        expected,
        what="the score q_i · k_j, one number",
        praise=(
            f"q_{i} · k_{j} = {float(expected):.4f}: X @ weight.T, cut into Q, K, V, then "
            "row i of Q against row j of K."
        ),
        kind="a number",
        mistakes=fused_score_mistakes(weight, X, i, j),
    )
    if verdict is not None:
        return verdict
    got = as_float_array(answer)
    if got.size != 1:
        return wrong(
            f"The score is one number; your answer has shape {list(got.shape)}.", "wrong_shape"
        )
    return wrong(
        "Not one of the slips we know: compute X @ weight.T, cut it into thirds in the order "
        "Q, K, V, and take the dot product of row i of Q with row j of K.",
        "other",
    )


@catalogued(MISTAKES)
def check_one_way_look(
    W_Q: Any, W_K: Any, words: str | Sequence[str], looker: str, target: str, share: float = 0.8
) -> Verdict:
    """Check hand-set projections ``W_Q, W_K [d_model, d_k]`` that make a one-way look (chapter 3).

    The goal, in the toy sentence ``words`` (``X = word_vectors(words)``, ``[n, 6]``):
    the word ``looker`` puts at least ``share`` of its attention on ``target``, while
    ``target`` itself looks at nothing in particular (each of its ``n`` weights is
    within ``EVEN_TOLERANCE`` of ``1/n``). The weights are those of
    ``lessons.attention``: ``A = softmax(Z)`` with ``Z = S / sqrt(d_k)`` and raw
    scores ``S = (X W_Q)(X W_K)^T``, all ``[n, n]``.

    Named mistakes: a weight in ``nn.Linear``'s ``[d_k, d_model]`` layout (or, when
    square, one that works only as ``X @ W.T``), a 1-D column, queries and keys of
    different ``d_k``, one shared matrix (symmetric scores), the look going the wrong
    way (``W_Q`` and ``W_K`` swapped), a ``target`` that still looks somewhere, a
    ``looker`` whose query is zero, a look too weak, and a key that singles out
    another word.

    Raises:
        ValueError: if ``looker`` or ``target`` is not in ``words``, they are the
            same word, or ``share`` is not between 0 and 1 (the exercise's inputs).
    """
    X = word_vectors(words)  # [n, d_model]
    tokens = words.lower().split() if isinstance(words, str) else [w.lower() for w in words]
    for name, word in (("looker", looker), ("target", target)):
        if not isinstance(word, str) or word.lower() not in tokens:
            raise ValueError(f"{name}={word!r} is not a word of words={tokens}")
    looker, target = looker.lower(), target.lower()
    if looker == target:
        raise ValueError(f"looker and target must be different words; both are {looker!r}")
    if not finite_number("share", share, positive=True) < 1:
        raise ValueError(f"share must be a number between 0 and 1; got {share!r}")
    if is_missing(W_Q) or is_missing(W_K):
        return unanswered(
            f"two matrices W_Q and W_K of shape [d_model, d_k] = [{X.shape[1]}, 1] "
            f"(start from np.zeros(({X.shape[1]}, 1)) and set entries)"
        )
    matrices = {}
    for name, W in (("W_Q", W_Q), ("W_K", W_K)):
        problem = layout_problem(name, W, X.shape[1])
        if isinstance(problem, Verdict):
            return problem
        matrices[name] = problem
    W_Q, W_K = matrices["W_Q"], matrices["W_K"]  # [d_model, d_k] each
    if W_Q.shape[1] != W_K.shape[1]:
        return wrong(
            f"Queries and keys meet in a dot product, so they need the same d_k: "
            f"W_Q has shape {list(W_Q.shape)}, W_K has shape {list(W_K.shape)}.",
            "different_d_k",
        )
    i, j = tokens.index(looker), tokens.index(target)
    A = one_way_weights(X, W_Q, W_K)  # [n, n]
    if A is None:
        return wrong(
            "The scores overflow to inf: use entries of a sensible size (say 1 to 10).", "overflow"
        )
    if reached(A, i, j, share):
        return right(
            f"'{looker}' puts {A[i, j]:.2f} of its attention on '{target}', while "
            f"'{target}' spreads its own evenly ({1 / len(tokens):.2f} each): a one-way look."
        )
    return diagnose(A, X, W_Q, W_K, tokens, i, j, share)
