"""The self-checks of chapters 5 and 6 name the mistakes learners make, whatever the shapes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lessons

# Exercise 5.1's inputs: two queries, three keys (n_q != n_k).
Q_EX = np.array([[1.0, 1.0], [0.0, 2.0]])  # [n_q, d_k] = [2, 3]
K_EX = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]])  # [n_k, d_k] = [3, 2]
SCALED_EX = Q_EX @ K_EX.T / np.sqrt(2)  # [2, 3]


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


N, P = 6, 3  # Exercise 6.1: six tokens, a three-token prompt
CAUSAL = np.tril(np.ones((N, N), dtype=bool))  # [n_q, n_k]
PROMPT = np.arange(N)[None, :] < P  # [1, n_k]
PREFIX = CAUSAL | PROMPT  # [n_q, n_k]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (PREFIX, "Correct"),
        (CAUSAL, "plain causal mask"),
        (CAUSAL & PROMPT, "combine them with OR"),
        (np.ones((N, N), dtype=bool), "Nothing is blocked"),
        (CAUSAL | (np.arange(N)[None, :] <= P), "one token too long"),
        (~PREFIX, "nn.MultiheadAttention's convention"),
        (PREFIX.T, "transpose"),
        (PREFIX & ~np.eye(N, dtype=bool), "diagonal is missing"),
        (PREFIX.astype(int), "make it boolean"),
        (lessons.additive_mask(PREFIX), "additive mask"),
        (PREFIX[:5, :5], "shape [6, 6]"),
        (np.eye(N, dtype=bool), "j <= i or j < 3"),
    ],
)
def test_check_causal_mask_with_a_prompt_names_each_mistake(answer, expected):
    assert expected in repr(lessons.check_causal_mask(answer, N, prefix=P))


@given(n=st.integers(1, 12), data=st.data())
def test_check_causal_mask_accepts_exactly_the_prefix_mask(n, data):
    p = data.draw(st.integers(0, n))
    i, j = np.indices((n, n))  # query and key positions
    right = (j <= i) | (j < p)  # [n, n]
    assert lessons.check_causal_mask(right, n, prefix=p)
    flip = data.draw(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)))
    wrong = right.copy()
    wrong[flip] = not wrong[flip]  # one cell changed
    assert not lessons.check_causal_mask(wrong, n, prefix=p)


def test_check_causal_mask_without_a_prompt_is_the_plain_causal_check():
    assert lessons.check_causal_mask(CAUSAL, N)
    assert "np.tril of ones" in repr(lessons.check_causal_mask(PREFIX, N))


@pytest.mark.parametrize("prefix", [-1, N + 1, 1.5, True])
def test_check_causal_mask_rejects_a_prompt_longer_than_the_sequence(prefix):
    with pytest.raises(ValueError, match="prefix"):
        lessons.check_causal_mask(CAUSAL, N, prefix=prefix)
