"""A one-layer attention model, a small training loop, and a hand-built solution (chapter 11).

``AttentionModel`` is the smallest model in which attention can learn anything:
token embeddings plus learned positional embeddings, one
``lessons.MultiHeadAttention`` layer, and a linear read-out, either from the
``[CLS]`` position (one answer per sequence) or from every position (one answer
per token). There is no residual connection, no feed-forward network and no
normalization, so whatever reaches the read-out went through the attention
weights. ``train`` fits it with Adam on a cross-entropy loss; ``accuracy``
measures it, optionally with a keep-mask that blocks keys (the interventions of
chapter 11). ``hand_built_position_model`` sets every weight by hand so that the
``[CLS]`` query looks only at the target positions: proof that the task of
``lessons.tasks.position_task`` is solvable by one attention layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import (
    InputTypeError,
    check_budget,
    finite_number,
    generator,
    id_tensor,
    positive_int,
)
from .multihead import MultiHeadAttention
from .tasks import check_task_targets, cls_token

__all__ = ["AttentionModel", "accuracy", "hand_built_position_model", "train"]

_READOUTS = ("cls", "tokens")


class AttentionModel(nn.Module):
    """Embeddings, learned positions, one attention layer, a linear read-out (chapter 11).

    ``vocab_size`` ids are embedded (for ``position_task`` that is the task's
    vocabulary plus one, for ``[CLS]``), ``n_positions`` positions get a learned
    vector each, and ``num_heads`` heads share ``d_model``. With
    ``readout="cls"`` the logits come from position 0's output only; with
    ``readout="tokens"`` every position gets its own logits. Parameters are
    initialised from ``seed`` without touching torch's global generator, in
    ``dtype`` (float64 by default, so results agree across machines).
    """

    def __init__(
        self,
        vocab_size: int,
        n_positions: int,
        n_classes: int,
        *,
        d_model: int = 32,
        num_heads: int = 1,
        readout: str = "cls",
        seed: int = 0,
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        for name, value in (
            ("vocab_size", vocab_size),
            ("n_positions", n_positions),
            ("n_classes", n_classes),
            ("d_model", d_model),
        ):
            positive_int(name, value)
        check_budget("vocab_size and d_model are", 8 * (vocab_size + n_positions) * d_model)
        if readout not in _READOUTS:
            raise ValueError(f"readout must be one of {_READOUTS}; got {readout!r}")
        if isinstance(seed, torch.Generator):
            raise ValueError("seed must be a non-negative integer here; got a torch.Generator")
        generator(seed)  # checks it: a non-negative integer
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise ValueError(f"dtype must be a floating torch dtype; got {dtype!r}")
        self.readout_from = readout
        self.n_positions = n_positions
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.embed = nn.Embedding(vocab_size, d_model, dtype=dtype)
            self.positions = nn.Parameter(torch.randn(n_positions, d_model, dtype=dtype))
            self.attention = MultiHeadAttention(d_model, num_heads).to(dtype)
            self.readout = nn.Linear(d_model, n_classes, dtype=dtype)

    def forward(self, tokens: torch.Tensor, mask: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and attention weights for ``tokens [B, n]`` (integer ids, ``n <= n_positions``).

        ``mask`` is a boolean keep-mask (True = may attend) broadcastable to
        ``[B, h, n, n]``, passed to the attention layer: ``[n]`` or ``[n, n]``
        blocks keys for every sequence.

        Returns ``(logits, weights)``: logits ``[B, n_classes]`` (``readout="cls"``)
        or ``[B, n, n_classes]`` (``readout="tokens"``), weights ``[B, h, n, n]``.

        Raises:
            ValueError: if ``tokens`` is not ``[B, n]``, is longer than ``n_positions``,
                or holds an id outside ``0 .. vocab_size - 1``.
            TypeError: if ``tokens`` is not integers.
        """
        tokens = id_tensor("tokens", tokens, self.embed.num_embeddings, "token ids")
        if tokens.dim() != 2 or tokens.shape[1] > self.n_positions:
            raise ValueError(
                f"tokens must have shape [B, n] with n <= n_positions={self.n_positions}; "
                f"got {tuple(tokens.shape)}"
            )
        n = tokens.shape[1]
        x = self.embed(tokens) + self.positions[:n]  # [B, n, d_model]
        if mask is not None and not isinstance(mask, torch.Tensor):
            mask = torch.as_tensor(mask)
        out, weights = self.attention(x, mask=mask)  # [B, n, d_model], [B, h, n, n]
        if self.readout_from == "cls":
            return self.readout(out[:, 0]), weights  # [B, n_classes]
        return self.readout(out), weights  # [B, n, n_classes]


