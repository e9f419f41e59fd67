"""The shared input rules (lessons._validate): one answer for each kind of bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import lessons
from lessons import _validate


@given(st.integers(1, 10**9))
def test_positive_integers_of_any_integer_type_are_sizes(n):
    assert _validate.positive_int("n", n) == n
    assert _validate.positive_int("n", np.int32(min(n, 2**31 - 1))) == min(n, 2**31 - 1)


@pytest.mark.parametrize("bad", [0, -3, True, False, np.bool_(True), 8.0, 2.5, "8", None, [8]])
def test_anything_else_is_not_a_size_and_the_message_names_it(bad):
    with pytest.raises(ValueError, match=r"^width must be a positive integer; got "):
        _validate.positive_int("width", bad)


def test_none_passes_only_where_allowed():
    assert _validate.positive_int("heads", None, allow_none=True) is None
    with pytest.raises(ValueError, match="positive integer or None"):
        _validate.positive_int("heads", 0, allow_none=True)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 0, True, "1"])
def test_finite_positive_numbers(bad):
    with pytest.raises(ValueError, match=r"^lr must be a finite number > 0; got "):
        _validate.finite_number("lr", bad, positive=True)
    assert _validate.finite_number("lr", 0.5, positive=True) == 0.5


def test_tensors_that_need_grad_become_arrays():
    x = torch.ones(2, 3, requires_grad=True)  # [2, 3]
    array = _validate.as_numpy(x * 2, dtype=np.float64)
    assert isinstance(array, np.ndarray) and array.dtype == np.float64 and (array == 2).all()


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: lessons.causal_mask(True), "n"),
        (lambda: lessons.causal_mask(4.0), "n"),
        (lambda: lessons.padding_mask([1, 2], 0), "n"),
        (lambda: lessons.sinusoidal_encoding(3.0, 4), "n_positions"),
        (lambda: lessons.alibi_slopes(True), "num_heads"),
        (lambda: lessons.alibi_bias(0, 2), "n"),
        (
            lambda: lessons.tiled_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 0),
            "block_size",
        ),
        (lambda: lessons.MultiHeadAttention(8, True), "num_heads"),
        (lambda: lessons.position_task(10.0), "n_samples"),
        (lambda: lessons.AttentionModel(8, 4, True), "n_classes"),
        (
            lambda: lessons.explorer(
                "a b", np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), heads=True
            ),
            "heads",
        ),
    ],
)
def test_every_module_refuses_a_bad_size_with_the_same_message(call, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must be a positive integer"):
        call()
