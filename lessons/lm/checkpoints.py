"""The stored checkpoints of chapter 12's model: list them, load one (chapter 12).

``kit/train_lm.py`` wrote them into ``lessons/lm_weights/``: one float16 ``.npz``
per training step kept, and ``manifest.json`` with the settings, the corpus, its
hash and the losses. Loading turns the float16 weights back into float32 tensors,
the same numbers the manifest's losses were computed from.
"""

from __future__ import annotations

import io
import json
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import torch

from .model import CharLM, LMConfig

__all__ = ["checkpoints", "load", "manifest", "stored_weights"]


def _folder():
    return resources.files("lessons").joinpath("lm_weights")


@cache
def _manifest_text() -> str:
    return _folder().joinpath("manifest.json").read_text("utf-8")


def manifest() -> dict[str, Any]:
    """The training manifest (a fresh copy): settings, corpus, losses per checkpoint (chapter 12)."""
    return json.loads(_manifest_text())


def checkpoints() -> list[int]:
    """The training steps with a stored checkpoint, in order (chapter 12)."""
    return [entry["step"] for entry in manifest()["checkpoints"]]


@cache
def _weights(step: int) -> dict[str, np.ndarray]:
    entry = next(e for e in manifest()["checkpoints"] if e["step"] == step)
    raw = _folder().joinpath(entry["file"]).read_bytes()
    with np.load(io.BytesIO(raw)) as stored:
        return {k: stored[k] for k in stored.files}


def stored_weights(step: int) -> dict[str, np.ndarray]:
    """The float16 tensors stored for ``step``, by ``state_dict`` name (copies; chapter 12).

    Raises:
        ValueError: if ``step`` is not one of ``checkpoints()`` (the message lists them).
    """
    steps = checkpoints()
    if isinstance(step, bool) or not isinstance(step, int | np.integer) or step not in steps:
        raise ValueError(f"step must be one of the stored checkpoints {steps}; got {step!r}")
    return {name: array.copy() for name, array in _weights(int(step)).items()}


def load(step: int) -> CharLM:
    """The model as it was after ``step`` training steps, in float32, in eval mode (chapter 12).

    Raises:
        ValueError: if ``step`` is not one of ``checkpoints()`` (the message lists them).
    """
    model = CharLM(LMConfig(**manifest()["config"]))
    state = {k: torch.from_numpy(v.astype(np.float32)) for k, v in stored_weights(step).items()}
    model.load_state_dict(state)
    return model.eval()
