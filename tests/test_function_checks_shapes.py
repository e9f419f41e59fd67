"""Function checks try every input shape their exercise promises (issue 42).

Exercise 2.3 asks for a softmax of scores ``[..., n]``: any number of leading axes. A
softmax that handles only rows and tables (an axis counted from the front, or a loop over
rows) must be rejected, with a message that names the shape it failed on. Exercise 10.2's
update takes ``acc [d_v]``, ``scores [b]`` and ``values [b, d_v]``: its runs must include
a block of one score as well as longer blocks.
"""

from __future__ import annotations

import numpy as np
import pytest

import lessons
from lessons.checks.function_inputs import online_runs, softmax_cases


def softmax_rows_and_tables_axis_one(x):
    """Right on rows and on tables; on a stack it normalises axis 1, the middle one."""
    if x.ndim == 1:
        e = np.exp(x - x.max())
        return e / e.sum()
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_row_by_row(x):
    """Right on rows and on tables, one row at a time; a stack's tables are taken as rows."""

    def row(r):
        e = np.exp(r - r.max())
        return e / e.sum()

    return row(x) if x.ndim == 1 else np.array([row(r) for r in x])


def softmax_two_axes_at_most(x):
    """Right on rows and tables; refuses more axes."""
    if x.ndim > 2:
        raise ValueError("expected a row or a table")
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_transposed_table(x):
    """Right on rows and tables (as the transpose of a column softmax); a stack's axes reversed."""
    e = np.exp(x.T - x.T.max(axis=0, keepdims=True))
    return (e / e.sum(axis=0, keepdims=True)).T


@pytest.mark.parametrize(
    ("fn", "mistake"),
    [
        (softmax_rows_and_tables_axis_one, "softmax_over_columns"),
        (softmax_row_by_row, "softmax_over_table"),
        (softmax_two_axes_at_most, "raises"),
    ],
)
def test_a_softmax_for_rows_and_tables_only_is_rejected_naming_the_stack_shape(fn, mistake):
    for _, x in softmax_cases():
        if x.ndim <= 2:  # right wherever the old cases looked
            assert np.allclose(fn(x.copy()), lessons.softmax(x))
    verdict = lessons.check_softmax_function(fn)
    record = dict(verdict.record())
    assert record["verdict"] == "wrong", record
    assert record["mistake"] == mistake, record
    assert "[2, 3, 4]" in record["message"], record


def test_a_softmax_of_the_last_axis_passes_on_every_shape():
    assert dict(lessons.check_softmax_function(lessons.softmax).record())["verdict"] == "right"
    assert (
        dict(lessons.check_softmax_function(softmax_transposed_table).record())["verdict"]
        == "right"
    )


def test_the_softmax_cases_cover_rows_tables_and_stacks():
    """`[..., n]`: no leading axis, one, and two; a square table and unequal sizes."""
    dims = {x.ndim for _, x in softmax_cases()}
    assert dims == {1, 2, 3}
    (stack,) = [x for _, x in softmax_cases() if x.ndim == 3]
    assert len(set(stack.shape)) == 3  # no two axes of one size: an axis slip shows
    assert any(x.ndim == 2 and x.shape[0] == x.shape[1] for _, x in softmax_cases())


def test_the_online_runs_cover_blocks_of_one_score_and_of_several():
    """`scores [b]`, `values [b, d_v]`, `acc [d_v]`: b = 1 and b > 1 both come up."""
    sizes = set()
    for _, scores, values, cuts in online_runs():
        assert scores.ndim == 1 and values.ndim == 2 and values.shape[0] == scores.size
        sizes |= {len(block) for block in np.split(np.arange(scores.size), cuts)}
    assert 1 in sizes and max(sizes) > 1
