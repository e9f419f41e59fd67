"""Properties of lessons.softmax (chapter 2)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from array_strategies import float_arrays
from hypothesis import given
from hypothesis import strategies as st

from lessons import softmax

shapes = st.tuples(st.integers(1, 4), st.integers(1, 7))


@given(shapes.flatmap(float_arrays))
def test_softmax_rows_are_positive_and_sum_to_one(x):
    weights = softmax(x)
    assert weights.shape == x.shape
    assert (weights > 0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@given(shapes.flatmap(float_arrays))
def test_softmax_keeps_the_order_of_the_scores(x):
    weights = softmax(x)
    for row_x, row_w in zip(x, weights, strict=True):
        order = np.argsort(row_x, kind="stable")
        assert (np.diff(row_w[order]) >= 0).all()


@given(shapes.flatmap(float_arrays), st.floats(-1e3, 1e3))
def test_softmax_ignores_a_constant_added_to_every_score(x, shift):
    np.testing.assert_allclose(softmax(x + shift), softmax(x), atol=1e-12)


@given(shapes.flatmap(lambda s: float_arrays(s, -50, 50)))
def test_softmax_equals_torch_softmax(x):
    expected = torch.softmax(torch.from_numpy(x), dim=-1).numpy()
    np.testing.assert_allclose(softmax(x), expected, rtol=1e-12, atol=1e-15)


def test_softmax_of_the_worked_scores_matches_hand_values():
    # Chapter 5's first row: scores (1, 1, 0) / sqrt(2).
    weights = softmax(np.array([1.0, 1.0, 0.0]) / np.sqrt(2))
    np.testing.assert_allclose(weights, [0.4011, 0.4011, 0.1978], atol=1e-4)


def test_softmax_survives_scores_that_overflow_a_naive_exp():
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp([1000.0, 1001.0]) / np.exp([1000.0, 1001.0]).sum()
    assert np.isnan(naive).all()  # the bug the stable version avoids
    np.testing.assert_allclose(softmax([1000.0, 1001.0]), softmax([0.0, 1.0]))


def test_softmax_normalises_the_requested_axis():
    x = np.arange(6.0).reshape(2, 3)  # [2, 3]
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), np.ones(3))
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T).T)


def test_softmax_gives_exact_zero_weight_to_minus_infinity():
    weights = softmax([0.5, -np.inf, 2.0, -np.inf])
    assert weights[1] == 0.0 and weights[3] == 0.0
    assert weights.sum() == pytest.approx(1.0)


def test_softmax_of_an_all_minus_infinity_row_is_zeros_not_nan():
    x = np.array([[-np.inf, -np.inf], [0.0, 1.0]])  # [2, 2]
    weights = softmax(x)
    assert np.isfinite(weights).all()
    np.testing.assert_array_equal(weights[0], [0.0, 0.0])


def test_softmax_accepts_integer_lists():
    np.testing.assert_allclose(softmax([1, 2, 3]), softmax(np.array([1.0, 2.0, 3.0])))


@pytest.mark.parametrize(
    ("x", "axis", "message"),
    [
        ([1.0, np.nan], -1, "NaN"),
        ([1.0, np.inf], -1, r"\+inf"),
        (3.0, -1, "scalar"),
        ([[1.0, 2.0]], 2, r"axis=2 .* shape \(1, 2\)"),
    ],
)
def test_softmax_rejects_bad_input_with_a_clear_message(x, axis, message):
    with pytest.raises(ValueError, match=message):
        softmax(x, axis=axis)
