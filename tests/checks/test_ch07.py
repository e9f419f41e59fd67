"""Chapter 7's self-checks (Multi-head attention): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import lessons
from lessons.checks import ch07

XH = torch.arange(2 * 3 * 8, dtype=torch.float64).reshape(2, 3, 8)  # [B, n, d_model]


T5 = {"d_model": 1024, "num_heads": 32, "d_k": 128}  # exercise 7.2: T5-3B's attention


def _linear_weights(d_model: int, width: int) -> int:
    """The weights of W_Q, W_K, W_V [d_model, width] and W_O [width, d_model], from PyTorch."""
    with torch.device("meta"):
        layers = [nn.Linear(d_model, width, bias=False) for _ in range(3)]
        layers.append(nn.Linear(width, d_model, bias=False))
    return sum(p.numel() for layer in layers for p in layer.parameters())


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lessons.split_heads(XH, 2), "Correct"),
        (XH.view(2, 2, 3, 4), "mixes tokens into heads"),
        (XH.view(2, 3, 2, 4), "transpose(1, 2)"),
        (XH, "Expected shape [B, h, n, d_k]"),
    ],
)
def test_check_split_heads_names_the_reshape_bug(answer, expected):
    assert expected in repr(lessons.check_split_heads(answer, XH, 2))


@pytest.mark.parametrize(
    ("answer", "bias", "expected"),
    [
        (4 * 64 + 4 * 8, True, "Correct"),
        (4 * 64, False, "Correct"),
        (3 * 64 + 3 * 8, True, "W_O"),
        (4 * 64, True, "add the biases"),
        (4 * 64 + 4 * 8, False, "bias=False"),
        (64, True, "Count four"),
    ],
)
def test_check_mha_parameter_count_names_the_mistake(answer, bias, expected):
    assert expected in repr(lessons.check_mha_parameter_count(answer, 8, bias=bias))


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