def _loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def _check_data(model: Any, inputs: Any, targets: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """``inputs [N, n]`` token ids and ``targets`` (``[N]``, or ``[N, n]`` per token) checked."""
    if not isinstance(model, AttentionModel):
        raise InputTypeError(f"model must be a lessons.AttentionModel; got {type(model).__name__}")
    inputs = id_tensor("inputs", inputs, model.embed.num_embeddings, "token ids")
    targets = id_tensor("targets", targets, model.readout.out_features, "class labels")
    if inputs.dim() != 2 or inputs.shape[1] > model.n_positions:
        raise ValueError(
            f"inputs must have shape [N, n] with n <= n_positions={model.n_positions}; "
            f"got {list(inputs.shape)}"
        )
    N, n = inputs.shape
    wanted = [N] if model.readout_from == "cls" else [N, n]
    if list(targets.shape) != wanted:
        raise ValueError(
            f"targets must have shape {wanted}, with the same N as inputs (one label per "
            f"{'sequence' if model.readout_from == 'cls' else 'token'}, readout="
            f"{model.readout_from!r}) for inputs of shape {list(inputs.shape)}; "
            f"got {list(targets.shape)}"
        )
    return inputs, targets


class _Adam:
    """Adam written out, equal to ``torch.optim.Adam`` with its defaults.

    ``torch.optim`` imports ``torch._dynamo`` on first use, which costs more than a
    second; a chapter's whole time budget is a few seconds, so the update is here.
    """

    def __init__(
        self,
        params: list[torch.Tensor],
        lr: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.m = [torch.zeros_like(p) for p in params]  # first moments
        self.v = [torch.zeros_like(p) for p in params]  # second moments
        self.t = 0

    @torch.no_grad()
    def step(self, grads: Sequence[torch.Tensor]) -> None:
        self.t += 1
        b1, b2 = self.betas
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (v.sqrt() / math.sqrt(1 - b2**self.t)).add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / (1 - b1**self.t))


def train(
    model: AttentionModel,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    *,
    steps: int = 200,
    lr: float = 0.01,
    batch_size: int | None = None,
    seed: int | torch.Generator = 0,
    callback: Callable[[int, AttentionModel], None] | None = None,
) -> list[float]:
    """Fit ``model`` in place with Adam on the cross-entropy loss; return the loss per step (chapter 11).

    ``inputs [N, n]`` are token ids; ``targets`` are class ids, ``[N]`` for a
    ``[CLS]`` read-out or ``[N, n]`` for a per-token read-out (the loss averages
    over every answer). Each step uses the whole set (``batch_size=None``) or
    ``batch_size`` examples drawn without replacement by a generator seeded with
    ``seed``, so a run is reproducible. It returns ``steps`` floats, each step's batch loss
    before its update. ``callback(step, model)``, if given, runs after every update (step
    counts from 1), for example to record held-out accuracy while the model learns. Each run is appended to
    ``model.training_runs`` (steps, lr, batch size, examples): a check says how a model was
    trained. The loop runs on one CPU thread (restored afterwards): for tensors this small,
    more threads add only waiting, which on a busy machine makes a step many times slower.

    Raises:
        ValueError: naming the value, if ``steps`` or ``batch_size`` is not a
            positive integer, ``lr`` is not a finite number > 0, a token id or label
            is out of range, the shapes do not match, or a step makes a parameter
            NaN or inf (``lr`` too large). Checked before the first step.
        TypeError: if ``model`` is not an ``AttentionModel`` or the ids are not integers.
    """
    inputs, targets = _check_data(model, inputs, targets)
    positive_int("steps", steps)
    finite_number("lr", lr, positive=True)
    positive_int("batch_size", batch_size, allow_none=True)
    if callback is not None and not callable(callback):
        raise ValueError(f"callback must be a function callback(step, model); got {callback!r}")
    g = generator(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    adam = _Adam(params, lr)
    losses: list[float] = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: extra threads only wait for each other
    model.train()
    try:
        for _ in range(steps):
            if batch_size is None or batch_size >= len(inputs):
                batch_x, batch_y = inputs, targets
            else:
                rows = torch.randperm(len(inputs), generator=g)[:batch_size]  # [batch]
                batch_x, batch_y = inputs[rows], targets[rows]
            try:  # a too large lr shows as a NaN, inf or overflow somewhere in the model
                loss = _loss(model(batch_x)[0], batch_y)
                adam.step(torch.autograd.grad(loss, params))
                if len(losses) + 1 == steps and not all(torch.isfinite(p).all() for p in params):
                    raise ValueError("a parameter became NaN or inf")
            except ValueError as error:
                if not adam.t:
                    raise
                raise ValueError(
                    f"lr={lr} is too large: after {adam.t} steps the model broke down "
                    f"({error}); try a smaller lr (0.01 is the default)"
                ) from None
            losses.append(loss.item())
            if callback is not None:
                model.eval()
                callback(len(losses), model)
                model.train()
    finally:
        torch.set_num_threads(threads)
        model.eval()
    run = {"steps": steps, "lr": lr, "batch_size": batch_size, "examples": len(inputs)}
    model.training_runs = [*getattr(model, "training_runs", []), run]
    return losses


@torch.no_grad()
def accuracy(
    model: AttentionModel, inputs: torch.Tensor, targets: torch.Tensor, mask: Any = None
) -> float:
    """The fraction of answers the model gets right, optionally with keys blocked (chapter 11).

    ``inputs [N, n]``; ``targets [N]`` or ``[N, n]`` (then every token counts);
    ``mask`` is a keep-mask for the attention layer, as in ``AttentionModel.forward``.

    Raises:
        ValueError: if the shapes do not match, or an id or label is out of range
            (an empty set has no accuracy: it is refused too).
        TypeError: if ``model`` is not an ``AttentionModel`` or the ids are not integers.
    """
    inputs, targets = _check_data(model, inputs, targets)
    logits, _ = model(inputs, mask=mask)
    return (logits.argmax(dim=-1) == targets).double().mean().item()


def hand_built_position_model(
    n_tokens: int = 8,
    vocab_size: int = 64,
    target_positions: Sequence[int] = (4,),
    target_value: int = 42,
    sharpness: float = 20.0,
) -> AttentionModel:
    """An ``AttentionModel`` that solves ``position_task`` with weights set by hand (chapter 11).

    Token ``t`` embeds as the one-hot vector of column ``t`` (``[CLS]`` included)
    and position ``p`` adds the one-hot vector of column ``vocab_size + 1 + p``,
    so ``d_model = vocab_size + n_tokens + 2``, one head. The ``[CLS]`` query
    matches only the keys of the target positions, with score ``sharpness``
    (other keys score 0), so each target gets weight close to ``1 / k`` for ``k``
    targets. A value is 1 in feature 0 when its token is ``target_value``, so
    ``[CLS]``'s output in feature 0 is about ``count / k``, and the read-out picks
    the class nearest to ``count``. Returns the model in evaluation mode, ``[CLS]``
    read-out, ``k + 1`` classes.

    Raises:
        ValueError: as ``position_task`` for bad sizes or targets, or if
            ``sharpness`` is not positive.
    """
    positive_int("n_tokens", n_tokens)
    positive_int("vocab_size", vocab_size)
    targets = check_task_targets(target_positions, target_value, n_tokens, vocab_size)
    finite_number("sharpness", sharpness, positive=True)
    k, n_ids, n_positions = len(targets), vocab_size + 1, n_tokens + 1
    d_model = n_ids + n_positions
    model = AttentionModel(n_ids, n_positions, k + 1, d_model=d_model, num_heads=1)
    pos = n_ids  # first column of the position block
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.embed.weight[:, :n_ids] = torch.eye(n_ids)  # token one-hots
        model.positions[:, pos:] = torch.eye(n_positions)  # position one-hots
        w_q, w_k, w_v = model.attention.in_proj.weight.view(3, d_model, d_model)  # [out, in]
        for t in targets:  # the [CLS] query points at each target position
            w_q[pos + t, cls_token(vocab_size)] = sharpness * math.sqrt(d_model)
        w_k[pos:, pos:] = torch.eye(n_positions)  # a key says its position
        w_v[0, target_value] = 1.0  # a value says "I am target_value"
        model.attention.out_proj.weight[0, 0] = 1.0
        classes = torch.arange(k + 1, dtype=torch.float64)  # [k + 1]
        model.readout.weight[:, 0] = classes * k  # logit_c = c * count - c^2 / 2
        model.readout.bias[:] = -(classes**2) / 2
    model.eval()
    return model
