"""Run a checkpoint on text: attention weights, logits and per-character losses (chapter 12).

``forward`` is what the chapter (and its in-page widget, in JavaScript) shows for a
typed text: every head's attention ``[layer][head][n][n]`` and the logits ``[n][vocab]``
of the guess for each next character. PyTorch computes them, in float32.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from .checkpoints import load
from .model import CharLM
from .text import encode

__all__ = ["forward", "head_attention", "path_losses", "text_loss", "token_losses"]


def _model(checkpoint: int | CharLM) -> CharLM:
    return checkpoint if isinstance(checkpoint, CharLM) else load(checkpoint)


def _ids(text: str, model: CharLM) -> torch.Tensor:
    ids = encode(text)  # [n]
    if len(ids) > model.config.n_ctx:
        raise ValueError(
            f"text has {len(ids)} characters; the model reads at most n_ctx={model.config.n_ctx}"
        )
    return torch.from_numpy(ids)[None]  # [1, n]


Heads = set[tuple[int, int]] | None


@torch.no_grad()
def forward(
    text: str | list[str],
    checkpoint: int | CharLM,
    blocked: Heads = None,
    key_blocked: Heads = None,
    query_blocked: Heads = None,
) -> dict[str, np.ndarray]:
    """Attention and logits of ``checkpoint`` (a stored step or a ``CharLM``) on ``text`` (chapter 12).

    Returns ``{"attention": [layers, h, n, n], "logits": [n, vocab]}`` as NumPy float32
    arrays: ``attention[l][h][i][j]`` is how much position ``i`` reads from ``j`` in
    head ``h`` of layer ``l``; ``logits[i]`` scores each character as the one after
    position ``i``. ``blocked`` lists ``(layer, head)`` pairs to silence (ablation);
    ``key_blocked`` / ``query_blocked`` remove those heads' outputs only from what
    later layers' keys / queries read (a path ablation, ``CharLM.forward``).
    A list of ``B`` texts of one length runs as one batch and gives
    ``attention [B, layers, h, n, n]`` and ``logits [B, n, vocab]``.

    Raises:
        ValueError: for a character outside the vocabulary, an empty text, a text
            longer than the context, a step that is not stored, or a list of texts
            of unequal lengths.
    """
    model = _model(checkpoint).eval()
    ids = _batch(text, model)  # [B, n]
    logits, weights = model(  # [B, n, vocab], [B, h, n, n] per layer
        ids, blocked, key_blocked=key_blocked, query_blocked=query_blocked
    )
    attention = torch.stack(weights, dim=1)  # [B, layers, h, n, n]
    if isinstance(text, str):
        return {"attention": attention[0].numpy(), "logits": logits[0].numpy()}
    return {"attention": attention.numpy(), "logits": logits.numpy()}


def _batch(text: str | list[str], model: CharLM) -> torch.Tensor:
    """``ids [B, n]`` of one text (``B = 1``) or of a list of texts of one length."""
    texts = [text] if isinstance(text, str) else list(text)
    if not texts or len({len(t) for t in texts}) != 1:
        raise ValueError(
            f"text must be one string or a list of strings of one length; got lengths "
            f"{[len(t) for t in texts]}"
        )
    return torch.cat([_ids(t, model) for t in texts])  # [B, n]


@torch.no_grad()
def token_losses(
    text: str | list[str], checkpoint: int | CharLM, blocked: Heads = None
) -> np.ndarray:
    """The loss (nats) of each next-character guess in ``text``: ``[n - 1]``, float64 (chapter 12).

    Entry ``i`` is ``-log p(text[i + 1] | text[: i + 1])``. A list of ``B`` texts of one
    length is read as one batch (one forward pass) and gives ``[B, n - 1]``.

    Raises:
        ValueError: as ``forward``, for a text of one character (nothing to predict),
            and for an empty list or texts of unequal lengths.
    """
    model = _model(checkpoint).eval()
    ids = _batch(text, model)  # [B, n]
    if ids.shape[1] == 1:
        raise ValueError("text needs at least 2 characters: one to read, one to predict")
    logits, _ = model(ids, blocked, need_weights=False)  # [B, n, vocab], fused attention
    log_probs = torch.log_softmax(logits[:, :-1].double(), dim=-1)  # [B, n - 1, vocab]
    target = ids[:, 1:, None]  # [B, n - 1, 1]
    losses = -log_probs.gather(-1, target)[..., 0].numpy()  # [B, n - 1]
    return losses[0] if isinstance(text, str) else losses


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


def _split(x: torch.Tensor, h: int) -> torch.Tensor:
    """``[B, n, d_model] -> [B, h, n, d_k]``."""
    B, n, d = x.shape
    return x.reshape(B, n, h, d // h).transpose(1, 2)


@torch.no_grad()
def _written_out(
    model: CharLM,
    ids: torch.Tensor,
    removed: set = frozenset(),
    readers: set = frozenset(),
    path: str = "key",
    watch: tuple[int, int] | None = None,
):
    """Logits ``[B, n, vocab]``, and head ``watch``'s weights ``[B, n, n]`` (or ``None``).

    The model's own forward pass, written out with its weights, head by head, through
    PyTorch's fused attention. Each head of ``readers`` computes its keys
    (``path="key"``), queries or values from the stream without what the heads of
    ``removed`` wrote; every other head, the residual stream and the logits keep those
    outputs. Only the watched head's weights are computed as a table.
    """
    cfg = model.config
    h, d_k = cfg.num_heads, cfg.d_model // cfg.num_heads
    slot = {"query": 0, "key": 1, "value": 2}[path]
    n = ids.shape[1]
    x = model.embed(ids) + model.pos.weight[:n]  # [B, n, d_model]
    taken = torch.zeros_like(x)  # [B, n, d_model]: what the removed heads wrote so far
    watched = None
    for layer, (norm, attn) in enumerate(zip(model.norms, model.attns, strict=True)):
        w = attn.in_proj.weight.chunk(3)  # 3 x [d_model, d_model] ([out, in]): Q, K, V
        stream = norm(x)  # [B, n, d_model]
        qkv = [_split(F.linear(stream, w[k]), h) for k in range(3)]  # 3 x [B, h, n, d_k]
        mine = [g for (l_, g) in readers if l_ == layer]
        if mine:
            other = _split(F.linear(norm(x - taken), w[slot]), h)  # [B, h, n, d_k]
            qkv[slot] = qkv[slot].clone()
            qkv[slot][:, mine] = other[:, mine]
        if watch is not None and watch[0] == layer:
            q, k = qkv[0][:, watch[1]], qkv[1][:, watch[1]]  # [B, n, d_k] each
            scores = q @ k.transpose(-2, -1) / d_k**0.5  # [B, n, n]
            causal = torch.ones(n, n, dtype=torch.bool).tril()  # [n, n]
            watched = scores.masked_fill(~causal, float("-inf")).softmax(-1)  # [B, n, n]
        heads = F.scaled_dot_product_attention(*qkv, is_causal=True)  # [B, h, n, d_k]
        w_o = attn.out_proj.weight  # [d_model, h * d_k] ([out, in])
        for l_, g in removed:
            if l_ == layer:  # head g's share of the layer's output: [B, n, d_model]
                taken = taken + heads[:, g] @ w_o[:, g * d_k : (g + 1) * d_k].T
        merged = heads.transpose(1, 2).reshape(x.shape)  # [B, n, h * d_k]
        x = x + F.linear(merged, w_o)  # [B, n, d_model]
    return model.unembed(model.final_norm(x)), watched  # [B, n, vocab], [B, n, n]


@torch.no_grad()
def head_attention(
    text: str | list[str], checkpoint: int | CharLM, layer: int, head: int
) -> dict[str, np.ndarray]:
    """One head's attention and the logits, without the other heads' tables (chapter 12).

    Returns ``{"attention": [n, n], "logits": [n, vocab]}`` for one text, or
    ``[B, n, n]`` and ``[B, n, vocab]`` for a list of ``B`` texts of one length: the
    same numbers as ``forward(text, checkpoint)["attention"][..., layer, head, :, :]``
    and its logits (to about 1e-5), computed through PyTorch's fused attention, so
    several times faster when one head is all you read.

    Raises:
        ValueError: as ``forward``, and if ``layer`` or ``head`` is out of range.
    """
    model = _model(checkpoint).eval()
    cfg = model.config
    if not (0 <= layer < cfg.n_layers and 0 <= head < cfg.num_heads):
        raise ValueError(
            f"layer must be in 0..{cfg.n_layers - 1} and head in 0..{cfg.num_heads - 1}; "
            f"got layer={layer}, head={head}"
        )
    ids = _batch(text, model)  # [B, n]
    logits, A = _written_out(model, ids, watch=(layer, head))  # [B, n, vocab], [B, n, n]
    if isinstance(text, str):
        return {"attention": A[0].numpy(), "logits": logits[0].numpy()}
    return {"attention": A.numpy(), "logits": logits.numpy()}


@torch.no_grad()
def path_losses(
    text: str | list[str],
    checkpoint: int | CharLM,
    removed: set[tuple[int, int]],
    readers: set[tuple[int, int]],
    path: str = "key",
) -> np.ndarray:
    """Per-character losses with a path ablation aimed at chosen heads: ``[n - 1]`` or ``[B, n - 1]`` (chapter 12).

    The heads of ``removed`` (``(layer, head)`` pairs) still write into the residual
    stream, but the heads of ``readers`` (in later layers) compute their keys
    (``path="key"``), queries (``"query"``) or values (``"value"``) from the stream
    without those outputs. Everything else reads the stream as usual. With ``readers``
    all the heads of the later layers and ``path="key"`` this is
    ``CharLM.forward(..., key_blocked=removed)``; aimed at one head, it asks what that
    head's keys take from the removed heads, without changing what the removed heads
    give the rest of the model (a blocked head's cost everywhere stays out of it).

    Raises:
        ValueError: as ``token_losses``; for a ``path`` other than the three; and when a
            head of ``readers`` is not in a later layer than every head of ``removed``.
    """
    if path not in ("query", "key", "value"):
        raise ValueError(f"path must be 'query', 'key' or 'value'; got {path!r}")
    removed, readers = set(removed), set(readers)
    if removed and readers and min(l_ for l_, _ in readers) <= max(l_ for l_, _ in removed):
        raise ValueError(
            f"every head of readers must be in a later layer than every head of removed; "
            f"got removed={sorted(removed)}, readers={sorted(readers)}"
        )
    model = _model(checkpoint).eval()
    ids = _batch(text, model)  # [B, n]
    if ids.shape[1] == 1:
        raise ValueError("text needs at least 2 characters: one to read, one to predict")
    logits, _ = _written_out(model, ids, removed, readers, path)  # [B, n, vocab]
    log_probs = torch.log_softmax(logits[:, :-1].double(), dim=-1)  # [B, n - 1, vocab]
    losses = -log_probs.gather(-1, ids[:, 1:, None])[..., 0].numpy()  # [B, n - 1]
    return losses[0] if isinstance(text, str) else losses
