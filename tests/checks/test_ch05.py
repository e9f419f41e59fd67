"""Chapter 5's self-checks (A hand-worked example): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest

import lessons

Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d]


K = np.array([[1.0, 2.0], [0.0, 1.0]])  # [n_k, d]


QA = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d_k]


KA = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [n_k, d_k]


VA = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [n_k, d_v]


SA = QA @ KA.T  # [n_q, n_k]


# Exercise 5.1's inputs: two queries, three keys (n_q != n_k).
Q_EX = np.array([[1.0, 1.0], [0.0, 2.0]])  # [n_q, d_k] = [2, 3]


K_EX = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]])  # [n_k, d_k] = [3, 2]


SCALED_EX = Q_EX @ K_EX.T / np.sqrt(2)  # [2, 3]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lessons.attention(QA, KA, VA)[1], "Correct"),
        (SA, "raw scores"),
        (SA / np.sqrt(2), "scaled scores"),
        (lessons.softmax(SA), "forgot the scaling"),
        (lessons.softmax(SA / np.sqrt(2), axis=0), "Each column sums to 1"),
        (np.full((3, 3), 0.5), "do not sum to 1"),
    ],
)
def test_check_attention_weights_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_attention_weights(answer, QA, KA))


def test_check_attention_weights_spots_the_transpose():
    Q = np.array([[2.0, 0.0], [0.0, 1.0]])  # [n_q, d_k]
    K = np.array([[1.0, 0.0], [1.0, 1.0]])  # [n_k, d_k]
    weights = lessons.attention(Q, K, K)[1]  # [n_q, n_k]
    assert "transpose" in repr(lessons.check_attention_weights(weights.T, Q, K))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lessons.softmax(SCALED_EX), "Correct"),
        (lessons.softmax(SCALED_EX, axis=0), "Each column sums to 1"),
        (lessons.softmax(SCALED_EX).T, "transpose"),
        (Q_EX @ K_EX.T, "raw scores"),
        (SCALED_EX, "scaled scores"),
        (lessons.softmax(Q_EX @ K_EX.T), "forgot the scaling"),
    ],
)
def test_check_attention_weights_names_each_mistake_when_queries_and_keys_differ_in_number(
    answer, expected
):
    assert expected in repr(lessons.check_attention_weights(answer, Q_EX, K_EX))
