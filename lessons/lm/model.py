"""The chapter's language model: two attention-only layers over characters (chapter 12).

Tokens are characters; each gets an embedding row of ``W_E [vocab, d_model]`` and
each position ``0 .. n_ctx - 1`` a learned row of ``W_pos [n_ctx, d_model]``. The
sum is the residual stream ``x [B, n, d_model]``. Each layer reads the stream
through a layer norm, attends with ``lessons.MultiHeadAttention`` (chapter 7;
causal: a position sees itself and earlier ones, chapter 6) and adds what it
found back (pre-norm, chapter 9). There is no feed-forward network, so every
path from a character to a prediction goes through attention heads or the
direct path embedding -> unembedding. A last layer norm and ``unembed``
(``W_U``) give one row of logits per position: the guess for the next character.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from ..multihead import MultiHeadAttention

__all__ = ["LMConfig", "CharLM"]


@dataclass(frozen=True)
class LMConfig:
    """The model's sizes, written once (chapter 12): ``vocab`` characters, ``n_ctx`` positions."""

    vocab: int = 96
    n_ctx: int = 128
    d_model: int = 128
    num_heads: int = 4
    n_layers: int = 2

    def as_dict(self) -> dict[str, int]:
        """The sizes as a plain dictionary (for the manifest)."""
        return asdict(self)


class CharLM(nn.Module):
    """Embeddings, learned positions, ``n_layers`` pre-norm attention layers, an unembedding.

    ``forward(ids [B, n])`` returns ``(logits [B, n, vocab], weights)`` where
    ``weights`` is a list with one ``[B, h, n, n]`` tensor per layer: row ``i`` of
    head ``h`` says how much position ``i`` read from each position ``j <= i``
    (chapter 12). Parameters are drawn from ``seed`` without touching torch's
    global generator, in float32.
    """

    def __init__(self, config: LMConfig, seed: int = 0) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        self.embed = nn.Embedding(config.vocab, d)  # W_E [vocab, d_model]
        self.pos = nn.Embedding(config.n_ctx, d)  # W_pos [n_ctx, d_model]
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(config.n_layers))
        self.attns = nn.ModuleList(
            MultiHeadAttention(d, config.num_heads, bias=False) for _ in range(config.n_layers)
        )
        self.final_norm = nn.LayerNorm(d)
        self.unembed = nn.Linear(d, config.vocab)  # W_U (stored as [vocab, d_model])
        gen = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if "norm" in name:
                    continue  # layer norms start as the identity: weight 1, bias 0
                std = 0.02 if p.dim() == 2 else 0.0
                p.copy_(torch.randn(p.shape, generator=gen) * std)

    def forward(
        self,
        ids: torch.Tensor,
        blocked: set[tuple[int, int]] | None = None,
        key_blocked: set[tuple[int, int]] | None = None,
        query_blocked: set[tuple[int, int]] | None = None,
        need_weights: bool = True,
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``[B, n, vocab]`` and per-layer weights ``[B, h, n, n]`` for ``ids [B, n]``.

        ``blocked`` holds ``(layer, head)`` pairs whose output is set to zero before
        ``W_O`` (an ablation: that head no longer writes into the stream).

        ``key_blocked`` and ``query_blocked`` are path ablations: the listed heads still
        write into the stream, but later layers compute their *keys* (or their
        *queries*) from the stream without those heads' outputs; values, the residual
        stream itself and the logits keep them. Removing layer 0's previous-token
        heads from layer 1's keys only tests K-composition (chapter 12).

        With ``need_weights=False`` the weights list is empty and each layer attends
        through PyTorch's fused ``F.scaled_dot_product_attention`` (``MultiHeadAttention``'s
        ``need_weights=False``: the same maths, faster; logits agree to about 1e-6): for
        losses over many texts.
        """
        B, n = ids.shape
        if n > self.config.n_ctx:
            raise ValueError(f"ids has {n} positions; the model has n_ctx={self.config.n_ctx}")
        paths = {"key": set(key_blocked or ()), "query": set(query_blocked or ())}
        causal = torch.ones(n, n, dtype=torch.bool).tril()  # [n, n], True = may attend
        x = self.embed(ids) + self.pos.weight[:n]  # [B, n, d_model]
        removed = {k: torch.zeros_like(x) for k in paths}  # what keys / queries lose
        weights = []
        for layer, (norm, attn) in enumerate(zip(self.norms, self.attns, strict=True)):
            hooks = [_blocker(attn, layer, blocked) if blocked else None]
            merged: list[torch.Tensor] = []  # the heads' outputs before W_O, recorded
            if paths["key"] or paths["query"]:
                hooks.append(attn.out_proj.register_forward_pre_hook(_recorder(merged)))
            stream = norm(x)  # [B, n, d_model]
            query = norm(x - removed["query"]) if paths["query"] else stream
            key = norm(x - removed["key"]) if paths["key"] else stream
            out, A = attn(query, key, stream, mask=causal, need_weights=need_weights)
            if need_weights:  # out [B, n, d_model], A [B, h, n, n]
                weights.append(A)
            for hook in hooks:
                if hook is not None:
                    hook.remove()
            for kind, heads in paths.items():
                for l_, h in heads:
                    if l_ == layer:
                        removed[kind] = removed[kind] + _head_output(attn, merged[0], h)
            x = x + out  # [B, n, d_model]
        return self.unembed(self.final_norm(x)), weights  # [B, n, vocab]


def _recorder(store: list[torch.Tensor]):
    """A forward pre-hook on ``attn.out_proj`` that keeps its input ``[B, n, h * d_k]``."""

    def record(_module, inputs):
        store.append(inputs[0])

    return record


def _head_output(attn: MultiHeadAttention, merged: torch.Tensor, h: int) -> torch.Tensor:
    """Head ``h``'s share of ``out_proj(merged)``: ``[B, n, d_model]`` (``out_proj`` has no bias)."""
    cols = slice(h * attn.d_k, (h + 1) * attn.d_k)
    return merged[..., cols] @ attn.out_proj.weight[:, cols].T  # [B, n, d_k] @ [d_k, d_model]


def _blocker(attn: MultiHeadAttention, layer: int, blocked: set[tuple[int, int]]):
    """A forward pre-hook on ``attn.out_proj`` that zeroes the blocked heads' slices."""
    heads = [h for (l_, h) in blocked if l_ == layer]
    if not heads:
        return None
    d_k = attn.d_k

    def zero_heads(_module, inputs):
        (merged,) = inputs  # [B, n, h * d_k]
        merged = merged.clone()
        for h in heads:
            merged[..., h * d_k : (h + 1) * d_k] = 0.0
        return (merged,)

    return attn.out_proj.register_forward_pre_hook(zero_heads)
