"""Chapter 11's self-checks (Seeing attention learn): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import pytest
import torch

import lessons
from lessons.tasks import position_task
from lessons.training import AttentionModel, hand_built_position_model


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
