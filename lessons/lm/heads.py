"""Every head of a checkpoint, measured by the detectors (chapter 12).

``head_scores`` runs a checkpoint on two kinds of text and applies the formulas of
``lessons.lm.detectors``: the previous-, first- and current-token scores on the
course's own passages (``eval_passages``, their first ``n_ctx`` characters), and the
induction score on ``samples`` random repeated sequences ``induction_text(L, seed)``.
"""

from __future__ import annotations

import numpy as np

from .._validate import positive_int
from .checkpoints import load
from .detectors import (
    current_token_score,
    first_token_score,
    induction_score,
    induction_text,
    previous_token_score,
)
from .model import CharLM
from .run import forward
from .text import eval_passages

__all__ = ["best_head", "head_scores"]

_PASSAGES = ("english_attention", "english_kitchen", "python_functions", "python_class")


def head_scores(checkpoint: int | CharLM, L: int = 40, samples: int = 8) -> dict[str, np.ndarray]:
    """Scores ``[layers, h]`` (float64) of every head, by detector name (chapter 12).

    Keys: ``"previous_token"``, ``"first_token"``, ``"current_token"`` (mean over the
    four prose and code passages) and ``"induction"`` (mean over ``samples`` random
    repeated sequences of ``L`` characters, seeds ``0 .. samples - 1``).
    """
    L, samples = positive_int("L", L), positive_int("samples", samples)
    model = checkpoint if isinstance(checkpoint, CharLM) else load(checkpoint)
    if 2 * L + 1 > model.config.n_ctx:
        raise ValueError(f"L={L} needs 2L + 1 positions; the model has n_ctx={model.config.n_ctx}")
    texts = [eval_passages()[k][: model.config.n_ctx] for k in _PASSAGES]
    attn = forward(texts, model)["attention"]  # [P, layers, h, n, n], one batch
    repeated = forward([induction_text(L, s) for s in range(samples)], model)["attention"]
    return {
        "previous_token": np.mean([previous_token_score(a) for a in attn], axis=0),
        "first_token": np.mean([first_token_score(a) for a in attn], axis=0),
        "current_token": np.mean([current_token_score(a) for a in attn], axis=0),
        "induction": np.mean([induction_score(a, L) for a in repeated], axis=0),
    }


def best_head(scores: np.ndarray) -> tuple[float, int, int]:
    """``(score, layer, head)`` of the highest entry of a ``[layers, h]`` table (chapter 12)."""
    scores = np.asarray(scores, dtype=np.float64)
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return float(scores[layer, head]), int(layer), int(head)
