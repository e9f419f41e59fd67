"""What every widget embeds is the same on every machine: floats rounded where they are written."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_stored_precision import full_precision

import lessons
from lessons.book.widgets.widget import SIGNIFICANT_DIGITS, embed_json, stable_floats

# The norm of chapter 8's row 17 as two processors' BLAS computed it (issue found on a fork).
HERE, THERE = 5.656854249492381, 5.65685424949238

# Below the largest double, whose neighbours round up to inf (tested on its own below).
finite = st.floats(min_value=-1e300, max_value=1e300, width=64)


@given(finite)
def test_stable_floats_keeps_ten_significant_digits(x):
    y = stable_floats(x)
    assert isinstance(y, float)
    assert math.isclose(y, x, rel_tol=10.0 ** (1 - SIGNIFICANT_DIGITS), abs_tol=0.0) or x == y
    assert stable_floats(y) == y  # rounding twice changes nothing
    assert full_precision(json.dumps(y)) == []


@given(finite)
def test_stable_floats_forgets_the_last_bits_of_a_sum(x):
    # Two machines differ in the last bits; apart from the rare value sitting on a rounding
    # boundary, both round to the same stored number.
    nearby = math.nextafter(x, math.inf)
    mid = float(f"{x:.{SIGNIFICANT_DIGITS}g}")
    if math.isfinite(nearby) and float(f"{nearby:.{SIGNIFICANT_DIGITS}g}") == mid:
        assert stable_floats(x) == stable_floats(float(nearby))


def test_stable_floats_never_turns_the_largest_double_into_inf():
    assert math.isfinite(stable_floats(sys.float_info.max))


def test_stable_floats_walks_containers_and_numpy_values():
    data = {
        "a": [HERE, (np.float32(0.1), np.int64(3), True)],
        "b": np.array([[1 / 3, 2.0]]),
        "c": "5.656854249492381 stays text",
        "d": None,
    }
    assert stable_floats(data) == {
        "a": [5.656854249, [0.1000000015, 3, True]],
        "b": [[0.3333333333, 2.0]],
        "c": "5.656854249492381 stays text",
        "d": None,
    }


def test_embedded_json_is_the_same_for_both_processors_values():
    assert embed_json({"answer": HERE}) == embed_json({"answer": THERE}) == '{"answer":5.656854249}'


def test_embedded_json_refuses_nan_and_escapes_html():
    with pytest.raises(ValueError):
        embed_json([float("nan")])
    assert embed_json(["</script>"]) == '["\\u003c/script\\u003e"]'


def test_a_question_and_its_id_are_the_same_for_both_processors_values():
    prompt = "How long is row 17 of PE?"
    here, there = lessons.question(prompt, HERE), lessons.question(prompt, THERE)
    assert here.name == there.name
    assert here._repr_html_() == there._repr_html_()
    assert full_precision(here._repr_html_()) == []


def test_a_questions_mistakes_are_stored_rounded_and_graded_alike():
    q = lessons.question(
        "Predict row 2.",
        [0.7053845126982412, 0.25949646034241913, 0.03511902695933973],
        mistakes={"zero-score": ([0.6439142598879724, 0.3, 0.05], "Not that.")},
    )
    payload = q._repr_html_()
    assert full_precision(payload) == []
    assert q.grade([["0.705", "0.259", "0.035"]])[0] == "correct"
    assert q.grade([["0.644", "0.3", "0.05"]])[1] == "zero-score"


def test_glue_keeps_at_most_ten_significant_digits():
    assert lessons.glue("big", 123456789.123456) == 123456789.1
    assert lessons.glue("small", HERE) == 5.6569
