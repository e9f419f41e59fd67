"""The exercise self-checks: right answers pass, and each common mistake is named."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import lessons
from lessons import (
    check_dot_product,
    check_pair_count,
    check_soft_lookup,
    check_softmax_function,
)

A, B = np.array([2.0, 3.0]), np.array([5.0, -1.0])
Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d]
K = np.array([[1.0, 2.0], [0.0, 1.0]])  # [n_k, d]


@pytest.mark.parametrize(
    ("check", "args"),
    [
        (check_dot_product, (A, B)),
        (check_soft_lookup, (np.array([1.0, 0.0]), Q, Q)),
        (check_pair_count, (5,)),
    ],
)
def test_an_unanswered_exercise_says_so_and_is_not_correct(check, args):
    for missing in (None, ...):
        verdict = check(missing, *args)
        assert not verdict and not verdict.answered
        assert "No answer yet" in repr(verdict)


def test_a_verdict_shows_its_message_as_text_and_html():
    verdict = check_dot_product(7, A, B)
    assert verdict.ok and bool(verdict)
    assert repr(verdict).startswith("✔ Correct")
    assert "#009E73" in verdict._repr_html_()
    wrong = check_dot_product(8, A, B)
    assert not wrong and "&lt;" not in wrong._repr_html_() and "#D55E00" in wrong._repr_html_()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (7, "Correct"),
        (np.float32(7.0), "Correct"),
        (A * B, "element-wise products"),
        (7 / (np.linalg.norm(A) * np.linalg.norm(B)), "cosine similarity"),
        (-7, "sign is flipped"),
        (13, "multiply matching entries"),
        (np.ones((2, 2)), "one number"),
        ("seven", "should be a number"),
    ],
)
def test_check_dot_product_names_the_mistake(answer, expected):
    assert expected in repr(check_dot_product(answer, A, B))


def _naive(x):
    return np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)


def _stable(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (_stable, "Correct"),
        (lessons.softmax, "Correct"),
        (_naive, "NaN"),
        (lambda x: np.exp(x - x.max(axis=0)) / np.exp(x - x.max(axis=0)).sum(axis=0), "columns"),
        (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(), "whole table sums to 1"),
        (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), "do not sum to 1"),
        (lambda x: x / x.sum(axis=-1, keepdims=True), "softmax gives"),
        (lambda x: x[0], "should have shape"),
        (lambda x: 1 / 0, "raised ZeroDivisionError"),
        (_stable(np.zeros(2)), "Pass the function itself"),
    ],
)
def test_check_softmax_function_names_the_bug(fn, expected):
    assert expected in repr(check_softmax_function(fn))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (25, "Correct"),
        (10, "unordered pairs"),
        (20, "scores itself"),
        (5, "not just one"),
        (7, "Count one"),
    ],
)
def test_check_pair_count_names_the_mistake(answer, expected):
    assert expected in repr(check_pair_count(answer, 5))


X3 = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])  # [n, d_model]
W3 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])  # [d_model, d_out]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (X3 @ W3, "Correct"),
        ((X3 @ W3).T, "transpose"),
        (np.zeros((2, 2)), "gives shape [3, 3]"),
        (X3 @ W3 + 1, "output[i] = X[i] @ W"),
    ],
)
def test_check_projection_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_projection(answer, X3, W3))


def test_check_projection_spots_a_transposed_square_weight():
    W = np.array([[1.0, 2.0], [3.0, 4.0]])  # [d_model, d_out], square
    assert "You used W.T" in repr(lessons.check_projection(X3 @ W.T, X3, W))


QA = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d_k]
KA = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [n_k, d_k]
VA = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [n_k, d_v]
SA = QA @ KA.T  # [n_q, n_k]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lessons.attention(QA, KA, VA)[1], "Correct"),
        (SA, "raw scores"),
        (SA / np.sqrt(2), "scaled scores"),
        (lessons.softmax(SA), "forgot the scaling"),
        (lessons.softmax(SA / np.sqrt(2), axis=0), "Each column sums to 1"),
        (np.full((3, 3), 0.5), "do not sum to 1"),
    ],
)
def test_check_attention_weights_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_attention_weights(answer, QA, KA))


def test_check_attention_weights_spots_the_transpose():
    Q = np.array([[2.0, 0.0], [0.0, 1.0]])  # [n_q, d_k]
    K = np.array([[1.0, 0.0], [1.0, 1.0]])  # [n_k, d_k]
    weights = lessons.attention(Q, K, K)[1]  # [n_q, n_k]
    assert "transpose" in repr(lessons.check_attention_weights(weights.T, Q, K))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (np.tril(np.ones((4, 4), dtype=bool)), "Correct"),
        (torch.from_numpy(np.tril(np.ones((4, 4), dtype=bool))), "Correct"),
        (np.triu(np.ones((4, 4), dtype=bool), k=1), "nn.MultiheadAttention's convention"),
        (np.triu(np.ones((4, 4), dtype=bool)), "transpose"),
        (np.tril(np.ones((4, 4), dtype=bool), k=-1), "diagonal is missing"),
        (np.tril(np.ones((4, 4))), "make it boolean"),
        (lessons.additive_mask(lessons.causal_mask(4)), "additive mask"),
        (np.ones((3, 3), dtype=bool), "shape [4, 4]"),
        (np.ones((4, 4), dtype=bool), "np.tril of ones"),
    ],
)
def test_check_causal_mask_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_causal_mask(answer, 4))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lessons.padding_mask([2, 3], 4), "Correct"),
        (lessons.padding_mask([2, 3], 4)[:, 0], "add the query axis"),
        (~lessons.padding_mask([2, 3], 4), "key_padding_mask's convention"),
        (lessons.padding_mask([1, 3], 4), "j < lengths[b]"),
        (lessons.padding_mask([2, 3], 4).astype(int), "boolean"),
        (np.ones((2, 4, 4), dtype=bool), "shape [B, 1, n]"),
    ],
)
def test_check_padding_mask_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_padding_mask(answer, [2, 3], 4))


@pytest.mark.parametrize(
    ("check", "args"),
    [
        (lessons.check_projection, (X3, W3)),
        (lessons.check_attention, (QA, KA, VA)),
        (lessons.check_attention_weights, (QA, KA)),
        (lessons.check_causal_mask, (4,)),
        (lessons.check_padding_mask, ([2, 3], 4)),
    ],
)
def test_the_chapter_3_to_6_checks_say_when_there_is_no_answer_yet(check, args):
    verdict = check(..., *args)
    assert not verdict and not verdict.answered


XH = torch.arange(2 * 3 * 8, dtype=torch.float64).reshape(2, 3, 8)  # [B, n, d_model]


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


def _pe_variant(kind):
    pe = lessons.sinusoidal_encoding(6, 8)  # [n, d_model]
    if kind == "swapped":
        out = pe.copy()
        out[:, 0::2], out[:, 1::2] = pe[:, 1::2], pe[:, 0::2]
        return out
    if kind == "halves":
        return np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)
    if kind == "exponent":
        i = np.arange(4)[None, :]
        angles = np.arange(6)[:, None] / 10000 ** (i / 8)
        out = np.empty_like(pe)
        out[:, 0::2], out[:, 1::2] = np.sin(angles), np.cos(angles)
        return out
    return pe


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("right", "Correct"),
        ("swapped", "swapped"),
        ("halves", "interleaves"),
        ("exponent", "2i / d_model"),
    ],
)
def test_check_sinusoidal_encoding_names_the_mistake(kind, expected):
    assert expected in repr(lessons.check_sinusoidal_encoding(_pe_variant(kind), 6, 8))


@pytest.mark.parametrize("norm_first", [False, True])
def test_check_block_output_tells_pre_norm_from_post_norm_and_names_each_mistake(norm_first):
    torch.manual_seed(0)
    block = lessons.TransformerBlock(8, 2, 16, norm_first=norm_first).double()
    other = lessons.TransformerBlock(8, 2, 16, norm_first=not norm_first).double()
    other.load_state_dict(block.state_dict())
    x = torch.randn(1, 4, 8, dtype=torch.float64)  # [B, n, d_model]
    with torch.no_grad():
        assert lessons.check_block_output(block(x), block, x)
        assert "arrangement" in repr(lessons.check_block_output(other(x), block, x))
        attend = block.attention(x)[0]  # [B, n, d_model]
        no_residual = block.norm2(block.feed_forward(block.norm1(attend)))  # [B, n, d_model]
        answers = {
            "pre_norm" if not norm_first else "post_norm": other(x),
            "not_a_number": "x",
            "other": torch.zeros(1, 4, 8),
        }
        if not norm_first:  # the missing residuals are diagnosed in the post-norm layout
            answers["no_residual"] = no_residual
    for mistake, answer in answers.items():
        assert lessons.check_block_output(answer, block, x).mistake == mistake
    assert not lessons.check_block_output(..., block, x).answered
