"""lessons.training (chapter 11): the one-layer model, the training loop, a hand-built solution."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons.tasks import position_task, reversal_task
from lessons.training import AttentionModel, accuracy, hand_built_position_model, train


def _position_data(n_samples=600, seed=0, **kwargs):
    return position_task(n_samples, seed=seed, **kwargs)


@given(
    st.integers(1, 4),  # B
    st.integers(1, 7),  # n
    st.sampled_from([(4, 1), (8, 2), (12, 3)]),  # (d_model, h)
    st.sampled_from(["cls", "tokens"]),
    st.integers(0, 2**31 - 1),
)
@settings(max_examples=25)
def test_model_gives_logits_and_weights_of_the_documented_shapes(B, n, dims, readout, seed):
    d_model, h = dims
    model = AttentionModel(10, 7, 3, d_model=d_model, num_heads=h, readout=readout, seed=seed)
    tokens = torch.randint(10, (B, n), generator=torch.Generator().manual_seed(seed))
    logits, weights = model(tokens)
    assert logits.shape == ((B, 3) if readout == "cls" else (B, n, 3))
    assert weights.shape == (B, h, n, n)
    assert logits.dtype == weights.dtype == torch.float64
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, h, n, dtype=torch.float64))


def test_a_blocked_key_gets_exactly_zero_weight_for_every_query_and_head():
    model = AttentionModel(10, 6, 2, d_model=8, num_heads=2, seed=1)
    tokens = torch.randint(10, (3, 6), generator=torch.Generator().manual_seed(0))
    keep = torch.arange(6) != 2  # [n_k]
    _, weights = model(tokens, mask=keep)
    assert (weights[..., 2] == 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 2, 6, dtype=torch.float64))
    per_head = torch.ones(2, 1, 6, dtype=torch.bool)  # [h, 1, n_k]
    per_head[1, 0, 4] = False  # block key 4 in head 1 only
    _, weights = model(tokens, mask=per_head)
    assert (weights[:, 1, :, 4] == 0).all() and (weights[:, 0, :, 4] > 0).all()


def test_the_seed_fixes_the_initial_weights_without_touching_the_global_generator():
    torch.manual_seed(123)
    expected_next = torch.rand(1)
    torch.manual_seed(123)
    a = AttentionModel(65, 9, 2, d_model=16, seed=4)
    assert torch.equal(torch.rand(1), expected_next)
    b = AttentionModel(65, 9, 2, d_model=16, seed=4)
    c = AttentionModel(65, 9, 2, d_model=16, seed=5)
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)
    assert not torch.equal(a.positions, c.positions)


@given(
    st.integers(1, 10),
    st.integers(2, 40),
    st.integers(1, 3),
    st.integers(0, 2**32 - 1),
)
@settings(max_examples=20)
def test_a_hand_built_attention_layer_solves_the_position_task(n_tokens, vocab, k, seed):
    k = min(k, n_tokens)
    targets = torch.randperm(n_tokens, generator=torch.Generator().manual_seed(seed))[:k] + 1
    targets = tuple(targets.tolist())
    value = seed % vocab
    tokens, labels = position_task(
        30 * (k + 1),
        n_tokens=n_tokens,
        vocab_size=vocab,
        target_positions=targets,
        target_value=value,
        seed=seed,
    )
    model = hand_built_position_model(n_tokens, vocab, targets, value)
    assert accuracy(model, tokens, labels) == 1.0
    _, weights = model(tokens)
    on_targets = weights[:, 0, 0, list(targets)]  # [B, k]
    torch.testing.assert_close(on_targets, torch.full_like(on_targets, 1 / k), atol=1e-6, rtol=0)


def test_blocking_the_target_of_the_hand_built_model_gives_chance():
    tokens, labels = _position_data(2000)
    model = hand_built_position_model()
    keep = torch.arange(9) != 4
    assert accuracy(model, tokens, labels) == 1.0
    assert abs(accuracy(model, tokens, labels, mask=keep) - 0.5) < 0.05
    only = torch.arange(9) == 4
    assert accuracy(model, tokens, labels, mask=only) == 1.0


def test_training_lowers_the_loss_and_solves_the_position_task():
    tokens, labels = _position_data(2000, seed=1)
    test_tokens, test_labels = _position_data(600, seed=2)
    model = AttentionModel(65, 9, 2, d_model=16, seed=0)
    before = accuracy(model, test_tokens, test_labels)
    losses = train(model, tokens, labels, steps=60, lr=0.02, batch_size=64, seed=0)
    assert len(losses) == 60 and all(isinstance(x, float) for x in losses)
    assert sum(losses[-5:]) / 5 < sum(losses[:5]) / 5 / 100
    assert before < 0.7 and accuracy(model, test_tokens, test_labels) >= 0.98
    keep = torch.arange(9) != 4
    assert abs(accuracy(model, test_tokens, test_labels, mask=keep) - 0.5) < 0.1


def test_training_learns_reversal_with_an_anti_diagonal():
    inputs, targets = reversal_task(2000, seed=4)
    test_inputs, test_targets = reversal_task(500, seed=5)
    model = AttentionModel(16, 8, 16, d_model=16, readout="tokens", seed=0)
    losses = train(model, inputs, targets, steps=60, lr=0.05, batch_size=64, seed=0)
    assert losses[-1] < losses[0] / 100
    assert accuracy(model, test_inputs, test_targets) >= 0.98
    with torch.no_grad():
        _, weights = model(test_inputs)
    anti = weights[:, 0].mean(0).flip(1).diagonal()  # [n]
    assert anti.min() > 0.9


def test_the_same_seeds_give_the_same_run_and_other_seeds_another():
    tokens, labels = _position_data(600)
    runs = []
    for model_seed, batch_seed in [(0, 0), (0, 0), (0, 1)]:
        model = AttentionModel(65, 9, 2, d_model=8, seed=model_seed)
        losses = train(model, tokens, labels, steps=10, batch_size=32, seed=batch_seed)
        runs.append((losses, [p.detach().clone() for p in model.parameters()]))
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1], runs[1][1], strict=True):
        assert torch.equal(a, b)
    assert runs[0][0] != runs[2][0]


def test_the_update_is_adam_as_in_torch_optim():
    tokens, labels = _position_data(300)
    ours = AttentionModel(65, 9, 2, d_model=8, seed=2)
    theirs = AttentionModel(65, 9, 2, d_model=8, seed=2)
    losses = train(ours, tokens, labels, steps=8, lr=0.03)  # full batch
    optimizer = torch.optim.Adam(theirs.parameters(), lr=0.03)
    expected = []
    for _ in range(8):
        loss = torch.nn.functional.cross_entropy(theirs(tokens)[0], labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        expected.append(loss.item())
    assert losses == pytest.approx(expected, rel=1e-10, abs=1e-12)
    for a, b in zip(ours.parameters(), theirs.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)


def test_callback_sees_every_step_in_eval_mode_and_threads_are_restored():
    tokens, labels = _position_data(90)
    model = AttentionModel(65, 9, 2, d_model=8, seed=0)
    seen = []
    threads = torch.get_num_threads()
    train(
        model,
        tokens,
        labels,
        steps=4,
        batch_size=16,
        callback=lambda step, m: seen.append((step, m.training, torch.get_num_threads())),
    )
    assert [s for s, _, _ in seen] == [1, 2, 3, 4]
    assert not any(training for _, training, _ in seen)
    assert torch.get_num_threads() == threads and not model.training


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(steps=0), "steps"),
        (dict(lr=0.0), "lr"),
        (dict(batch_size=0), "batch_size"),
        (dict(seed=-1), "seed"),
    ],
)
def test_train_rejects_bad_settings(kwargs, message):
    tokens, labels = _position_data(30)
    model = AttentionModel(65, 9, 2, d_model=8)
    with pytest.raises(ValueError, match=message):
        train(model, tokens, labels, **kwargs)


def test_bad_shapes_and_arguments_raise_value_errors_naming_them():
    tokens, labels = _position_data(30)
    model = AttentionModel(65, 9, 2, d_model=8)
    with pytest.raises(ValueError, match="same N"):
        train(model, tokens, labels[:10])
    with pytest.raises(ValueError, match="n_positions=9"):
        model(torch.zeros(2, 10, dtype=torch.long))
    with pytest.raises(ValueError, match="readout"):
        AttentionModel(65, 9, 2, readout="mean")
    with pytest.raises(ValueError, match="d_model"):
        AttentionModel(65, 9, 2, d_model=0)
    with pytest.raises(ValueError, match="num_heads"):
        AttentionModel(65, 9, 2, d_model=6, num_heads=4)
    with pytest.raises(ValueError, match="sharpness"):
        hand_built_position_model(sharpness=0)
    with pytest.raises(ValueError, match="between 1 and n_tokens"):
        hand_built_position_model(target_positions=(0,))
