"""A two-layer induction circuit, every weight set by hand (chapter 9).

The task: a sequence ``<s> t_1 ... t_L t_1 ... t_L`` of ``L`` distinct random
tokens that repeats itself; predict each next token. Once the repeat has begun,
the next token is "the token that followed the previous occurrence of the
current one", and finding it takes two attention layers (Olsson et al. 2022):

1. a **previous-token head**: position ``i`` attends to ``i - 1`` and writes
   that token's identity into a free subspace of the residual stream;
2. an **induction head**: the query of position ``i`` is its own token, the key
   of position ``j`` is the *previous token* that layer 1 wrote there, so ``i``
   attends to the position right after the previous occurrence of its token and
   copies that position's token into the output subspace.

The residual stream is four one-hot blocks side by side::

    [ token (V + 1) | position (n) | previous token (V + 1) | output (V) ]

with ``V = vocab_size`` real tokens and ``<s>`` as id ``V``. Each layer is one
head of ``lessons.attention`` under a causal mask, with ``W_O`` folded into
``W_V`` (a value is already a ``d_model`` vector), added to the stream. When
nothing matches, the induction head rests on ``<s>``, whose value is zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from ._validate import finite_number, generator, id_tensor, positive_int
from .attention import attention
from .masks import causal_mask

__all__ = [
    "InductionCircuit",
    "InductionRun",
    "induction_circuit",
    "repeat_accuracy",
    "repeated_sequences",
    "run_induction",
]

_F64 = torch.float64


def repeated_sequences(
    num_sequences: int, half_length: int, vocab_size: int, seed: int = 0
) -> torch.Tensor:
    """``[N, 2 L + 1]`` token ids ``<s> t_1 .. t_L t_1 .. t_L`` (chapter 9).

    Each sequence starts with ``<s>`` (id ``vocab_size``), then ``L =
    half_length`` distinct tokens drawn at random from ``0 .. vocab_size - 1``,
    then the same ``L`` tokens again, so every token of the second half has
    exactly one earlier occurrence. Drawn from a generator seeded with ``seed``.

    Raises:
        ValueError: for sizes that are not positive integers, or when
            ``half_length > vocab_size`` (the tokens could not be distinct).
    """
    for name, value in (
        ("num_sequences", num_sequences),
        ("half_length", half_length),
        ("vocab_size", vocab_size),
    ):
        positive_int(name, value)
    if half_length > vocab_size:
        raise ValueError(
            f"half_length ({half_length}) must be at most vocab_size ({vocab_size}): "
            "the first half holds distinct tokens"
        )
    gen = generator(seed)
    noise = torch.rand(num_sequences, vocab_size, generator=gen)  # [N, V]
    half = noise.argsort(-1)[:, :half_length]  # [N, L], distinct per row
    bos = torch.full((num_sequences, 1), vocab_size, dtype=torch.long)  # [N, 1]
    return torch.cat([bos, half, half], dim=1)  # [N, 2 L + 1]


@dataclass(frozen=True)
class InductionCircuit:
    """The hand-set weights of the two heads (chapter 9); build it with ``induction_circuit``.

    Shapes, with ``d = d_model = 3 (V + 1) + n - 1``::

        W_Q1, W_K1  [d, n]       layer 1 scores positions: query i, key j + 1
        W_V1        [d, d]       copies the token block into the previous-token block
        W_Q2, W_K2  [d, V + 2]   layer 2 scores "my token" against "your previous token",
                                 plus one column where <s> scores half a match
        W_V2        [d, d]       copies the token block into the output block
    """

    vocab_size: int
    n_positions: int
    W_Q1: torch.Tensor
    W_K1: torch.Tensor
    W_V1: torch.Tensor
    W_Q2: torch.Tensor
    W_K2: torch.Tensor
    W_V2: torch.Tensor

    @property
    def d_model(self) -> int:
        """Width of the residual stream."""
        return self.W_V1.shape[0]

    def block(self, name: str) -> slice:
        """The columns of one block of the stream: "token", "position", "previous" or "output"."""
        V, n = self.vocab_size, self.n_positions
        starts = {"token": 0, "position": V + 1, "previous": V + 1 + n, "output": 2 * V + 2 + n}
        sizes = {"token": V + 1, "position": n, "previous": V + 1, "output": V}
        return slice(starts[name], starts[name] + sizes[name])


def induction_circuit(
    vocab_size: int, n_positions: int, strength: float = 20.0
) -> InductionCircuit:
    """The two-layer induction circuit for ``vocab_size`` tokens and ``n_positions`` positions (chapter 9).

    The scaled scores ``Z = Q K^T / sqrt(d_k)`` come out as ``strength`` for a
    match and 0 otherwise; in layer 2 the key of ``<s>`` scores ``strength / 2``
    for every query, so a query that matches nothing rests there.

    Raises:
        ValueError: for sizes that are not positive integers or a ``strength``
            that is not a finite positive number.
    """
    V = positive_int("vocab_size", vocab_size)
    n = positive_int("n_positions", n_positions)
    strength = finite_number("strength", strength, positive=True)
    empty = InductionCircuit(V, n, *(torch.zeros(0) for _ in range(6)))
    tok, pos, prev, out = (empty.block(b) for b in ("token", "position", "previous", "output"))
    d = out.stop

    W_Q1 = torch.zeros(d, n, dtype=_F64)  # [d, n]
    W_K1 = torch.zeros(d, n, dtype=_F64)  # [d, n]
    W_Q1[pos, :] = strength * math.sqrt(n) * torch.eye(n, dtype=_F64)  # query i says "i"
    W_K1[pos.start : pos.stop - 1, 1:] = torch.eye(n - 1, dtype=_F64)  # key j says "j + 1"
    W_V1 = torch.zeros(d, d, dtype=_F64)  # [d, d]
    W_V1[tok, prev] = torch.eye(V + 1, dtype=_F64)  # my token -> their "previous token"

    c = strength * math.sqrt(V + 2)
    W_Q2 = torch.zeros(d, V + 2, dtype=_F64)  # [d, V + 2]
    W_K2 = torch.zeros(d, V + 2, dtype=_F64)  # [d, V + 2]
    W_Q2[tok.start : tok.start + V, :V] = c * torch.eye(V, dtype=_F64)  # "my token is t"
    W_Q2[tok.start : tok.start + V, V + 1] = c / 2  # every real token: half a match for <s>
    W_K2[prev, : V + 1] = torch.eye(V + 1, dtype=_F64)  # "my previous token was t"
    W_K2[tok.start + V, V + 1] = 1.0  # "I am <s>"
    W_V2 = torch.zeros(d, d, dtype=_F64)  # [d, d]
    W_V2[tok.start : tok.start + V, out] = torch.eye(V, dtype=_F64)  # <s> carries nothing
    return InductionCircuit(V, n, W_Q1, W_K1, W_V1, W_Q2, W_K2, W_V2)


class InductionRun(NamedTuple):
    """What ``run_induction`` returns (chapter 9): the stream after each layer, both weights, the logits."""

    x0: torch.Tensor  # [N, n, d] the embeddings
    x1: torch.Tensor  # [N, n, d] after layer 1
    x2: torch.Tensor  # [N, n, d] after layer 2
    A1: torch.Tensor  # [N, n, n] layer 1's attention weights
    A2: torch.Tensor  # [N, n, n] layer 2's attention weights
    logits: torch.Tensor  # [N, n, V] one score per next token


def run_induction(tokens: Any, circuit: InductionCircuit, prev_head: bool = True) -> InductionRun:
    """Run the circuit on ``tokens [N, n]`` (ids, ``<s>`` = ``vocab_size``) (chapter 9).

    Each layer adds its head's output to the stream: ``x1 = x0 + A1 (x0 W_V1)``
    and ``x2 = x1 + A2 (x1 W_V2)``, with ``A = softmax(Q K^T / sqrt(d_k))`` under
    a causal mask. ``prev_head=False`` removes layer 1's head: its output is
    zeroed, so ``x1 = x0`` and layer 2 finds no previous tokens. The read-out
    keeps what layer 2 copied into the output block above one half:
    ``logits = relu(x2[output] - 1/2)`` ``[N, n, V]``, all zero where it copied
    nothing clearly, and the predicted next token is their ``argmax``.

    Raises:
        ValueError: if ``tokens`` is not ``[N, n]`` with ``n <= n_positions`` or
            holds an id outside ``0 .. vocab_size``.
    """
    V = circuit.vocab_size
    ids = id_tensor("tokens", tokens, V + 1, "token ids (<s> is vocab_size)")
    if ids.ndim != 2 or ids.shape[1] > circuit.n_positions:
        raise ValueError(
            f"tokens must be [N, n] with n <= n_positions = {circuit.n_positions}; "
            f"got shape {list(ids.shape)}"
        )
    N, n = ids.shape
    x0 = torch.zeros(N, n, circuit.d_model, dtype=_F64)  # [N, n, d]
    x0[..., circuit.block("token")] = torch.eye(V + 1, dtype=_F64)[ids]  # token one-hots
    x0[..., circuit.block("position")][:, :, :n] = torch.eye(n, dtype=_F64)  # positions
    keep = torch.from_numpy(causal_mask(n))  # [n, n], True = may attend

    Q1, K1 = x0 @ circuit.W_Q1, x0 @ circuit.W_K1  # [N, n, n] each
    head1, A1 = attention(Q1, K1, x0 @ circuit.W_V1, mask=keep)  # [N, n, d], [N, n, n]
    x1 = x0 + head1 if prev_head else x0  # [N, n, d]
    Q2, K2 = x1 @ circuit.W_Q2, x1 @ circuit.W_K2  # [N, n, V + 2] each
    head2, A2 = attention(Q2, K2, x1 @ circuit.W_V2, mask=keep)  # [N, n, d], [N, n, n]
    x2 = x1 + head2  # [N, n, d]
    logits = torch.relu(x2[..., circuit.block("output")] - 0.5)  # [N, n, V]
    return InductionRun(x0, x1, x2, A1, A2, logits)


def repeat_accuracy(logits: Any, tokens: Any) -> float:
    """Share of the second half's tokens, after its first, that ``argmax(logits)`` predicts (chapter 9).

    ``tokens [N, 2 L + 1]`` as from ``repeated_sequences``; ``logits [N, 2 L + 1, V]``
    where position ``i`` predicts token ``i + 1``. The first token of the second
    half is left out: nothing before it says that the sequence will repeat. The
    remaining ``L - 1`` per sequence each have one earlier occurrence to copy.

    Raises:
        ValueError: if the shapes disagree or the sequences are shorter than 5.
    """
    if not isinstance(logits, torch.Tensor):
        logits = torch.as_tensor(logits, dtype=_F64)
    ids = id_tensor("tokens", tokens, logits.shape[-1] + 1, "token ids (<s> is vocab_size)")
    if ids.ndim != 2 or ids.shape[1] % 2 == 0 or ids.shape[1] < 5:
        raise ValueError(f"tokens must be [N, 2 L + 1] with L >= 2; got shape {list(ids.shape)}")
    if logits.shape[:2] != ids.shape:
        raise ValueError(
            f"logits must be [N, n, V] for tokens [N, n] = {list(ids.shape)}; "
            f"got shape {list(logits.shape)}"
        )
    L = ids.shape[1] // 2
    predicted = logits[:, L + 1 : 2 * L].argmax(-1)  # [N, L - 1], from positions L+1 .. 2L-1
    return (predicted == ids[:, L + 2 :]).double().mean().item()  # targets L+2 .. 2L
