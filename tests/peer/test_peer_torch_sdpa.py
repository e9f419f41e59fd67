"""PyTorch's tests of ``F.scaled_dot_product_attention`` (``test/test_transformers.py``), run on lessons.

``lessons.attention`` takes ``Q, K, V`` and a boolean keep-mask (True = may attend, as SDPA's
boolean ``attn_mask``) and has no ``dropout_p``, ``scale`` or ``is_causal``: a causal case
passes ``lessons.causal_mask(n)`` (or ``lessons.window_mask`` when ``n_q != n_k``), and the
dropout cases of the originals are not ported (dropout is not in the course's attention).
Each case keeps the original's dtypes, mask shapes and tolerances; shapes are the
original's unless the docstring says they were cut for speed. The reference is SDPA itself
on the math backend, which the originals check against their own formulas.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from peer_common import DEFAULT_TOL, close, coin, rand, randn, refused, refused_or_equal
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.bias import causal_lower_right, causal_upper_left

import lessons

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def sdpa_math(q, k, v, attn_mask=None, is_causal=False, **options):
    """SDPA on its math backend, the originals' reference."""
    with sdpa_kernel(backends=[SDPBackend.MATH]):
        return F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, is_causal=is_causal, **options
        )


# --- TestTransformers.test_scaled_dot_product_attention -------------------------------------

SDP_MASKS = [(None, False), (2, False), (2, True), ("full", False), ("full", True)]


@pytest.mark.agree
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("mask_dim,is_causal", SDP_MASKS)
@pytest.mark.parametrize("input_dim", [3, 4])
def test_attention_equals_sdpa_on_3d_and_4d_inputs_with_every_mask_layout(
    input_dim, mask_dim, is_causal, dtype
):
    """test_transformers.py, TestTransformers.test_scaled_dot_product_attention (dropout_p=0).

    Inputs ``[N, L, E]`` or ``[N, N', L, E]`` with N=5, N'=2, L=4, S=3, E=6; no mask, a 2-D
    ``[L, S]`` mask, or one with the inputs' full leading shape; random or lower-triangular
    (``is_causal``: the original passes ``is_causal=True`` with no mask, which is the
    ``tril`` keep-mask). Tolerance: the dtype's default, as ``assertEqual``.
    """
    N, N_prime, L, S, E = 5, 2, 4, 3, 6
    lead = (N,) if input_dim == 3 else (N, N_prime)
    q = randn(*lead, L, E, seed=1, dtype=dtype)
    k = randn(*lead, S, E, seed=2, dtype=dtype)
    v = randn(*lead, S, E, seed=3, dtype=dtype)
    mask = None
    if mask_dim is not None:
        shape = (L, S) if mask_dim == 2 else (*lead, L, S)
        mask = torch.ones(shape, dtype=torch.bool).tril() if is_causal else coin(*shape, seed=4)
    if is_causal and mask_dim is None:
        expected = sdpa_math(q, k, v, is_causal=True)
        mask = torch.ones(L, S, dtype=torch.bool).tril()
    else:
        expected = sdpa_math(q, k, v, attn_mask=mask)
    out, _ = lessons.attention(q, k, v, mask)
    close(out, expected, *DEFAULT_TOL[dtype])


@pytest.mark.agree
@pytest.mark.parametrize("input_dim", [3, 4])
def test_attention_passes_gradcheck_like_sdpa(input_dim):
    """test_transformers.py, TestTransformers.test_scaled_dot_product_attention (its gradcheck).

    The original runs ``gradcheck`` on SDPA in float64 without a mask; here on
    ``lessons.attention``'s output, inputs as the original (viewed as ``[-1, L, E]``).
    """
    lead = (5,) if input_dim == 3 else (5, 2)
    q, k, v = (
        randn(*lead, n, 6, seed=s, dtype=torch.float64).requires_grad_()
        for n, s in ((4, 1), (3, 2), (3, 3))
    )
    assert torch.autograd.gradcheck(lambda a, b, c: lessons.attention(a, b, c)[0], (q, k, v))


