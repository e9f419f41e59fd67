"""lessons.project, qkv and split_qkv (chapter 3), and the facts chapter 3 teaches."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons import project, qkv, split_qkv

sizes = st.tuples(
    st.integers(1, 6), st.integers(1, 8), st.integers(1, 5), st.integers(0, 2**32 - 1)
)


@st.composite
def embeddings_and_weight(draw):
    """Random X [n, d_model] and W [d_model, d_k]."""
    n, d_model, d_k, seed = draw(sizes)
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d_model)), rng.normal(size=(d_model, d_k))


@given(embeddings_and_weight())
def test_project_equals_nn_linear_with_the_transposed_weight(problem):
    X, W = problem  # [n, d_model], [d_model, d_k]
    d_model, d_k = W.shape
    layer = torch.nn.Linear(d_model, d_k, bias=False, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(W.T))  # nn.Linear stores [out, in]
    expected = layer(torch.from_numpy(X)).detach().numpy()  # [n, d_k]
    np.testing.assert_allclose(project(X, W), expected, atol=1e-12)


@given(sizes)
def test_one_fused_projection_split_in_three_equals_three_projections(size):
    n, d_model, d_k, seed = size
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2, n, d_model))  # [B, n, d_model]
    W_Q, W_K, W_V = (rng.normal(size=(d_model, d_k)) for _ in range(3))  # [d_model, d_k] each
    fused = project(X, np.concatenate([W_Q, W_K, W_V], axis=1))  # [B, n, 3 d_k]
    for part, separate in zip(split_qkv(fused), qkv(X, W_Q, W_K, W_V), strict=True):
        np.testing.assert_allclose(part, separate, atol=1e-12)


@given(embeddings_and_weight())
def test_a_shared_query_key_projection_makes_scores_symmetric(problem):
    X, W = problem  # [n, d_model], [d_model, d_k]
    Q, K, _ = qkv(X, W, W, W)
    S = Q @ K.T  # [n, n]
    np.testing.assert_allclose(S, S.T, atol=1e-12)
    assert (np.diag(S) >= 0).all()  # q_i · q_i = |q_i|^2


def test_separate_query_and_key_projections_break_the_symmetry():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 6))  # [n, d_model]
    Q, K, _ = qkv(X, rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2)))
    S = Q @ K.T  # [n, n]
    assert not np.allclose(S, S.T)


def test_split_qkv_works_on_torch_tensors_and_keeps_the_order():
    QKV = torch.arange(12.0).reshape(2, 6)  # [n, 3 d_k], d_k = 2
    Q, K, V = split_qkv(QKV)
    assert Q.tolist() == [[0, 1], [6, 7]] and K.tolist() == [[2, 3], [8, 9]]
    assert V.tolist() == [[4, 5], [10, 11]]


def test_project_points_out_the_nn_linear_layout():
    with pytest.raises(ValueError, match=r"X has shape \(3, 4\), W has shape \(2, 4\).*use W.T"):
        project(np.zeros((3, 4)), np.zeros((2, 4)))


@pytest.mark.parametrize(
    ("X", "W", "message"),
    [
        (np.zeros(4), np.zeros((4, 2)), r"one embedding per row.* got shape \(4,\)"),
        (np.zeros((3, 4)), np.zeros((4, 2, 1)), r"2-D matrix .* got shape \(4, 2, 1\)"),
        (np.zeros((3, 4)), np.zeros((5, 2)), r"X has shape \(3, 4\), W has shape \(5, 2\)\.$"),
    ],
)
def test_project_rejects_shapes_that_do_not_fit(X, W, message):
    with pytest.raises(ValueError, match=message):
        project(X, W)


def test_qkv_rejects_queries_and_keys_of_different_widths():
    X = np.zeros((3, 4))
    with pytest.raises(ValueError, match="same d_k"):
        qkv(X, np.zeros((4, 2)), np.zeros((4, 3)), np.zeros((4, 2)))


def test_split_qkv_rejects_a_width_not_divisible_by_three():
    with pytest.raises(ValueError, match="7 is not divisible by 3"):
        split_qkv(np.zeros((2, 7)))
