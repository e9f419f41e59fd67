"""Synthetic tasks whose answer we know, for watching attention learn (chapter 11).

Two kinds of task, each made by a seeded generator that returns integer tensors:

- ``position_task``: a ``[CLS]`` token, then ``n_tokens`` random tokens; the label
  counts how many of a few fixed *target positions* hold one fixed value (with one
  target position, the label is simply "does position 4 hold 42?"). The answer
  lives at known positions, so we can check where a trained model looks.
- ``reversal_task``: a random sequence whose target is the same sequence backwards;
  output position ``i`` must read input position ``n - 1 - i``.

Indexing, once for all: positions are counted in the model's input, from 0.
In ``position_task`` position 0 holds ``[CLS]`` (token id ``vocab_size``, one more
than the largest ordinary token) and positions ``1 .. n_tokens`` hold the random
tokens, so a target position is between 1 and ``n_tokens``.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import torch

from ._validate import check_budget, generator, id_tensor, is_int, positive_int

__all__ = ["cls_token", "position_labels", "position_task", "reversal_task"]


def cls_token(vocab_size: int) -> int:
    """The id of ``[CLS]`` in ``position_task``: ``vocab_size`` (chapter 11).

    Ordinary tokens are ``0 .. vocab_size - 1``, so a model for the task embeds
    ``vocab_size + 1`` ids.

    Raises:
        ValueError: if ``vocab_size`` is not a positive integer.
    """
    positive_int("vocab_size", vocab_size)
    return int(vocab_size)


def position_labels(
    tokens: torch.Tensor, target_positions: Sequence[int] = (4,), target_value: int = 42
) -> torch.Tensor:
    """The rule of ``position_task``: how many target positions hold ``target_value`` (chapter 11).

    ``tokens`` is ``[B, n]`` with ``[CLS]`` at position 0; returns int64 labels ``[B]``
    between 0 and ``len(target_positions)``.

    Raises:
        ValueError: if ``tokens`` is not 2-D, is empty, holds a negative id, or a
            target position is outside ``1 .. n - 1``.
        TypeError: if ``tokens`` is not integers.
    """
    tokens = id_tensor("tokens", tokens, 2**62, "token ids")
    if tokens.dim() != 2:
        raise ValueError(f"tokens must have shape [B, n]; got {tuple(tokens.shape)}")
    n = tokens.shape[1]
    bad = [t for t in target_positions if not isinstance(t, Integral) or not 1 <= t < n]
    if bad or not len(target_positions):
        raise ValueError(
            f"target positions must lie between 1 and n - 1 = {n - 1}; got {list(target_positions)}"
        )
    return (tokens[:, list(target_positions)] == target_value).sum(dim=1)  # [B]


def position_task(
    n_samples: int,
    *,
    n_tokens: int = 8,
    vocab_size: int = 64,
    target_positions: Sequence[int] = (4,),
    target_value: int = 42,
    seed: int | torch.Generator = 0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A ``[CLS]`` token and ``n_tokens`` random tokens, labelled by what sits at fixed positions (chapter 11).

    Returns ``(tokens, labels)``: ``tokens`` int64 ``[n_samples, n_tokens + 1]`` with
    ``tokens[:, 0] == cls_token(vocab_size)`` and ordinary tokens in
    ``0 .. vocab_size - 1`` at positions ``1 .. n_tokens``; ``labels`` int64
    ``[n_samples]``, the number of ``target_positions`` that hold ``target_value``
    (``position_labels``). With ``k`` target positions the ``k + 1`` classes are
    exactly balanced, in random order. Positions other than the targets are
    uniform over the vocabulary, so ``target_value`` also turns up where it does
    not count: only the position tells it apart.

    Raises:
        ValueError: naming the value, if a size is not a positive integer,
            ``vocab_size < 2``, a target position is outside ``1 .. n_tokens`` or
            repeated, ``target_value`` is not an ordinary token, ``n_samples`` is not
            a multiple of ``len(target_positions) + 1``, or ``seed`` is invalid.
    """
    positive_int("n_samples", n_samples)
    positive_int("n_tokens", n_tokens)
    positive_int("vocab_size", vocab_size)
    if vocab_size < 2:
        raise ValueError(f"vocab_size must be at least 2, so a label can be 0; got {vocab_size}")
    targets = check_task_targets(target_positions, target_value, n_tokens, vocab_size)
    check_budget("n_samples and n_tokens are", 8 * n_samples * (n_tokens + 1))
    n_classes = len(targets) + 1
    if n_samples % n_classes:
        raise ValueError(
            f"n_samples={n_samples} must be a multiple of len(target_positions) + 1 = "
            f"{n_classes}, so that the classes are balanced"
        )
    g = generator(seed)
    tokens = torch.randint(vocab_size, (n_samples, n_tokens + 1), generator=g)  # [N, n + 1]
    tokens[:, 0] = cls_token(vocab_size)
    labels = torch.arange(n_classes).repeat_interleave(n_samples // n_classes)  # [N]
    labels = labels[torch.randperm(n_samples, generator=g)]  # [N], shuffled
    # A random ranking of the target positions per sample; the first `label` hold the value.
    rank = torch.rand(n_samples, len(targets), generator=g).argsort(dim=1).argsort(dim=1)  # [N, k]
    holds = rank < labels[:, None]  # [N, k]
    other = torch.randint(vocab_size - 1, (n_samples, len(targets)), generator=g)  # [N, k]
    other = other + (other >= target_value).long()  # [N, k], never target_value
    tokens[:, list(targets)] = torch.where(holds, torch.tensor(target_value), other)  # [N, k]
    return tokens, labels


def reversal_task(
    n_samples: int,
    *,
    n_tokens: int = 8,
    vocab_size: int = 16,
    seed: int | torch.Generator = 0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random sequences and the same sequences reversed (chapter 11).

    Returns ``(inputs, targets)``, both int64 ``[n_samples, n_tokens]`` with tokens
    in ``0 .. vocab_size - 1`` and ``targets[:, i] == inputs[:, n_tokens - 1 - i]``.
    No ``[CLS]`` token: every position is a query that must find its mirror image.

    Raises:
        ValueError: naming the value, if a size is not a positive integer or
            ``seed`` is invalid.
    """
    positive_int("n_samples", n_samples)
    positive_int("n_tokens", n_tokens)
    positive_int("vocab_size", vocab_size)
    check_budget("n_samples and n_tokens are", 8 * n_samples * n_tokens)
    g = generator(seed)
    inputs = torch.randint(vocab_size, (n_samples, n_tokens), generator=g)  # [N, n]
    return inputs, inputs.flip(dims=(1,))  # [N, n] each


def check_task_targets(
    target_positions: Sequence[int], target_value: int, n_tokens: int, vocab_size: int
) -> tuple[int, ...]:
    """The target positions of a ``position_task`` as ints, checked against its sizes."""
    try:
        targets = tuple(target_positions)
    except TypeError:
        raise ValueError(
            f"target_positions must be a list of positions; got {target_positions!r}"
        ) from None
    if not targets:
        raise ValueError("target_positions must name at least one position")
    bad = [t for t in targets if not is_int(t) or not 1 <= t <= n_tokens]
    if bad:
        raise ValueError(
            f"target positions must lie between 1 and n_tokens={n_tokens} "
            f"(position 0 is [CLS]); got {bad}"
        )
    if len(set(targets)) != len(targets):
        raise ValueError(f"target positions must be distinct; got {list(targets)}")
    if not is_int(target_value) or not 0 <= target_value < vocab_size:
        raise ValueError(
            f"target_value must be an ordinary token, between 0 and vocab_size - 1 = "
            f"{vocab_size - 1}; got {target_value!r}"
        )
    return tuple(int(t) for t in targets)
