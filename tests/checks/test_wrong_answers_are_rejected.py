"""No self-check judges a plausible wrong answer right: the mutation library, run.

For every public ``lessons.check_*`` (``tests/wrong_answers.py``): each wrong
implementation or value, on each of the check's inputs (the chapter's own exercise
inputs first), is judged not right, and named as the catalogue names it where it does;
right answers in other valid forms are judged right. A new check fails
``test_every_check_has_wrong_answers_in_the_library`` until it has its entries.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch
from exercise_givens import givens as notebook_givens
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from wrong_answers import NOT_APPLICABLE, RIGHT, WRONG, givens

import lessons
from kit import course
from lessons.checks import __all__ as CHECKS

CHECK_NAMES = [name for name in CHECKS if name.startswith("check_")]
#: A message that contradicts itself: "expected shape [2, 3]; yours is [2, 3]".
SAME_SHAPE_TWICE = re.compile(r"(\[[0-9, ]+\])[^\[]*; yours (?:is |has shape |has )?\1")
#: How many wrong answers each check needs at least.
AT_LEAST = 3


def _judge(check, answer, g):
    if check == "check_one_way_look":
        return getattr(lessons, check)(*answer, *g.args, **g.kwargs)
    return getattr(lessons, check)(answer, *g.args, **g.kwargs)


def _made(make, g):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(*g.args, **g.kwargs)


def test_every_check_has_wrong_answers_in_the_library():
    assert sorted(WRONG) == sorted(CHECK_NAMES)
    few = {name: len(WRONG[name]) for name in CHECK_NAMES if len(WRONG[name]) < AT_LEAST}
    assert not few, f"checks with fewer than {AT_LEAST} wrong answers: {few}"
    assert all(RIGHT.get(name) for name in CHECK_NAMES), set(CHECK_NAMES) - set(RIGHT)


@pytest.mark.parametrize("notebook", [c.name for c in course.load().chapters])
def test_every_exercise_is_judged_on_its_own_notebooks_givens(notebook):
    """An exercise's check call, run from the notebook, hands the library the inputs it tests."""
    for name, calls in notebook_givens(notebook).items():
        held = [(g.args, g.kwargs) for g in givens(name) if g.label.startswith(notebook[:2])]
        assert len(held) == len(calls), (notebook, name)
        assert held[0][0] is calls[0][0] or name == "check_blocked_accuracy", (notebook, name)


def test_every_named_slip_is_a_name_its_check_can_say():
    for name, wrongs in WRONG.items():
        known = getattr(lessons, name).mistakes
        unknown = [w.label for w in wrongs if w.mistake is not None and w.mistake not in known]
        assert not unknown, (name, unknown)


CASES = [
    pytest.param(name, k, id=f"{name}-{wrong.label}")
    for name in CHECK_NAMES
    for k, wrong in enumerate(WRONG[name])
]


@pytest.mark.parametrize(("name", "k"), CASES)
def test_a_wrong_answer_is_not_judged_right(name, k):
    wrong = WRONG[name][k]
    applied = 0
    for g in givens(name):
        answer = _made(wrong.make, g)
        if answer is NOT_APPLICABLE:
            continue
        applied += 1
        verdict = _judge(name, answer, g)
        assert not verdict.ok, f"{wrong.label} judged right on {g.label}: {verdict.message}"
        assert verdict.answered, (wrong.label, g.label)
        assert not SAME_SHAPE_TWICE.search(verdict.message), verdict.message
        # named as the catalogue names it on the first inputs it applies to (the exercise's,
        # where it applies there); elsewhere sizes may coincide, and a name may then
        # honestly be another's (sqrt(n_q) is sqrt(n_k) when n_q = n_k)
        if wrong.mistake is not None and applied == 1:
            assert verdict.mistake == wrong.mistake, (wrong.label, g.label, verdict.record())
    assert applied, f"{wrong.label} applies to none of {name}'s inputs"
    if wrong.exercise and givens(name)[0].label.endswith("exercise"):
        assert _made(wrong.make, givens(name)[0]) is not NOT_APPLICABLE, wrong.label


RIGHTS = [
    pytest.param(name, k, id=f"{name}-{right.label}")
    for name in CHECK_NAMES
    for k, right in enumerate(RIGHT.get(name, []))
]


@pytest.mark.parametrize(("name", "k"), RIGHTS)
def test_a_right_answer_in_another_form_is_judged_right(name, k):
    right = RIGHT[name][k]
    for g in givens(name) if right.everywhere else givens(name)[:1]:
        verdict = _judge(name, _made(right.make, g), g)
        assert verdict.ok, f"{right.label} on {g.label}: {verdict.message}"


def test_heads_of_the_right_shape_in_the_wrong_layout_are_told_so():
    X = torch.arange(48, dtype=torch.float64).reshape(2, 4, 6)  # [B, n, d_model], h = 3
    strided = X.view(2, 4, 2, 3).permute(0, 3, 1, 2)  # [B, h, n, d_k], columns g, g + 3
    verdict = lessons.check_split_heads(strided, X, 3)
    assert verdict.mistake == "other" and "shape is right" in verdict.message
    assert "every h-th column" in verdict.message
    assert not SAME_SHAPE_TWICE.search(verdict.message)
    shuffled = lessons.split_heads(X, 3).flip(2)  # [B, h, n, d_k], tokens reversed
    other = lessons.check_split_heads(shuffled, X, 3)
    assert "layout is wrong" in other.message and "every h-th" not in other.message


SIZES = st.tuples(*(st.integers(2, 7) for _ in range(4)))  # n_q, n_k, d_k, d_v


@settings(max_examples=20, deadline=None)
@given(sizes=SIZES, seed=st.integers(0, 2**16))
def test_attentions_slips_are_named_on_any_shapes_whose_sizes_differ(sizes, seed):
    """Whatever the shapes, once no size coincides with another, every slip has its own name."""
    n_q, n_k, d_k, d_v = sizes
    assume(len(set(sizes)) == 4 and d_k != 4)  # sqrt(4) is the literal 2
    assume(all(a != b * b for a in sizes for b in sizes))  # no size the square of another
    rng = np.random.default_rng(seed)
    Q, K, V = (0.5 * rng.normal(size=s) for s in ((n_q, d_k), (n_k, d_k), (n_k, d_v)))
    for wrong in WRONG["check_attention"]:
        answer = wrong.make(Q, K, V)
        if answer is NOT_APPLICABLE:
            continue
        verdict = lessons.check_attention(answer, Q, K, V)
        assert not verdict.ok, (wrong.label, sizes)
        if wrong.mistake is not None:
            assert verdict.mistake == wrong.mistake, (wrong.label, sizes, verdict.message)
