"""Self-checks of chapter 10 (Complexity and efficiency): memory of the weights, the online softmax."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._validate import human_bytes
from ..softmax import softmax
from .verdict import Verdict, as_whole_number, is_missing, named_mistake, right, unanswered, wrong

__all__ = ["check_online_update", "check_weight_bytes"]


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


def check_weight_bytes(answer: Any, B: int, h: int, n: int, bytes_per_number: int) -> Verdict:
    """Check the bytes of the weights ``A [B, h, n, n]`` stored in full (chapter 10)."""
    if is_missing(answer):
        return unanswered("a number of bytes")
    value = as_whole_number(answer)
    if value is None:
        return wrong(f"The answer should be a whole number of bytes; got {answer!r}.")
    expected = B * h * n * n * bytes_per_number
    if value == expected:
        return right(f"B·h·n²·bytes = {expected} bytes, {human_bytes(expected)}.")
    mistake = named_mistake(
        np.asarray(float(value)),
        list(weight_bytes_mistakes(B, h, n, bytes_per_number).values()),
    )
    return (
        mistake if mistake is not None else wrong("Multiply B, h, n × n and the bytes per number.")
    )


def check_online_update(update: Callable[..., Any]) -> Verdict:
    """Check an online-softmax step ``update(m, ell, acc, scores, values)`` (chapter 10).

    The check feeds the scores of one query ``[n_k]`` and the values ``[n_k, d_v]``
    in blocks of uneven sizes, with scores large enough that the running maximum
    ``m`` moves, and compares ``acc / ell`` with ``softmax(scores) @ values``.
    """
    if is_missing(update):
        return unanswered("your function")
    if not callable(update):
        return wrong(f"Pass the function itself (update, not update(...)); got {update!r}.")
    rng = np.random.default_rng(0)
    scores = 20 * rng.normal(size=10)  # [n_k], large: the maximum moves
    values = rng.normal(size=(10, 3))  # [n_k, d_v]
    m, ell, acc = -np.inf, 0.0, np.zeros(3)  # running max, sum, weighted sum [d_v]
    try:
        with np.errstate(all="ignore"):
            for block in np.split(np.arange(10), [3, 4, 8]):
                m, ell, acc = update(m, ell, acc, scores[block], values[block])
            got = np.asarray(acc, dtype=float) / ell  # [d_v]
    except Exception as error:  # the reader's code failing is part of the verdict
        return wrong(f"Your function raised {type(error).__name__}: {error}")
    if got.shape == (3,) and np.allclose(got, softmax(scores) @ values):
        return right("acc / ell equals softmax(scores) @ values: the update is exact.")
    if not np.isfinite(got).all():
        return wrong("You get NaN or inf: subtract the running maximum m before exp.")
    return wrong(
        "acc / ell is not softmax(scores) @ values. Did you rescale the old ell and acc "
        "by exp(m - m_new)?"
    )
