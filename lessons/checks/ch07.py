"""Self-checks of chapter 7 (Multi-head attention)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .._validate import as_numpy
from ..multihead import split_heads
from .verdict import (
    Verdict,
    as_float_array,
    as_whole_number,
    catalogued,
    generic,
    is_missing,
    judge,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_head_width_parameter_count", "check_mha_parameter_count", "check_split_heads"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
#: (``split_heads_mistakes`` and ``mha_parameter_mistakes`` spell the names with hyphens,
#: as chapter 7's in-page questions show them; a verdict reports them in snake_case.)
MISTAKES: dict[str, dict[str, str]] = {
    "check_head_width_parameter_count": {
        "d_k_is_d_model_over_h": "assumed h·d_k = d_model and counted 4 d_model²",
        "square_output_projection": "made W_O square, d_model × d_model, though it reads the "
        "h·d_k-wide heads",
        "one_head": "counted one head's share instead of all h heads",
        "all_square_in_head_width": "gave W_Q, W_K and W_V h·d_k rows instead of d_model",
        "biases_counted": "counted the biases, which this exercise leaves out",
        **generic("not_a_whole_number", "other"),
    },
    "check_mha_parameter_count": {
        "no_output_projection": "forgot the output projection W_O",
        "no_biases": "left out the biases of the four projections",
        "biases_counted": "counted biases in a layer built without them",
        **generic("not_a_whole_number", "other"),
    },
    "check_split_heads": {
        "view_without_transpose": "reshaped straight to [B, h, n, d_k] without the transpose, "
        "mixing tokens into heads",
        "heads_after_tokens": "stopped at [B, n, h, d_k], before the transpose",
        **generic("not_a_number", "wrong_shape", "other"),
    },
}


def split_heads_mistakes(X: Any, num_heads: int) -> dict[str, tuple[Any, str]]:
    """The named mistakes of splitting ``X [B, n, d_model]`` into heads (chapter 7).

    ``{name: (what the wrong reshape gives, a NumPy array, the explanation)}``, shared
    by ``check_split_heads`` and the in-page questions (a shape question uses the
    arrays' shapes: ``[B, h, n, d_k]`` against ``[B, n, h, d_k]``).
    """
    X = torch.as_tensor(as_numpy(X, dtype=np.float64))  # [B, n, d_model]
    B, n, d_model = X.shape
    d_k = d_model // num_heads
    return {
        "view-without-transpose": (
            X.reshape(B, num_heads, n, d_k).numpy(),  # [B, h, n, d_k], tokens mixed
            "Right shape, wrong contents: view(B, h, n, d_k) cuts the memory in the wrong "
            "order and mixes tokens into heads. Use view(B, n, h, d_k).transpose(1, 2).",
        ),
        "heads-after-tokens": (
            X.view(B, n, num_heads, d_k).numpy(),  # [B, n, h, d_k]
            "This is [B, n, h, d_k]: transpose(1, 2) to put heads before tokens.",
        ),
    }


def mha_parameter_mistakes(d_model: int, bias: bool = True) -> dict[str, tuple[int | None, str]]:
    """The named mistakes of counting multi-head attention's parameters (chapter 7).

    ``{name: (the count a wrong method gives, or None where it cannot apply, the
    explanation)}``, shared by ``check_mha_parameter_count`` and the in-page questions.
    """
    weights, biases = 4 * d_model * d_model, 4 * d_model
    return {
        "no-output-projection": (
            3 * d_model * d_model + (3 * d_model if bias else 0),
            "You counted W_Q, W_K and W_V; the output projection W_O has d_model² weights too.",
        ),
        "no-biases": (
            weights if bias else None,
            "Close: add the biases, one per output of each of the four projections (4 d_model).",
        ),
        "biases-counted": (
            None if bias else weights + biases,
            "This layer has bias=False: count the weights only.",
        ),
    }


def head_width_parameter_mistakes(
    d_model: int, num_heads: int, d_k: int
) -> dict[str, tuple[int, str]]:
    """The named mistakes of counting the weights of heads ``h·d_k`` wide in all (chapter 7).

    ``{name: (the count a wrong method gives, the explanation)}``. The right count is
    ``4 · d_model · h·d_k``: ``W_Q, W_K, W_V`` are ``[d_model, h·d_k]``, ``W_O`` is
    ``[h·d_k, d_model]``; no biases.
    """
    width = num_heads * d_k  # the concatenated heads
    return {
        "d_k_is_d_model_over_h": (
            4 * d_model * d_model,
            f"That is 4 d_model², right only when h·d_k = d_model. Here the heads are "
            f"{num_heads} × {d_k} = {width} wide: W_Q, W_K, W_V are [d_model, h·d_k].",
        ),
        "square_output_projection": (
            3 * d_model * width + d_model * d_model,
            "W_O reads the concatenated heads, h·d_k numbers, not d_model: it is [h·d_k, d_model].",
        ),
        "one_head": (
            4 * d_model * d_k,
            "That is one head's share. The projections hold every head's columns: "
            "multiply the width by h.",
        ),
        "all_square_in_head_width": (
            4 * width * width,
            "W_Q, W_K and W_V read the token's d_model numbers, so they have d_model rows, "
            "not h·d_k.",
        ),
        "biases_counted": (
            4 * d_model * width + 3 * width + d_model,
            "Count the weights only, without the biases.",
        ),
    }


@catalogued(MISTAKES)
def check_head_width_parameter_count(
    answer: Any, d_model: int, num_heads: int, d_k: int
) -> Verdict:
    """Check the weights of attention whose heads need not be ``d_model / h`` wide (chapter 7).

    ``W_Q, W_K, W_V`` are ``[d_model, h·d_k]`` and ``W_O`` is ``[h·d_k, d_model]``; biases
    are left out.
    """
    if is_missing(answer):
        return unanswered("a whole number")
    value = as_whole_number(answer)
    if value is None:
        return wrong(f"The answer should be a whole number; got {answer!r}.", "not_a_whole_number")
    width = num_heads * d_k  # [h·d_k], the heads side by side
    if value == 4 * d_model * width:
        return right(
            f"Three [d_model, h·d_k] projections and a [h·d_k, d_model] W_O: 4 · {d_model} · "
            f"{width}. The count follows the total width of the heads, h·d_k."
        )
    for name, (count, message) in head_width_parameter_mistakes(d_model, num_heads, d_k).items():
        if value == count:
            return wrong(message, name)
    return wrong(
        "Write the shape of each of W_Q, W_K, W_V and W_O, multiply out each shape, and add.",
        "other",
    )


@catalogued(MISTAKES)
def check_split_heads(answer: Any, X: Any, num_heads: int) -> Verdict:
    """Check heads split from ``X [B, n, d_model]`` into ``[B, h, n, d_k]`` (chapter 7)."""
    X = torch.as_tensor(as_numpy(X, dtype=np.float64))  # [B, n, d_model]
    expected = split_heads(X, num_heads)  # [B, h, n, d_k]
    mistakes = split_heads_mistakes(X, num_heads)
    praise = "Head g holds columns g*d_k to (g+1)*d_k - 1 of every token."
    what = "a [B, h, n, d_k] tensor"
    verdict = judge(
        answer, expected.numpy(), what=what, praise=praise, kind="a tensor", mistakes=mistakes
    )
    if verdict is not None:
        return verdict
    got = as_float_array(answer)
    if got.shape != tuple(expected.shape):
        return wrong(
            f"Expected shape [B, h, n, d_k] = {list(expected.shape)}; yours is {list(got.shape)}.",
            "wrong_shape",
        )
    B, n, d_model = X.shape
    d_k = d_model // num_heads
    # [B, h, n, d_k] cut the other way: head g gets columns g, g + h, g + 2h, ...
    strided = X.view(B, n, d_k, num_heads).permute(0, 3, 1, 2)
    if np.allclose(got, strided.numpy()):
        how = (
            f"head g holds columns g, g + {num_heads}, g + {2 * num_heads}, ... (every "
            f"h-th column) instead of a block of {d_k} neighbours: view(B, n, h, d_k), "
            "not view(B, n, d_k, h)"
        )
    else:
        how = "the numbers sit in other places"
    return wrong(
        f"The shape is right, [B, h, n, d_k] = {list(expected.shape)}, but the layout is "
        f"wrong: {how}. Head g must hold columns g*d_k to (g+1)*d_k - 1 of every token, "
        "in token order: view(B, n, h, d_k).transpose(1, 2).",
        "other",
    )


@catalogued(MISTAKES)
def check_mha_parameter_count(answer: Any, d_model: int, bias: bool = True) -> Verdict:
    """Check the parameter count of multi-head attention of width ``d_model``.

    The count that chapter 7 teaches, ``4 d_model²`` weights (plus ``4 d_model`` biases)
    whatever the number of heads; its in-page question shares the mistakes
    (``mha_parameter_mistakes``). Exercise 7.4 counts GPT-2 small's layer with it; Exercise
    7.2 uses ``check_head_width_parameter_count``, which also covers heads that are not
    ``d_model / h`` wide.
    """
    if is_missing(answer):
        return unanswered("a whole number")
    value = as_whole_number(answer)
    if value is None:
        return wrong(f"The answer should be a whole number; got {answer!r}.", "not_a_whole_number")
    expected = 4 * d_model * d_model + (4 * d_model if bias else 0)
    if value == expected:
        return right(
            "W_Q, W_K, W_V and W_O are each d_model x d_model, whatever the number of heads."
        )
    for name, (count, message) in mha_parameter_mistakes(d_model, bias).items():
        if value == count:
            return wrong(message, name.replace("-", "_"))
    return wrong(
        "Count four d_model x d_model projections (Q, K, V, O), plus their biases if any.", "other"
    )
