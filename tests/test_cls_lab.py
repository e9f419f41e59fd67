"""Chapter 11's lab in Python: the exported model predicts exactly what the model does.

The model is the one chapter 11 studies closely, rebuilt from the notebook's seeds
(`book/11_seeing_attention_learn.ipynb`: the six-seed sweep picks seed 5, whose
`[CLS]` row puts the least weight on the target), and the hand-built one.
"""

from __future__ import annotations

import base64
import itertools
import re

import numpy as np
import pytest
import torch

import lessons
from lessons.book.widgets.lab_export import MARGIN, blocked_keep, cls_logits, rounded_model
from lessons.tasks import position_task
from lessons.training import AttentionModel, accuracy, hand_built_position_model, train

CHOSEN_SEED = 5  # chapter 11's `chosen_seed`


def chapter_11_model() -> tuple[AttentionModel, torch.Tensor, torch.Tensor]:
    """The chapter's chosen model and its held-out set, from the notebook's seeds."""
    train_x, train_y = position_task(2000, seed=1)  # [2000, 9], [2000]
    test_x, test_y = position_task(1000, seed=2)  # [1000, 9], [1000]
    model = AttentionModel(65, 9, 2, d_model=16, num_heads=1, seed=CHOSEN_SEED)
    train(model, train_x, train_y, steps=40, lr=0.02, batch_size=64, seed=CHOSEN_SEED)
    return model, test_x, test_y


@pytest.fixture(scope="module")
def trained():
    return chapter_11_model()


@pytest.fixture(scope="module")
def made(trained):
    return lessons.lab(*trained)


def test_the_folded_forward_pass_predicts_what_the_model_predicts(trained):
    model, x, y = trained
    n = x.shape[1]
    blocks = [(), *((p,) for p in range(n)), (0, 4), tuple(range(n))]
    keeps = torch.stack([blocked_keep(n, b) for b in blocks])  # [M, n]
    logits = cls_logits(model, x, keeps)  # [M, N, 2]
    for keep, folded in zip(keeps, logits, strict=True):
        with torch.no_grad():
            direct, _ = model(x, mask=keep)  # [N, 2]
        torch.testing.assert_close(folded, direct, atol=1e-12, rtol=1e-12)


def test_the_rounded_model_predicts_the_same_under_every_set_of_blocked_keys(trained, made):
    model, x, y = trained
    decimals = made.data()["decimals"]
    assert decimals is not None and 2 <= decimals <= 6
    twin, coarser = rounded_model(model, decimals), rounded_model(model, decimals - 1)
    n = x.shape[1]
    for p in [None, *range(n)]:  # the model itself, nothing or one key blocked
        keep = blocked_keep(n, () if p is None else (p,))
        with torch.no_grad():
            want = model(x, mask=keep)[0].argmax(-1)  # [N]
            assert torch.equal(twin(x, mask=keep)[0].argmax(-1), want), p
    subsets = [b for r in range(n + 1) for b in itertools.combinations(range(n), r)]
    keeps = torch.stack([blocked_keep(n, b) for b in subsets])  # [512, n]
    want = cls_logits(model, x, keeps).argmax(-1)  # [512, N]
    assert torch.equal(cls_logits(twin, x, keeps).argmax(-1), want)
    # One decimal fewer is not enough: a prediction flips or two logits nearly tie.
    logits = cls_logits(coarser, x, keeps)  # [512, N, 2]
    gap = (logits[..., 0] - logits[..., 1]).abs()  # [512, N]
    assert not torch.equal(logits.argmax(-1), want) or bool((gap <= MARGIN).any())


def test_the_payload_holds_the_rounded_weights_the_examples_and_lessons_accuracies(trained, made):
    model, x, y = trained
    data = made.data()
    twin = rounded_model(model, data["decimals"])
    np.testing.assert_array_equal(
        np.reshape(data["weights"]["w_in"], (48, 16)),
        twin.attention.in_proj.weight.detach().numpy(),
    )
    np.testing.assert_array_equal(
        np.reshape(data["weights"]["embed"], (65, 16)), twin.embed.weight.detach().numpy()
    )
    tokens = np.frombuffer(base64.b64decode(data["tokens"]), dtype=np.uint8)
    np.testing.assert_array_equal(tokens.reshape(1000, 9), x.numpy())
    labels = np.frombuffer(base64.b64decode(data["labels"]), dtype=np.uint8)
    np.testing.assert_array_equal(labels, y.numpy())
    assert data["reference"]["accuracy"] == accuracy(model, x, y) == 1.0
    blocked = [accuracy(model, x, y, mask=blocked_keep(9, (p,))) for p in range(9)]
    assert data["reference"]["blocked"] == blocked and blocked[4] == 0.5
    weights = sum(len(w) for w in data["weights"].values())
    assert weights == sum(p.numel() for p in model.parameters())


def test_the_static_rows_are_the_mean_cls_row_by_label(trained, made):
    model, x, y = trained
    with torch.no_grad():
        cls = model(x)[1][:, 0, 0]  # [N, n]
    for c in range(2):
        np.testing.assert_allclose(made.cls_rows[c], cls[y == c].mean(0).numpy(), atol=1e-12)
    np.testing.assert_allclose(made.cls_rows.sum(axis=1), 1.0, atol=1e-12)


def test_the_html_is_deterministic_with_one_checkbox_per_position(trained, made):
    page = made._repr_html_()
    assert page == lessons.lab(*trained)._repr_html_()
    assert not re.search(r"\sid=", page)
    assert [int(p) for p in re.findall(r'data-block="(\d+)"', page)] == list(range(9))
    assert re.search(r'data-accuracy="">1\.0000<', page)
    assert (
        repr(made)
        == "Lab(positions=9, examples=1000, accuracy=1.0000, decimals="
        + str(made.data()["decimals"])
        + ")"
    )


def test_the_hand_built_model_exports_too():
    x, y = position_task(200, seed=3)  # [200, 9]
    made = lessons.lab(hand_built_position_model(), x, y)
    assert made.accuracy == 1.0 and made.data()["decimals"] is not None


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda m, x, y: (AttentionModel(65, 9, 2, d_model=16, num_heads=2), x, y), "one head"),
        (
            lambda m, x, y: (AttentionModel(65, 9, 2, d_model=16, readout="tokens"), x, y),
            "readout='cls'",
        ),
        (lambda m, x, y: ("a model", x, y), "model"),
        (lambda m, x, y: (m, x[:, :1].flatten(), y), "tokens"),
        (lambda m, x, y: (m, x, y[:10]), "labels [N]"),
        (lambda m, x, y: (m, x + 100, y), "tokens must be ids"),
        (lambda m, x, y: (m, x, y + 5), "labels must be classes"),
    ],
)
def test_bad_input_raises_a_value_error_naming_it(trained, change, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        lessons.lab(*change(*trained))


def test_names_must_fit(trained):
    with pytest.raises(ValueError, match="positions"):
        lessons.lab(*trained, positions=["a", "b"])
