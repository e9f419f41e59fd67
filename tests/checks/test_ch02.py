"""Chapter 2's self-checks (Dot products and softmax): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons import (
    check_softmax_function,
)
from lessons.checks import ch02

Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d]


K = np.array([[1.0, 2.0], [0.0, 1.0]])  # [n_k, d]


def _naive(x):
    return np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)


def _stable(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


A_EX, B_EX, K_EX = [1, -2, 4], [3, 0, -1], 1  # b[1] is the unknown


Q_EX = np.array([[1.0, 2.0], [0.0, -1.0]])  # [n_q, d_k]


COLUMN = np.array([4.0, -1.0])  # [n_q], the scores wanted


def test_a_verdict_shows_its_message_as_text_and_html():
    verdict = lessons.check_perpendicular_entry(-10 / 3, [2, 3], [5, 0], 1)
    assert verdict.ok and bool(verdict)
    assert repr(verdict).startswith("✔ Correct")
    assert "#009E73" in verdict._repr_html_()
    wrong = lessons.check_perpendicular_entry(8, [2, 3], [5, 0], 1)
    assert not wrong and "&lt;" not in wrong._repr_html_() and "#D55E00" in wrong._repr_html_()


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (_stable, "Correct"),
        (lessons.softmax, "Correct"),
        (_naive, "NaN"),
        (lambda x: np.exp(x - x.max(axis=0)) / np.exp(x - x.max(axis=0)).sum(axis=0), "columns"),
        (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(), "whole table sums to 1"),
        (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), "do not sum to 1"),
        (lambda x: x / x.sum(axis=-1, keepdims=True), "softmax gives"),
        (lambda x: x[0], "should have shape"),
        (lambda x: 1 / 0, "raised ZeroDivisionError"),
        (_stable(np.zeros(2)), "Pass the function itself"),
    ],
)
def test_check_softmax_function_names_the_bug(fn, expected):
    assert expected in repr(check_softmax_function(fn))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (-0.5, "Correct"),
        (np.float32(-0.5), "Correct"),
        (torch.tensor(-0.5), "Correct"),
        (0.5, "sign slipped"),
        (1.0, "divide by a_k"),
        (-1.0, "unknown set to 0"),
        (0.0, "a · b = -1, not 0"),
        (7, "a · b = -15, not 0"),
        ([1, 2], "single number"),
        ("x", "single number"),
        (float("nan"), "finite"),
    ],
)
def test_check_perpendicular_entry_names_the_mistake(answer, expected):
    verdict = lessons.check_perpendicular_entry(answer, A_EX, B_EX, K_EX)
    assert expected in repr(verdict)
    assert bool(verdict) == (expected == "Correct")


def test_every_perpendicular_mistake_is_wrong_and_named_with_its_own_message():
    mistakes = ch02.perpendicular_entry_mistakes(A_EX, B_EX, K_EX)
    for value, why in mistakes.values():
        assert (
            repr(lessons.check_perpendicular_entry(value, A_EX, B_EX, K_EX)) == f"✘ Not yet. {why}"
        )


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=3, max_size=3),
    st.lists(st.integers(-5, 5), min_size=3, max_size=3),
    st.integers(0, 2),
)
def test_the_right_entry_makes_the_dot_product_zero_for_any_vectors(a, b, k):
    if a[k] == 0:
        with pytest.raises(ValueError, match=f"a\\[{k}\\] is 0"):
            lessons.check_perpendicular_entry(0.0, a, b, k)
        return
    x = -(np.dot(a, b) - a[k] * b[k]) / a[k]
    filled = np.array(b, dtype=float)
    filled[k] = x
    assert abs(np.dot(a, filled)) < 1e-9
    assert lessons.check_perpendicular_entry(x, a, b, k)
    assert not lessons.check_perpendicular_entry(x + 0.25, a, b, k)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (([1, 2], [1, 2, 3], 0), "a and b"),
        (([1, 2], [3, 4], 2), "k must"),
        (([0, 2], [3, 4], 0), "a\\[0\\]"),
    ],
)
def test_check_perpendicular_entry_refuses_bad_exercise_inputs(args, named):
    with pytest.raises(ValueError, match=named):
        lessons.check_perpendicular_entry(1.0, *args)


def test_check_perpendicular_entry_says_when_there_is_no_answer_yet():
    verdict = lessons.check_perpendicular_entry(..., A_EX, B_EX, K_EX)
    assert not verdict and not verdict.answered


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ([2.0, 1.0], "Correct"),
        (torch.tensor([2.0, 1.0]), "Correct"),
        (COLUMN, "the column of scores you want"),
        ([4.0, 9.0], "with the columns of Q"),
        ([1.0, 2.0], "should score the key highest"),
        ([6.0, -1.0], "gets the scores [4.0, 1.0]"),
        ([[2.0, 1.0]], "shape [2]; yours has shape [1, 2]"),
        ("k", "should be a vector"),
    ],
)
def test_check_key_for_scores_names_the_mistake(answer, expected):
    verdict = lessons.check_key_for_scores(answer, Q_EX, COLUMN)
    assert expected in repr(verdict)
    assert bool(verdict) == (expected == "Correct")


def test_every_key_mistake_is_wrong_and_named_with_its_own_message():
    for value, why in ch02.key_for_scores_mistakes(Q_EX, COLUMN).values():
        assert repr(lessons.check_key_for_scores(value, Q_EX, COLUMN)) == f"✘ Not yet. {why}"


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**16))
def test_the_key_that_solves_q_k_equals_the_scores_passes_for_any_invertible_q(d, seed):
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(d, d)) + 3 * np.eye(d)  # [d, d], invertible
    scores = rng.normal(size=d)  # [d]
    key = np.linalg.solve(Q, scores)  # [d]
    assert lessons.check_key_for_scores(key, Q, scores)
    assert not lessons.check_key_for_scores(key + 0.5, Q, scores)


@pytest.mark.parametrize(
    ("Q", "scores", "named"),
    [
        (np.ones((2, 3)), [1.0, 2.0], "square"),
        (Q_EX, [1.0, 2.0, 3.0], "scores"),
        (np.ones((2, 2)), [1.0, 2.0], "not invertible"),
    ],
)
def test_check_key_for_scores_refuses_bad_exercise_inputs(Q, scores, named):
    with pytest.raises(ValueError, match=named):
        lessons.check_key_for_scores([1.0, 1.0], Q, scores)
