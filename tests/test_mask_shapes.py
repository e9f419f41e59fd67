"""Masks follow one rule (chapter 6): boolean, broadcasting *to* the weights, never widening them.

``F.scaled_dot_product_attention`` refuses a mask with more axes than the scores; a silent
broadcast would turn ``[B, n, n]`` weights into ``[B, B, n, n]`` and an output of another
shape. A float mask is refused on every path of ``MultiHeadAttention`` alike, and the advice
fits what the reader holds: ``mask == 0`` for an additive 0/-inf mask, "add it to the
scores" for a bias such as ALiBi's (where ``mask == 0`` would block every key).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import lessons
from lessons import MultiHeadAttention, attention, causal_mask, diagnose_mask

B, n, d = 2, 4, 3


def _qkv(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, dtype=torch.float64, generator=g) for _ in range(3))


@pytest.mark.parametrize(
    ("mask_shape", "q_shape"),
    [
        ((B, 1, n, n), (B, n, d)),  # a per-head mask given to head-less inputs
        ((1, 1, n, n), (B, n, d)),
        ((1, n, n), (n, d)),
        ((B, n, n), (n, d)),
        ((3, 1, n, n), (B, 1, n, d)),
    ],
)
def test_a_mask_with_more_axes_than_the_scores_is_refused_naming_both_shapes(mask_shape, q_shape):
    Q, K, V = _qkv(*q_shape)
    keep = torch.ones(mask_shape, dtype=torch.bool)
    scores = [*q_shape[:-1], q_shape[-2]]
    with pytest.raises(ValueError, match="does not broadcast") as caught:
        attention(Q, K, V, mask=keep)
    message = str(caught.value)
    assert str(list(mask_shape)) in message and str(scores) in message
    try:  # PyTorch refuses it too, or widens the output: never the inputs' shape
        assert F.scaled_dot_product_attention(Q, K, V, attn_mask=keep).shape != Q.shape
    except RuntimeError:
        pass
    if mask_shape[0] == B and len(mask_shape) > len(scores):  # the course's own diagnosis
        assert diagnose_mask(keep.numpy(), "keep", scores)


@pytest.mark.parametrize(
    "mask_shape", [(n, n), (1, n), (n,), (B, 1, n), (B, n, n), (1, 1, n), (B, 1, 1)]
)
def test_a_mask_that_broadcasts_to_the_scores_gives_sdpas_output(mask_shape):
    Q, K, V = _qkv(B, n, d, seed=1)
    keep = torch.rand(mask_shape, generator=torch.Generator().manual_seed(2)) > 0.3
    keep[..., 0] = True  # every query keeps a key
    out, weights = attention(Q, K, V, mask=keep)
    assert out.shape == (B, n, d) and weights.shape == (B, n, n)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(Q, K, V, attn_mask=keep))


def test_a_square_causal_mask_for_fewer_queries_than_keys_points_at_the_offset_rule():
    Q, K, V = _qkv(1, 6, d, seed=3)
    with pytest.raises(ValueError, match=re.escape("causal_mask(6)[-2:]")) as caught:
        attention(Q[:, -2:], K, V, mask=causal_mask(2))
    assert "window_mask" in str(caught.value)
    with pytest.raises(ValueError, match="window_mask"):
        attention(Q[:, -2:], K, V, mask=causal_mask(6))
    last_rows = attention(Q[:, -2:], K, V, mask=causal_mask(6)[-2:])[0]  # [1, 2, d]
    torch.testing.assert_close(last_rows, attention(Q, K, V, mask=causal_mask(6))[0][:, -2:])


def test_a_square_causal_mask_for_more_queries_than_keys_points_at_window_mask():
    Q, K, V = _qkv(1, 6, d, seed=3)
    for square in (causal_mask(6), causal_mask(2)):
        with pytest.raises(ValueError, match=re.escape("window_mask(np.arange(6), np.arange(2))")):
            attention(Q, K[:, :2], V[:, :2], mask=square)
    advised = torch.from_numpy(lessons.window_mask(np.arange(6), np.arange(2)))  # [6, 2]
    torch.testing.assert_close(
        attention(Q, K[:, :2], V[:, :2], mask=advised)[0],
        F.scaled_dot_product_attention(Q, K[:, :2], V[:, :2], is_causal=True),
    )


def _mha(seed=4):
    torch.manual_seed(seed)
    return MultiHeadAttention(8, 2).double()


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_refuses_a_float_mask_whatever_need_weights(need_weights):
    x = torch.randn(B, n, 8, dtype=torch.float64)
    additive = torch.from_numpy(lessons.additive_mask(causal_mask(n)))  # 0 / -inf
    with pytest.raises(ValueError, match="mask == 0"):
        _mha()(x, mask=additive, need_weights=need_weights)


def test_multihead_masks_the_same_whatever_need_weights():
    x = torch.randn(B, n, 8, dtype=torch.float64)
    mha = _mha()
    for keep in (causal_mask(n), torch.from_numpy(causal_mask(n)), np.ones((B, 1, 1, n), bool)):
        with torch.no_grad():
            torch.testing.assert_close(
                mha(x, mask=keep)[0], mha(x, mask=keep, need_weights=False)[0]
            )
    with pytest.raises(ValueError, match=r"\[2, 1, 1, 4, 4\] does not broadcast"):
        mha(x, mask=np.ones((B, 1, n, n), bool)[:, :, None], need_weights=False)


def _refusal(mask):
    Q, K, V = (np.ones((n, d)),) * 3
    with pytest.raises(ValueError, match="mask must be boolean") as caught:
        attention(Q, K, V, mask=mask)
    return str(caught.value)


@pytest.mark.parametrize(
    "additive",
    [
        lessons.additive_mask(causal_mask(n)),  # 0 and -inf
        np.where(causal_mask(n), 0.0, -1e9),  # 0 and a large negative stand-in
        torch.from_numpy(np.where(causal_mask(n), 0.0, -1e4)).half(),
    ],
)
def test_the_advice_for_an_additive_mask_is_mask_eq_0_and_it_is_right(additive):
    message = _refusal(additive)
    assert "mask == 0" in message and "bias" not in message
    Q, K, V = _qkv(n, d, seed=5)
    fixed = attention(Q, K, V, mask=additive == 0)[0]
    torch.testing.assert_close(fixed, attention(Q, K, V, mask=causal_mask(n))[0])


@pytest.mark.parametrize(
    "bias",
    [
        lessons.alibi_bias(n, 2),  # ALiBi, -inf above the diagonal
        lessons.alibi_bias(n, 2, causal=False),
        np.random.default_rng(6).normal(size=(n, n)),  # a learned bias
    ],
)
def test_the_advice_for_a_bias_is_to_add_it_never_mask_eq_0(bias):
    message = _refusal(bias)
    assert "bias" in message and "chapter 8" in message
    assert "Turn it into a boolean keep-mask with `mask == 0`" not in message
    # the refused advice would have blocked (nearly) every key: the warning is true
    assert (bias == 0).mean() <= 1 / n + 1e-12


def test_the_advice_for_a_0_1_mask_names_both_readings():
    message = _refusal(causal_mask(n).astype(np.float32))
    assert "mask == 1" in message and "mask == 0" in message
