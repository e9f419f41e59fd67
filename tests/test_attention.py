"""Properties of lessons.attention (chapters 4 to 6), and its equality with PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from lessons import attention, causal_mask, padding_mask


@st.composite
def problems(draw, masked=False):
    """Random Q [B, h, n_q, d_k], K [B, h, n_k, d_k], V [B, h, n_k, d_v] and a keep-mask."""
    B, h = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    n_q, n_k = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    d_k, d_v = draw(st.integers(1, 8)), draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    Q = rng.normal(size=(B, h, n_q, d_k))  # [B, h, n_q, d_k]
    K = rng.normal(size=(B, h, n_k, d_k))  # [B, h, n_k, d_k]
    V = rng.normal(size=(B, h, n_k, d_v))  # [B, h, n_k, d_v]
    mask = None
    if masked:
        mask = rng.random((B, 1, n_q, n_k)) < 0.6  # [B, 1, n_q, n_k], broadcast over heads
        mask[..., rng.integers(n_k)] = True  # every query keeps at least one key
    return Q, K, V, mask


@given(problems(masked=True))
def test_weights_rows_sum_to_one_and_masked_weights_are_exactly_zero(problem):
    Q, K, V, mask = problem
    output, weights = attention(Q, K, V, mask)
    assert weights.shape == Q.shape[:-1] + (K.shape[-2],)
    assert output.shape == Q.shape[:-1] + (V.shape[-1],)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-12)
    assert (weights[np.broadcast_to(~mask, weights.shape)] == 0.0).all()


@given(problems(masked=False))
def test_attention_equals_torch_sdpa_in_float64(problem):
    Q, K, V, _ = problem
    output, weights = attention(*(torch.from_numpy(a) for a in (Q, K, V)))
    expected = F.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (Q, K, V)))
    torch.testing.assert_close(output, expected, rtol=1e-10, atol=1e-12)


@given(problems(masked=True))
def test_masked_attention_equals_torch_sdpa_with_a_boolean_mask(problem):
    Q, K, V, mask = problem
    tensors = [torch.from_numpy(a) for a in (Q, K, V)]
    output, _ = attention(*tensors, mask=torch.from_numpy(mask))
    expected = F.scaled_dot_product_attention(*tensors, attn_mask=torch.from_numpy(mask))
    torch.testing.assert_close(output, expected, rtol=1e-10, atol=1e-12)


@given(problems(masked=True))
def test_numpy_and_torch_inputs_give_the_same_result(problem):
    Q, K, V, mask = problem
    out_np, w_np = attention(Q, K, V, mask)
    out_t, w_t = attention(*(torch.from_numpy(a) for a in (Q, K, V)), mask=mask)
    assert isinstance(out_np, np.ndarray) and isinstance(out_t, torch.Tensor)
    np.testing.assert_allclose(out_t.numpy(), out_np, atol=1e-12)
    np.testing.assert_allclose(w_t.numpy(), w_np, atol=1e-12)


@given(problems(masked=False), st.integers(0, 2**32 - 1))
def test_self_attention_is_permutation_equivariant(problem, seed):
    X = problem[0][0, 0]  # [n, d]: one sequence attending to itself
    perm = np.random.default_rng(seed).permutation(X.shape[0])  # [n]
    out, _ = attention(X, X, X)
    out_permuted, _ = attention(X[perm], X[perm], X[perm])
    np.testing.assert_allclose(out_permuted, out[perm], atol=1e-12)


@given(problems(masked=False))
def test_each_output_row_is_a_convex_combination_of_value_rows(problem):
    Q, K, V, _ = problem
    output, weights = attention(Q, K, V)
    assert (weights >= 0).all()
    assert (output <= V.max(axis=-2, keepdims=True) + 1e-12).all()
    assert (output >= V.min(axis=-2, keepdims=True) - 1e-12).all()


def test_hand_worked_example_of_chapter_5():
    Q = [[1, 0], [0, 1], [1, 1]]
    K = [[1, 1], [1, 0], [0, 1]]
    V = [[2, 0], [0, 2], [1, 1]]
    output, weights = attention(Q, K, V)
    e = math.exp(1 / math.sqrt(2))
    np.testing.assert_allclose(weights[0], [e / (2 * e + 1), e / (2 * e + 1), 1 / (2 * e + 1)])
    np.testing.assert_allclose(output, weights @ np.array(V, dtype=float))
    np.testing.assert_allclose(weights[0], [0.4011, 0.4011, 0.1978], atol=1e-4)


def test_query_with_nothing_to_attend_gets_zero_weights_and_output_not_nan():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    mask = np.ones((3, 5), dtype=bool)  # [n_q, n_k]
    mask[1] = False  # query 1 may attend to nothing
    output, weights = attention(Q, K, V, mask)
    assert np.isfinite(output).all() and np.isfinite(weights).all()
    assert (weights[1] == 0).all() and (output[1] == 0).all()
    np.testing.assert_allclose(weights[[0, 2]].sum(axis=-1), 1.0)


def test_fully_masked_row_leaves_torch_gradients_finite():
    Q = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)  # [n_q, d_k]
    K = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)  # [n_k, d_k]
    V = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)  # [n_k, d_v]
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[0] = False
    output, _ = attention(Q, K, V, mask)
    output.sum().backward()
    for tensor in (Q, K, V):
        assert torch.isfinite(tensor.grad).all()
    assert (Q.grad[0] == 0).all()


def test_causal_mask_blocks_gradient_to_future_tokens():
    n, d = 6, 4
    X = torch.randn(n, d, dtype=torch.float64, requires_grad=True)  # [n, d]
    output, _ = attention(X, X, X, mask=causal_mask(n))
    for t in range(n):
        (grad,) = torch.autograd.grad(output[t].sum(), X, retain_graph=True)  # [n, d]
        assert (grad[t + 1 :] == 0).all(), f"output {t} depends on a later token"
        assert (grad[: t + 1].abs().sum(dim=-1) > 0).all()


def test_padding_mask_broadcasts_over_a_batch_and_hides_padding():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2, 4, 3))  # [B, n, d]
    mask = padding_mask([2, 4], 4)  # [B, 1, n]
    _, weights = attention(X, X, X, mask)  # [B, n, n]
    assert (weights[0, :, 2:] == 0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)


def test_attention_accepts_float32_tensors_and_keeps_their_dtype():
    Q = torch.randn(2, 3)  # [n, d]
    output, weights = attention(Q, Q, Q)
    assert output.dtype == weights.dtype == torch.float32


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((2, 3), (2, 4), (2, 3)), r"same d_k .* Q has shape \(2, 3\) .* K has shape \(2, 4\)"),
        (
            ((2, 3), (2, 3), (3, 3)),
            r"one row per key: K has shape \(2, 3\) \(2 keys\), V has shape \(3, 3\)",
        ),
        (((3,), (2, 3), (2, 3)), r"Q must have at least 2 dimensions .* got shape \(3,\)"),
        (((4, 2, 3), (3, 2, 3), (2, 3)), r"leading .* do not broadcast: Q \[4\], K \[3\]"),
    ],
)
def test_attention_rejects_mismatched_shapes_naming_them(shapes, message):
    Q, K, V = (np.ones(s) for s in shapes)
    with pytest.raises(ValueError, match=message):
        attention(Q, K, V)


def test_attention_rejects_a_non_boolean_mask():
    X = np.ones((2, 3))
    with pytest.raises(ValueError, match="mask must be boolean .* float64"):
        attention(X, X, X, mask=np.zeros((2, 2)))


def test_attention_rejects_a_mask_that_does_not_broadcast():
    X = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"mask of shape \[3, 3\] does not broadcast .* \[2, 2\]"):
        attention(X, X, X, mask=np.ones((3, 3), dtype=bool))


def test_attention_rejects_mixed_numpy_and_torch_inputs():
    X = np.ones((2, 3))
    with pytest.raises(ValueError, match="K is a torch tensor"):
        attention(X, torch.ones(2, 3), X)


def test_attention_rejects_nan_instead_of_returning_it():
    X = np.ones((2, 3))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="K holds NaN"):
        attention(X, bad, X)
    with pytest.raises(ValueError, match="V holds NaN"):
        attention(torch.ones(2, 3), torch.ones(2, 3), torch.from_numpy(bad).float())


def test_attention_rejects_tensors_of_different_dtypes():
    with pytest.raises(ValueError, match="share one floating dtype"):
        attention(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3))


# PyTorch's own behaviour, which changed: before 2.5 SDPA returned NaN for a query with every
# key blocked; from 2.5 on (its private `_safe_softmax`) it returns zeros, as `lessons` does.
# pyproject.toml asks for torch>=2.5; an older torch skips this test and says why.
SDPA_ZEROES_BLOCKED_ROWS = torch.__version__ >= "2.5"


@pytest.mark.skipif(
    not SDPA_ZEROES_BLOCKED_ROWS,
    reason=f"holds for torch>=2.5; torch {torch.__version__}'s SDPA returns NaN for a blocked row",
)
def test_a_query_that_may_attend_to_nothing_matches_sdpa():
    X = torch.randn(1, 3, 4, dtype=torch.float64)  # [B, n, d]
    keep = torch.ones(3, 3, dtype=torch.bool)
    keep[1] = False  # query 1 may attend to nothing
    ours, _ = attention(X, X, X, keep)
    sdpa = F.scaled_dot_product_attention(X, X, X, attn_mask=keep)  # [B, n, d]
    torch.testing.assert_close(ours, sdpa)


def test_a_query_that_may_attend_to_nothing_gets_zeros_not_multihead_attentions_nan():
    X = torch.randn(1, 3, 4, dtype=torch.float64)  # [B, n, d]
    keep = torch.ones(3, 3, dtype=torch.bool)
    keep[1] = False  # query 1 may attend to nothing
    ours, weights = attention(X, X, X, keep)
    assert torch.equal(ours[0, 1], torch.zeros(4, dtype=torch.float64))
    assert torch.equal(weights[0, 1], torch.zeros(3, dtype=torch.float64))
    mha = torch.nn.MultiheadAttention(4, 1, batch_first=True, dtype=torch.float64)
    _, mha_weights = mha(X, X, X, attn_mask=~keep)
    assert torch.isnan(mha_weights[0, 1]).all()
