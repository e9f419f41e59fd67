"""The lab's folded forward pass (`lessons.book.widgets.lab_export.cls_logits`) against the model's own.

`cls_logits` computes the softmax's exponentials once and renormalises them per mask;
these tests hold it to `AttentionModel.forward` wherever that shortcut could go wrong:
masks that keep only keys whose exponentials underflow, masks that block every key,
and random models, tokens and masks.
"""

from __future__ import annotations

import itertools

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons.book.widgets.lab_export import blocked_keep, cls_logits, export_decimals
from lessons.tasks import position_task
from lessons.training import AttentionModel, hand_built_position_model


def _direct(model: AttentionModel, tokens: torch.Tensor, keeps: torch.Tensor) -> torch.Tensor:
    """The model's own logits ``[M, N, C]``, one forward pass per keep-mask."""
    with torch.no_grad():
        return torch.stack([model(tokens, mask=keep)[0] for keep in keeps])


def test_blocking_the_only_key_that_has_weight_still_gives_the_models_logits():
    # Score 800 on the target and 0 elsewhere: every other key's exponential, shifted
    # by the largest score, underflows to exactly 0, so only the direct softmax works.
    model = hand_built_position_model(sharpness=800.0)
    tokens, _ = position_task(50, seed=4)  # [50, 9]
    keeps = torch.stack([blocked_keep(9, b) for b in [(), (4,), (0, 4), (4, 8)]])  # [4, 9]
    folded = cls_logits(model, tokens, keeps)  # [4, 50, 2]
    torch.testing.assert_close(folded, _direct(model, tokens, keeps), atol=1e-12, rtol=1e-12)
    assert torch.isfinite(folded).all()


def test_blocking_every_key_leaves_only_the_biases():
    model = AttentionModel(65, 9, 2, d_model=8, seed=3)
    tokens, _ = position_task(20, seed=5)  # [20, 9]
    none_kept = torch.zeros(1, 9, dtype=torch.bool)  # [1, n]
    folded = cls_logits(model, tokens, none_kept)[0]  # [20, 2]
    with torch.no_grad():
        bias = model.readout(model.attention.out_proj.bias)  # [2]: weights 0, values unused
    torch.testing.assert_close(folded, bias.expand(20, 2), atol=1e-12, rtol=0)
    torch.testing.assert_close(folded, _direct(model, tokens, none_kept)[0], atol=1e-12, rtol=0)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    d_model=st.sampled_from([4, 8, 16]),
    n=st.integers(1, 6),
    scale=st.sampled_from([1.0, 30.0]),
)
def test_the_folded_logits_equal_the_models_for_every_mask(seed, d_model, n, scale):
    model = AttentionModel(12, n, 3, d_model=d_model, seed=seed)
    with torch.no_grad():
        model.positions.mul_(scale)  # large scores: far-apart exponentials
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, 12, (7, n), generator=g)  # [7, n]
    subsets = [b for r in range(n + 1) for b in itertools.combinations(range(n), r)]
    keeps = torch.stack([blocked_keep(n, b) for b in subsets])  # [2^n, n]
    torch.testing.assert_close(
        cls_logits(model, tokens, keeps), _direct(model, tokens, keeps), atol=1e-9, rtol=1e-9
    )


def test_export_decimals_keeps_the_hand_built_models_predictions_under_every_mask():
    model = hand_built_position_model()
    tokens, _ = position_task(100, seed=6)  # [100, 9]
    decimals = export_decimals(model, tokens)
    assert decimals is not None and 2 <= decimals <= 12