@pytest.mark.agree
@pytest.mark.parametrize("contiguous", [True, False])
def test_attention_passes_gradcheck_on_packed_heads(contiguous):
    """test_transformers.py, TestSDPA.test_sdp_math_gradcheck.

    One packed float64 projection ``[B, L, 3 h d]`` (B=4, L=4, h=2, d=16) chunked into
    ``Q, K, V``, split into heads by ``view`` and ``transpose`` (so not contiguous unless
    asked), then ``gradcheck`` on ``lessons.attention`` (in its fast mode: one random
    direction instead of every input entry, for speed).
    """
    B, L, h, d = 4, 4, 2, 16
    qkv = randn(B, L, 3 * h * d, seed=5, dtype=torch.float64).requires_grad_()

    def heads(x):
        x = x.view(B, L, h, d).transpose(1, 2)  # [B, h, L, d]
        return x.contiguous() if contiguous else x

    def run(packed):
        q, k, v = (heads(x) for x in packed.chunk(3, dim=-1))
        return lessons.attention(q, k, v)[0]

    assert torch.autograd.gradcheck(run, (qkv,), fast_mode=True)


# --- TestSDPA.test_scaled_dot_product_fused_attention_vs_math_cpu ---------------------------

FUSED_TOL = {
    torch.float64: (1e-5, 5e-6),
    torch.float32: (1e-5, 5e-6),
    torch.bfloat16: (5e-2, 5e-2),
    torch.float16: (1e-2, 1e-2),
}
DTYPES = [torch.float64, torch.float32, torch.bfloat16, torch.float16]


def packed_heads(x, n_head, head_dim):
    """``[B, L, 3 E]`` to three ``[B, h, L, d]`` views, as the original splits its packed input."""
    B, L, _ = x.shape
    return [
        t.view(B, L, n_head, head_dim).transpose(1, 2) for t in x.split(n_head * head_dim, dim=2)
    ]


@pytest.mark.agree
@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [8, 16])
@pytest.mark.parametrize("n_head", [1, 3])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_attention_equals_math_sdpa_in_every_dtype(dtype, n_head, head_dim, causal, train):
    """test_transformers.py, TestSDPA.test_scaled_dot_product_fused_attention_vs_math_cpu.

    A packed ``[B, L, 3 h d]`` input split into heads; half-precision inputs against the math
    reference computed in float32 and cast back, as the original; with ``train`` the
    gradients of the packed input agree too. Tolerances: (1e-5, 5e-6), bfloat16 5e-2,
    float16 1e-2. Cut for speed: batch 2 and sequence 267 only (the original also runs
    batch 12 and sequence 1030).
    """
    B, L = 2, 267
    x = randn(B, L, 3 * n_head * head_dim, seed=6, dtype=dtype)
    x2 = x.clone().float() if dtype in (torch.bfloat16, torch.float16) else x.clone()
    x.requires_grad_(train)
    x2.requires_grad_(train)
    q, k, v = packed_heads(x, n_head, head_dim)
    q2, k2, v2 = packed_heads(x2, n_head, head_dim)
    mask = torch.as_tensor(lessons.causal_mask(L)) if causal else None
    actual, _ = lessons.attention(q, k, v, mask)
    reference = sdpa_math(q2, k2, v2, is_causal=causal)
    atol, rtol = FUSED_TOL[dtype]
    assert actual.dtype == dtype
    close(actual, reference.to(dtype), atol, rtol)
    if train:
        actual.sum().backward()
        reference.sum().backward()
        close(x.grad, x2.grad.to(dtype), atol, rtol)


# --- TestSDPA.test_scaled_dot_product_fused_attention_mask_vs_math_cpu ----------------------

