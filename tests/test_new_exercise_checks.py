"""The checks of exercises 3.4, 7.4 and 10.4 reject the plausible wrong answers on their givens.

These three exercises give `check_projection`, `check_mha_parameter_count` and
`check_weight_bytes` their first callers in a chapter. Each test reads the inputs from the
chapter's own exercise cell (`exercise_givens`, as the wrong-answer library does) and holds
the check to them: the right answer in its usual forms is right, every slip a learner makes
there is wrong, named as the catalogue names it where it has a name, and an unanswered
cell is not judged at all.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from exercise_givens import givens

import lessons
import lessons.checks.ch10


def _exercise(notebook: str, check: str) -> tuple[tuple, dict]:
    (call,) = givens(notebook)[check]  # the chapter calls the check in one exercise
    return call


def _judged(check: str, answer, call: tuple[tuple, dict]):
    args, kwargs = call
    return getattr(lessons, check)(answer, *args, **kwargs)


# --- Exercise 3.4: values through a square projection ------------------------------------

PROJECTION = ("03_queries_keys_values.ipynb", "check_projection")


def test_exercise_3_4_hands_the_check_a_square_weight_so_the_slips_run_silently():
    (X, W), _ = _exercise(*PROJECTION)
    assert X.shape == (5, 6) and W.shape == (6, 6)  # [n, d_model], [d_model, d_v]
    assert not np.allclose(W, W.T)  # else X @ W.T would be right too


@pytest.mark.parametrize(
    "form",
    [lambda X, W: X @ W, lambda X, W: (X @ W).tolist(), lambda X, W: torch.from_numpy(X @ W)],
    ids=["array", "nested list", "tensor"],
)
def test_exercise_3_4_takes_the_values_in_any_array_form(form):
    (X, W), kwargs = call = _exercise(*PROJECTION)
    assert _judged("check_projection", form(X, W), call).ok


@pytest.mark.parametrize(
    ("slip", "mistake"),
    [
        (lambda X, W: X @ W.T, "w_transposed"),  # nn.Linear's habit, on a book-layout W
        (lambda X, W: (X @ W).T, "transpose"),  # a row per feature
        (lambda X, W: W.T @ X.T, "transpose"),  # column vectors, y = W^T x
        (lambda X, W: X, "other"),  # the embeddings, not projected
        (lambda X, W: X @ np.eye(6), "other"),  # W_V = I, as section 3's hand-set example
        (lambda X, W: W @ X.T, "wrong_shape"),  # [d_model, n]: the order swapped
        (lambda X, W: (X @ W).sum(), "wrong_shape"),  # one number
    ],
    ids=["X @ W.T", "(X @ W).T", "W.T @ X.T", "X", "X @ I", "W @ X.T", "a sum"],
)
def test_exercise_3_4_names_each_slip(slip, mistake):
    (X, W), _ = call = _exercise(*PROJECTION)
    verdict = _judged("check_projection", slip(X, W), call)
    assert not verdict.ok and verdict.answered
    assert verdict.mistake == mistake, verdict.message


# --- Exercise 7.4: one attention layer of GPT-2 ------------------------------------------

MHA_COUNT = ("07_multi_head_attention.ipynb", "check_mha_parameter_count")
D = 768  # GPT-2 small's d_model, as the exercise says


def test_exercise_7_4_counts_gpt2_smalls_layer_with_its_biases():
    args, kwargs = _exercise(*MHA_COUNT)
    assert (args, kwargs) == ((D,), {})  # bias=True, the default: GPT-2 has them


@pytest.mark.parametrize("answer", [4 * D**2 + 4 * D, float(4 * D**2 + 4 * D), np.int64(2362368)])
def test_exercise_7_4_takes_the_count_as_any_whole_number(answer):
    assert _judged("check_mha_parameter_count", answer, _exercise(*MHA_COUNT)).ok


@pytest.mark.parametrize(
    ("answer", "mistake"),
    [
        (4 * D**2, "no_biases"),  # the four weights alone
        (D * 3 * D + D * D, "no_biases"),  # c_attn's and c_proj's weights, read from the shapes
        (D * 3 * D + 3 * D, "no_output_projection"),  # c_attn alone
        (12 * (4 * D**2 + 4 * D), "other"),  # a full-width layer for each of the 12 heads
        (4 * 64**2 + 4 * 64, "other"),  # one head of d_k = 64, as if it were a layer
        (4 * D**2 + D, "other"),  # one bias vector for the whole layer
        (2362368.5, "not_a_whole_number"),
    ],
    ids=["4 d^2", "weights from the shapes", "c_attn only", "12 layers", "one head", "one bias", "half"],
)  # fmt: skip
def test_exercise_7_4_names_each_slip(answer, mistake):
    verdict = _judged("check_mha_parameter_count", answer, _exercise(*MHA_COUNT))
    assert not verdict.ok and verdict.answered
    assert verdict.mistake == mistake, verdict.message


# --- Exercise 10.4: the weights a fused kernel never stores ------------------------------

WEIGHT_BYTES = ("10_complexity_and_efficiency.ipynb", "check_weight_bytes")
B, H, H_KV, N, BYTES, D_K = 3, 32, 8, 8192, 2, 128  # the exercise's model, as its text says


def test_exercise_10_4_hands_the_check_the_query_heads():
    args, kwargs = _exercise(*WEIGHT_BYTES)
    assert (args, kwargs) == ((B, H, N, BYTES), {})


@pytest.mark.parametrize("answer", [B * H * N**2 * BYTES, float(B * H * N**2 * BYTES), 12 * 2**30])
def test_exercise_10_4_takes_the_bytes_as_any_whole_number(answer):
    verdict = _judged("check_weight_bytes", answer, _exercise(*WEIGHT_BYTES))
    assert verdict.ok and "12 GiB" in verdict.message


def test_exercise_10_4s_sizes_keep_every_slip_apart():
    """No two slips give one count there (B = 4 made the KV heads' count the batchless one)."""
    args, kwargs = _exercise(*WEIGHT_BYTES)
    named = lessons.checks.ch10.weight_bytes_mistakes(*args, **kwargs)
    counts = [count for count, _ in named.values()]
    counts += [B * H * N**2 * BYTES, B * H_KV * N**2 * BYTES]  # right; a table per KV head
    assert len(set(counts)) == len(counts), counts


@pytest.mark.parametrize(
    ("answer", "mistake"),
    [
        (B * H_KV * N**2 * BYTES, "kv_heads_counted"),  # a table per KV head, not per query head
        (B * (H // 4) * N**2 * BYTES, "kv_heads_counted"),  # any whole h' < h that divides h
        (B * (H - 1) * N**2 * BYTES, "other"),  # 31 does not divide 32: no grouping gives it
        (H * N**2 * BYTES, "no_batch"),
        (B * N**2 * BYTES, "no_heads"),
        (B * H * N**2, "numbers_not_bytes"),
        (B * H * N * BYTES, "n_not_n_squared"),
        (B * H * N**2 * 4, "other"),  # float32's 4 bytes
        (12, "other"),  # the size in GiB, not in bytes
        (2 * B * H_KV * N * D_K * BYTES, "other"),  # the KV cache, not the weights
    ],
    ids=[
        "KV heads",
        "a quarter of the heads",
        "h - 1 heads",
        "no batch",
        "no heads",
        "numbers",
        "n",
        "float32",
        "GiB",
        "the cache",
    ],
)
def test_exercise_10_4_names_each_slip(answer, mistake):
    verdict = _judged("check_weight_bytes", answer, _exercise(*WEIGHT_BYTES))
    assert not verdict.ok and verdict.answered
    assert verdict.mistake == mistake, verdict.message


def test_exercise_10_4_names_the_kv_heads_slip_by_the_query_heads():
    """The exercise's main trap: 8 KV heads counted where A has a table per query head (32)."""
    verdict = _judged("check_weight_bytes", B * H_KV * N**2 * BYTES, _exercise(*WEIGHT_BYTES))
    assert verdict.mistake == "kv_heads_counted"
    assert f"{H_KV} heads" in verdict.message and f"h = {H}" in verdict.message


@pytest.mark.parametrize("h", [1, 2, 7, 8, 12, 32])
def test_the_right_count_stays_right_for_any_head_count(h):
    """No head count makes the right answer look like fewer heads than h."""
    assert lessons.check_weight_bytes(B * h * N**2 * BYTES, B, h, N, BYTES).ok


@pytest.mark.parametrize(("notebook", "check"), [PROJECTION, MHA_COUNT, WEIGHT_BYTES])
def test_an_unanswered_exercise_is_not_judged(notebook, check):
    verdict = _judged(check, ..., _exercise(notebook, check))
    assert not verdict.ok and not verdict.answered
