"""Exercises 7.2 and 10.1 (issue 25): heads wider than d_model / h, and where a block's work goes."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import lessons
from lessons.checks import ch07, ch10

T5 = {"d_model": 1024, "num_heads": 32, "d_k": 128}  # exercise 7.2: T5-3B's attention
BLOCK = {"n": 2048, "d_model": 512, "d_ff": 1536}  # exercise 10.1


def _linear_weights(d_model: int, width: int) -> int:
    """The weights of W_Q, W_K, W_V [d_model, width] and W_O [width, d_model], from PyTorch."""
    with torch.device("meta"):
        layers = [nn.Linear(d_model, width, bias=False) for _ in range(3)]
        layers.append(nn.Linear(width, d_model, bias=False))
    return sum(p.numel() for layer in layers for p in layer.parameters())


@pytest.mark.parametrize(("d_model", "num_heads", "d_k"), [(1024, 32, 128), (64, 8, 8), (6, 4, 5)])
def test_the_head_width_count_is_pytorchs_count_of_the_four_projections(d_model, num_heads, d_k):
    expected = _linear_weights(d_model, num_heads * d_k)
    verdict = lessons.check_head_width_parameter_count(expected, d_model, num_heads, d_k)
    assert verdict and "h·d_k" in repr(verdict)
    assert lessons.check_head_width_parameter_count(float(expected), d_model, num_heads, d_k)


def test_with_heads_of_d_model_over_h_the_count_is_chapter_sevens_four_d_squared():
    assert lessons.check_head_width_parameter_count(4 * 64 * 64, 64, 8, 8)
    weights = sum(
        p.numel()
        for name, p in lessons.MultiHeadAttention(64, 8, bias=False).named_parameters()
        if "weight" in name
    )
    assert weights == 4 * 64 * 64


@pytest.mark.parametrize(
    ("name", "answer", "named"),
    [
        ("d_k_is_d_model_over_h", 4 * 1024 * 1024, "4 d_model²"),
        ("square_output_projection", 3 * 1024 * 4096 + 1024 * 1024, "W_O reads"),
        ("one_head", 4 * 1024 * 128, "one head's share"),
        ("all_square_in_head_width", 4 * 4096 * 4096, "d_model rows"),
        ("biases_counted", 4 * 1024 * 4096 + 3 * 4096 + 1024, "without the biases"),
    ],
)
def test_check_head_width_parameter_count_names_each_mistake(name, answer, named):
    assert ch07.head_width_parameter_mistakes(**T5)[name][0] == answer
    verdict = lessons.check_head_width_parameter_count(answer, **T5)
    assert not verdict and named in repr(verdict)


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (..., "No answer yet"),
        (16_777_216.5, "whole number"),
        ("16777216", "whole number"),
        (1, "shape"),
    ],
)
def test_check_head_width_parameter_count_handles_what_is_not_a_known_mistake(answer, named):
    verdict = lessons.check_head_width_parameter_count(answer, **T5)
    assert not verdict and named in repr(verdict)


def test_the_head_width_mistakes_of_the_exercise_are_all_different_from_the_answer():
    counts = [count for count, _ in ch07.head_width_parameter_mistakes(**T5).values()]
    assert len(set(counts)) == len(counts) and 4 * 1024 * 4096 not in counts


def _counted_block_flops(n: int, d_model: int, d_ff: int, h: int = 4) -> dict[str, int]:
    """FLOPs of a block's matrix products, counted product by product on small arrays."""
    rng = np.random.default_rng(0)
    counted = {"projections": 0, "quadratic": 0, "feed_forward": 0}

    def mm(part, a, b):
        counted[part] += 2 * a.size * b.shape[-1]
        return a @ b

    X = rng.normal(size=(n, d_model))  # [n, d_model]
    W = rng.normal(size=(4, d_model, d_model))  # W_Q, W_K, W_V, W_O
    Q, K, V = (mm("projections", X, W[k]).reshape(n, h, -1).transpose(1, 0, 2) for k in range(3))
    A = lessons.softmax(mm("quadratic", Q, K.transpose(0, 2, 1)))  # [h, n, n]
    heads = mm("quadratic", A, V)  # [h, n, d_k]
    out = mm("projections", heads.transpose(1, 0, 2).reshape(n, d_model), W[3])
    hidden = mm("feed_forward", out, rng.normal(size=(d_model, d_ff)))  # [n, d_ff]
    mm("feed_forward", hidden, rng.normal(size=(d_ff, d_model)))  # [n, d_model]
    return counted


@pytest.mark.parametrize(("n", "d_model", "d_ff"), [(12, 8, 20), (6, 16, 64), (30, 4, 4)])
def test_block_flops_match_a_product_by_product_count(n, d_model, d_ff):
    assert ch10.block_flops(n, d_model, d_ff) == _counted_block_flops(n, d_model, d_ff)


def test_check_block_quadratic_share_accepts_the_share_to_three_decimals():
    share = 2048 / (2048 + 2 * 512 + 1536)  # n / (n + 2 d_model + d_ff)
    for answer in (share, round(share, 3), round(share, 4), np.float32(share)):
        verdict = lessons.check_block_quadratic_share(answer, **BLOCK)
        assert verdict and "0.4444" in repr(verdict)
    assert not lessons.check_block_quadratic_share(round(share, 2), **BLOCK)


@pytest.mark.parametrize(
    ("name", "answer", "named"),
    [
        ("attention_layer_only", 2048 / (2048 + 1024), "attention layer alone"),
        ("d_ff_taken_as_4_d_model", 2048 / (2048 + 6 * 512), "d_ff is 1536"),
        ("one_feed_forward_product", 2048 / (2048 + 1024 + 768), "two products"),
        ("scores_without_weighted_sum", 2048 / (2048 + 2048 + 3072), "A V"),
        ("linear_share", 2560 / 4608, "grows like n"),
        ("ratio_not_share", 2048 / 2560, "divides by the total"),
    ],
)
def test_check_block_quadratic_share_names_each_mistake(name, answer, named):
    assert ch10.block_share_mistakes(**BLOCK)[name][0] == pytest.approx(answer)
    verdict = lessons.check_block_quadratic_share(answer, **BLOCK)
    assert not verdict and named in repr(verdict)


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (None, "No answer yet"),
        ([0.4, 0.5], "one number"),
        (float("nan"), "one number"),
        ("x", "one number"),
        (0.9, "three parts"),
    ],
)
def test_check_block_quadratic_share_handles_what_is_not_a_known_mistake(answer, named):
    verdict = lessons.check_block_quadratic_share(answer, **BLOCK)
    assert not verdict and named in repr(verdict)


def test_the_block_share_mistakes_of_the_exercise_lie_apart_from_each_other_and_the_answer():
    shares = [s for s, _ in ch10.block_share_mistakes(**BLOCK).values()]
    shares.append(2048 / 4608)
    gaps = np.diff(np.sort(shares))
    assert gaps.min() > 4 * ch10.SHARE_TOLERANCE


def test_the_new_checks_are_public_names():
    for module, name in (
        (ch07, "check_head_width_parameter_count"),
        (ch10, "check_block_quadratic_share"),
    ):
        assert name in module.__all__ and getattr(lessons, name) is getattr(module, name)
