"""Chapter 4's self-checks (Scaled dot-product attention): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons.checks import ch04

# Sizes that coincide (n_q = d_v = sqrt(d_k) = 2: exercise 4.1's before issue 34) and a
# square example.
Q_EX = np.array([[1, 0, 1, 0], [0, 2, 0, 2]], dtype=float)  # [n_q, d_k] = [2, 4]


K_EX = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [2, 0, 0, 0]], dtype=float)  # [n_k, d_k] = [3, 4]


V_EX = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)  # [n_k, d_v] = [3, 2]


Q_SQ = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [3, 2]


K_SQ = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [3, 2]


V_SQ = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [3, 2]


CASES = {"n_q != n_k": (Q_EX, K_EX, V_EX), "square": (Q_SQ, K_SQ, V_SQ)}


def _wrong_outputs(Q, K, V):
    """The mistakes written the way a learner writes them: name -> answer."""
    d_k = Q.shape[-1]
    S = Q @ K.T  # [n_q, n_k]
    Z = S / np.sqrt(d_k)  # [n_q, n_k]
    A = lessons.softmax(Z)  # [n_q, n_k]
    E = np.exp(Z)  # [n_q, n_k]
    return {
        "weights-not-output": A,
        "transposed-output": V.T @ A.T,  # [d_v, n_q]
        "no-scaling": lessons.softmax(S) @ V,
        "divided-by-d_k": lessons.softmax(S / d_k) @ V,
        "multiplied-by-sqrt": lessons.softmax(S * np.sqrt(d_k)) @ V,
        "scaled-by-n_k": lessons.softmax(S / np.sqrt(K.shape[0])) @ V,
        "softmax-over-columns": lessons.softmax(Z, axis=0) @ V,
        "softmax-over-table": (E / E.sum()) @ V,
        "no-softmax": Z @ V,
        "no-softmax-no-scaling": S @ V,
    }


EXPECTED_WORDS = {
    "weights-not-output": "Those are the weights",
    "transposed-output": "output transposed",
    "no-scaling": "forgot to divide",
    "divided-by-d_k": "divided by d_k",
    "multiplied-by-sqrt": "multiplied the scores",
    "scaled-by-n_k": "the number of keys",
    "softmax-over-columns": "down the columns",
    "softmax-over-table": "whole table",
    "no-softmax": "skipped the softmax",
    "no-softmax-no-scaling": "raw scores",
}


sizes = st.integers(1, 5)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("mistake", EXPECTED_WORDS)
def test_check_attention_names_each_mistake_square_or_not(case, mistake):
    Q, K, V = CASES[case]
    if mistake == "scaled-by-n_k" and K.shape[0] == Q.shape[1]:
        pytest.skip("n_k equals d_k here: dividing by sqrt(n_k) is right")
    verdict = lessons.check_attention(_wrong_outputs(Q, K, V)[mistake], Q, K, V)
    assert not verdict and EXPECTED_WORDS[mistake] in repr(verdict)


def test_exercise_4_1_names_the_size_it_was_scaled_by():
    S = Q_EX @ K_EX.T  # [2, 3]
    by_n_q = lessons.softmax(S / np.sqrt(2)) @ V_EX  # [2, 2]; 2 is n_q and d_v
    message = repr(lessons.check_attention(by_n_q, Q_EX, K_EX, V_EX))
    assert "sqrt(2)" in message and "Q.shape[0]" in message and "V.shape[-1]" in message
    assert "Q.shape[-1] = 4" in message


def test_check_attention_accepts_the_right_output_as_array_list_or_tensor():
    out = lessons.attention(Q_EX, K_EX, V_EX)[0]  # [2, 2]
    for answer in (out, out.tolist(), torch.from_numpy(out)):
        assert lessons.check_attention(answer, Q_EX, K_EX, V_EX)


def test_a_mistake_that_is_right_for_these_inputs_is_not_listed():
    Q = np.array([[1.0], [2.0]])  # [2, 1]: d_k = 1, so sqrt(d_k) = d_k = 1
    K = np.array([[1.0], [0.0], [-1.0]])  # [3, 1]
    V = np.eye(3)  # [3, 3]
    mistakes = ch04.attention_mistakes(Q, K, V)
    for name in ("no-scaling", "divided-by-d_k", "multiplied-by-sqrt", "no-softmax-no-scaling"):
        assert mistakes[name][0] is None


def test_check_attention_says_the_output_has_one_row_per_query():
    verdict = lessons.check_attention(np.zeros((3, 3)), Q_EX, K_EX, V_EX)
    assert not verdict and "one row per query" in repr(verdict)


def test_check_attention_refuses_batched_inputs_naming_q():
    with pytest.raises(ValueError, match="Q must have shape"):
        lessons.check_attention(None, Q_EX[None], K_EX[None], V_EX[None])


@settings(max_examples=60, deadline=None)
@given(n_q=st.integers(2, 5), n_k=sizes, d_k=sizes, d_v=sizes, seed=st.integers(0, 2**16))
def test_every_attention_mistake_is_wrong_and_named_for_any_shapes(n_q, n_k, d_k, d_v, seed):
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(n_q, d_k))  # [n_q, d_k]
    K = rng.normal(size=(n_k, d_k))  # [n_k, d_k]
    V = rng.normal(size=(n_k, d_v))  # [n_k, d_v]
    mistakes = ch04.attention_mistakes(Q, K, V)
    messages = {f"✘ Not yet. {why}" for _, why in mistakes.values()}
    # Column-wise softmax and a transposed output apply whatever the shapes.
    assert mistakes["softmax-over-columns"][0] is not None or n_k == 1
    assert mistakes["transposed-output"][0] is not None
    for value, _ in mistakes.values():
        if value is not None:
            verdict = lessons.check_attention(value, Q, K, V)
            assert not verdict and repr(verdict) in messages
