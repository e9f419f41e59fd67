"""Chapter 3's design exercise: a one-way look is right, and each likely mistake is named."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons.checks.ch03 import EVEN_TOLERANCE
from lessons.toy import FEATURES, word_vectors

SENTENCE = "the movie was not good"
LOOKER, TARGET = "good", "not"
I_LOOK, J_TARGET = SENTENCE.split().index(LOOKER), SENTENCE.split().index(TARGET)


def column(d_k: int = 1, **entries: float) -> np.ndarray:
    """A ``[d_model, d_k]`` matrix whose first column reads the named features."""
    W = np.zeros((len(FEATURES), d_k))  # [d_model, d_k]
    for feature, value in entries.items():
        W[FEATURES.index(feature), 0] = value
    return W


def check(W_Q, W_K):
    return lessons.check_one_way_look(W_Q, W_K, SENTENCE, looker=LOOKER, target=TARGET)


RIGHT_Q = column(quality=2.0, negation=-0.6)  # 'not' has 0.3 quality: cancel it
RIGHT_K = column(negation=2.0)


@pytest.mark.parametrize(
    ("W_Q", "W_K", "expected"),
    [
        (RIGHT_Q, RIGHT_K, "Correct"),
        (column(quality=2.0), RIGHT_K, "'not' is not idle"),
        (column(negation=2.0), column(quality=2.0), "swap W_Q and W_K"),
        (RIGHT_Q.T, RIGHT_K, "layout nn.Linear stores"),
        (RIGHT_Q, RIGHT_K.T, "use W_K.T"),
        (RIGHT_Q.ravel(), RIGHT_K, "make it a column"),
        (RIGHT_Q / 2, RIGHT_K / 2, "too weak"),
        (RIGHT_K, RIGHT_K, "Use separate W_Q and W_K"),
        (column(function=2.0), RIGHT_K, "'good' asks nothing"),
        (RIGHT_Q, column(quality=2.0), "looks most at 'good'"),
        (RIGHT_Q, np.zeros((6, 2)), "the same d_k"),
        (np.zeros((5, 1)), RIGHT_K, "one row per feature"),
        (np.full((6, 1), np.nan), RIGHT_K, "NaN or inf"),
        ("W", RIGHT_K, "array of numbers; got str"),
        (column(quality=1e200), column(negation=1e200), "overflow"),
    ],
)
def test_check_one_way_look_names_the_mistake(W_Q, W_K, expected):
    verdict = check(W_Q, W_K)
    assert expected in repr(verdict)
    assert bool(verdict) == (expected == "Correct")


def test_check_one_way_look_spots_square_matrices_that_work_only_as_x_times_w_transposed():
    W_Q, W_K = column(6, quality=4.0, negation=-1.2), column(6, negation=4.0)  # [6, 6] each
    assert check(W_Q, W_K)
    assert "X @ W.T" in repr(check(W_Q.T, W_K.T))


def test_words_are_matched_whatever_their_case():
    verdict = lessons.check_one_way_look(RIGHT_Q, RIGHT_K, SENTENCE.upper(), "Good", "NOT")
    assert verdict and "'good' puts" in repr(verdict)


def test_an_unanswered_design_says_so():
    for W_Q, W_K in ((..., RIGHT_K), (RIGHT_Q, None), (None, None)):
        verdict = check(W_Q, W_K)
        assert not verdict and not verdict.answered


@pytest.mark.parametrize(
    "answer",
    [[[1, 2], [3]], 1j, object(), True, 3.0, float("inf"), np.ones((6, 1, 1))],
    ids=["ragged", "complex", "object", "bool", "float", "inf", "3-d"],
)
def test_odd_answers_get_a_verdict_not_an_exception(answer):
    for verdict in (check(answer, RIGHT_K), check(RIGHT_Q, answer)):
        assert not verdict and verdict.message.startswith("✘")


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"looker": "bad", "target": TARGET}, "looker"),
        ({"looker": LOOKER, "target": "bad"}, "target"),
        ({"looker": LOOKER, "target": LOOKER}, "different"),
        ({"looker": LOOKER, "target": TARGET, "share": 1.5}, "share"),
        ({"looker": LOOKER, "target": TARGET, "share": "0.8"}, "share"),
        ({"looker": 4, "target": TARGET}, "looker"),
    ],
)
def test_wrong_exercise_inputs_raise_naming_the_argument(kwargs, named):
    with pytest.raises(ValueError, match=named):
        lessons.check_one_way_look(RIGHT_Q, RIGHT_K, SENTENCE, **kwargs)


matrices = st.lists(
    st.floats(-4, 4, allow_nan=False), min_size=len(FEATURES), max_size=len(FEATURES)
).map(lambda values: np.array(values).reshape(-1, 1))  # [d_model, 1]


def goal_reached(W_Q, W_K) -> bool:
    """The exercise's goal, measured with ``lessons.attention`` itself."""
    X = word_vectors(SENTENCE)  # [n, d_model]
    _, A = lessons.attention(X @ W_Q, X @ W_K, X)  # [n_q, n_k]
    return A[I_LOOK, J_TARGET] >= 0.8 and np.abs(A[J_TARGET] - 1 / len(X)).max() <= EVEN_TOLERANCE


@settings(max_examples=150, deadline=None)
@given(matrices, matrices)
def test_the_verdict_is_correct_exactly_when_lessons_attention_reaches_the_goal(W_Q, W_K):
    assert bool(check(W_Q, W_K)) == goal_reached(W_Q, W_K)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.1, 5), st.floats(0.1, 5), st.floats(-0.1, 0.1))
def test_scaled_designs_pass_exactly_when_the_look_is_strong_and_not_stays_idle(a, b, slip):
    W_Q = column(quality=a, negation=-(0.3 + slip) * a)  # [d_model, 1]
    W_K = column(negation=b)  # [d_model, 1]
    assert bool(check(W_Q, W_K)) == goal_reached(W_Q, W_K)


@settings(max_examples=100, deadline=None)
@given(matrices)
def test_one_shared_matrix_never_passes(W):
    verdict = check(W, W)
    assert not verdict and "Use separate W_Q and W_K" in repr(verdict)


def test_the_goal_holds_whatever_the_key_scale_once_the_look_is_strong():
    for scale in (2.0, 5.0, 10.0):
        assert check(RIGHT_Q, RIGHT_K * scale)
