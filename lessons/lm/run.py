"""Run a checkpoint on text: attention weights, logits and per-character losses (chapter 12).

``forward`` is what the chapter (and its in-page widget, in JavaScript) shows for a
typed text: every head's attention ``[layer][head][n][n]`` and the logits ``[n][vocab]``
of the guess for each next character. PyTorch computes them, in float32.
"""

from __future__ import annotations

import numpy as np
import torch

from .checkpoints import load
from .model import CharLM
from .text import encode

__all__ = ["forward", "text_loss", "token_losses"]


def _model(checkpoint: int | CharLM) -> CharLM:
    return checkpoint if isinstance(checkpoint, CharLM) else load(checkpoint)


def _ids(text: str, model: CharLM) -> torch.Tensor:
    ids = encode(text)  # [n]
    if len(ids) > model.config.n_ctx:
        raise ValueError(
            f"text has {len(ids)} characters; the model reads at most n_ctx={model.config.n_ctx}"
        )
    return torch.from_numpy(ids)[None]  # [1, n]


@torch.no_grad()
def forward(
    text: str, checkpoint: int | CharLM, blocked: set[tuple[int, int]] | None = None
) -> dict[str, np.ndarray]:
    """Attention and logits of ``checkpoint`` (a stored step or a ``CharLM``) on ``text`` (chapter 12).

    Returns ``{"attention": [layers, h, n, n], "logits": [n, vocab]}`` as NumPy float32
    arrays: ``attention[l][h][i][j]`` is how much position ``i`` reads from ``j`` in
    head ``h`` of layer ``l``; ``logits[i]`` scores each character as the one after
    position ``i``. ``blocked`` lists ``(layer, head)`` pairs to silence (ablation).

    Raises:
        ValueError: for a character outside the vocabulary, an empty text, a text
            longer than the context, or a step that is not stored.
    """
    model = _model(checkpoint).eval()
    logits, weights = model(_ids(text, model), blocked=blocked)  # [1, n, vocab], [1, h, n, n]
    attention = torch.stack([w[0] for w in weights])  # [layers, h, n, n]
    return {"attention": attention.numpy(), "logits": logits[0].numpy()}


@torch.no_grad()
def token_losses(
    text: str, checkpoint: int | CharLM, blocked: set[tuple[int, int]] | None = None
) -> np.ndarray:
    """The loss (nats) of each next-character guess in ``text``: ``[n - 1]``, float64 (chapter 12).

    Entry ``i`` is ``-log p(text[i + 1] | text[: i + 1])``.

    Raises:
        ValueError: as ``forward``, and for a text of one character (nothing to predict).
    """
    if isinstance(text, str) and len(text) == 1:
        raise ValueError("text needs at least 2 characters: one to read, one to predict")
    out = forward(text, checkpoint, blocked)
    logits = out["logits"][:-1].astype(np.float64)  # [n - 1, vocab]
    log_probs = logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)  # [n - 1, vocab]
    return -log_probs[np.arange(len(logits)), encode(text)[1:]]


@torch.no_grad()
def text_loss(text: str, checkpoint: int | CharLM) -> float:
    """Mean next-character loss (nats) over ``text`` of any length, read in windows of n_ctx (chapter 12).

    The windows start at ``0, n_ctx, 2 n_ctx, ...``; each predicts up to ``n_ctx``
    characters, so every character after the first is predicted exactly once (the
    first of each window from a fresh context). This is how the manifest's
    ``val_loss_by_passage`` was measured.

    Raises:
        ValueError: as ``forward``, and for a text of one character.
    """
    model = _model(checkpoint).eval()
    if isinstance(text, str) and len(text) == 1:
        raise ValueError("text needs at least 2 characters: one to read, one to predict")
    ids = torch.from_numpy(encode(text))  # [N]
    n_ctx, total = model.config.n_ctx, 0.0
    for s in range(0, len(ids) - 1, n_ctx):
        window = ids[s : s + n_ctx + 1]  # [m + 1]
        logits, _ = model(window[None, :-1])  # [1, m, vocab]
        total += float(torch.nn.functional.cross_entropy(logits[0], window[1:], reduction="sum"))
    return total / (len(ids) - 1)
