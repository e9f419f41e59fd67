"""Chapter 6's self-checks (Masking): the right answer passes, and each
mistake a learner makes is named."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import lessons

N, P = 6, 3  # Exercise 6.1: six tokens, a three-token prompt


CAUSAL = np.tril(np.ones((N, N), dtype=bool))  # [n_q, n_k]


PROMPT = np.arange(N)[None, :] < P  # [1, n_k]


PREFIX = CAUSAL | PROMPT  # [n_q, n_k]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (np.tril(np.ones((4, 4), dtype=bool)), "Correct"),
        (torch.from_numpy(np.tril(np.ones((4, 4), dtype=bool))), "Correct"),
        (np.triu(np.ones((4, 4), dtype=bool), k=1), "nn.MultiheadAttention's convention"),
        (np.triu(np.ones((4, 4), dtype=bool)), "transpose"),
        (np.tril(np.ones((4, 4), dtype=bool), k=-1), "diagonal is missing"),
        (np.tril(np.ones((4, 4))), "make it boolean"),
        (lessons.additive_mask(lessons.causal_mask(4)), "additive mask"),
        (np.ones((3, 3), dtype=bool), "shape [4, 4]"),
        (np.ones((4, 4), dtype=bool), "np.tril of ones"),
    ],
)
def test_check_causal_mask_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_causal_mask(answer, 4))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lessons.padding_mask([2, 3], 4), "Correct"),
        (lessons.padding_mask([2, 3], 4)[:, 0], "add the query axis"),
        (~lessons.padding_mask([2, 3], 4), "key_padding_mask's convention"),
        (lessons.padding_mask([1, 3], 4), "j < lengths[b]"),
        (lessons.padding_mask([2, 3], 4).astype(int), "boolean"),
        (np.ones((2, 4, 4), dtype=bool), "shape [B, 1, n]"),
    ],
)
def test_check_padding_mask_names_the_mistake(answer, expected):
    assert expected in repr(lessons.check_padding_mask(answer, [2, 3], 4))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (PREFIX, "Correct"),
        (CAUSAL, "plain causal mask"),
        (CAUSAL & PROMPT, "combine them with OR"),
        (np.ones((N, N), dtype=bool), "Nothing is blocked"),
        (CAUSAL | (np.arange(N)[None, :] <= P), "one token too long"),
        (~PREFIX, "nn.MultiheadAttention's convention"),
        (PREFIX.T, "transpose"),
        (PREFIX & ~np.eye(N, dtype=bool), "diagonal is missing"),
        (PREFIX.astype(int), "make it boolean"),
        (lessons.additive_mask(PREFIX), "additive mask"),
        (PREFIX[:5, :5], "shape [6, 6]"),
        (np.eye(N, dtype=bool), "j <= i or j < 3"),
    ],
)
def test_check_causal_mask_with_a_prompt_names_each_mistake(answer, expected):
    assert expected in repr(lessons.check_causal_mask(answer, N, prefix=P))


@given(n=st.integers(1, 12), data=st.data())
def test_check_causal_mask_accepts_exactly_the_prefix_mask(n, data):
    p = data.draw(st.integers(0, n))
    i, j = np.indices((n, n))  # query and key positions
    right = (j <= i) | (j < p)  # [n, n]
    assert lessons.check_causal_mask(right, n, prefix=p)
    flip = data.draw(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)))
    wrong = right.copy()
    wrong[flip] = not wrong[flip]  # one cell changed
    assert not lessons.check_causal_mask(wrong, n, prefix=p)


def test_check_causal_mask_without_a_prompt_is_the_plain_causal_check():
    assert lessons.check_causal_mask(CAUSAL, N)
    assert "np.tril of ones" in repr(lessons.check_causal_mask(PREFIX, N))


@pytest.mark.parametrize("prefix", [-1, N + 1, 1.5, True])
def test_check_causal_mask_rejects_a_prompt_longer_than_the_sequence(prefix):
    with pytest.raises(ValueError, match="prefix"):
        lessons.check_causal_mask(CAUSAL, N, prefix=prefix)
