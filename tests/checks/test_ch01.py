"""Chapter 1's self-checks (Why attention): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons import (
    check_pair_count,
)
from lessons.checks import ch01

sizes = st.integers(1, 5)


QUERY = np.array([0.0, 2.0])  # [d], Exercise 1.1


KEYS = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n, d]


VALUES = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])  # [n, d_v]


SCORES = KEYS @ QUERY  # [n]


WEIGHTS = lessons.softmax(SCORES)  # [n]


COMPASS = np.array([[0.0, 2.0], [2.0, 0.0], [0.0, -2.0], [-2.0, 0.0]])  # [n_k, d_k]


NAMES = ["north", "east", "south", "west"]


TEXT_QUERY = np.array([1.4, 1.4])  # [d_k], the text's north-east query


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (25, "Correct"),
        (10, "unordered pairs"),
        (20, "scores itself"),
        (5, "not just one"),
        (7, "Count one"),
    ],
)
def test_check_pair_count_names_the_mistake(answer, expected):
    assert expected in repr(check_pair_count(answer, 5))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (WEIGHTS @ VALUES, "Correct"),
        (SCORES, "apply the softmax"),  # [3]: a shape error before
        (WEIGHTS, "Those are the weights"),
        (WEIGHTS[:, None] * VALUES, "did not add them up"),
        (SCORES @ VALUES, "raw scores are not weights"),
        (SCORES / SCORES.sum() @ VALUES, "divided the scores by their sum"),
        (VALUES[1], "hard look-up"),
        (VALUES.mean(axis=0), "plain average"),
        (WEIGHTS @ KEYS + np.array([0.0, 1e-3]), "Score each key"),
        (np.ones(4), "value-sized vector"),
        ("ten", "should be a vector"),
    ],
)
def test_check_soft_lookup_names_the_mistakes_of_exercise_1_1(answer, expected):
    assert expected in repr(lessons.check_soft_lookup(answer, QUERY, KEYS, VALUES))


def test_check_soft_lookup_names_averaged_keys_when_values_differ_from_keys():
    values = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0], [2.0, 2.0, 0.0]])  # [n, d_v]
    verdict = lessons.check_soft_lookup(WEIGHTS @ KEYS, QUERY, KEYS, values)
    assert "averaged the keys" in repr(verdict)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 5), d=sizes, d_v=sizes, seed=st.integers(0, 2**16))
def test_raw_scores_are_sent_to_the_softmax_whatever_the_shapes(n, d, d_v, seed):
    rng = np.random.default_rng(seed)
    query, keys = rng.normal(size=d), rng.normal(size=(n, d))  # [d], [n, d]
    values = rng.normal(size=(n, d_v))  # [n, d_v]
    verdict = lessons.check_soft_lookup(keys @ query, query, keys, values)
    assert not verdict and "apply the softmax" in repr(verdict)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (COMPASS[1] + COMPASS[2], "Correct"),
        ([1.0, -1.0], "Correct"),
        (torch.tensor([3.0, -3.0]), "Correct"),
        ([0.5, -0.5], "Make the query longer"),
        ([2.0, -1.5], "the split is uneven"),
        ([0.0, 2.0], "matches north best"),
        ([-1.0, 1.0], "point it between east and south"),
        ([0.0, 0.0], "zero query"),
        (25.0, "not the value"),
        ([[1.0, -1.0]], "shape [2]"),
        ([np.inf, -np.inf], "finite"),
        ("south-east", "should be a query vector"),
    ],
)
def test_check_split_query_names_what_the_query_does_wrong(answer, expected):
    verdict = lessons.check_split_query(answer, COMPASS, (1, 2), names=NAMES)
    assert expected in repr(verdict)
    assert bool(verdict) == (expected == "Correct")


@pytest.mark.parametrize(
    "settings_",
    [{}, {"share": 0.49, "rest": 0.001}],  # the defaults (ch. 1's text), Exercise 1.2's
    ids=["defaults", "exercise-1.2"],
)
@settings(max_examples=60, deadline=None)
@given(
    angle=st.floats(0.0, 2 * np.pi, exclude_max=True),
    length=st.floats(0.0, 20.0),
)
def test_check_split_query_passes_exactly_the_queries_whose_weights_pass(settings_, angle, length):
    share, rest = settings_.get("share", 0.45), settings_.get("rest", 1.0)
    query = length * np.array([np.cos(angle), np.sin(angle)])  # [d_k]
    weights = lessons.softmax(COMPASS @ query)  # [n_k]
    verdict = lessons.check_split_query(query, COMPASS, (1, 2), names=NAMES, **settings_)
    passes = weights[1] >= share and weights[2] >= share and 1 - weights[1] - weights[2] <= rest
    assert bool(verdict) == bool(passes)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"pair": (1, 1)}, "pair"),
        ({"pair": (1, 4)}, "pair"),
        ({"pair": (1, 2), "names": ["a"]}, "names"),
        ({"pair": (1, 2), "share": 0.6}, "share"),
        ({"pair": (1, 2), "share": 0.0}, "share"),
        ({"pair": (1, 2), "share": 0.45, "rest": 0.2}, "rest"),
        ({"pair": (1, 2), "rest": 0.0}, "rest"),
        ({"pair": (1, 2), "rest": "0.001"}, "rest"),
    ],
)
def test_check_split_query_refuses_bad_settings_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        lessons.check_split_query([1.0, -1.0], COMPASS, **kwargs)


def test_check_split_query_says_when_there_is_no_answer_yet():
    verdict = lessons.check_split_query(..., COMPASS, (1, 2))
    assert not verdict and not verdict.answered


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (COMPASS[1] + COMPASS[2], "Correct"),
        ([2.5, -2.5], "Correct"),
        (TEXT_QUERY * [1.0, -1.0], "too short"),  # one sign flipped: 0.0037 left over
        ([1.0, -1.0], "too short"),
        (TEXT_QUERY, "matches north best"),
        ([3.0, -2.5], "the split is uneven"),
        ([5.0, -4.9], "the split is uneven"),  # sharp enough, but not even
    ],
)
def test_exercise_1_2_needs_a_query_long_enough_to_leave_almost_nothing(answer, expected):
    verdict = lessons.check_split_query(
        answer, COMPASS, (1, 2), names=NAMES, share=0.49, rest=0.001
    )
    assert expected in repr(verdict)
    assert bool(verdict) == (expected == "Correct")


def test_the_text_query_with_one_sign_flipped_is_named_too_short_and_says_how_much_is_left():
    verdict = lessons.check_split_query(
        TEXT_QUERY * [1.0, -1.0], COMPASS, (1, 2), names=NAMES, share=0.49, rest=0.001
    )
    left = 1 - lessons.softmax(COMPASS @ (TEXT_QUERY * [1.0, -1.0]))[1:3].sum()
    assert (
        not verdict and f"{left:.4f}" in repr(verdict) and "Make the query longer" in repr(verdict)
    )


@pytest.mark.parametrize("n", [4, 5, 50])  # counts all different (n = 3: 3 pairs = n)
def test_the_pair_count_question_and_check_share_their_mistakes(n):
    for wrong_count, why in ch01.pair_count_mistakes(n).values():
        assert repr(lessons.check_pair_count(wrong_count, n)) == f"✘ Not yet. {why}"
    assert lessons.check_pair_count(n * n, n)


@pytest.mark.parametrize(
    ("answer", "mistake"),
    [(144.5, "not_a_whole_number"), ("144", "not_a_whole_number"), (66, "unordered_pairs")]
    + [(132, "no_diagonal"), (12, "one_each"), (143, "other")],
)
def test_check_pair_count_names_each_mistake(answer, mistake):
    verdict = lessons.check_pair_count(answer, 12)
    assert verdict.record()["verdict"] == "wrong" and verdict.mistake == mistake


@pytest.mark.parametrize(
    ("answer", "mistake"),
    [
        (SCORES, "raw_scores"),
        (WEIGHTS, "weights_not_output"),
        (VALUES[1], "hard_lookup"),
        (np.ones(4), "wrong_shape"),
        ("ten", "not_a_number"),
        (WEIGHTS @ KEYS + np.array([0.0, 1e-3]), "other"),
    ],
)
def test_check_soft_lookup_reports_the_mistakes_name(answer, mistake):
    assert lessons.check_soft_lookup(answer, QUERY, KEYS, VALUES).mistake == mistake


@pytest.mark.parametrize(
    ("answer", "mistake"),
    [
        ([0.5, -0.5], "too_short"),
        ([2.0, -1.5], "uneven_split"),
        ([0.0, 2.0], "points_elsewhere"),
        ([0.0, 0.0], "zero_query"),
        (25.0, "value_not_query"),
        ([[1.0, -1.0]], "wrong_shape"),
        ([np.inf, -np.inf], "not_finite"),
        ("south-east", "not_a_number"),
    ],
)
def test_check_split_query_reports_the_mistakes_name(answer, mistake):
    assert lessons.check_split_query(answer, COMPASS, (1, 2), names=NAMES).mistake == mistake
