"""lessons.tasks (chapter 11): synthetic tasks with known answers, seeded and balanced."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons.tasks import cls_token, position_labels, position_task, reversal_task


@st.composite
def position_problems(draw):
    """Arguments for position_task: sizes, 1 to 3 distinct targets, a value, a seed."""
    n_tokens = draw(st.integers(1, 10))
    vocab_size = draw(st.integers(2, 70))
    k = draw(st.integers(1, min(3, n_tokens)))
    targets = draw(st.permutations(range(1, n_tokens + 1)))[:k]
    value = draw(st.integers(0, vocab_size - 1))
    n_samples = (k + 1) * draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    return dict(
        n_samples=n_samples,
        n_tokens=n_tokens,
        vocab_size=vocab_size,
        target_positions=tuple(targets),
        target_value=value,
        seed=seed,
    )


@given(position_problems())
def test_position_task_has_the_documented_shapes_and_cls_at_position_0(args):
    args = dict(args)
    n_samples = args.pop("n_samples")
    tokens, labels = position_task(n_samples, **args)
    assert tokens.shape == (n_samples, args["n_tokens"] + 1)
    assert labels.shape == (n_samples,)
    assert tokens.dtype == labels.dtype == torch.int64
    assert (tokens[:, 0] == cls_token(args["vocab_size"])).all()
    body = tokens[:, 1:]
    assert ((body >= 0) & (body < args["vocab_size"])).all()


@given(position_problems())
def test_labels_follow_the_rule_and_every_class_is_equally_frequent(args):
    args = dict(args)
    n_samples = args.pop("n_samples")
    tokens, labels = position_task(n_samples, **args)
    expected = position_labels(tokens, args["target_positions"], args["target_value"])
    assert torch.equal(labels, expected)
    k = len(args["target_positions"])
    counts = torch.bincount(labels, minlength=k + 1)
    assert counts.tolist() == [n_samples // (k + 1)] * (k + 1)


@given(position_problems())
def test_the_same_seed_gives_the_same_data_and_a_generator_works_too(args):
    args = dict(args)
    n_samples, seed = args.pop("n_samples"), args.pop("seed")
    first = position_task(n_samples, seed=seed, **args)
    again = position_task(n_samples, seed=seed, **args)
    from_generator = position_task(n_samples, seed=torch.Generator().manual_seed(seed), **args)
    for a, b, c in zip(first, again, from_generator, strict=True):
        assert torch.equal(a, b) and torch.equal(a, c)


def test_different_seeds_give_different_data_and_a_generator_advances():
    a, _ = position_task(100, seed=0)
    b, _ = position_task(100, seed=1)
    assert not torch.equal(a, b)
    g = torch.Generator().manual_seed(0)
    c, _ = position_task(100, seed=g)
    d, _ = position_task(100, seed=g)
    assert torch.equal(a, c) and not torch.equal(c, d)


def test_the_target_value_also_appears_where_it_does_not_count():
    tokens, labels = position_task(2000, seed=0)  # defaults: position 4, value 42
    others = [p for p in range(1, 9) if p != 4]
    decoy = (tokens[:, others] == 42).any(dim=1)
    assert decoy[labels == 0].any() and decoy[labels == 1].any()
    # "is there a 42 anywhere?" is a worse rule than the position's own token
    anywhere = (tokens[:, 1:] == 42).any(dim=1).long()
    assert (anywhere == labels).double().mean() < 1.0


def test_default_task_is_position_4_holding_42_with_cls_64():
    tokens, labels = position_task(200, seed=3)
    assert cls_token(64) == 64 and (tokens[:, 0] == 64).all()
    assert torch.equal(labels, (tokens[:, 4] == 42).long())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(n_samples=0), "n_samples"),
        (dict(n_samples=10, n_tokens=0), "n_tokens"),
        (dict(n_samples=10, vocab_size=1), "vocab_size"),
        (dict(n_samples=10, target_positions=(0,)), "between 1 and n_tokens"),
        (dict(n_samples=10, target_positions=(9,)), "between 1 and n_tokens"),
        (dict(n_samples=9, target_positions=(2, 2)), "distinct"),
        (dict(n_samples=10, target_positions=()), "at least one"),
        (dict(n_samples=10, target_value=64), "target_value"),
        (dict(n_samples=11), "multiple"),
        (dict(n_samples=10, seed=-1), "seed"),
        (dict(n_samples=10, seed=1.5), "seed"),
    ],
)
def test_position_task_rejects_bad_arguments_naming_them(kwargs, message):
    n_samples = kwargs.pop("n_samples")
    with pytest.raises(ValueError, match=message):
        position_task(n_samples, **kwargs)


def test_position_labels_rejects_bad_shapes_and_positions():
    tokens, _ = position_task(10, seed=0)
    with pytest.raises(ValueError, match=r"\[B, n\]"):
        position_labels(tokens[0])
    with pytest.raises(ValueError, match="between 1 and n - 1"):
        position_labels(tokens, (9,))
    with pytest.raises(ValueError, match="positive integer"):
        cls_token(0)


@given(st.integers(1, 50), st.integers(1, 12), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_reversal_targets_are_the_inputs_backwards(n_samples, n_tokens, vocab_size, seed):
    inputs, targets = reversal_task(n_samples, n_tokens=n_tokens, vocab_size=vocab_size, seed=seed)
    assert inputs.shape == targets.shape == (n_samples, n_tokens)
    assert inputs.dtype == targets.dtype == torch.int64
    assert ((inputs >= 0) & (inputs < vocab_size)).all()
    for i in range(n_tokens):
        assert torch.equal(targets[:, i], inputs[:, n_tokens - 1 - i])
    again, _ = reversal_task(n_samples, n_tokens=n_tokens, vocab_size=vocab_size, seed=seed)
    assert torch.equal(inputs, again)


@pytest.mark.parametrize(
    "kwargs", [dict(n_tokens=0), dict(vocab_size=0), dict(seed=-2), dict(seed=True)]
)
def test_reversal_task_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        reversal_task(10, **kwargs)
    with pytest.raises(ValueError, match="n_samples"):
        reversal_task(0)
