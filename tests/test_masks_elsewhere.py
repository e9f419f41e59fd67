"""lessons.keep_mask and lessons.diagnose_mask: masks in every library's convention (chapter 6)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from lessons import attention, causal_mask, diagnose_mask, keep_mask, padding_mask


@st.composite
def patterns(draw, sound=True):
    """A random keep-mask whose shape broadcasts to random scores [B, h, n_q, n_k]."""
    shape = (
        draw(st.integers(1, 3)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 6)),
        draw(st.integers(1, 6)),
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    ones = [draw(st.booleans()) for _ in shape]  # which axes the mask repeats (size 1)
    mask_shape = tuple(1 if one else size for one, size in zip(ones, shape, strict=True))
    mask_shape = mask_shape[draw(st.integers(0, 2)) :]  # drop some leading axes
    keep = rng.random(mask_shape) < draw(st.floats(0.2, 0.9))  # [..., n_q | 1, n_k | 1]
    if sound:
        keep[..., rng.integers(mask_shape[-1])] = True  # every query keeps a key
    return keep, shape


def spellings(keep: np.ndarray) -> list[tuple[object, str]]:
    """The same keep-mask written in every convention that can hold any pattern."""
    return [
        (keep, "keep"),
        (keep.astype(np.int64), "keep"),
        (keep.astype(np.float32).tolist(), "keep"),
        (torch.from_numpy(keep), "keep"),
        (~keep, "block"),
        (torch.from_numpy(~keep).to(torch.uint8), "block"),
        (np.where(keep, 0.0, -np.inf), "additive"),
        (np.where(keep, 0.0, -1e9).astype(np.float32), "additive"),
        (np.where(keep, 0, -10_000).astype(np.int32), "additive"),
        (torch.from_numpy(np.where(keep, 0.0, np.finfo(np.float16).min)).half(), "additive"),
        (torch.where(torch.from_numpy(keep), 0.0, -1e30).to(torch.bfloat16), "additive"),
        (torch.where(torch.from_numpy(keep), 0.0, -1e4).to(torch.bfloat16), "additive"),
    ]


def padding_spellings(lengths: list[int], n_k: int) -> list[tuple[object, str, dict]]:
    """One padding pattern as Hugging Face, d2l and the boolean conventions write it."""
    real = np.arange(n_k) < np.array(lengths)[:, None]  # [B, n_k], True = real token
    return [
        (real.astype(np.int64), "hf", {}),
        (torch.from_numpy(real).long(), "hf", {"n_k": n_k}),
        (real.tolist(), "hf", {}),
        (lengths, "lengths", {"n_k": n_k}),
        (torch.tensor(lengths), "lengths", {"n_k": n_k}),
        (np.array(lengths, dtype=np.uint8), "lengths", {"n_k": n_k}),
        (real[:, None, None, :], "keep", {}),
        (~real[:, None, None, :], "block", {"n_k": n_k}),
        (np.where(real, 0.0, -np.inf)[:, None, None, :], "additive", {}),
    ]


def _as_numpy(mask):
    return mask.numpy() if isinstance(mask, torch.Tensor) else mask


# --- keep_mask -----------------------------------------------------------------------


@given(patterns(sound=False))
def test_every_spelling_of_one_pattern_converts_to_the_same_keep_mask(problem):
    keep, _ = problem
    for mask, convention in spellings(keep):
        converted = keep_mask(mask, convention)
        assert isinstance(converted, torch.Tensor) == isinstance(mask, torch.Tensor)
        assert _as_numpy(converted).dtype == np.bool_
        np.testing.assert_array_equal(_as_numpy(converted), keep, err_msg=convention)


@given(patterns(sound=False), st.integers(0, 2**32 - 1))
def test_every_spelling_of_one_pattern_gives_the_same_attention(problem, seed):
    keep, shape = problem
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=shape[:-1] + (3,))  # [B, h, n_q, d_k]
    K = rng.normal(size=shape[:-2] + (shape[-1], 3))  # [B, h, n_k, d_k]
    V = rng.normal(size=shape[:-2] + (shape[-1], 2))  # [B, h, n_k, d_v]
    expected, _ = attention(Q, K, V, keep)  # [B, h, n_q, d_v]
    for mask, convention in spellings(keep):
        out, _ = attention(Q, K, V, keep_mask(mask, convention))  # [B, h, n_q, d_v]
        np.testing.assert_array_equal(out, expected, err_msg=convention)


@given(st.lists(st.integers(0, 6), min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def test_padding_in_every_convention_gives_the_same_mask_and_attention(lengths, seed):
    n_k, h, n_q = 6, 2, 3
    B = len(lengths)
    expected_mask = padding_mask(lengths, n_k)[:, None]  # [B, 1, 1, n_k]
    rng = np.random.default_rng(seed)
    Q = torch.from_numpy(rng.normal(size=(B, h, n_q, 4)))  # [B, h, n_q, d_k]
    K, V = torch.from_numpy(rng.normal(size=(2, B, h, n_k, 4)))  # [B, h, n_k, d] each
    expected, _ = attention(Q, K, V, expected_mask)  # [B, h, n_q, d_v]
    for mask, convention, options in padding_spellings(lengths, n_k):
        converted = keep_mask(mask, convention, **options)
        assert converted.shape == (B, 1, 1, n_k), convention
        np.testing.assert_array_equal(_as_numpy(converted), expected_mask, err_msg=convention)
        out, _ = attention(Q, K, V, keep_mask(mask, convention, **options))
        torch.testing.assert_close(out, expected, rtol=0, atol=0)


def test_d2l_per_query_lengths_give_one_row_per_query():
    lengths = np.array([[1, 2, 3], [3, 3, 0]])  # [B, n_q]
    keep = keep_mask(lengths, "lengths", n_k=3)  # [B, 1, n_q, n_k]
    assert keep.shape == (2, 1, 3, 3)
    np.testing.assert_array_equal(keep[0, 0], causal_mask(3))
    np.testing.assert_array_equal(keep[1, 0].sum(-1), [3, 3, 0])


def test_torch_masks_stay_on_their_device_and_leave_the_input_alone():
    mask = torch.tensor([[0.0, float("-inf")], [0.0, 0.0]], requires_grad=True)
    keep = keep_mask(mask, "additive")
    assert keep.dtype == torch.bool and keep.device == mask.device
    assert keep.tolist() == [[True, False], [True, True]]
    original = causal_mask(3)
    keep_mask(original, "keep")[0, 1] = True  # a fresh array, not a view
    assert not original[0, 1]


def test_additive_masks_agree_with_pytorchs_own_reading_of_them():
    rng = np.random.default_rng(0)
    q, k, v = torch.from_numpy(rng.normal(size=(3, 2, 4, 5, 3)))  # [B, h, n, d] each
    keep = torch.from_numpy(rng.random((4, 5, 5)) < 0.5) | torch.eye(5, dtype=torch.bool)
    additive = torch.zeros(keep.shape, dtype=torch.float64).masked_fill(~keep, float("-inf"))
    made = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    for mask in (additive, made):
        torch.testing.assert_close(
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
            F.scaled_dot_product_attention(q, k, v, attn_mask=keep_mask(mask, "additive")),
        )


@pytest.mark.parametrize(
    ("mask", "convention", "options", "match"),
    [
        ([[1, 0]], "bool", {}, "convention must be one of"),
        ([[1, 0]], None, {}, "convention must be one of"),
        ([[0.0, 0.5]], "additive", {}, "bias"),
        ([[0.0, -1.0]], "additive", {}, "bias"),
        ([[0.0, float("nan")]], "additive", {}, "mask holds"),
        ([[0.0, float("inf")]], "additive", {}, "mask holds"),
        ([[True, False]], "additive", {}, "'keep' or 'block'"),
        ([[1, 2]], "keep", {}, "1/0 only; mask holds 2"),
        ([[0.0, float("-inf")]], "keep", {}, "looks additive"),
        ([[0, 1]], "block", {"n_k": 3}, r"n_k=3"),
        ([1, 1, 0], "hf", {}, r"mask must have shape \[B, n_k\]"),
        ([[[1, 1, 0]]], "hf", {}, r"mask must have shape \[B, n_k\]"),
        ([[1, 1, 0]], "hf", {"n_k": 4}, "n_k=4"),
        ([2, 3], "lengths", {}, "needs n_k"),
        ([2, 5], "lengths", {"n_k": 4}, r"0..n_k=4; got \[5\]"),
        ([-1, 2], "lengths", {"n_k": 4}, r"got \[-1\]"),
        ([2.0, 3.0], "lengths", {"n_k": 4}, "must be integers"),
        ([True, False], "lengths", {"n_k": 4}, "must be integers"),
        ([[[1]]], "lengths", {"n_k": 4}, r"mask must have shape \[B\]"),
        ([2, 3], "lengths", {"n_k": 0}, "n_k must be a positive integer"),
        ([2, 3], "lengths", {"n_k": 4.0}, "n_k must be a positive integer"),
        (None, "keep", {}, "mask must be"),
        ([["a", "b"]], "keep", {}, "mask must be"),
        ([[1, 0], [1]], "keep", {}, "mask must be"),
    ],
)
def test_keep_mask_refuses_what_is_not_a_mask_of_its_convention(mask, convention, options, match):
    with pytest.raises(ValueError, match=match):
        keep_mask(mask, convention, **options)


# --- diagnose_mask: sound masks ------------------------------------------------------


@given(patterns(sound=True))
def test_no_spelling_of_a_sound_mask_gets_a_finding(problem):
    keep, shape = problem
    for mask, convention in spellings(keep):
        assert diagnose_mask(mask, convention, shape) == [], convention
    assert diagnose_mask(keep, "keep", torch.Size(shape)) == []
    assert diagnose_mask(keep, "keep", list(shape)) == []
    scores = torch.zeros(shape, dtype=torch.float16)
    assert diagnose_mask(np.where(keep, 0.0, -np.inf), "additive", scores) == []


@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(1, 3), st.integers(1, 4))
def test_padding_with_a_key_for_every_sequence_gets_no_finding(lengths, h, n_q):
    B = len(lengths)
    for mask, convention, options in padding_spellings(lengths, 6):
        assert diagnose_mask(mask, convention, (B, h, n_q, 6)) == [], convention
        if convention in ("hf", "lengths"):  # lined up with 3-D scores [B, n_q, n_k] too
            assert diagnose_mask(mask, convention, (B, n_q, 6)) == [], convention
        else:  # [B, 1, 1, n_k] -> [B, 1, n_k]
            flat = _as_numpy(keep_mask(mask, convention, **options))[:, 0]
            assert diagnose_mask(flat, "keep", (B, n_q, 6)) == []


@pytest.mark.parametrize("n", [1, 2, 7])
def test_the_causal_mask_of_every_library_is_sound(n):
    tril = torch.tril(torch.ones(n, n))  # nanoGPT's buffer: 1 = keep
    triu = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)  # True = blocked
    made = torch.nn.Transformer.generate_square_subsequent_mask(n)  # 0 / -inf
    shape = (2, 3, n, n)
    assert diagnose_mask(tril.view(1, 1, n, n), "keep", shape) == []
    assert diagnose_mask(triu, "block", shape) == []
    assert diagnose_mask(made, "additive", shape) == []
    assert diagnose_mask(made, "additive", shape, dtype=torch.float16) == []


# --- diagnose_mask: each bug and its finding -----------------------------------------


def _only(findings: list[str], *words: str) -> None:
    """Exactly one finding per word, each naming its word."""
    assert len(findings) == len(words), findings
    for finding, word in zip(findings, words, strict=True):
        assert word in finding, (word, finding)


@given(patterns(sound=True), st.integers(0, 3), st.integers(2, 5))
def test_a_mask_that_cannot_broadcast_is_named_with_its_axis(problem, axis, extra):
    keep, shape = problem
    full = np.broadcast_to(keep, shape).copy()  # [B, h, n_q, n_k]
    wrong = list(shape)
    wrong[axis] += extra  # a size that neither matches nor repeats
    bad = np.resize(full, wrong)  # [..] with one axis of the wrong size
    findings = diagnose_mask(bad, "keep", shape)
    name = ["batch", "head", "query", "key"][axis]
    assert any("cannot broadcast" in f and f"the {name} axis" in f for f in findings), findings


def test_a_mask_with_more_axes_than_the_scores_cannot_broadcast():
    findings = diagnose_mask(np.ones((2, 4, 4), dtype=bool), "keep", (4, 4))
    _only(findings, "3 axes to the scores' 2")
    hf = np.ones((2, 4))  # a batch of 2, for scores with no batch axis
    _only(diagnose_mask(hf, "hf", (4, 4)), "cannot broadcast")
    _only(diagnose_mask(hf, "hf", (3, 2, 4, 4)), "the batch axis (B) it has 2")
    square = np.ones((3, 4), dtype=bool)  # three query rows for scores with five
    _only(diagnose_mask(square, "keep", (5, 4)), "the query axis (n_q) it has 3")


@given(
    st.lists(st.integers(0, 5), min_size=2, max_size=4).filter(lambda x: min(x) < 5 and max(x) > 0)
)
def test_a_padding_mask_along_the_query_axis_is_named(lengths):
    real = padding_mask(lengths, 5)[:, 0]  # [B, n], True = real token
    B = len(lengths)
    for bad, shape in (
        (real[:, None, :, None], (B, 2, 5, 5)),  # [B, 1, n, 1]: blocks rows
        (real[:, :, None], (B, 5, 5)),  # [B, n, 1]
        (np.broadcast_to(real[:, :, None], (B, 5, 5)), (B, 5, 5)),  # rows, stretched
    ):
        findings = diagnose_mask(bad, "keep", shape)
        assert "query axis instead of the key axis" in findings[0], findings
        assert "every key blocked" in findings[1]
    findings = diagnose_mask(~real, "block", (B, 3, 7, 5))  # [B, n] meets the queries
    assert any("[B, n_k] padding mask" in f for f in findings), findings


@given(patterns(sound=True), st.integers(0, 2**32 - 1))
def test_rows_with_every_key_blocked_are_counted(problem, seed):
    keep, shape = problem
    full = np.broadcast_to(keep, shape).copy()  # [B, h, n_q, n_k]
    rng = np.random.default_rng(seed)
    rows = rng.random(shape[:-1]) < 0.3  # [B, h, n_q], rows to block
    rows.flat[rng.integers(rows.size)] = True
    full[rows] = False
    (finding,) = [f for f in diagnose_mask(full, "keep", shape) if "every key blocked" in f]
    assert finding.startswith(f"{rows.sum()} of {rows.size} query rows have every key blocked")
    assert "NaN" in finding and "zeros" in finding
    # what the finding says is what happens: zeros here, NaN from a hand-written softmax
    Q = torch.ones(shape[:-1] + (1,), dtype=torch.float64)  # [B, h, n_q, 1]
    K = torch.ones(shape[:-2] + (shape[-1], 1), dtype=torch.float64)  # [B, h, n_k, 1]
    _, weights = attention(Q, K, K, full)  # [B, h, n_q, n_k]
    assert (weights.numpy()[rows] == 0).all()
    manual = torch.softmax(torch.from_numpy(np.where(full, 0.0, -np.inf)), dim=-1)
    assert manual.isnan().numpy()[rows].all()


@given(st.integers(2, 9), st.lists(st.integers(2, 9), min_size=1, max_size=3))
def test_an_inverted_causal_mask_is_named(n, lengths):
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)  # keeps only later keys
    shape = (len(lengths), 2, n, n)
    for mask, convention in (
        (upper, "keep"),  # triu where tril was meant
        (causal_mask(n), "block"),  # the course's mask read as True = blocked
        (torch.triu(torch.ones(n, n), diagonal=1), "keep"),  # LLMs-from-scratch's, read wrong
        (np.where(upper, 0.0, -np.inf), "additive"),
    ):
        findings = diagnose_mask(mask, convention, shape)
        _only(findings, "every key blocked", "inverted causal mask")
    padded = upper & (np.arange(n) < np.minimum(lengths, n)[:, None])[:, None, None, :]
    assert any("inverted causal" in f for f in diagnose_mask(padded, "keep", shape))


def test_an_additive_sentinel_that_overflows_the_dtype_is_named():
    keep = causal_mask(4)  # [n, n]
    sentinel = np.where(keep, 0.0, -1e9).astype(np.float32)  # the Annotated Transformer's
    assert diagnose_mask(sentinel, "additive", (2, 4, 4)) == []  # float32 scores: sound
    assert diagnose_mask(sentinel, "additive", (2, 4, 4), dtype=torch.float32) == []
    for dtype in (torch.float16, np.float16, "float16"):
        _only(diagnose_mask(sentinel, "additive", (2, 4, 4), dtype=dtype), "overflows float16")
    scores = torch.zeros(2, 4, 4, dtype=torch.float16)  # or the scores themselves
    _only(diagnose_mask(sentinel, "additive", scores), "-65504")
    assert torch.tensor(-1e9, dtype=torch.float16).item() == float("-inf")  # what it says
    with np.errstate(over="ignore"):
        stored = np.where(keep, 0.0, -1e9).astype(np.float16)  # -1e9 written into float16
    _only(diagnose_mask(stored, "additive", (2, 4, 4)), "float16 mask holds -inf")
    _only(diagnose_mask(torch.from_numpy(stored), "additive", (4, 4)), "float16 mask holds -inf")
    fits = np.where(keep, 0.0, -1e4)  # -1e4 fits float16
    assert diagnose_mask(fits, "additive", scores) == []
    all_blocked = np.full((4, 4), -1e9)
    _only(
        diagnose_mask(all_blocked, "additive", scores),
        "quietly gives it weight",
        "overflows float16",
    )


@pytest.mark.parametrize(
    ("scores_shape", "options", "match"),
    [
        ((4,), {}, "scores_shape must be"),
        ((2, 0, 4), {}, "scores_shape must be"),
        ((2, -1), {}, "scores_shape must be"),
        ((2.0, 4), {}, "scores_shape must be"),
        ((True, 4), {}, "scores_shape must be"),
        ("44", {}, "scores_shape must be"),
        (4, {}, "scores_shape must be"),
        ((4, 4), {"dtype": torch.int32}, "dtype must be a floating dtype"),
        ((4, 4), {"dtype": "nonsense"}, "dtype must be a floating dtype"),
    ],
)
def test_diagnose_mask_refuses_what_is_not_a_shape_or_a_dtype(scores_shape, options, match):
    with pytest.raises(ValueError, match=match):
        diagnose_mask(np.ones((4, 4), dtype=bool), "keep", scores_shape, **options)


def test_diagnose_mask_refuses_masks_that_keep_mask_refuses():
    with pytest.raises(ValueError, match="bias"):
        diagnose_mask(np.full((4, 4), -0.5), "additive", (4, 4))
    with pytest.raises(ValueError, match="must be integers"):
        diagnose_mask([1.5], "lengths", (1, 4, 4))
    _only(diagnose_mask([2, 9], "lengths", (2, 4, 4)), "exceed the scores' 4 keys")
