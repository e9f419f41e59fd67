"""What every check shares: the verdict's marks and parts, public names, an unanswered exercise."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import lessons
from lessons import (
    check_pair_count,
    check_soft_lookup,
)
from lessons.checks import ch07, ch10, ch11
from lessons.checks.verdict import as_whole_number, named_mistake, right, unanswered, wrong

A, B = np.array([2.0, 3.0]), np.array([5.0, -1.0])


Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d]


K = np.array([[1.0, 2.0], [0.0, 1.0]])  # [n_k, d]


X3 = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])  # [n, d_model]


W3 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])  # [d_model, d_out]


QA = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d_k]


KA = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [n_k, d_k]


VA = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [n_k, d_v]


@pytest.mark.parametrize(
    ("check", "args"),
    [
        (check_soft_lookup, (np.array([1.0, 0.0]), Q, Q)),
        (check_pair_count, (5,)),
    ],
)
def test_an_unanswered_exercise_says_so_and_is_not_correct(check, args):
    for missing in (None, ...):
        verdict = check(missing, *args)
        assert not verdict and not verdict.answered
        assert "No answer yet" in repr(verdict)


@pytest.mark.parametrize(
    ("check", "args"),
    [
        (lessons.check_projection, (X3, W3)),
        (lessons.check_attention, (QA, KA, VA)),
        (lessons.check_attention_weights, (QA, KA)),
        (lessons.check_causal_mask, (4,)),
        (lessons.check_padding_mask, ([2, 3], 4)),
    ],
)
def test_the_chapter_3_to_6_checks_say_when_there_is_no_answer_yet(check, args):
    verdict = check(..., *args)
    assert not verdict and not verdict.answered


def test_the_new_checks_are_public_names():
    for module, name in (
        (ch07, "check_head_width_parameter_count"),
        (ch10, "check_block_quadratic_share"),
    ):
        assert name in module.__all__ and getattr(lessons, name) is getattr(module, name)


def test_every_check_of_every_chapter_is_a_public_name():
    for module in (ch10, ch11):
        for name in module.__all__:
            assert getattr(lessons, name) is getattr(module, name)


def test_the_three_marks_start_every_message():
    assert repr(right("x")).startswith("✔ Correct.")
    assert repr(wrong("x", "other")).startswith("✘ Not yet.")
    verdict = unanswered("a number")
    assert repr(verdict).startswith("✏ No answer yet") and not verdict.answered and not verdict


@pytest.mark.parametrize("answer", [24.9, True, np.bool_(True), "24", [24, 1], float("inf")])
def test_a_whole_number_answer_is_exactly_whole(answer):
    assert as_whole_number(answer) is None


@given(st.integers(-(10**12), 10**12))
def test_whole_numbers_in_any_form_are_read_exactly(n):
    assert as_whole_number(n) == n
    assert as_whole_number(np.int64(n)) == n
    assert as_whole_number(float(n)) == n or abs(n) > 2**53
    assert as_whole_number(torch.tensor(n)) == n or abs(n) > 2**53


def test_named_mistake_picks_the_first_match_and_skips_inapplicable_ones():
    got = np.array([1.0, 2.0])
    mistakes = {
        "never": (None, "never"),
        "first": (np.array([1.0, 2.0]), "first"),
        "second": (np.array([1.0, 2.0]), "second"),
    }
    assert "first" in repr(named_mistake(got, mistakes))
    assert named_mistake(got, mistakes).mistake == "first"
    assert named_mistake(got, {"no": (np.array([2.0, 1.0]), "no")}) is None
