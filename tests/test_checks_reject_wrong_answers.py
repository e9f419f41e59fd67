"""No self-check judges a plausible wrong answer right: the mutation library, run.

For every public ``lessons.check_*`` (``tests/wrong_answers.py``): each wrong
implementation or value, on each of the check's inputs (the chapter's own exercise
inputs first), is judged not right, and named as the catalogue names it where it does;
right answers in other valid forms are judged right. A new check fails
``test_every_check_has_wrong_answers_in_the_library`` until it has its entries.
"""

from __future__ import annotations

import warnings

import pytest
from wrong_answers import NOT_APPLICABLE, RIGHT, WRONG, givens

import lessons
from lessons.checks import __all__ as CHECKS

CHECK_NAMES = [name for name in CHECKS if name.startswith("check_")]
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