N_Q, N_K = 67, 130  # the original's 267 and 514, cut for speed (neither a power of two)
MASK_SHAPES = list(itertools.product([N_Q, 1], [N_K, 1])) + list(
    itertools.product([2, 1], [3, 1], [N_Q, 1], [N_K, 1])
)


@pytest.mark.agree
@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("mask_shape", MASK_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_attention_equals_math_sdpa_with_every_broadcast_of_a_boolean_mask(
    dtype, mask_shape, train
):
    """test_transformers.py, TestSDPA.test_scaled_dot_product_fused_attention_mask_vs_math_cpu (bool_mask=1).

    B=2, h=3, d=8, n_q=67 and n_k=130 (cut for speed from 267 and 514); a random boolean mask of every shape the original
    draws from ``[n_q | 1, n_k | 1]`` and ``[B | 1, h | 1, n_q | 1, n_k | 1]``; tolerances
    (1e-5, 5e-6), bfloat16 5e-2, float16 1e-2; with ``train``, the gradients of Q, K, V too.
    A mask of shape ``[1, 1]`` may block every key: both then give zeros.
    """
    B, h, n_q, n_k, d = 2, 3, N_Q, N_K, 8
    q = randn(B, n_q, h, d, seed=7, dtype=dtype).transpose(1, 2)  # [B, h, n_q, d]
    k = randn(B, n_k, h, d, seed=8, dtype=dtype).transpose(1, 2)  # [B, h, n_k, d]
    v = randn(B, n_k, h, d, seed=9, dtype=dtype).transpose(1, 2)  # [B, h, n_k, d]
    wide = torch.float32 if dtype in (torch.bfloat16, torch.float16) else dtype
    q2, k2, v2 = (t.detach().to(wide) for t in (q, k, v))
    for t in (q, k, v, q2, k2, v2):
        t.requires_grad_(train)
    mask = coin(*mask_shape, seed=10)
    actual, _ = lessons.attention(q, k, v, mask)
    reference = sdpa_math(q2, k2, v2, attn_mask=mask)
    atol, rtol = FUSED_TOL[dtype]
    close(actual, reference.to(dtype), atol, rtol)
    if train:
        actual.sum().backward()
        reference.sum().backward()
        for ours, theirs in ((q, q2), (k, k2), (v, v2)):
            close(ours.grad, theirs.grad.to(dtype), atol, rtol)


@pytest.mark.refuse
@pytest.mark.parametrize("mask_dim", [2, 4])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_a_float_bias_is_refused_as_a_bias_or_added_as_sdpa_adds_it(dtype, mask_dim):
    """test_transformers.py, TestSDPA.test_scaled_dot_product_fused_attention_mask_vs_math_cpu (bool_mask=0).

    The original's float mask is ``randn``: an additive bias, not a 0/-inf mask. lessons
    takes keep-masks, so it may refuse it, but then its advice must fit a bias (turning it
    into a keep-mask with ``mask == 0`` would block every key, issue 42: the message may
    name it only as what not to do); or it may add the bias as SDPA does, and then agree
    within the original's tolerance.
    """
    q = randn(2, 3, N_Q, 8, seed=7, dtype=dtype)
    k = randn(2, 3, N_K, 8, seed=8, dtype=dtype)
    shape = (N_Q, N_K) if mask_dim == 2 else (2, 3, N_Q, N_K)
    bias = randn(*shape, seed=11, dtype=dtype)
    wide = torch.float32 if dtype in (torch.bfloat16, torch.float16) else dtype

    def reference():
        return sdpa_math(q.to(wide), k.to(wide), k.to(wide), attn_mask=bias.to(wide)).to(dtype)

    try:
        lessons.attention(q, k, k, bias)
    except ValueError as error:  # `mask == 0` may be named only as the wrong turn
        advice = str(error).replace("`mask == 0` would block", "")
        assert "mask == 0" not in advice and "chapter 8" in advice, str(error)
    refused_or_equal(lambda: lessons.attention(q, k, k, bias), reference, FUSED_TOL[dtype], "bias")


@pytest.mark.refuse
def test_attention_refuses_an_additive_band_mask_and_names_the_conversion():
    """test_transformers.py, TestSDPA.test_scaled_dot_product_fused_attention_with_inf (the refusal).

    The original's mask is float: ``-inf`` above the diagonal and ten or more below it,
    ``[600, 600]``, for ``Q, K, V [1, 2, 600, 8]``. A 0/-inf mask is the additive form of a
    keep-mask (chapter 6): lessons refuses it and names ``mask == 0``.
    """
    full = torch.full((600, 600), -math.inf)
    mask = torch.triu(full, diagonal=1) + torch.tril(full, diagonal=-10)
    q = randn(1, 2, 600, 8, seed=12)
    refused(lambda: lessons.attention(q, q, q, mask), "mask == 0")


@pytest.mark.agree
def test_attention_with_the_band_mask_as_a_keep_mask_equals_sdpa():
    """test_transformers.py, TestSDPA.test_scaled_dot_product_fused_attention_with_inf (the values).

    The same band mask turned into a keep-mask as the refusal says (``mask == 0``); against
    SDPA given the float mask; tolerance the float32 default.
    """
    full = torch.full((600, 600), -math.inf)
    mask = torch.triu(full, diagonal=1) + torch.tril(full, diagonal=-10)
    q, k, v = (randn(1, 2, 600, 8, seed=s) for s in (12, 13, 14))
    out, _ = lessons.attention(q, k, v, mask == 0)
    close(out, sdpa_math(q, k, v, attn_mask=mask), *DEFAULT_TOL[torch.float32])


@pytest.mark.agree
def test_attention_with_a_negative_scale_folded_into_q_equals_sdpa():
    """test_transformers.py, TestSDPA.test_scaled_dot_product_attention_math_with_negative_scale.

    ``x [1, 3, 64, 64]`` attends to itself with ``scale = -1 / 0.0001``. lessons.attention
    always scales by ``1 / sqrt(d_k)`` (chapter 4), so the adapter multiplies Q by
    ``scale * sqrt(d_k)``; against the original's own formula, float32 default tolerance.
    """
    x = randn(1, 3, 64, 64, seed=15)
    scale = -1.0 / 0.0001
    reference = torch.softmax(x @ x.transpose(-1, -2) / -0.0001, dim=-1) @ x
    out, _ = lessons.attention(x * (scale * math.sqrt(64)), x, x)
    close(out, reference, *DEFAULT_TOL[torch.float32])


# --- TestSDPAFailureModes, on the CPU -------------------------------------------------------


@pytest.mark.refuse
def test_attention_refuses_mixed_dtypes_naming_them_and_the_conversion():
    """test_transformers.py, TestSDPAFailureModes.test_invalid_inputs_different_datatypes.

    Q float32, K and V float16, ``[1, 4, 8, 16]``: SDPA raises a RuntimeError; lessons a
    ValueError naming the three dtypes and how to convert.
    """
    q = randn(1, 4, 8, 16, seed=16)
    k = q.half()
    refused(lambda: lessons.attention(q, k, k), "float32", "float16", "convert")


@pytest.mark.refuse
def test_attention_refuses_a_1d_query_naming_the_shape_it_needs():
    """test_transformers.py, TestSDPAFailureModes.test_invalid_inputs_1_dimensional_inputs.

    Q ``[4]``, K and V ``[1, 4]`` in float16: refused, naming Q's shape and ``[..., n_q, d_k]``.
    """
    q = randn(4, seed=17, dtype=torch.float16)
    k = randn(1, 4, seed=18, dtype=torch.float16)
    refused(lambda: lessons.attention(q, k, k), "(4,)", "[..., n_q, d_k]")


@pytest.mark.refuse
def test_attention_refuses_zero_length_sequences_naming_the_empty_shape():
    """test_transformers.py, TestSDPAFailureModes.test_invalid_sequence_lengths.

    ``[2, 2, 0, 8]`` float16 inputs; the fused kernels refuse them. lessons refuses any empty
    input, naming the shape and that every dimension must be at least 1.
    """
    q = torch.rand(2, 2, 0, 8, dtype=torch.float16)
    refused(lambda: lessons.attention(q, q, q), "[2, 2, 0, 8]", ">= 1")


@pytest.mark.agree
def test_attention_broadcasts_a_batch_of_one_query_like_the_math_backend():
    """test_transformers.py, TestSDPAFailureModes.test_invalid_fused_inputs_broadcast.

    Q ``[1, 4, 3, 8]`` against K, V ``[2, 4, 3, 8]``: only the fused CUDA kernels refuse it;
    the math backend broadcasts, and so does lessons (its docstring: leading dimensions
    broadcast). Tolerance: the float16 default.
    """
    q = randn(1, 4, 3, 8, seed=19, dtype=torch.float16)
    k = randn(2, 4, 3, 8, seed=20, dtype=torch.float16)
    v = randn(2, 4, 3, 8, seed=21, dtype=torch.float16)
    out, _ = lessons.attention(q, k, v)
    close(out, sdpa_math(q.float(), k.float(), v.float()).half(), *DEFAULT_TOL[torch.float16])


# --- TestAttnBias: causal masks when n_q != n_k ---------------------------------------------

BIAS_SHAPES = [
    (16, 16, 128, 128, 16),
    (16, 16, 128, 256, 32),
    (16, 16, 256, 128, 32),
    (1, 1, 23, 56, 15),
]
VARIANTS = [
    (variant, shape)
    for variant in ("upper_left", "lower_right")
    for shape in BIAS_SHAPES
    if not (variant == "lower_right" and shape[2] > shape[3])  # the original skips these
]


def bias_inputs(shape):
    """float16 Q ``[B, h, n_q, d]`` and K, V ``[B, h, n_k, d]``, batch and heads cut to at most 2."""
    bsz, heads, n_q, n_k, d = shape
    bsz, heads = min(bsz, 2), min(heads, 2)
    q = rand(bsz, heads, n_q, d, seed=22, dtype=torch.float16)
    k = rand(bsz, heads, n_k, d, seed=23, dtype=torch.float16)
    v = rand(bsz, heads, n_k, d, seed=24, dtype=torch.float16)
    return q, k, v


@pytest.mark.agree
@pytest.mark.parametrize("variant,shape", VARIANTS, ids=str)
def test_window_mask_gives_both_causal_variants_of_sdpa(variant, shape):
    """test_transformers.py, TestAttnBias.test_causal_variants and test_is_causal_equals_upper_left.

    ``causal_upper_left`` (query i sees keys 0..i, SDPA's ``is_causal``) is
    ``window_mask(arange(n_q), arange(n_k))``; ``causal_lower_right`` (the last query sees
    every key) puts the queries at positions ``n_k - n_q .. n_k - 1``. float16; forward
    tolerance (1e-3, 1e-3), gradients (5e-3, 5e-3). Batch and heads cut from 16 to 2.
    """
    q, k, v = bias_inputs(shape)
    n_q, n_k = q.shape[-2], k.shape[-2]
    start = 0 if variant == "upper_left" else n_k - n_q
    keep = torch.as_tensor(lessons.window_mask(np.arange(start, start + n_q), np.arange(n_k)))
    bias = (causal_upper_left if variant == "upper_left" else causal_lower_right)(n_q, n_k)
    q2, k2, v2 = (t.clone().requires_grad_() for t in (q, k, v))
    for t in (q, k, v):
        t.requires_grad_()
    ours, _ = lessons.attention(q, k, v, keep)
    theirs = F.scaled_dot_product_attention(q2, k2, v2, attn_mask=bias)
    close(ours, theirs, 1e-3, 1e-3)
    grad = rand(*ours.shape, seed=25, dtype=torch.float16)
    ours.backward(grad)
    theirs.backward(grad)
    for a, b in ((q, q2), (k, k2), (v, v2)):
        close(a.grad, b.grad, 5e-3, 5e-3)


@pytest.mark.refuse
@pytest.mark.parametrize("shape", [s for s in BIAS_SHAPES if s[2] != s[3]], ids=str)
def test_a_square_causal_mask_for_unequal_lengths_is_refused_pointing_at_window_mask(shape):
    """test_transformers.py, TestAttnBias.test_is_causal_equals_upper_left (n_q != n_k).

    The reader's first try at SDPA's ``is_causal`` is ``causal_mask(n_q)``, which cannot fit
    ``[n_q, n_k]``. The refusal must point at the offset rule the course teaches:
    ``window_mask`` with the queries' positions (chapter 10's top-left rule).
    """
    q, k, v = bias_inputs(shape)
    refused(lambda: lessons.attention(q, k, v, lessons.causal_mask(q.shape[-2])), "window_mask")


# --- The same CPU cases through lessons.tiled_attention (chapter 10) ------------------------


@pytest.mark.agree
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [8, 16])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16], ids=str)
def test_tiled_attention_equals_math_sdpa(dtype, head_dim, causal):
    """test_transformers.py, TestSDPA.test_scaled_dot_product_fused_attention_vs_math_cpu, tiled.

    The same packed inputs (batch 2, 3 heads, sequence 267, which block size 128 does not
    divide) through chapter 10's tiled attention. It returns NumPy (float32 for float32 in,
    float64 otherwise, its docstring); tolerances as the original's for the input dtype.
    """
    x = randn(2, 267, 3 * 3 * head_dim, seed=26, dtype=dtype)
    q, k, v = packed_heads(x, 3, head_dim)
    wide = torch.float32 if dtype == torch.float16 else dtype
    reference = sdpa_math(q.to(wide), k.to(wide), v.to(wide), is_causal=causal).to(dtype)
    out = lessons.tiled_attention(q, k, v, causal=causal)
    atol, rtol = FUSED_TOL[dtype]
    close(torch.from_numpy(out).to(dtype), reference, atol, rtol)


