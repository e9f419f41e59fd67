"""What chapter 2's usual wrong methods compute: the candidates its checks compare with.

Each function returns ``{name: (what the wrong method gives for these inputs, or None
where it cannot apply, the explanation the reader sees)}``; the checks of ``ch02``
name a wrong answer by the first candidate it matches, and ``score_matrix_mistakes``
gives the chapter's in-page question on ``Q @ K.T`` its wrong answers. ``ch02.MISTAKES`` describes each name.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["key_for_scores_mistakes", "perpendicular_entry_mistakes", "score_matrix_mistakes"]


def score_matrix_mistakes(Q: ArrayLike, K: ArrayLike) -> dict[str, tuple[Any, str]]:
    """The named mistakes of a score table ``Q @ K.T`` ``[n_q, n_k]`` (chapter 2).

    ``{name: (what the wrong method computes, or None where it cannot apply, the
    explanation)}``, for chapter 2's in-page question on the table's shape.
    """
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    expected = Q @ K.T  # [n_q, n_k]
    return {
        "transpose": (
            expected.T,
            f"This is K @ Q.T, the transpose: rows must be queries and columns keys, "
            f"so the shape is [n_q, n_k] = {list(expected.shape)}.",
        ),
        "elementwise": (
            Q * K if Q.shape == K.shape else None,
            "Q * K multiplies entries one by one; a table of dot products needs Q @ K.T.",
        ),
    }


def perpendicular_entry_mistakes(a: ArrayLike, b: ArrayLike, k: int) -> dict[str, tuple[Any, str]]:
    """The named mistakes of choosing ``b[k]`` so that ``a · b = 0`` (chapter 2).

    ``a [d]``, ``b [d]`` (its entry ``k`` is the unknown and is ignored). The right
    entry is ``-rest / a[k]``, where ``rest`` is the sum of the other products
    ``a[m] b[m]``. ``{name: (the wrong entry, the explanation)}``.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rest = float(a @ b - a[k] * b[k])  # the products that do not involve b[k]
    return {
        "sign_slip": (
            rest / a[k],
            "The sign slipped: a · b = rest + a_k x = 0 gives a_k x = -rest, so "
            f"x = -rest / a_k, where rest = {rest:g} is the sum of the other products.",
        ),
        "not_divided": (
            -rest,
            f"You found a_k x = {-rest:g}; divide by a_k = {a[k]:g} to get x itself.",
        ),
        "dot_product": (
            rest,
            f"That is a · b with the unknown set to 0 (the other products add up to "
            f"{rest:g}); choose the unknown so that the whole sum is 0.",
        ),
    }


def key_for_scores_mistakes(Q: ArrayLike, scores: ArrayLike) -> dict[str, tuple[Any, str]]:
    """The named mistakes of finding a key ``k [d_k]`` with ``Q @ k = scores`` (chapter 2).

    ``Q [n_q, d_k]`` square and invertible, ``scores [n_q]``. ``{name: (the wrong
    key, the explanation)}``.
    """
    Q, scores = np.asarray(Q, dtype=float), np.asarray(scores, dtype=float)
    return {
        "scores_as_key": (
            scores,
            "That is the column of scores you want, not the key that gives it: find k "
            "with q_i · k equal to score i for every query i.",
        ),
        "columns_of_q": (
            np.linalg.solve(Q.T, scores),
            "Your key gives those scores with the columns of Q: query i's score is the "
            "dot product of row i of Q with the key, (Q @ k)[i] = q_i · k.",
        ),
        "a_query": (
            Q[int(np.argmax(scores))],
            "That is the query that should score the key highest: pointing the key its "
            "way gives it a high score, but not the scores wanted. Solve q_i · k = "
            "score i, one equation per query.",
        ),
    }
