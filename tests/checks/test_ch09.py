"""Chapter 9's self-checks (Encoder, decoder and the transformer block): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import pytest
import torch

import lessons


@pytest.mark.parametrize("norm_first", [False, True])
def test_check_block_output_tells_pre_norm_from_post_norm_and_names_each_mistake(norm_first):
    torch.manual_seed(0)
    block = lessons.TransformerBlock(8, 2, 16, norm_first=norm_first).double()
    other = lessons.TransformerBlock(8, 2, 16, norm_first=not norm_first).double()
    other.load_state_dict(block.state_dict())
    x = torch.randn(1, 4, 8, dtype=torch.float64)  # [B, n, d_model]
    with torch.no_grad():
        assert lessons.check_block_output(block(x), block, x)
        assert "arrangement" in repr(lessons.check_block_output(other(x), block, x))
        attend = block.attention(x)[0]  # [B, n, d_model]
        no_residual = block.norm2(block.feed_forward(block.norm1(attend)))  # [B, n, d_model]
        answers = {
            "pre_norm" if not norm_first else "post_norm": other(x),
            "not_a_number": "x",
            "other": torch.zeros(1, 4, 8),
        }
        if not norm_first:  # the missing residuals are diagnosed in the post-norm layout
            answers["no_residual"] = no_residual
    for mistake, answer in answers.items():
        assert lessons.check_block_output(answer, block, x).mistake == mistake
    assert not lessons.check_block_output(..., block, x).answered