@pytest.mark.refuse
def test_tiled_attention_refuses_bfloat16_naming_the_dtype_and_the_conversion():
    """test_transformers.py, TestSDPA.test_scaled_dot_product_fused_attention_vs_math_cpu (bfloat16), tiled.

    Tiled attention runs in NumPy, which has no bfloat16: the refusal must say so (name
    bfloat16 and NumPy), not that the input is not "real numbers".
    """
    x = randn(2, 267, 3 * 3 * 8, seed=26, dtype=torch.bfloat16)
    q, k, v = packed_heads(x, 3, 8)
    message = refused(
        lambda: lessons.tiled_attention(q, k, v), "bfloat16", "NumPy", error=(TypeError, ValueError)
    )
    assert "real numbers" not in message


@pytest.mark.refuse
def test_a_mask_with_more_dimensions_than_the_scores_is_refused_naming_both_shapes():
    """test_transformers.py, TestTransformers.test_scaled_dot_product_attention (input_dim=3,
    with the mask of a 4-D case).

    Inputs ``[N, L, E]`` (N=5, L=4, S=3, E=6) and the ``[N, 1, L, S]`` mask a 4-D case with
    heads would use: SDPA refuses it, and ``diagnose_mask`` says it cannot broadcast (issue 42
    found ``lessons.attention`` returning ``[N, N, L, E]``). It must refuse, naming the mask's
    shape.
    """
    q = randn(5, 4, 6, seed=1)
    k, v = randn(5, 3, 6, seed=2), randn(5, 3, 6, seed=3)
    mask = coin(5, 1, 4, 3, seed=4)
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert lessons.diagnose_mask(mask, "keep", (5, 4, 3))
    refused(lambda: lessons.attention(q, k, v, mask), "5, 1, 4, 3")
