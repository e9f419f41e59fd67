"""lessons.induction (chapter 9): the hand-built two-layer induction circuit."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons import plot_induction
from lessons.induction import (
    induction_circuit,
    repeat_accuracy,
    repeated_sequences,
    run_induction,
)

# (vocab_size, half_length) with room for distinct tokens in the first half
sizes = st.integers(2, 16).flatmap(lambda V: st.tuples(st.just(V), st.integers(2, V)))
seeds = st.integers(0, 2**31 - 1)


def _run(V, L, seed, num_sequences=40, prev_head=True):
    tokens = repeated_sequences(num_sequences, L, V, seed=seed)  # [N, 2L + 1]
    circuit = induction_circuit(V, 2 * L + 1)
    return tokens, circuit, run_induction(tokens, circuit, prev_head=prev_head)


@given(sizes, st.integers(1, 30), seeds)
def test_sequences_repeat_a_first_half_of_distinct_tokens_after_bos(size, N, seed):
    V, L = size
    tokens = repeated_sequences(N, L, V, seed=seed)
    assert tokens.shape == (N, 2 * L + 1) and tokens.dtype == torch.long
    assert (tokens[:, 0] == V).all()
    first, second = tokens[:, 1 : L + 1], tokens[:, L + 1 :]
    assert torch.equal(first, second)
    assert ((first >= 0) & (first < V)).all()
    assert all(len(set(row.tolist())) == L for row in first)


@given(sizes, seeds)
@settings(max_examples=40)
def test_the_circuit_predicts_at_least_95_percent_of_the_repeat_for_any_seed(size, seed):
    V, L = size
    tokens, _, run = _run(V, L, seed)
    assert repeat_accuracy(run.logits, tokens) >= 0.95


@given(sizes, seeds)
@settings(max_examples=40)
def test_the_previous_token_head_attends_to_the_position_before(size, seed):
    V, L = size
    _, _, run = _run(V, L, seed, num_sequences=5)
    prev = run.A1.diagonal(offset=-1, dim1=-2, dim2=-1)  # [N, n - 1]: query i, key i - 1
    assert (prev > 0.99).all()


@given(sizes, seeds)
@settings(max_examples=40)
def test_the_induction_head_attends_right_after_the_previous_occurrence(size, seed):
    V, L = size
    tokens, _, run = _run(V, L, seed, num_sequences=5)
    queries = torch.arange(L + 1, 2 * L + 1)  # the second half
    keys = queries - L + 1  # after the same token in the first half
    assert (run.A2[:, queries, keys] > 0.99).all()
    # no earlier occurrence (the first half): the head rests on <s>
    assert (run.A2[:, 1 : L + 1, 0] > 0.99).all()


@given(sizes, seeds)
@settings(max_examples=30)
def test_removing_the_previous_token_head_leaves_no_prediction_at_all(size, seed):
    V, L = size
    _, _, run = _run(V, L, seed, num_sequences=10, prev_head=False)
    assert (run.logits == 0).all()  # argmax is then a fixed guess, token 0
    assert (run.A2[:, 1:, 0] > 0.99).all()  # every real query rests on <s>


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_removing_the_previous_token_head_drops_accuracy_to_chance(seed):
    V, L = 10, 6
    tokens, _, intact = _run(V, L, seed, num_sequences=2000)
    _, _, removed = _run(V, L, seed, num_sequences=2000, prev_head=False)
    assert repeat_accuracy(intact.logits, tokens) == 1.0
    assert abs(repeat_accuracy(removed.logits, tokens) - 1 / V) < 0.02


@given(sizes, seeds)
@settings(max_examples=25)
def test_each_layer_equals_pytorchs_scaled_dot_product_attention(size, seed):
    V, L = size
    _, c, run = _run(V, L, seed, num_sequences=4)
    for x_in, x_out, W_Q, W_K, W_V in (
        (run.x0, run.x1, c.W_Q1, c.W_K1, c.W_V1),
        (run.x1, run.x2, c.W_Q2, c.W_K2, c.W_V2),
    ):
        head = F.scaled_dot_product_attention(
            x_in @ W_Q, x_in @ W_K, x_in @ W_V, is_causal=True
        )  # [N, n, d]
        torch.testing.assert_close(x_in + head, x_out)


@given(seeds)
@settings(max_examples=20)
def test_one_layer_scores_a_key_without_knowing_the_token_before_it(seed):
    # Any one layer on the embeddings, whatever its weights: the score of query i
    # and key j reads rows i and j only. Change the tokens before keys 2 and 5 and
    # their scores stay the same, though the token to copy has changed.
    c = induction_circuit(4, 7)
    gen = torch.Generator().manual_seed(seed)
    W_Q = torch.randn(c.d_model, 5, generator=gen, dtype=torch.float64)  # [d, d_k]
    W_K = torch.randn(c.d_model, 5, generator=gen, dtype=torch.float64)  # [d, d_k]
    scores = []
    for tokens in ([[4, 0, 1, 2, 0, 1, 2]], [[4, 3, 1, 2, 3, 1, 2]]):
        x0 = run_induction(torch.tensor(tokens), c).x0  # [1, n, d]
        scores.append((x0 @ W_Q) @ (x0 @ W_K).transpose(-2, -1))  # [1, n, n]
    same_rows = [0, 2, 3, 5, 6]  # queries whose own token did not change
    torch.testing.assert_close(
        scores[0][0, same_rows][:, [2, 5]], scores[1][0, same_rows][:, [2, 5]]
    )


def test_the_read_out_needs_half_a_token():
    tokens = repeated_sequences(3, 4, 6, seed=5)
    _, _, run = _run(6, 4, 5, num_sequences=3)
    copied = run.x2[..., induction_circuit(6, 9).block("output")]  # [N, n, V]
    torch.testing.assert_close(run.logits, torch.relu(copied - 0.5))
    assert run.logits.shape == (3, 9, 6) and tokens.shape == (3, 9)


def test_bad_sizes_and_tokens_are_named():
    with pytest.raises(ValueError, match="half_length"):
        repeated_sequences(2, 5, 4)
    with pytest.raises(ValueError, match="vocab_size"):
        induction_circuit(0, 5)
    with pytest.raises(ValueError, match="strength"):
        induction_circuit(3, 5, strength=-1.0)
    c = induction_circuit(3, 5)
    with pytest.raises(ValueError, match="tokens"):
        run_induction(torch.tensor([[3, 0, 1, 5]]), c)
    with pytest.raises(ValueError, match="tokens"):
        run_induction(torch.zeros(1, 6, dtype=torch.long), c)
    with pytest.raises(ValueError, match="logits"):
        repeat_accuracy(torch.zeros(1, 4, 3), torch.tensor([[3, 0, 1, 0, 1]]))


def test_the_figure_has_two_labelled_panels():
    tokens, _, run = _run(5, 3, 0, num_sequences=2)
    fig = plot_induction(tokens, run, index=1)
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == [
        "layer 1: previous-token head",
        "layer 2: induction head",
    ]
    assert axes[0].get_xticklabels()[0].get_text() == "<s>"
    assert all(ax.get_xlabel() and ax.get_ylabel() for ax in axes)
    plt.close(fig)
