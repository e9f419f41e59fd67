"""Every check reports its mistake's name: the inputs no other check test gives.

The other ``tests/checks/test_*.py`` test what the reader sees; these test the name a
grader reads (``verdict.mistake``, ``verdict.record()``) where no other test produces
it, so that ``tests/test_mistake_catalogue.py`` finds every catalogued name produced.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import lessons
from lessons.tasks import position_task
from lessons.training import hand_built_position_model

QA = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d_k]
KA = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [n_k, d_k]
VA = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [n_k, d_v]
Q_KEY = np.array([[1.0, 1.0], [0.0, 2.0]])  # [n_q, d_k], invertible, not symmetric
X_FUSED = np.arange(12.0).reshape(2, 6) / 10  # [n, d_model]
WEIGHT = np.eye(6)[[0, 1, 2, 3, 4, 5]] + 0.1  # [3 d_k, d_model], d_k = 2
RAGGED = [[True], [True, False]]  # not an array: rows of different lengths
XH = torch.arange(2 * 3 * 8, dtype=torch.float64).reshape(2, 3, 8)  # [B, n, d_model]

CASES = [
    (lessons.check_attention, "x", (QA, KA, VA), "not_a_number"),
    (lessons.check_attention, np.zeros((3, 2)), (QA, KA, VA), "other"),
    (lessons.check_attention_weights, "x", (QA, KA), "not_a_number"),
    (lessons.check_attention_weights, np.full((3, 3), 1 / 3), (QA, KA), "other"),
    (lessons.check_causal_mask, RAGGED, (4,), "not_a_number"),
    (lessons.check_causal_mask, np.zeros((4, 4), dtype=int), (4,), "not_boolean"),
    (lessons.check_fused_score, "x", (WEIGHT, X_FUSED, 0, 1), "not_a_number"),
    (lessons.check_fused_score, [1.0, 2.0], (WEIGHT, X_FUSED, 0, 1), "wrong_shape"),
    (lessons.check_key_for_scores, [np.inf, 0.0], (Q_KEY, [1.0, 2.0]), "not_finite"),
    (lessons.check_mha_parameter_count, 288.5, (8,), "not_a_whole_number"),
    (lessons.check_padding_mask, RAGGED, ([2, 3], 4), "not_a_number"),
    (lessons.check_projection, "x", (QA, np.eye(2)), "not_a_number"),
    (lessons.check_sinusoidal_encoding, "x", (6, 8), "not_a_number"),
    (lessons.check_sinusoidal_encoding, np.zeros((3, 8)), (6, 8), "wrong_shape"),
    (lessons.check_sinusoidal_encoding, np.zeros((6, 8)), (6, 8), "other"),
    (lessons.check_split_heads, "x", (XH, 2), "not_a_number"),
    (lessons.check_split_heads, torch.zeros(2, 2, 3, 4), (XH, 2), "other"),
    (lessons.check_split_heads, XH, (XH, 2), "wrong_shape"),
]


@pytest.mark.parametrize(
    ("check", "answer", "args", "mistake"),
    CASES,
    ids=[f"{check.__name__}-{mistake}" for check, _, _, mistake in CASES],
)
def test_a_wrong_answer_is_reported_with_its_mistakes_name(check, answer, args, mistake):
    verdict = check(answer, *args)
    assert verdict.record() == {"verdict": "wrong", "mistake": mistake, "message": repr(verdict)}
    assert mistake in check.mistakes


def test_the_chapter_11_checks_name_each_mistake():
    model = hand_built_position_model()
    x, y = position_task(200, seed=3)  # [200, n], [200]
    n = x.shape[1]
    uniform = np.full((1, n), 1 / n)  # [1, n], sums to 1 but is not the model's row
    assert lessons.check_cls_row("x", model, x[:1]).mistake == "not_a_number"
    assert lessons.check_cls_row(uniform, model, x[:1]).mistake == "other"
    assert lessons.check_blocked_accuracy("x", model, x, y, 4).mistake == "not_a_number"
    assert lessons.check_blocked_accuracy(0.123, model, x, y, 4).mistake == "other"
