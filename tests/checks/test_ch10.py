"""Chapter 10's self-checks (Complexity and efficiency): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest

import lessons
from lessons.checks import ch10

BLOCK = {"n": 2048, "d_model": 512, "d_ff": 1536}  # exercise 10.1


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


SIZES = {"B": 8, "h": 12, "n": 4096, "bytes_per_number": 2}


RIGHT_BYTES = 8 * 12 * 4096**2 * 2


def good_update(m, ell, acc, scores, values):
    m_new = max(m, scores.max())
    rescale = np.exp(m - m_new)
    p = np.exp(scores - m_new)  # [b]
    return m_new, ell * rescale + p.sum(), acc * rescale + p @ values


def no_rescale(m, ell, acc, scores, values):
    m_new = max(m, scores.max())
    p = np.exp(scores - m_new)  # [b]
    return m_new, ell + p.sum(), acc + p @ values


def no_max(m, ell, acc, scores, values):
    p = np.exp(scores * 50)  # overflows
    return m, ell + p.sum(), acc + p @ values


def raises(m, ell, acc, scores, values):
    raise KeyError("oops")


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


def test_check_weight_bytes_accepts_the_count_and_shows_it_in_gib():
    verdict = lessons.check_weight_bytes(RIGHT_BYTES, **SIZES)
    assert verdict and "3 GiB" in repr(verdict)
    assert lessons.check_weight_bytes(float(RIGHT_BYTES), **SIZES)


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (12 * 4096**2 * 2, "batch"),
        (8 * 4096**2 * 2, "heads"),
        (8 * 12 * 4096**2, "numbers, not bytes"),
        (8 * 12 * 4096 * 2, "n × n"),
        (8 * 4 * 4096**2 * 2, "per query head"),  # 4 KV heads counted for 12 query heads
        (RIGHT_BYTES + 0.5, "whole number"),
        (RIGHT_BYTES + 1, "Multiply B, h"),
    ],
)
def test_check_weight_bytes_names_each_mistake(answer, named):
    verdict = lessons.check_weight_bytes(answer, **SIZES)
    assert not verdict and named in repr(verdict)


@pytest.mark.parametrize(
    ("update", "ok", "named"),
    [
        (good_update, True, "exact"),
        (no_rescale, False, "rescale"),
        (no_max, False, "NaN or inf"),
        (raises, False, "KeyError"),
        (None, False, "No answer yet"),
        (
            good_update(-np.inf, 0.0, np.zeros(3), np.ones(2), np.ones((2, 3))),
            False,
            "function itself",
        ),
    ],
)
def test_check_online_update_runs_the_readers_function_on_blocks(update, ok, named):
    verdict = lessons.check_online_update(update)
    assert bool(verdict) is ok and named in repr(verdict)
