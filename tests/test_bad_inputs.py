"""Every bad input gets a clear answer: one test per rule of lessons._validate (issue 13).

Each public function, given what a new user has at hand (lists, NumPy where torch is
expected, empty arrays, integer or half-precision tensors, NaN/inf, complex numbers,
sizes as bool/float/str, huge sizes, out-of-range ids), either raises a ValueError or
TypeError from lessons whose message names the argument, or returns a finite, correct
result. The table in CONTRIBUTING.md ("What each kind of bad input gets") lists the rules.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons import _validate
from lessons.book.widgets.explorer_inputs import MAX_TOKENS
from lessons.checks import check_mha_parameter_count, check_pair_count, check_weight_bytes

BAD_SIZES = [0, -1, True, np.bool_(True), 8.0, 2.5, "8", None, float("nan"), 1j]


def _raises_naming(call, argument: str) -> None:
    """``call()`` raises ValueError or TypeError from lessons, naming ``argument``."""
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert argument in str(info.value), f"{argument!r} not named in: {info.value}"
    origin = info.traceback[-1].path
    assert "lessons" in str(origin), f"raised outside lessons, in {origin}: {info.value}"


# ----------------------------------------------------------------------------- sizes


SIZE_CALLS = [
    ("n", lambda v: lessons.causal_mask(v)),
    ("n", lambda v: lessons.padding_mask([1], v)),
    ("n_positions", lambda v: lessons.sinusoidal_encoding(v, 4)),
    ("num_heads", lambda v: lessons.alibi_slopes(v)),
    ("n", lambda v: lessons.alibi_bias(v, 2)),
    ("num_heads", lambda v: lessons.alibi_bias(3, v)),
    ("d_model", lambda v: lessons.MultiHeadAttention(v, 1)),
    ("num_heads", lambda v: lessons.MultiHeadAttention(8, v)),
    ("d_ff", lambda v: lessons.TransformerBlock(8, 2, v)),
    ("num_heads", lambda v: lessons.split_heads(np.ones((1, 2, 4)), v)),
    ("block_size", lambda v: lessons.tiled_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), v)),
    ("n_samples", lambda v: lessons.position_task(v)),
    ("n_tokens", lambda v: lessons.reversal_task(4, n_tokens=v)),
    ("vocab_size", lambda v: lessons.AttentionModel(v, 4, 2)),
    ("steps", lambda v: lessons.train(lessons.AttentionModel(4, 3, 2), torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, dtype=torch.long), steps=v)),
]  # fmt: skip


@pytest.mark.parametrize("bad", BAD_SIZES, ids=repr)
@pytest.mark.parametrize(("argument", "call"), SIZE_CALLS, ids=[a for a, _ in SIZE_CALLS])
def test_a_size_is_an_integer_of_at_least_one(argument, call, bad):
    _raises_naming(lambda: call(bad), argument)


@settings(deadline=None)
@given(st.integers(1, 6))
def test_numpy_integers_are_sizes_too(n):
    assert lessons.causal_mask(np.int64(n)).shape == (n, n)
    assert lessons.sinusoidal_encoding(np.int32(n), 4).shape == (n, 4)


# -------------------------------------------------------------------------- budget


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: lessons.causal_mask(100_000), "n"),
        (lambda: lessons.alibi_bias(20_000, 8), "n and num_heads"),
        (lambda: lessons.sinusoidal_encoding(10**9, 512), "n_positions"),
        (lambda: lessons.offset_matrix(1, 100_000), "d_model"),
        (lambda: lessons.MultiHeadAttention(2**16, 1), "d_model"),
        (lambda: lessons.position_task(10**9 * 3, target_positions=(1, 2)), "n_samples"),
        (lambda: lessons.padding_mask([1] * 100_000, 100_000), "lengths"),
    ],
)
def test_memory_guard_refuses_before_allocating_and_says_how_much(call, argument):
    with pytest.raises(ValueError, match=r"would need [\d.]+ [GT]iB") as info:
        call()
    assert argument in str(info.value)


def test_attention_budget_counts_the_weights():
    Q = torch.zeros(1, 20_000, 1).expand(8, 20_000, 1)  # [h, n, 1], no memory behind it
    _raises_naming(lambda: lessons.attention(Q, Q, Q), "Q and K")


def test_the_budget_is_one_stated_constant():
    assert _validate.MEMORY_BUDGET == lessons.MEMORY_BUDGET == 2**30
    _validate.check_budget("x is", _validate.MEMORY_BUDGET)  # exactly at the budget: fine
    with pytest.raises(ValueError, match="x is too large: one array would need 1 GiB"):
        _validate.check_budget("x is", _validate.MEMORY_BUDGET + 1)


# ---------------------------------------------------------------- numbers in: arrays


NUMERIC_CALLS = [  # (argument, shape of a good value, call)
    ("x", (2, 2), lambda a: lessons.softmax(a)),
    ("Q", (2, 2), lambda a: lessons.attention(a, np.ones((2, 2)), np.ones((2, 2)))),
    ("K", (2, 2), lambda a: lessons.attention(np.ones((2, 2)), a, np.ones((2, 2)))),
    ("V", (2, 2), lambda a: lessons.attention(np.ones((2, 2)), np.ones((2, 2)), a)),
    ("Q", (2, 2), lambda a: lessons.tiled_attention(a, np.ones((2, 2)), np.ones((2, 2)))),
    ("V", (2, 2), lambda a: lessons.tiled_attention(np.ones((2, 2)), np.ones((2, 2)), a)),
    ("X", (2, 2), lambda a: lessons.project(a, np.ones((2, 2)))),
    ("W", (2, 2), lambda a: lessons.project(np.ones((2, 2)), a)),
    ("X", (2, 2), lambda a: lessons.rope(a)),
    ("X", (1, 2, 2), lambda a: lessons.split_heads(a, 1)),
    ("X", (1, 1, 2, 2), lambda a: lessons.merge_heads(a)),
    ("query", (1, 2, 2), lambda a: lessons.MultiHeadAttention(2, 1)(a)),
    ("x", (1, 2, 2), lambda a: lessons.TransformerBlock(2, 1, 4)(a)),
]

BAD_ARRAYS = {
    "nan": lambda s: np.full(s, np.nan),
    "inf": lambda s: np.full(s, np.inf),
    "complex": lambda s: np.ones(s) * 1j,
    "text": lambda s: np.full(s, "a"),
    "ragged": lambda s: [[1.0, 2.0], [3.0]],
    "empty": lambda s: np.ones(s[:-2] + (0,) + s[-1:]),
    "object": lambda s: object(),
}


@pytest.mark.parametrize("kind", list(BAD_ARRAYS))
@pytest.mark.parametrize(
    ("argument", "shape", "call"),
    NUMERIC_CALLS,
    ids=[f"{i}-{c[0]}" for i, c in enumerate(NUMERIC_CALLS)],
)
def test_numbers_in_are_real_finite_and_not_empty(argument, shape, call, kind):
    _raises_naming(lambda: call(BAD_ARRAYS[kind](shape)), argument)


@pytest.mark.parametrize(
    ("argument", "shape", "call"),
    NUMERIC_CALLS,
    ids=[f"{i}-{c[0]}" for i, c in enumerate(NUMERIC_CALLS)],
)
def test_the_same_calls_with_good_lists_give_finite_results(argument, shape, call):
    good = np.arange(math.prod(shape), dtype=float).reshape(shape) / 4
    result = call(good.tolist())
    results = result if isinstance(result, tuple) else (result,)
    for r in results:
        assert np.isfinite(_validate.as_numpy(r)).all()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=6))
def test_lists_of_integers_are_numbers(values):
    got = lessons.softmax(values)
    np.testing.assert_allclose(got, lessons.softmax(np.asarray(values, dtype=float)))
    assert np.isclose(got.sum(), 1.0)


def test_softmax_keeps_minus_infinity_as_weight_zero():
    np.testing.assert_array_equal(lessons.softmax([0.0, -np.inf]), [1.0, 0.0])


def test_base_and_offset_must_be_finite_numbers():
    for bad in (0, -1.0, float("nan"), float("inf"), "1e4", True):
        _raises_naming(lambda bad=bad: lessons.sinusoidal_encoding(4, 4, base=bad), "base")
        _raises_naming(lambda bad=bad: lessons.rope(np.ones((2, 4)), base=bad), "base")
    for bad in (float("nan"), float("inf"), "2", None):
        _raises_naming(lambda bad=bad: lessons.offset_matrix(bad, 4), "k")


def test_positions_of_rope_are_finite_one_per_row():
    _raises_naming(lambda: lessons.rope(np.ones((2, 4)), positions=[0.0, np.nan]), "positions")
    _raises_naming(lambda: lessons.rope(np.ones((2, 4)), positions=[0, 1, 2]), "positions")


def test_overflowing_scores_raise_instead_of_giving_nan():
    big = torch.full((2, 2), 1e30)  # [n, d_k], float32: the scores overflow
    _raises_naming(lambda: lessons.attention(big, big, big), "scores")
    _raises_naming(lambda: lessons.tiled_attention(big.numpy(), big.numpy(), big.numpy()), "scores")


def test_d_k_zero_is_empty_not_a_division_by_zero():
    _raises_naming(
        lambda: lessons.tiled_attention(np.ones((2, 0)), np.ones((2, 0)), np.ones((2, 1))), "Q"
    )


# ------------------------------------------------------------ tensors: kinds, dtypes


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.sampled_from([2, 4, 6]))
def test_rope_on_integer_tensors_computes_in_floats(n, d):
    X = torch.arange(n * d).reshape(n, d)  # [n, d], int64
    got = lessons.rope(X)  # [n, d]
    assert got.dtype == torch.get_default_dtype()
    expected = lessons.rope(X.double().numpy())  # [n, d]
    np.testing.assert_allclose(got.double().numpy(), expected, rtol=1e-5, atol=1e-4)


def test_torch_modules_convert_lists_and_numpy_to_their_dtype():
    mha = lessons.MultiHeadAttention(4, 2)
    x = np.ones((1, 3, 4))  # [B, n, d_model], float64
    out, weights = mha(x)  # [B, n, d_model], [B, h, n, n]
    assert out.dtype == torch.float32 and weights.shape == (1, 2, 3, 3)
    torch.testing.assert_close(out, mha(torch.ones(1, 3, 4))[0])
    block = lessons.TransformerBlock(4, 2, 8)
    torch.testing.assert_close(block(x.tolist()), block(torch.ones(1, 3, 4)))


def test_a_tensor_of_another_float_dtype_is_refused_with_the_fix():
    with pytest.raises(
        ValueError, match=r"query has dtype torch.float64 .* query.to\(torch.float32\)"
    ):
        lessons.MultiHeadAttention(4, 2)(torch.ones(1, 3, 4, dtype=torch.float64))


def test_projection_accepts_lists_and_mixed_kinds():
    X, W = [[1.0, 2.0]], [[1.0], [1.0]]
    np.testing.assert_array_equal(lessons.project(X, W), [[3.0]])
    got = lessons.project(torch.tensor(X), W)
    assert torch.is_tensor(got) and got.item() == 3.0


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 6), st.sampled_from([torch.float16, torch.bfloat16]))
def test_half_precision_attention_is_computed_as_pytorch_does(n_q, n_k, dtype):
    g = torch.Generator().manual_seed(n_q * 10 + n_k)
    Q = (3 * torch.randn(n_q, 8, generator=g)).to(dtype)  # [n_q, d_k]
    K = (3 * torch.randn(n_k, 8, generator=g)).to(dtype)  # [n_k, d_k]
    V = torch.randn(n_k, 3, generator=g).to(dtype)  # [n_k, d_v]
    out, weights = lessons.attention(Q, K, V)
    assert out.dtype == weights.dtype == dtype
    expected = F.scaled_dot_product_attention(Q[None], K[None], V[None])[0]  # [n_q, d_v]
    torch.testing.assert_close(out, expected, atol=3e-2, rtol=3e-2)


def test_half_precision_scores_beyond_float16_stay_finite():
    Q = torch.full((2, 8), 100.0, dtype=torch.float16)  # [n, d_k]: Q K^T = 80000 > 65504
    V = torch.tensor([[1.0], [3.0]], dtype=torch.float16)  # [n, d_v]
    out, weights = lessons.attention(Q, Q, V)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    expected = F.scaled_dot_product_attention(Q.float()[None], Q.float()[None], V.float()[None])
    torch.testing.assert_close(out, expected[0].half())


def test_integer_and_complex_tensors_are_refused_with_the_fix():
    ints = torch.ones(2, 2, dtype=torch.long)
    with pytest.raises(ValueError, match=r"floating dtype.*\.float\(\)"):
        lessons.attention(ints, ints, ints)
    c = torch.ones(2, 2, dtype=torch.complex64)
    _raises_naming(lambda: lessons.attention(c, c, c), "Q")


# --------------------------------------------------------------------------- training


def _model(readout="cls"):
    return lessons.AttentionModel(5, 4, 3, d_model=4, readout=readout)


def test_token_ids_and_labels_must_lie_in_range():
    model = _model()
    x = torch.zeros(2, 4, dtype=torch.long)  # [N, n]
    y = torch.zeros(2, dtype=torch.long)  # [N]
    _raises_naming(lambda: model(x + 5), "tokens")
    _raises_naming(lambda: model(x - 1), "tokens")
    _raises_naming(lambda: lessons.train(model, x + 5, y, steps=1), "inputs")
    _raises_naming(lambda: lessons.train(model, x, y + 3, steps=1), "targets")
    _raises_naming(lambda: lessons.accuracy(model, x, y - 1), "targets")


def test_targets_are_shaped_as_the_readout_says():
    x = torch.zeros(2, 4, dtype=torch.long)  # [N, n]
    _raises_naming(
        lambda: lessons.train(_model(), x, torch.zeros(2, 4, dtype=torch.long), steps=1), "targets"
    )
    _raises_naming(
        lambda: lessons.train(_model("tokens"), x, torch.zeros(2, dtype=torch.long), steps=1),
        "targets",
    )
    _raises_naming(
        lambda: lessons.train(_model(), x, torch.zeros(3, dtype=torch.long), steps=1), "targets"
    )


def test_ids_must_be_integers_and_lists_of_integers_are_converted():
    model = _model()
    _raises_naming(lambda: model(torch.zeros(2, 4)), "tokens")
    _raises_naming(lambda: lessons.train(model, np.zeros((2, 4)), [0, 0], steps=1), "inputs")
    losses = lessons.train(model, [[0, 1, 2, 3]], [1], steps=2)
    assert len(losses) == 2 and all(math.isfinite(v) for v in losses)


@pytest.mark.parametrize("lr", [float("inf"), float("nan"), 0.0, -0.1, "0.01", True, None])
def test_lr_is_a_finite_positive_number_checked_before_the_first_step(lr):
    model = _model()
    before = [p.detach().clone() for p in model.parameters()]
    x, y = torch.zeros(2, 4, dtype=torch.long), torch.zeros(2, dtype=torch.long)
    _raises_naming(lambda: lessons.train(model, x, y, steps=1, lr=lr), "lr")
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def test_a_finite_but_huge_lr_is_blamed_not_the_attention():
    model = _model()
    x, y = lessons.position_task(6, n_tokens=3, vocab_size=4, target_positions=(1,), target_value=1)
    model = lessons.AttentionModel(5, 4, 2, d_model=4)
    _raises_naming(lambda: lessons.train(model, x, y, steps=5, lr=1e300), "lr")


def test_an_empty_set_has_no_accuracy():
    _raises_naming(
        lambda: lessons.accuracy(
            _model(), torch.zeros(0, 4, dtype=torch.long), torch.zeros(0, dtype=torch.long)
        ),
        "inputs",
    )


def test_train_needs_an_attention_model():
    _raises_naming(lambda: lessons.train(torch.nn.Linear(2, 2), [[0]], [0]), "model")


# ----------------------------------------------------------------------------- checks


@settings(deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_number_that_is_not_the_right_integer_is_wrong(x):
    verdict = check_mha_parameter_count(x, 2, bias=False)  # 16 is right
    assert bool(verdict) == (x == 16)
    assert bool(check_pair_count(x, 4)) == (x == 16)


@pytest.mark.parametrize(
    "answer",
    [24.9, True, "24", [[1, 2], [3]], float("inf"), float("nan"), 1j, object()],
    ids=lambda a: type(a).__name__ if type(a) is object else repr(a),
)
def test_odd_answers_get_a_verdict_not_an_exception(answer):
    for verdict in (
        check_mha_parameter_count(answer, 2),
        check_pair_count(answer, 4),
        check_weight_bytes(answer, 1, 1, 2, 4),
        lessons.check_causal_mask(answer, 2),
        lessons.check_padding_mask(answer, [1, 2], 2),
        lessons.check_softmax_function(answer),
        lessons.check_attention(answer, np.eye(2), np.eye(2), np.eye(2)),
        lessons.check_perpendicular_entry(answer, [1, 2], [3, 0], 1),
        lessons.check_sinusoidal_encoding(answer, 2, 4),
    ):
        assert not verdict and verdict.message.startswith("✘")


# ---------------------------------------------------------------- widgets and glue


def test_the_explorer_refuses_more_tokens_than_it_can_show_and_says_how_many():
    n = MAX_TOKENS + 1
    with pytest.raises(ValueError, match=rf"at most {MAX_TOKENS} tokens"):
        lessons.explorer(
            [str(i) for i in range(n)], np.ones((n, 2)), np.ones((n, 2)), np.ones((n, 2))
        )
    ok = lessons.explorer(["a"] * MAX_TOKENS, *(np.ones((MAX_TOKENS, 2)),) * 3)
    assert len(ok.tokens) == MAX_TOKENS


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4), st.text(max_size=12))
def test_every_reader_string_is_escaped_and_direction_isolated(tokens, title):
    n = len(tokens)
    page = lessons.explorer(
        tokens, np.eye(n, 2), np.eye(n, 2), np.eye(n, 2), title=title
    )._repr_html_()
    static = page.split('<script type="application/json"')[0]
    import html

    for token in tokens:
        assert f"<bdi>{html.escape(token)}</bdi>" in static
    assert f"<bdi>{html.escape(title)}</bdi>" in static
    data = page.split('data-explorer-data="">')[1].split("</script>")[0]
    assert "<" not in data and ">" not in data  # no tag can open inside the JSON


def test_the_script_isolates_tokens_and_the_title():
    script = lessons.book.widgets.explorer_page.asset("explorer.js")
    assert 'el("bdi"' in script
    assert "isolated(data.title)" in script and "isolated(tokens[i])" in script


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("<eos>", r"\<eos\>"),
        ("*2*", r"\*2\*"),
        ("o_0 = 1", "o_0 = 1"),
        ("$x$", r"\$x\$"),
        ("1,000", "1,000"),
    ],
)
def test_glued_strings_are_text_unless_markdown_is_asked_for(text, shown):
    glued = lessons.glue("s", text)
    assert glued == text and repr(glued) == text
    assert glued._repr_markdown_() == shown
    assert lessons.glue("s", text, markdown=True)._repr_markdown_() == text


# ------------------------------------------------------------- the rest of the API


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: lessons.word_vectors(5), "words"),
        (lambda: lessons.word_vectors(["bank", 3]), "words"),
        (lambda: lessons.MultiHeadAttention.from_torch(torch.nn.Linear(2, 2)), "mha"),
        (lambda: lessons.TransformerBlock.from_torch(torch.nn.Linear(2, 2)), "layer"),
        (lambda: lessons.split_qkv(np.float64(3.0)), "QKV"),
        (lambda: lessons.glue("two words", 1), "name"),
        (lambda: lessons.glue(3, 1), "name"),
        (lambda: lessons.explorer("a b", np.eye(2), np.eye(2), np.eye(2)).compute(temperature=0), "temperature"),
        (lambda: lessons.explorer("a b", np.eye(2), np.eye(2), np.eye(2), X=np.eye(2), features=5), "features"),
        (lambda: lessons.train(_model(), [[0, 1, 2, 3]], [1], steps=1, callback=5), "callback"),
        (lambda: lessons.position_task(4, target_positions=4), "target_positions"),
        (lambda: lessons.position_task(4, target_positions=(True,)), "target positions"),
        (lambda: lessons.additive_mask(np.ones(2, bool), fill=float("nan")), "fill"),
        (lambda: lessons.additive_mask(np.ones(2, bool), fill="-1"), "fill"),
        (lambda: lessons.padding_mask([], 3), "lengths"),
        (lambda: lessons.padding_mask([1.5], 3), "lengths"),
        (lambda: lessons.combine_masks([[True], [True, False]]), "mask 0"),
        (lambda: lessons.attention(np.eye(2), np.eye(2), np.eye(2), mask=[[True], [True, False]]), "mask"),
        (lambda: lessons.softmax([1.0, 2.0], axis=1.0), "axis"),
        (lambda: lessons.position_labels([[0.5, 1.0]], (1,)), "tokens"),
        (lambda: lessons.AttentionModel(4, 3, 2, dtype=torch.long), "dtype"),
        (lambda: lessons.train(_model(), [[0, 1], [2]], [0, 1], steps=1), "inputs"),
    ],
)  # fmt: skip
def test_every_other_public_function_names_what_is_wrong(call, argument):
    _raises_naming(call, argument)


def test_the_explorer_refuses_inputs_too_wide_for_its_page():
    wide = np.ones((2, 40_000))  # [n, d_k]: 240,000 numbers in Q, K and V
    _raises_naming(lambda: lessons.explorer("a b", wide, wide, wide), "Q, K and V")
    _raises_naming(
        lambda: lessons.explorer("a b", np.eye(2), np.eye(2), np.eye(2), X=np.ones((2, 70_000))),
        "X",
    )


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab_0 *<>&$`[]()!~|{}#\\:.-+=")), max_size=16))
def test_a_glued_string_renders_as_the_same_text(text):
    markdown_it = pytest.importorskip("markdown_it")
    dollarmath = pytest.importorskip("mdit_py_plugins.dollarmath")
    import html

    md = markdown_it.MarkdownIt("commonmark").use(dollarmath.dollarmath_plugin)
    shown = md.renderInline(lessons.glue("s", text)._repr_markdown_())
    assert html.unescape(shown) == text


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: lessons.check_soft_lookup(1.0, [1.0, np.nan], np.eye(2), np.eye(2)), "query"),
        (lambda: lessons.check_perpendicular_entry(1.0, [1, 2], [1, 2, 3], 0), "a and b"),
        (lambda: lessons.check_projection(None, np.eye(2), np.eye(3)), "W"),
        (lambda: lessons.check_attention(None, np.eye(2), np.eye(3), np.eye(2)), "d_k"),
        (lambda: lessons.check_attention_weights(None, np.eye(2) * 1j, np.eye(2)), "Q"),
    ],
)
def test_a_check_given_bad_exercise_inputs_names_them(call, argument):
    _raises_naming(call, argument)


def test_chapter_11_checks_take_lists_and_name_a_bad_position():
    tokens, labels = lessons.position_task(
        30, n_tokens=4, vocab_size=8, target_positions=(2,), target_value=3
    )
    model = lessons.hand_built_position_model(4, 8, (2,), 3)
    verdict = lessons.check_blocked_accuracy(0.25, model, tokens.tolist(), labels.tolist(), 2)
    assert not verdict and verdict.message.startswith("✘")
    _raises_naming(
        lambda: lessons.check_blocked_accuracy(0.5, model, tokens, labels, 9), "position"
    )
    row = lessons.check_cls_row(None, model, tokens[:1].tolist())
    assert not row.answered
