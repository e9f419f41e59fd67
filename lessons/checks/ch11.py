"""Self-checks of chapter 11 (Seeing attention learn): a trained model's row and an intervention."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import torch

from .._validate import as_numpy
from ..training import AttentionModel, accuracy
from .verdict import (
    Verdict,
    as_float_array,
    catalogued,
    close,
    generic,
    is_missing,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_blocked_accuracy", "check_cls_row"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_blocked_accuracy": {
        "untrained": "measured a model that had not learned the task yet",
        "unblocked": "gave the accuracy without blocking the key",
        **generic("not_a_number", "other"),
    },
    "check_cls_row": {
        "not_normalised": "gave a row that does not sum to 1, missing the softmax",
        **generic("not_a_number", "wrong_shape", "other"),
    },
}

#: Below this plain accuracy a model has not learned the task, so blocking tells nothing.
TRAINED_ACCURACY = 0.9


def training_of(model: Any) -> str:
    """How `model` was trained, in words: its runs of ``lessons.train`` (chapter 11)."""
    runs = getattr(model, "training_runs", None)
    if not runs:
        return "never trained with lessons.train"
    steps = sum(int(run["steps"]) for run in runs)
    settings = "; ".join(
        f"steps={run['steps']}, lr={run['lr']:g}, batch_size={run['batch_size']}" for run in runs
    )
    times = "once" if len(runs) == 1 else f"{len(runs)} times"
    return f"{steps} training steps (trained {times}: {settings})"


@catalogued(MISTAKES)
def check_cls_row(answer: Any, model: AttentionModel, tokens: torch.Tensor) -> Verdict:
    """Check the ``[CLS]`` row ``[1, n]`` of ``model``'s weights for one example ``tokens [1, n]`` (chapter 11)."""
    if is_missing(answer):
        return unanswered("the row, [1, n]")
    with torch.no_grad():
        weights = model(tokens)[1]  # [1, h, n, n]
    expected = weights[0, 0, :1].double().numpy()  # [1, n]: head 0, the [CLS] query
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be an array; got {type(answer).__name__}.", "not_a_number")
    if got.shape != expected.shape:
        return wrong(
            f"Shape {list(expected.shape)} expected; got {list(got.shape)}.", "wrong_shape"
        )
    if close(got, expected):
        return right("It matches the model's row.")
    if not np.isclose(got.sum(), 1.0):
        return wrong("The row does not sum to 1: apply the softmax.", "not_normalised")
    return wrong("Check the transposes, biases and the sqrt(d_k).", "other")


@catalogued(MISTAKES)
def check_blocked_accuracy(
    answer: Any,
    model: AttentionModel,
    tokens: torch.Tensor,
    labels: torch.Tensor,
    position: int,
) -> Verdict:
    """Check a held-out accuracy with key ``position`` blocked for every query (chapter 11).

    ``tokens [N, n]``, ``labels [N]``. The model must have learned the task first
    (plain accuracy at least ``TRAINED_ACCURACY``): blocking a key of an untrained
    model measures nothing.
    """
    if is_missing(answer):
        return unanswered("an accuracy")
    got = as_float_array(answer)
    if got is None or got.size != 1:
        return wrong(
            f"The answer should be one number, an accuracy; got {answer!r}.", "not_a_number"
        )
    value = float(got.reshape(()))
    plain = accuracy(model, tokens, labels)
    if plain < TRAINED_ACCURACY:
        if not getattr(model, "training_runs", None):
            advice = "train it first, with the settings the exercise gives, then block the key"
        else:
            advice = (
                f"after {training_of(model)} it has not learned the task (at least "
                f"{TRAINED_ACCURACY:g} right): train a fresh model with the settings the "
                "exercise gives, then block the key"
            )
        return wrong(
            f"The model gets only {plain:.4f} right without any blocking: {advice}.", "untrained"
        )
    n = as_numpy(tokens).shape[1]
    if isinstance(position, bool) or not isinstance(position, Integral) or not 0 <= position < n:
        raise ValueError(f"position must be a key index from 0 to {n - 1}; got {position!r}")
    keep = torch.arange(n) != position  # [n_k]
    expected = accuracy(model, tokens, labels, mask=keep)
    if abs(value - expected) < 1e-9:
        return right(f"Blocked: {expected:.4f}.")
    if abs(value - plain) < 1e-9:
        return wrong("That is the unblocked accuracy.", "unblocked")
    return wrong(f"Block key {position} with a keep-mask, then measure.", "other")
