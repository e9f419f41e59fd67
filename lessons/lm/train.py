"""How the chapter's model was trained: batches, optional repeats, one AdamW step (chapter 12).

``kit/train_lm.py`` runs these; ``tests/test_lm.py`` re-runs the first steps and
compares their losses with the manifest. A batch is ``batch`` rows of
``n_ctx + 1`` consecutive characters from random places in the training text
(inputs: the first ``n_ctx``, targets: the last ``n_ctx``). With ``repeat_rows > 0``
the first ``repeat_rows`` rows of each batch are *augmented*: a real span of the row,
``L`` characters long, is copied over a later stretch of the same row, so the row
holds a repeat that an induction head can exploit. Everything random comes from one
NumPy generator seeded by the caller, so a run is reproducible.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from .model import CharLM

__all__ = ["insert_repeat", "lm_loss", "make_optimizer", "sample_batch", "train_step"]


def insert_repeat(row: np.ndarray, length: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``row [m]`` whose span ``[s, s + length)`` reappears at ``[t, t + length)``, ``t >= s + length``.

    ``s`` and ``t`` are drawn from ``rng`` (first ``s``, then ``t``).

    Raises:
        ValueError: if ``2 * length > len(row)`` (two copies would not fit).
    """
    m = len(row)
    if 2 * length > m:
        raise ValueError(
            f"length={length} is too long for a row of {m}: two copies need {2 * length}"
        )
    out = row.copy()
    s = int(rng.integers(0, m - 2 * length + 1))
    t = int(rng.integers(s + length, m - length + 1))
    out[t : t + length] = row[s : s + length]
    return out


def sample_batch(
    data: np.ndarray,
    batch: int,
    n_ctx: int,
    rng: np.random.Generator,
    repeat_rows: int = 0,
    span: tuple[int, int] = (20, 60),
) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and targets ``[batch, n_ctx]`` (int64) from the ids ``data [N]`` (chapter 12).

    The first ``repeat_rows`` rows get one repeat each, of a length drawn from
    ``span`` (both ends included), by ``insert_repeat`` on the ``n_ctx + 1`` ids.
    """
    starts = rng.integers(0, len(data) - n_ctx - 1, size=batch)  # [batch]
    rows = data[starts[:, None] + np.arange(n_ctx + 1)]  # [batch, n_ctx + 1]
    for r in range(repeat_rows):
        length = int(rng.integers(span[0], span[1] + 1))
        rows[r] = insert_repeat(rows[r], length, rng)
    rows_t = torch.from_numpy(rows)  # [batch, n_ctx + 1]
    return rows_t[:, :-1], rows_t[:, 1:]


def lm_loss(model: CharLM, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy (nats per character) of the next-character guesses ``[B, n]``."""
    logits, _ = model(inputs)  # [B, n, vocab]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def make_optimizer(model: CharLM, lr: float = 2e-3, weight_decay: float = 0.01):
    """AdamW over every parameter (betas 0.9, 0.999), the optimizer the manifest records."""
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


def train_step(
    model: CharLM, optimizer, inputs: torch.Tensor, targets: torch.Tensor, clip: float = 1.0
) -> float:
    """One step: loss, gradients (norm clipped to ``clip``), AdamW update. Returns the loss."""
    optimizer.zero_grad(set_to_none=True)
    loss = lm_loss(model, inputs, targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()
    return float(loss.detach())
