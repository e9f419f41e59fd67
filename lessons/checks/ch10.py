"""Self-checks of chapter 10 (Complexity and efficiency): work, memory of the weights, online softmax."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._validate import human_bytes
from ..softmax import softmax
from .function_inputs import online_runs
from .verdict import (
    Verdict,
    as_float_array,
    as_whole_number,
    catalogued,
    generic,
    is_missing,
    named_mistake,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_block_quadratic_share", "check_online_update", "check_weight_bytes"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
#: (``weight_bytes_mistakes`` spells the names with hyphens, as chapter 10's in-page
#: question shows them; a verdict reports them in snake_case.)
MISTAKES: dict[str, dict[str, str]] = {
    "check_block_quadratic_share": {
        "attention_layer_only": "counted the attention layer alone, leaving out the "
        "feed-forward network",
        "d_ff_taken_as_4_d_model": "assumed the usual d_ff = 4 d_model instead of this block's "
        "d_ff",
        "one_feed_forward_product": "counted only one of the feed-forward network's two products",
        "scores_without_weighted_sum": "counted the scores Q K^T but not the weighted sum A V "
        "in the n² work",
        "linear_share": "gave the share of the work that grows like n instead of n²",
        "ratio_not_share": "divided the n² work by the rest instead of by the total",
        **generic("not_a_number", "other"),
    },
    "check_online_update": {
        "not_a_function": "passed a result instead of the update function itself",
        "raises": "wrote an update that raises an error",
        "overflows": "did not subtract the running maximum, so exp overflows into NaN or inf",
        **generic("other"),
    },
    "check_weight_bytes": {
        "no_batch": "left out the batch size B",
        "no_heads": "left out the number of heads h",
        "numbers_not_bytes": "counted numbers instead of bytes",
        "n_not_n_squared": "counted n entries per head instead of n × n",
        "kv_heads_counted": "counted fewer heads than h (a grouped-query model's key-value "
        "heads), not one table of weights per query head",
        **generic("not_a_whole_number", "other"),
    },
}


def weight_bytes_mistakes(
    B: int, h: int, n: int, bytes_per_number: int
) -> dict[str, tuple[int, str]]:
    """The named mistakes of the bytes of ``A [B, h, n, n]`` (chapter 10).

    ``{name: (the count a wrong method gives, the explanation)}``, shared by
    ``check_weight_bytes`` and the in-page questions.
    """
    return {
        "no-batch": (
            h * n * n * bytes_per_number,
            "You left out the batch: every sequence has its own A.",
        ),
        "no-heads": (
            B * n * n * bytes_per_number,
            "You left out the heads: every head has its own A.",
        ),
        "numbers-not-bytes": (
            B * h * n * n,
            "You counted numbers, not bytes: multiply by the bytes per number.",
        ),
        "n-not-n-squared": (B * h * n * bytes_per_number, "A has n × n entries per head, not n."),
    }


@catalogued(MISTAKES)
def check_weight_bytes(answer: Any, B: int, h: int, n: int, bytes_per_number: int) -> Verdict:
    """Check the bytes of the weights ``A [B, h, n, n]`` stored in full.

    The count that chapter 10 teaches in "Counting the memory"; its in-page question
    shares the mistakes (``weight_bytes_mistakes``), and Exercise 10.4 (a grouped-query
    model's weights at n = 8192) calls it, which adds "kv_heads_counted" (``heads_counted``):
    fewer heads than ``h``, a divisor of it, as a model's key-value heads are.
    """
    if is_missing(answer):
        return unanswered("a number of bytes")
    value = as_whole_number(answer)
    if value is None:
        return wrong(
            f"The answer should be a whole number of bytes; got {answer!r}.", "not_a_whole_number"
        )
    expected = B * h * n * n * bytes_per_number
    if value == expected:
        return right(f"B·h·n²·bytes = {expected} bytes, {human_bytes(expected)}.")
    mistake = named_mistake(
        np.asarray(float(value)),
        weight_bytes_mistakes(B, h, n, bytes_per_number),
    )
    if mistake is not None:
        return mistake
    heads = heads_counted(value, B, h, n, bytes_per_number)
    if heads is not None:
        return wrong(
            f"That counts {heads} heads' tables, not h = {h}: every query head scores every "
            f"key, so A holds one n × n table per query head. Heads that share K and V "
            f"(grouped-query attention) share only what the KV cache keeps.",
            "kv_heads_counted",
        )
    return wrong("Multiply B, h, n × n and the bytes per number.", "other")


def heads_counted(value: int, B: int, h: int, n: int, bytes_per_number: int) -> int | None:
    """The head count ``h'`` with ``value = B·h'·n²·bytes``, for a whole ``1 < h' < h`` dividing ``h``.

    Chapter 10's Exercise 10.4: a grouped-query model's key-value heads counted in place of
    its ``h`` query heads (``h' = 1``, a single head, is the mistake "no_heads"). ``None``
    when no such ``h'`` gives ``value``.
    """
    per_head = B * n * n * bytes_per_number
    if per_head == 0 or value % per_head:
        return None
    heads = value // per_head
    return heads if 1 < heads < h and h % heads == 0 else None


#: How close a share must be to count: "three decimals or better" (the mistakes lie further apart).
SHARE_TOLERANCE = 5e-4


def block_flops(n: int, d_model: int, d_ff: int) -> dict[str, int]:
    """FLOPs of one block's matrix products, ``2abc`` per ``[a, b] @ [b, c]`` (chapter 10).

    ``{"projections": 8 n d², "quadratic": 4 n² d, "feed_forward": 4 n d d_ff}``: the
    four projections of attention, its scores and weighted sum (all heads together), and
    the feed-forward network's two products.
    """
    return {
        "projections": 8 * n * d_model**2,
        "quadratic": 4 * n**2 * d_model,
        "feed_forward": 2 * 2 * n * d_model * d_ff,
    }


def block_share_mistakes(n: int, d_model: int, d_ff: int) -> dict[str, tuple[float, str]]:
    """The named mistakes of the share of a block's FLOPs that grows like ``n²`` (chapter 10).

    ``{name: (the share a wrong count gives, the explanation)}``.
    """
    flops = block_flops(n, d_model, d_ff)
    linear, quadratic = flops["projections"] + flops["feed_forward"], flops["quadratic"]
    return {
        "attention_layer_only": (
            quadratic / (flops["projections"] + quadratic),
            "That is the share in the attention layer alone: the feed-forward network's "
            "two products belong to the block too.",
        ),
        "d_ff_taken_as_4_d_model": (
            quadratic / (8 * n * d_model**2 + 16 * n * d_model**2 + quadratic),
            f"You used the usual d_ff = 4 d_model; this block's d_ff is {d_ff}.",
        ),
        "one_feed_forward_product": (
            quadratic / (flops["projections"] + flops["feed_forward"] / 2 + quadratic),
            "The feed-forward network has two products, [n, d_model] @ [d_model, d_ff] "
            "and [n, d_ff] @ [d_ff, d_model]: count both.",
        ),
        "scores_without_weighted_sum": (
            (quadratic / 2) / (linear + quadratic / 2),
            "Q K^T is one n² product; A V, the weighted sum, is the other: 4 n² d_model in all.",
        ),
        "linear_share": (
            linear / (linear + quadratic),
            "That is the share of the work that grows like n, the rest of the block.",
        ),
        "ratio_not_share": (
            quadratic / linear,
            "That is the n² work divided by the rest; a share divides by the total.",
        ),
    }


@catalogued(MISTAKES)
def check_block_quadratic_share(answer: Any, n: int, d_model: int, d_ff: int) -> Verdict:
    """Check the share of one block's FLOPs in the scores and weighted sum (chapter 10)."""
    if is_missing(answer):
        return unanswered("a number between 0 and 1")
    got = as_float_array(answer)
    if got is None or got.size != 1 or not np.isfinite(got).all():
        return wrong(
            f"The answer should be one number between 0 and 1; got {answer!r}.", "not_a_number"
        )
    value = float(got.reshape(()))
    flops = block_flops(n, d_model, d_ff)
    expected = flops["quadratic"] / sum(flops.values())
    if abs(value - expected) <= SHARE_TOLERANCE:
        return right(
            f"4 n² d_model out of 8 n d_model² + 4 n d_model d_ff + 4 n² d_model: "
            f"{expected:.4f}, that is n / (n + 2 d_model + d_ff)."
        )
    for name, (share, message) in block_share_mistakes(n, d_model, d_ff).items():
        if abs(value - share) <= SHARE_TOLERANCE:
            return wrong(message, name)
    return wrong(
        "Count the three parts, 8 n d_model² (projections), 4 n² d_model (scores and "
        "weighted sum) and the feed-forward network's two products, then divide.",
        "other",
    )


@catalogued(MISTAKES)
def check_online_update(update: Callable[..., Any]) -> Verdict:
    """Check an online-softmax step ``update(z_max, ell, acc, scores, values)`` (chapter 10).

    The check feeds the scores of one query ``[n_k]`` and the values ``[n_k, d_v]``
    in blocks (``online_runs``: uneven sizes, scores near -1000 then +1000, a maximum
    that jumps up by hundreds and another block far below it, one score per block),
    starting from ``z_max = -inf, ell = 0, acc = 0``, and compares ``acc / ell`` with
    ``softmax(scores) @ values`` on each run.
    """
    if is_missing(update):
        return unanswered("your function")
    if not callable(update):
        return wrong(
            f"Pass the function itself (update, not update(...)); got {update!r}.", "not_a_function"
        )
    for label, scores, values, cuts in online_runs():
        z_max, ell, acc = -np.inf, 0.0, np.zeros(values.shape[1])  # running max, sum, [d_v]
        try:
            with np.errstate(all="ignore"):
                for block in np.split(np.arange(scores.size), cuts):
                    z_max, ell, acc = update(
                        z_max, ell, acc, scores[block].copy(), values[block].copy()
                    )
                got = as_float_array(acc)
                got = None if got is None else got / float(np.asarray(ell, dtype=float))
        except Exception as error:  # the reader's code failing is part of the verdict
            return wrong(f"Your function raised {type(error).__name__}: {error}", "raises")
        expected = softmax(scores) @ values  # [d_v]
        if got is not None and got.shape == expected.shape and np.allclose(got, expected):
            continue
        if got is not None and not np.isfinite(got).all():
            return wrong(
                f"On {label} you get NaN or inf: exp overflows when a score lies hundreds "
                "above the maximum you subtract. Subtract the running maximum z_max (the "
                "largest score so far, updated at every block) before exp, and rescale the "
                "old ell and acc by exp(z_max - z_max_new).",
                "overflows",
            )
        return wrong(
            f"On {label}, acc / ell is not softmax(scores) @ values. Did you rescale the "
            "old ell and acc by exp(z_max - z_max_new)?",
            "other",
        )
    return right("acc / ell equals softmax(scores) @ values: the update is exact.")
