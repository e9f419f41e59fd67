"""Chapters 10 and 11's self-checks, and the verdict building blocks every check uses."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import lessons
from lessons.checks import ch10, ch11
from lessons.checks.verdict import as_whole_number, named_mistake, right, unanswered, wrong
from lessons.tasks import position_task
from lessons.training import AttentionModel, hand_built_position_model

SIZES = {"B": 8, "h": 12, "n": 4096, "bytes_per_number": 2}
RIGHT_BYTES = 8 * 12 * 4096**2 * 2


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


def test_check_weight_bytes_accepts_the_count_and_shows_it_in_gib():
    verdict = lessons.check_weight_bytes(RIGHT_BYTES, **SIZES)
    assert verdict and "3 GiB" in repr(verdict)
    assert lessons.check_weight_bytes(float(RIGHT_BYTES), **SIZES)


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (12 * 4096**2 * 2, "batch"),
        (8 * 4096**2 * 2, "heads"),
        (8 * 12 * 4096**2, "numbers, not bytes"),
        (8 * 12 * 4096 * 2, "n × n"),
        (RIGHT_BYTES + 0.5, "whole number"),
        (RIGHT_BYTES + 1, "Multiply B, h"),
    ],
)
def test_check_weight_bytes_names_each_mistake(answer, named):
    verdict = lessons.check_weight_bytes(answer, **SIZES)
    assert not verdict and named in repr(verdict)


def good_update(m, ell, acc, scores, values):
    m_new = max(m, scores.max())
    rescale = np.exp(m - m_new)
    p = np.exp(scores - m_new)  # [b]
    return m_new, ell * rescale + p.sum(), acc * rescale + p @ values


def no_rescale(m, ell, acc, scores, values):
    m_new = max(m, scores.max())
    p = np.exp(scores - m_new)  # [b]
    return m_new, ell + p.sum(), acc + p @ values


def no_max(m, ell, acc, scores, values):
    p = np.exp(scores * 50)  # overflows
    return m, ell + p.sum(), acc + p @ values


def raises(m, ell, acc, scores, values):
    raise KeyError("oops")


@pytest.mark.parametrize(
    ("update", "ok", "named"),
    [
        (good_update, True, "exact"),
        (no_rescale, False, "rescale"),
        (no_max, False, "NaN or inf"),
        (raises, False, "KeyError"),
        (None, False, "No answer yet"),
        (
            good_update(-np.inf, 0.0, np.zeros(3), np.ones(2), np.ones((2, 3))),
            False,
            "function itself",
        ),
    ],
)
def test_check_online_update_runs_the_readers_function_on_blocks(update, ok, named):
    verdict = lessons.check_online_update(update)
    assert bool(verdict) is ok and named in repr(verdict)


@pytest.fixture(scope="module")
def solved():
    """A hand-built model that solves the position task, and held-out data."""
    model = hand_built_position_model()
    x, y = position_task(200, seed=3)  # [200, n], [200]
    return model, x, y


def test_check_cls_row_compares_with_the_models_own_row(solved):
    model, x, _ = solved
    with torch.no_grad():
        row = model(x[:1])[1][0, 0, :1]  # [1, n]
    assert lessons.check_cls_row(row.numpy(), model, x[:1])
    assert "softmax" in repr(lessons.check_cls_row(2 * row.numpy(), model, x[:1]))
    assert "Shape" in repr(lessons.check_cls_row(row[0].numpy(), model, x[:1]))


def test_check_blocked_accuracy_wants_the_blocked_not_the_plain_accuracy(solved):
    model, x, y = solved
    keep = torch.arange(x.shape[1]) != 4  # [n_k]
    blocked = lessons.accuracy(model, x, y, mask=keep)
    plain = lessons.accuracy(model, x, y)
    assert plain == 1.0 and blocked < 0.75
    assert lessons.check_blocked_accuracy(blocked, model, x, y, 4)
    assert "unblocked" in repr(lessons.check_blocked_accuracy(plain, model, x, y, 4))


def test_check_blocked_accuracy_refuses_an_untrained_model():
    x, y = position_task(200, seed=3)  # [200, n], [200]
    untrained = AttentionModel(65, x.shape[1], 2, d_model=16, seed=0)
    keep = torch.arange(x.shape[1]) != 4  # [n_k]
    blocked = lessons.accuracy(untrained, x, y, mask=keep)
    verdict = lessons.check_blocked_accuracy(blocked, untrained, x, y, 4)
    assert not verdict and "train it first" in repr(verdict)
