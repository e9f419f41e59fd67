"""A learner's mistake gets a ``ValueError`` or ``TypeError`` from ``lessons`` that names the cause.

Never an error from inside NumPy or torch (``mat1 and mat2 shapes cannot be multiplied``,
``'numpy.ndarray' object has no attribute``), and never a message that points the wrong
way: a bfloat16 tensor given to a NumPy function is real numbers, so "must hold real
numbers" misleads; the cause is that NumPy has no bfloat16.
"""

from __future__ import annotations

import traceback

import numpy as np
import pytest
import torch

import lessons

CONFIG = lessons.AttentionConfig(d_model=8, num_heads=2, num_kv_heads=1, head_dim=4)
LATENT = lessons.LatentConfig(d_model=8, num_heads=2, kv_rank=4, nope_dim=4, rope_dim=2, v_dim=4)


def bf16(*shape):
    return torch.randn(*shape).bfloat16()


@pytest.mark.parametrize(
    "call",
    [
        lambda: lessons.tiled_attention(bf16(3, 4), bf16(3, 4), bf16(3, 4)),
        lambda: lessons.softmax(bf16(3, 4)),
    ],
)
def test_a_bfloat16_tensor_to_a_numpy_function_is_told_numpy_has_no_bfloat16(call):
    with pytest.raises(TypeError, match=r"NumPy.*has no bfloat16.*\.float\(\)") as caught:
        call()
    assert "real numbers" not in str(caught.value)


def test_the_advice_for_bfloat16_works():
    Q = bf16(5, 4)
    out = lessons.tiled_attention(Q.float(), Q.float(), Q.float(), block_size=2)
    np.testing.assert_allclose(
        out, lessons.attention(Q.float(), Q.float(), Q.float())[0], atol=1e-6
    )


BAD_CALLS = {
    "ModernAttention, X without a batch axis": (
        lambda: lessons.ModernAttention(CONFIG)(torch.ones(3, 8)),
        r"\[B, n, d_model=8\]; got \[3, 8\] \(add a batch axis",
    ),
    "ModernAttention, X of the wrong width": (
        lambda: lessons.ModernAttention(CONFIG)(torch.ones(1, 3, 6)),
        r"\[B, n, d_model=8\]; got \[1, 3, 6\]",
    ),
    "ModernAttention, float64 X into a float32 layer": (
        lambda: lessons.ModernAttention(CONFIG)(torch.ones(1, 3, 8, dtype=torch.float64)),
        r"torch\.float64 where torch\.float32",
    ),
    "LatentAttention, X without a batch axis": (
        lambda: lessons.LatentAttention(LATENT)(torch.ones(3, 8)),
        r"\[B, n, d_model=8\]; got \[3, 8\]",
    ),
    "LatentAttention, float64 X into a float32 layer": (
        lambda: lessons.LatentAttention(LATENT)(torch.ones(1, 3, 8, dtype=torch.float64)),
        r"torch\.float64 where torch\.float32",
    ),
    "RMSNorm, the wrong width": (
        lambda: lessons.RMSNorm(4)(torch.ones(2, 3)),
        r"\[\.\.\., d=4\].*got \[2, 3\]",
    ),
    "RMSNorm, a NumPy array": (
        lambda: lessons.RMSNorm(4)(np.ones((2, 4))),
        r"torch tensor.*NumPy array.*torch\.from_numpy",
    ),
    "repeat_kv, a NumPy array": (
        lambda: lessons.repeat_kv(np.ones((1, 2, 3, 4)), 4),
        r"K must be a floating torch tensor",
    ),
    "soft_cap, a NumPy array": (
        lambda: lessons.soft_cap(np.zeros(3), 2.0),
        r"Z must be a floating torch tensor",
    ),
    "sink_softmax, one sink too many": (
        lambda: lessons.sink_softmax(torch.zeros(1, 2, 3, 3), torch.zeros(3)),
        r"sinks must have shape \[h=2\], one sink per head; got \[3\]",
    ),
}


@pytest.mark.parametrize("call, words", BAD_CALLS.values(), ids=list(BAD_CALLS))
def test_a_wrong_rank_width_dtype_or_kind_is_refused_by_lessons_naming_it(call, words):
    with pytest.raises(ValueError, match=words) as caught:
        call()
    last = traceback.extract_tb(caught.value.__traceback__)[-1].filename
    assert "/lessons/" in last.replace("\\", "/"), f"raised from {last}"


def test_a_numpy_input_to_modern_attention_is_converted_not_crashed():
    torch.manual_seed(0)
    layer = lessons.ModernAttention(CONFIG).double()
    X = np.random.default_rng(0).normal(size=(1, 3, 8))
    torch.testing.assert_close(layer(X), layer(torch.from_numpy(X)))
