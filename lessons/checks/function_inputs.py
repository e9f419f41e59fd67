"""The inputs the checks of a learner's *function* run it on: plain ones, then hostile ones.

A check of a function (chapter 2's softmax, chapter 10's online-softmax update) cannot
trust one friendly input: a softmax without the maximum subtracted is exact on small
scores, an update with its maximum frozen at the first block is exact while the scores
stay small. So each check runs the function on every input here, seeded so that every
learner gets the same verdict, and the first input on which it fails names the slip.
``tests/wrong_answers.py`` holds the slips these inputs must catch.
"""

from __future__ import annotations

import numpy as np

__all__ = ["online_runs", "softmax_cases"]


def softmax_cases() -> list[tuple[str, np.ndarray]]:
    """The inputs ``check_softmax_function`` runs a function on: plain, then hostile.

    A square table catches a maximum or sum taken without ``keepdims`` (it broadcasts
    along the wrong axis instead of failing); rows far apart catch one maximum for the
    whole table (the lower row's exps all underflow to 0); a row spread over 1600
    catches subtracting the row's minimum or mean; scores near -1000 catch a naive exp
    (0 / 0); a seeded random table catches any other slip of the formula. Last, a stack
    of tables ``[2, 3, 4]``: exercise 2.3 promises ``[..., n]``, so a function that
    handles rows and tables only (an axis counted from the front) must fail there.
    """
    rng = np.random.default_rng(2)
    return [
        ("a small row [1, 2, 3]", np.array([1.0, 2.0, 3.0])),
        ("a 2-row table", np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])),
        ("large scores [1000, 1001, 1002]", np.array([1000.0, 1001.0, 1002.0])),
        ("a square table", np.array([[1.0, 2.0, 3.0], [4.0, 0.0, -1.0], [0.5, 0.5, 2.0]])),
        (
            "rows far apart [[1000, 1001, 1002], [-1000, -999, -998]]",
            np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -999.0, -998.0]]),
        ),
        ("a wide row [-800, 0, 800]", np.array([-800.0, 0.0, 800.0])),
        ("scores near -1000 [-1000, -1001, -1002]", np.array([-1000.0, -1001.0, -1002.0])),
        ("a random [4, 5] table", np.round(3 * rng.normal(size=(4, 5)), 2)),
        ("a [2, 3, 4] stack of tables", np.round(3 * rng.normal(size=(2, 3, 4)), 2)),
    ]


def online_runs() -> list[tuple[str, np.ndarray, np.ndarray, list[int]]]:
    """The runs ``check_online_update`` feeds an update: ``(what, scores [n_k], values [n_k, d_v], cuts)``.

    Seeded, so every learner gets the same verdict. Scores of size about 20 in blocks of
    uneven sizes; then hostile ones: a first block near -1000 and later ones near +1000
    (an update without the maximum, or with the maximum frozen at the first block,
    overflows), a maximum that jumps up by 900 and then falls by 1100 (an update that
    keeps the latest block's maximum instead of the running one overflows when it
    falls), and one score per block.
    """
    rng = np.random.default_rng(0)
    scores = 20 * rng.normal(size=10)  # [n_k]
    values = rng.normal(size=(10, 3))  # [n_k, d_v]
    rising = np.concatenate([-1000 + rng.normal(size=3), 1000 + 5 * rng.normal(size=7)])
    jumping = np.concatenate(
        [rng.normal(size=3), 900 + rng.normal(size=3), -200 + rng.normal(size=4)]
    )
    return [
        ("scores of size about 20 in blocks of 3, 1, 4 and 2", scores, values, [3, 4, 8]),
        ("a first block near -1000, then scores near +1000", rising, values, [3, 6]),
        ("a maximum that rises by 900, then a block 1100 below it", jumping, values, [3, 6]),
        ("one score per block", 30 * rng.normal(size=5), values[:5], [1, 2, 3, 4]),
    ]
