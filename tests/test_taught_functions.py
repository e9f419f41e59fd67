"""The taught functions read like their chapter, and check their inputs once per call.

`lessons.attention??` and `MultiHeadAttention.forward??` are what a learner opens: the
docstring, one call that checks the inputs, then the formula. Their bodies stay short, and
one call of either scans each tensor it is given for NaN and inf once, not again in every
helper it passes through.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

import pytest
import torch

import lessons
import lessons._validate
from lessons import MultiHeadAttention

# `lessons.attention` is the function; its module is reached by name.
ATTENTION_MODULE = importlib.import_module("lessons.attention")

MAX_BODY_LINES = 25


def body_lines(function) -> int:
    """Lines of ``function``'s body after its docstring (blank lines and comments excluded)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    definition = tree.body[0]
    body = definition.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    source = inspect.getsource(function).splitlines()
    first = body[0].lineno - 1
    last = body[-1].end_lineno
    code = [ln for ln in source[first:last] if ln.strip() and not ln.strip().startswith("#")]
    return len(code)


@pytest.mark.parametrize(
    "function", [lessons.attention, MultiHeadAttention.forward], ids=["attention", "forward"]
)
def test_the_taught_function_is_the_formula_on_one_screen(function):
    assert body_lines(function) <= MAX_BODY_LINES


def test_body_lines_counts_code_not_the_docstring():
    def example(x):
        """A docstring
        over two lines."""
        # a comment
        y = x + 1

        return y

    assert body_lines(example) == 2


@pytest.fixture
def scans(monkeypatch):
    """Every NaN/inf scan of a tensor during the test, as the scanned tensors themselves."""
    seen: list[torch.Tensor] = []
    original = lessons._validate.all_finite

    def counting(t):
        seen.append(t)
        return original(t)

    for module in (lessons._validate, ATTENTION_MODULE):
        monkeypatch.setattr(module, "all_finite", counting)
    return seen


def scanned_times(scans: list[torch.Tensor], tensor: torch.Tensor) -> int:
    return sum(1 for t in scans if t is tensor)


def test_one_self_attention_call_scans_each_tensor_once(scans):
    torch.manual_seed(0)
    mha = MultiHeadAttention(12, 3)
    x = torch.randn(2, 5, 12)  # [B, n, d_model]
    mha(x, mask=lessons.causal_mask(5))
    assert scanned_times(scans, x) == 1, "query, key and value are one tensor: one scan"
    ids = [id(t) for t in scans]
    assert len(ids) == len(set(ids)), "a tensor was scanned twice in one call"
    # query once; the projections Q, K, V once each (in lessons.attention); Z once
    assert len(scans) == 5


def test_one_cross_attention_call_scans_query_key_and_value_once_each(scans):
    torch.manual_seed(1)
    mha = MultiHeadAttention(8, 2)
    q, k, v = torch.randn(1, 3, 8), torch.randn(1, 6, 8), torch.randn(1, 6, 8)
    mha(q, k, v)
    assert [scanned_times(scans, t) for t in (q, k, v)] == [1, 1, 1]
    assert len({id(t) for t in scans}) == len(scans)


def test_the_fused_path_gives_the_written_out_output():
    torch.manual_seed(2)
    mha = MultiHeadAttention(16, 4).double()
    x = torch.randn(3, 7, 16, dtype=torch.float64)  # [B, n, d_model]
    causal = lessons.causal_mask(7)
    written, weights = mha(x, mask=torch.as_tensor(causal))
    fused, none = mha(x, mask=torch.as_tensor(causal), need_weights=False)
    assert none is None and weights.shape == (3, 4, 7, 7)
    torch.testing.assert_close(fused, written, rtol=0, atol=1e-12)
