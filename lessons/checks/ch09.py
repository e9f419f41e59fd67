"""Self-checks of chapter 9 (The transformer block)."""

from __future__ import annotations

from typing import Any

import torch

from .._validate import float_tensor
from .verdict import (
    Verdict,
    as_float_array,
    catalogued,
    close,
    generic,
    is_missing,
    right,
    unanswered,
    wrong,
)

__all__ = ["check_block_output"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
MISTAKES: dict[str, dict[str, str]] = {
    "check_block_output": {
        "post_norm": "computed the post-norm arrangement for a pre-norm block",
        "pre_norm": "computed the pre-norm arrangement for a post-norm block",
        "no_residual": "left out the residual connections",
        **generic("not_a_number", "other"),
    },
}


@catalogued(MISTAKES)
def check_block_output(answer: Any, block: Any, x: Any) -> Verdict:
    """Check a transformer block computed by hand from its parts (chapter 9).

    ``block`` is a ``lessons.TransformerBlock``; ``x [B, n, d_model]``.
    """
    if is_missing(answer):
        return unanswered("the block's output, shape [B, n, d_model]")
    x = float_tensor("x", x, block.norm1.weight.dtype)  # [B, n, d_model]
    with torch.no_grad():
        expected = block(x).numpy()  # [B, n, d_model]
        attend = block.attention(x)[0]
        ff, n1, n2 = block.feed_forward, block.norm1, block.norm2
        post = n2(n1(x + attend) + ff(n1(x + attend))).numpy()
        u = x + block.attention(n1(x))[0]  # [B, n, d_model], between the sublayers
        pre = (u + ff(n2(u))).numpy()
        no_residual_post = n2(ff(n1(attend))).numpy()
        no_residual_pre = ff(n2(block.attention(n1(x))[0])).numpy()  # [B, n, d_model]
    got = as_float_array(answer)
    if got is None:
        return wrong(f"The answer should be a tensor; got {type(answer).__name__}.", "not_a_number")
    if close(got, expected):
        return right(
            "Attention and feed-forward, each with its residual and norm, in the right order."
        )
    other = post if block.norm_first else pre
    if close(got, other):
        arrangement = "post-norm" if block.norm_first else "pre-norm"
        return wrong(
            f"That is the {arrangement} arrangement; this block has norm_first={block.norm_first}.",
            arrangement.replace("-", "_"),
        )
    if close(got, no_residual_pre if block.norm_first else no_residual_post):
        return wrong(
            "The residual connections are missing: add each sublayer's input back to its output.",
            "no_residual",
        )
    return wrong(
        "Follow the block's two steps: attention with residual and norm, then feed-forward with residual and norm.",
        "other",
    )
