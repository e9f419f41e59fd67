"""Chapter 12's self-checks (Attention in a language model trained on real text): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import re

import numpy as np
import pytest

import lessons.lm as lm
from lessons.checks import ch12
from lessons.checks.ch12 import (
    MISTAKES,
    check_copy_ratio,
    check_induction_score,
    check_previous_token_score,
    copy_ratio_mistakes,
    induction_mistakes,
    previous_token_mistakes,
)
from lessons.checks.verdict import GENERIC_MISTAKES

MODEL = lm.load(lm.checkpoints()[-1])


TEXT = lm.eval_passages()["python_class"][:64]


A = lm.forward(TEXT, MODEL)["attention"][0, 2].astype(np.float64)  # [n, n]


L = 12


A_REP = lm.forward(lm.induction_text(L, seed=1), MODEL)["attention"][1, 3].astype(np.float64)


SNIPPET = "total = total + value\n"


BLOCKED = {(1, 3)}


def _says(verdict, check, name):
    assert not verdict.ok and verdict.answered and verdict.mistake == name
    assert MISTAKES[check][name] in verdict.message, verdict.message


#: Code that would hand over the solution line: a call, a slice, a NumPy helper.
HINT_CODE = re.compile(r"np\.|diagonal\(|offset=|token_losses\(|\[[^\]]*:[^\]]*\]|\.mean\(")


def test_every_check_of_the_module_has_a_catalogue_entry_in_order():
    assert list(MISTAKES) == ch12.__all__
    for name in ch12.__all__:
        assert getattr(ch12, name).mistakes is MISTAKES[name]


@pytest.mark.parametrize(
    "name", sorted(set(MISTAKES["check_previous_token_score"]) - set(GENERIC_MISTAKES))
)
def test_previous_token_mistakes_are_named(name):
    value, _ = previous_token_mistakes(A)[name]
    _says(check_previous_token_score(value, A), "check_previous_token_score", name)


def test_previous_token_right_answer_placeholder_and_text():
    assert check_previous_token_score(lm.previous_token_score(A), A).ok
    assert check_previous_token_score(float(np.diagonal(A, -1).mean()), A).ok
    assert not check_previous_token_score(..., A).answered
    assert check_previous_token_score("x", A).mistake == "not_a_number"
    other = check_previous_token_score(0.123456, A)
    assert other.mistake == "other" and "before i" in other.message
    assert not HINT_CODE.search(other.message), other.message  # a hint, not the solution


@pytest.mark.parametrize(
    "name", sorted(set(MISTAKES["check_induction_score"]) - set(GENERIC_MISTAKES))
)
def test_induction_mistakes_are_named(name):
    value, _ = induction_mistakes(A_REP, L)[name]
    _says(check_induction_score(value, A_REP, L), "check_induction_score", name)


def test_induction_right_answer_and_unknown_wrong_answer():
    rows = np.arange(L + 1, 2 * L + 1)
    assert check_induction_score(A_REP[rows, rows - L + 1].mean(), A_REP, L).ok
    verdict = check_induction_score(0.987654, A_REP, L)
    assert verdict.mistake == "other" and "second copy" in verdict.message
    assert not HINT_CODE.search(verdict.message), verdict.message
    assert check_induction_score("half", A_REP, L).mistake == "not_a_number"


def test_the_induction_check_refuses_a_table_that_is_not_square():
    with pytest.raises(ValueError, match="A must be"):
        check_induction_score(0.5, A_REP[:-1], L)


@pytest.mark.parametrize("name", sorted(set(MISTAKES["check_copy_ratio"]) - set(GENERIC_MISTAKES)))
def test_copy_ratio_mistakes_are_named(name):
    value, _ = copy_ratio_mistakes(SNIPPET, MODEL, BLOCKED)[name]
    _says(check_copy_ratio(value, SNIPPET, MODEL, BLOCKED), "check_copy_ratio", name)


def test_copy_ratio_right_answer_with_and_without_blocking():
    m = len(SNIPPET)
    for blocked in (BLOCKED, None):
        losses = lm.token_losses(SNIPPET * 2, MODEL, blocked=blocked)
        answer = losses[m:].mean() / losses[: m - 1].mean()
        assert check_copy_ratio(answer, SNIPPET, MODEL, blocked).ok
    # without blocking there is no "forgot to block" mistake to name
    assert copy_ratio_mistakes(SNIPPET, MODEL, set())["not_blocked"][0] is None
    assert not check_copy_ratio(None, SNIPPET, MODEL, BLOCKED).answered
    assert check_copy_ratio("x", SNIPPET, MODEL, BLOCKED).mistake == "not_a_number"
    other = check_copy_ratio(0.5, SNIPPET, MODEL, BLOCKED)
    assert other.mistake == "other" and "blocked" in other.message
    assert not HINT_CODE.search(other.message), other.message


@pytest.mark.parametrize(
    ("verdict"),
    [
        pytest.param(lambda: check_previous_token_score(0.123456, A), id="previous_token"),
        pytest.param(lambda: check_induction_score(0.987654, A_REP, L), id="induction"),
        pytest.param(lambda: check_copy_ratio(0.5, SNIPPET, MODEL, BLOCKED), id="copy_ratio"),
    ],
)
def test_a_hint_for_an_unknown_slip_does_not_print_the_solution_line(verdict):
    message = verdict().message
    assert not HINT_CODE.search(message), message
