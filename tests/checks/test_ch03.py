"""Chapter 3's self-checks (Queries, keys and values): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons.checks import ch03
from lessons.checks.ch03 import EVEN_TOLERANCE
from lessons.toy import FEATURES, word_vectors

X3 = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])  # [n, d_model]


W3 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])  # [d_model, d_out]


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


matrices = st.lists(
    st.floats(-4, 4, allow_nan=False), min_size=len(FEATURES), max_size=len(FEATURES)
).map(lambda values: np.array(values).reshape(-1, 1))  # [d_model, 1]


def goal_reached(W_Q, W_K) -> bool:
    """The exercise's goal, measured with ``lessons.attention`` itself."""
    X = word_vectors(SENTENCE)  # [n, d_model]
    _, A = lessons.attention(X @ W_Q, X @ W_K, X)  # [n_q, n_k]
    return A[I_LOOK, J_TARGET] >= 0.8 and np.abs(A[J_TARGET] - 1 / len(X)).max() <= EVEN_TOLERANCE


X_FUSED = word_vectors(SENTENCE)  # [n, d_model] = [5, 6]


I_NOT, J_GOOD = SENTENCE.split().index("not"), SENTENCE.split().index("good")


WEIGHT = np.round(np.random.default_rng(3).normal(size=(6, 6)), 1)  # [3 d_k, d_model], [out, in]


def fused_parts(weight):
    return np.split(X_FUSED @ weight.T, 3, axis=1)  # Q, K, V: [n, d_k] each


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (X3 @ W3, "Correct"),
        ((X3 @ W3).T, "transpose"),
        (np.zeros((2, 2)), "gives shape [3, 3]"),
        (X3 @ W3 + 1, "output[i] = X[i] @ W"),
    ],
)
def test_check_projection_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_projection(answer, X3, W3))


def test_check_projection_spots_a_transposed_square_weight():
    W = np.array([[1.0, 2.0], [3.0, 4.0]])  # [d_model, d_out], square
    assert "You used W.T" in repr(lessons.check_projection(X3 @ W.T, X3, W))


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


@pytest.mark.parametrize(
    ("mistake", "expected"),
    [
        ("right", "Correct"),
        ("not-transposed", "X @ weight.T"),
        ("wrong-direction", "the other way round"),
        ("swapped-thirds", "the other way round"),  # K[i] · Q[j] is the same number
        ("value-for-key", "the keys are the middle third"),
        ("own-key", "score for itself"),
    ],
)
def test_check_fused_score_names_the_mistake(mistake, expected):
    Q, K, V = fused_parts(WEIGHT)
    Q_s, K_s, _ = np.split(X_FUSED @ WEIGHT, 3, axis=1)  # [n, d_k] each, the slip
    answers = {
        "right": Q[I_NOT] @ K[J_GOOD],
        "not-transposed": Q_s[I_NOT] @ K_s[J_GOOD],
        "wrong-direction": Q[J_GOOD] @ K[I_NOT],
        "swapped-thirds": K[I_NOT] @ Q[J_GOOD],
        "value-for-key": Q[I_NOT] @ V[J_GOOD],
        "own-key": Q[I_NOT] @ K[I_NOT],
    }
    verdict = lessons.check_fused_score(answers[mistake], WEIGHT, X_FUSED, I_NOT, J_GOOD)
    assert expected in repr(verdict)
    assert bool(verdict) == (mistake == "right")


def test_every_fused_score_mistake_is_wrong_and_named_with_its_own_message():
    for value, why in ch03.fused_score_mistakes(WEIGHT, X_FUSED, I_NOT, J_GOOD).values():
        verdict = lessons.check_fused_score(value, WEIGHT, X_FUSED, I_NOT, J_GOOD)
        assert repr(verdict) == f"✘ Not yet. {why}"


def test_a_fused_score_that_is_no_known_slip_gets_the_recipe():
    verdict = lessons.check_fused_score(123.0, WEIGHT, X_FUSED, I_NOT, J_GOOD)
    assert not verdict and "in the order Q, K, V" in repr(verdict)


def test_the_score_agrees_with_an_nn_linear_layer_holding_the_weight():
    layer = torch.nn.Linear(6, 6, bias=False, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(WEIGHT))
    Q, K, _ = lessons.split_qkv(layer(torch.from_numpy(X_FUSED)))  # 3 x [n, d_k]
    score = float((Q[I_NOT] @ K[J_GOOD]).detach())
    assert lessons.check_fused_score(score, WEIGHT, X_FUSED, I_NOT, J_GOOD)


def test_a_rectangular_fused_weight_has_no_silent_transpose_slip():
    weight = np.random.default_rng(0).normal(size=(9, 6))  # [3 d_k, d_model], d_k = 3
    assert ch03.fused_score_mistakes(weight, X_FUSED, 0, 1)["not_transposed"][0] is None
    Q, K, _ = np.split(X_FUSED @ weight.T, 3, axis=1)
    assert lessons.check_fused_score(Q[0] @ K[1], weight, X_FUSED, 0, 1)


@pytest.mark.parametrize(
    ("weight", "i", "j", "named"),
    [
        (np.ones((5, 6)), 0, 1, "weight"),
        (np.ones((6, 4)), 0, 1, "weight"),
        (WEIGHT, 5, 1, "i must"),
        (WEIGHT, 0, True, "j must"),
    ],
)
def test_check_fused_score_refuses_bad_exercise_inputs(weight, i, j, named):
    with pytest.raises(ValueError, match=named):
        lessons.check_fused_score(1.0, weight, X_FUSED, i, j)


def test_check_fused_score_says_when_there_is_no_answer_yet():
    verdict = lessons.check_fused_score(None, WEIGHT, X_FUSED, I_NOT, J_GOOD)
    assert not verdict and not verdict.answered
