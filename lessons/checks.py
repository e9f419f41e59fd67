"""Self-checks for the exercises: right or wrong, and why.

Each ``check_*`` takes the reader's answer (and the exercise's inputs), works out
the right answer itself, and returns a ``Verdict`` that shows one line in the
notebook: correct, or what the answer looks like instead (a common mistake,
named) and how to fix it. Put the check on the last line of the cell.

Where each one is used: ``check_soft_lookup`` and ``check_pair_count`` in
chapter 1; ``check_dot_product``, ``check_score_matrix`` and
``check_softmax_function`` in chapter 2; ``check_projection`` in chapter 3;
``check_attention`` in chapter 4; ``check_attention_weights`` in chapter 5;
``check_causal_mask`` and ``check_padding_mask`` in chapter 6;
``check_split_heads`` and ``check_mha_parameter_count`` in chapter 7;
``check_sinusoidal_encoding`` in chapter 8; ``check_block_output`` in chapter 9.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike

from .softmax import softmax

__all__ = [
    "Verdict",
    "check_attention",
    "check_attention_weights",
    "check_block_output",
    "check_causal_mask",
    "check_dot_product",
    "check_mha_parameter_count",
    "check_padding_mask",
    "check_projection",
    "check_pair_count",
    "check_score_matrix",
    "check_sinusoidal_encoding",
    "check_soft_lookup",
    "check_softmax_function",
    "check_split_heads",
]

_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Verdict:
    """The outcome of a self-check: ``ok`` is True when the answer is right.

    It is truthy exactly when the answer is right, and shows ``message`` in a
    notebook (as text, and as a coloured box where HTML is shown).
    """

    ok: bool
    message: str
    answered: bool = True

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        colour = "#009E73" if self.ok else ("#0072B2" if not self.answered else "#D55E00")
        return (
            f'<div class="lessons-check" style="border-left: 4px solid {colour}; '
            'padding: 0.3em 0.7em; margin: 0.2em 0;">'
            f"{html.escape(self.message)}</div>"
        )


def _right(message: str) -> Verdict:
    return Verdict(True, f"✔ Correct. {message}")


def _wrong(message: str) -> Verdict:
    return Verdict(False, f"✘ Not yet. {message}")


def _unanswered(what: str) -> Verdict:
    return Verdict(False, f"✏ No answer yet: replace the ... or None with {what}.", answered=False)


def _is_missing(answer: Any) -> bool:
    return answer is None or answer is Ellipsis


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, atol=_TOLERANCE, rtol=_TOLERANCE))


def _as_float_array(answer: Any) -> np.ndarray | None:
    """The answer as a float array, or None if it is not numeric."""
    try:
        array = np.asarray(answer.detach() if hasattr(answer, "detach") else answer, dtype=float)
    except (TypeError, ValueError):
        return None
    return array


def _named_mistake(got: np.ndarray, mistakes: list[tuple[Any, str]]) -> Verdict | None:
    """The explanation of the first common mistake the answer matches, or None.

    ``mistakes`` pairs what a wrong method computes (None where it cannot apply to
    these inputs) with the explanation the reader sees. Every check that
    diagnoses numeric answers lists its mistakes this way.
    """
    for candidate, message in mistakes:
        if candidate is not None and _close(got, candidate):
            return _wrong(message)
    return None


def check_dot_product(answer: Any, a: ArrayLike, b: ArrayLike) -> Verdict:
    """Check a dot product ``a · b`` worked out by the reader (chapter 2)."""
    if _is_missing(answer):
        return _unanswered("the dot product of a and b, a single number")
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    expected = float(a @ b)
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be a number; got {type(answer).__name__}.")
    if got.shape == a.shape and _close(got, a * b):
        return _wrong(
            "You have the element-wise products a_k * b_k; the dot product adds them up "
            "into one number (np.sum, or a @ b)."
        )
    if got.size != 1:
        return _wrong(f"The dot product is one number; your answer has shape {got.shape}.")
    value = float(got.reshape(()))
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norms > 0 and abs(value - expected / norms) < _TOLERANCE and abs(expected) > _TOLERANCE:
        return _wrong(
            "That is the cosine similarity (the dot product divided by both lengths); "
            "the dot product keeps the lengths."
        )
    if abs(value - expected) < _TOLERANCE:
        return _right(f"a · b = {expected:g}.")
    if abs(value + expected) < _TOLERANCE:
        return _wrong("The sign is flipped: check the products of entries with opposite signs.")
    return _wrong(f"{value:g} is not a · b: multiply matching entries, then add the products.")


def check_score_matrix(answer: Any, Q: ArrayLike, K: ArrayLike) -> Verdict:
    """Check a table of all query-key dot products, ``Q @ K.T`` (chapter 2)."""
    if _is_missing(answer):
        return _unanswered("the [n_q, n_k] table of dot products q_i · k_j")
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    expected = Q @ K.T  # [n_q, n_k]
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be a 2-D array; got {type(answer).__name__}.")
    if _close(got, expected):
        return _right(f"Entry (i, j) is q_i · k_j, and the table has shape {expected.shape}.")
    mistake = _named_mistake(
        got,
        [
            (
                expected.T,
                f"This is K @ Q.T, the transpose: rows must be queries and columns keys, "
                f"so the shape is [n_q, n_k] = {list(expected.shape)}.",
            ),
            (
                Q * K if Q.shape == K.shape else None,
                "Q * K multiplies entries one by one; a table of dot products needs Q @ K.T.",
            ),
        ],
    )
    if mistake is not None:
        return mistake
    if got.shape != expected.shape:
        return _wrong(
            f"The table should have one row per query and one column per key, shape "
            f"{list(expected.shape)}; yours has shape {list(got.shape)}."
        )
    wrong = np.argwhere(~np.isclose(got, expected, atol=_TOLERANCE))
    i, j = (int(v) for v in wrong[0])
    return _wrong(
        f"Entry ({i}, {j}) should be q_{i} · k_{j} = {expected[i, j]:g}; yours is {got[i, j]:g}."
    )


def check_softmax_function(fn: Callable[[np.ndarray], Any]) -> Verdict:
    """Check a reader's softmax function on the cases that catch the usual bugs (chapter 2).

    ``fn(x)`` must normalise the last axis of a NumPy array, and survive large scores.
    """
    if _is_missing(fn):
        return _unanswered("your softmax function")
    if not callable(fn):
        return _wrong(
            f"Pass the function itself (softmax, not softmax(x)); got {type(fn).__name__}."
        )
    cases = [
        ("a small row [1, 2, 3]", np.array([1.0, 2.0, 3.0])),
        ("a 2-row table", np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])),
        ("large scores [1000, 1001, 1002]", np.array([1000.0, 1001.0, 1002.0])),
    ]
    for label, x in cases:
        with np.errstate(all="ignore"):
            try:
                got = _as_float_array(fn(x.copy()))
            except Exception as error:  # the reader's code failing is part of the verdict
                return _wrong(f"On {label} your function raised {type(error).__name__}: {error}")
        expected = softmax(x)
        if got is None or got.shape != x.shape:
            shape = None if got is None else got.shape
            return _wrong(f"On {label} the result should have shape {x.shape}; got {shape}.")
        if np.isnan(got).any():
            return _wrong(
                f"On {label} you get NaN: exp overflows to inf and inf / inf is NaN. "
                "Subtract each row's maximum before exp; the result does not change."
            )
        if _close(got, expected):
            continue
        if x.ndim == 2 and _close(got, softmax(x, axis=0)):
            return _wrong(
                f"On {label} you normalised columns; softmax normalises each row (axis=-1)."
            )
        if x.ndim == 2 and np.isclose(got.sum(), 1.0):
            return _wrong(
                f"On {label} the whole table sums to 1; each row should (use axis=-1 and keepdims=True)."
            )
        if not np.allclose(got.sum(axis=-1), 1.0):
            return _wrong(
                f"On {label} the rows do not sum to 1: divide the exponentials by their sum."
            )
        return _wrong(
            f"On {label} you get {np.round(got, 4)}; softmax gives {np.round(expected, 4)}."
        )
    return _right("Rows sum to 1, order is kept, and large scores do not overflow.")


def check_soft_lookup(answer: Any, query: ArrayLike, keys: ArrayLike, values: ArrayLike) -> Verdict:
    """Check a soft dictionary look-up: ``softmax(keys @ query) @ values`` (chapter 1).

    ``query [d]``, ``keys [n, d]``, ``values [n, d_v]``; the answer is ``[d_v]``.
    """
    if _is_missing(answer):
        return _unanswered("the weighted average of the values, one vector")
    query = np.asarray(query, dtype=float)
    keys = np.asarray(keys, dtype=float)
    values = np.asarray(values, dtype=float)
    scores = keys @ query  # [n]
    weights = softmax(scores)  # [n]
    expected = weights @ values  # [d_v]
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be a vector; got {type(answer).__name__}.")
    if _close(got, expected):
        return _right("Each value counts in proportion to how well its key matches the query.")
    if _close(got, weights):
        return _wrong(
            "Those are the weights; the answer is the weighted average of the values, weights @ values."
        )
    if got.shape != expected.shape:
        return _wrong(
            f"The result is one value-sized vector, shape {expected.shape}; yours has shape {got.shape}."
        )
    if _close(got, values[int(np.argmax(scores))]):
        return _wrong(
            "That is a hard look-up (the value of the best key only); a soft look-up mixes "
            "every value with softmax weights."
        )
    if _close(got, values.mean(axis=0)):
        return _wrong("That is the plain average: the weights must come from the query-key scores.")
    if _close(got, scores @ values):
        return _wrong(
            "The raw scores are not weights: pass them through softmax first, so they sum to 1."
        )
    return _wrong(
        "Score each key against the query (a dot product), softmax the scores, then "
        "average the values with those weights."
    )


def check_pair_count(answer: Any, n: int) -> Verdict:
    """Check the number of query-key scores self-attention computes for ``n`` tokens (chapter 1)."""
    if _is_missing(answer):
        return _unanswered("a whole number")
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return _wrong(f"The answer should be a number; got {type(answer).__name__}.")
    if value == n * n:
        return _right(f"{n} queries times {n} keys: {n * n} scores, so the work grows like n².")
    if value == n * (n - 1) // 2:
        return _wrong(
            "You counted unordered pairs: the score of i for j and of j for i are separate, and each token scores itself too."
        )
    if value == n * (n - 1):
        return _wrong("Close: each token also scores itself (the diagonal).")
    if value == n:
        return _wrong("Every token scores every other token, not just one each.")
    return _wrong("Count one score for every (query, key) pair, a token with itself included.")


def check_projection(answer: Any, X: ArrayLike, W: ArrayLike) -> Verdict:
    """Check a projection of embeddings ``X [n, d_model]`` by ``W [d_model, d_out]`` (chapter 3)."""
    if _is_missing(answer):
        return _unanswered("the projected rows, shape [n, d_out]")
    X, W = np.asarray(X, dtype=float), np.asarray(W, dtype=float)
    expected = X @ W  # [n, d_out]
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be an array; got {type(answer).__name__}.")
    if _close(got, expected):
        return _right(f"X @ W maps each of the {X.shape[0]} rows to {W.shape[1]} numbers.")
    mistake = _named_mistake(
        got,
        [
            (
                expected.T,
                f"This is the transpose: with row vectors the result has one row per token, "
                f"shape {list(expected.shape)}.",
            ),
            (
                X @ W.T if W.shape[0] == W.shape[1] else None,
                "You used W.T: with W stored as [d_model, d_out], the projection is X @ W.",
            ),
        ],
    )
    if mistake is not None:
        return mistake
    if got.shape != expected.shape:
        return _wrong(
            f"[n, d_model] @ [d_model, d_out] gives shape {list(expected.shape)}; "
            f"yours has {list(got.shape)}."
        )
    return _wrong("Each output row is the input row times W: output[i] = X[i] @ W.")


def check_attention(answer: Any, Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Verdict:
    """Check a scaled dot-product attention output ``softmax(Q K^T / sqrt(d_k)) V`` (chapter 4)."""
    if _is_missing(answer):
        return _unanswered("the attention output, shape [n_q, d_v]")
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = Q @ K.T  # [n_q, n_k]
    weights = softmax(scores / np.sqrt(d_k))  # [n_q, n_k]
    expected = weights @ V  # [n_q, d_v]
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be an array; got {type(answer).__name__}.")
    if _close(got, expected):
        return _right("softmax(Q K^T / sqrt(d_k)) V: each row a weighted average of value rows.")
    mistake = _named_mistake(
        got,
        [
            (weights, "Those are the weights A; the output is A @ V."),
            (
                softmax(scores) @ V,
                "You forgot to divide the scores by sqrt(d_k) before the softmax.",
            ),
            (softmax(scores / d_k) @ V, "You divided by d_k; the scale is sqrt(d_k)."),
            (
                softmax(scores / np.sqrt(d_k), axis=0) @ V if K.shape[0] == Q.shape[0] else None,
                "The softmax went down the columns; each query's row must sum to 1 (axis=-1).",
            ),
            ((scores / np.sqrt(d_k)) @ V, "You skipped the softmax: scores are not weights."),
        ],
    )
    if mistake is not None:
        return mistake
    if got.shape != expected.shape:
        return _wrong(
            f"The output has one row per query: shape {list(expected.shape)}; yours {list(got.shape)}."
        )
    return _wrong("Scores Q @ K.T, divide by sqrt(d_k), softmax each row, then multiply by V.")


def check_attention_weights(answer: Any, Q: ArrayLike, K: ArrayLike) -> Verdict:
    """Check attention weights ``softmax(Q K^T / sqrt(d_k))``, shape ``[n_q, n_k]`` (chapter 5)."""
    if _is_missing(answer):
        return _unanswered("the weights, shape [n_q, n_k]")
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    scores = Q @ K.T  # [n_q, n_k]
    scaled = scores / np.sqrt(Q.shape[-1])  # [n_q, n_k]
    expected = softmax(scaled)  # [n_q, n_k]
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be an array; got {type(answer).__name__}.")
    if _close(got, expected):
        return _right("Every row sums to 1 and follows the scaled scores.")
    square = scores.shape[0] == scores.shape[1]
    mistake = _named_mistake(
        got,
        [
            (scores, "These are the raw scores Q @ K.T: scale them and apply softmax."),
            (scaled, "These are the scaled scores: apply softmax to each row."),
            (softmax(scores), "You forgot the scaling: divide the scores by sqrt(d_k) first."),
            (expected.T, "This is the transpose: rows are queries, columns are keys."),
            (
                softmax(scaled, axis=0) if square else None,
                "Each column sums to 1; softmax each row instead.",
            ),
        ],
    )
    if mistake is not None:
        return mistake
    if got.shape == expected.shape and not np.allclose(got.sum(axis=-1), 1.0):
        return _wrong("Your rows do not sum to 1: the weights are a softmax of each row.")
    return _wrong("Compute Q @ K.T, divide by sqrt(d_k), then softmax along each row.")


def check_causal_mask(answer: Any, n: int) -> Verdict:
    """Check a causal keep-mask for ``n`` tokens: ``True`` on and below the diagonal (chapter 6)."""
    if _is_missing(answer):
        return _unanswered(f"a boolean [{n}, {n}] mask")
    expected = np.tril(np.ones((n, n), dtype=bool))  # [n, n]
    got = np.asarray(answer.cpu() if hasattr(answer, "cpu") else answer)
    if got.shape != (n, n):
        return _wrong(
            f"One row per query and one column per key: shape [{n}, {n}]; yours {list(got.shape)}."
        )
    if got.dtype != np.bool_:
        if np.issubdtype(got.dtype, np.number) and np.array_equal(got, expected):
            return _wrong("Right pattern, but as numbers: make it boolean (dtype=bool).")
        if np.issubdtype(got.dtype, np.floating) and np.array_equal(np.isfinite(got), expected):
            return _wrong(
                "That is an additive mask (0 and -inf); this exercise asks for a boolean keep-mask."
            )
        return _wrong(f"A keep-mask is boolean; yours has dtype {got.dtype}.")
    if np.array_equal(got, expected):
        return _right("Token t may look at tokens 0..t and never at a later one.")
    if np.array_equal(got, ~expected):
        return _wrong(
            "True marks the blocked keys here: that is nn.MultiheadAttention's convention. "
            "This course (and F.scaled_dot_product_attention) uses True = may attend."
        )
    if np.array_equal(got, expected.T):
        return _wrong(
            "This lets each token see the future and not the past: the transpose (np.tril, not np.triu)."
        )
    if np.array_equal(got, np.tril(expected, k=-1)):
        return _wrong("The diagonal is missing: a token may attend to itself.")
    return _wrong("Row t should be True in columns 0..t and False after: np.tril of ones.")


def check_padding_mask(answer: Any, lengths: list[int], n: int) -> Verdict:
    """Check a padding keep-mask ``[B, 1, n]``, ``True`` at real tokens (chapter 6)."""
    if _is_missing(answer):
        return _unanswered(f"a boolean [{len(lengths)}, 1, {n}] mask")
    rows = np.arange(n)[None, :] < np.asarray(lengths)[:, None]  # [B, n]
    expected = rows[:, None, :]  # [B, 1, n]
    got = np.asarray(answer.cpu() if hasattr(answer, "cpu") else answer)
    if got.dtype != np.bool_:
        return _wrong(f"A keep-mask is boolean; yours has dtype {got.dtype}.")
    if got.shape == rows.shape and np.array_equal(got, rows):
        return _wrong(
            f"Right values, but shape [B, n] = {list(rows.shape)} would broadcast over the "
            f"wrong axis: add the query axis, [B, 1, n] (mask[:, None, :])."
        )
    if got.shape != expected.shape:
        return _wrong(
            f"The mask should have shape [B, 1, n] = {list(expected.shape)}; yours {list(got.shape)}."
        )
    if np.array_equal(got, expected):
        return _right(
            "Real tokens are True, padding False, and the middle axis broadcasts over queries."
        )
    if np.array_equal(got, ~expected):
        return _wrong(
            "True marks padding here (key_padding_mask's convention); this course keeps True = real token."
        )
    return _wrong("Position j of sequence b is real when j < lengths[b].")


def check_split_heads(answer: Any, X: Any, num_heads: int) -> Verdict:
    """Check heads split from ``X [B, n, d_model]`` into ``[B, h, n, d_k]`` (chapter 7)."""
    if _is_missing(answer):
        return _unanswered("a [B, h, n, d_k] tensor")
    X = torch.as_tensor(np.asarray(X.detach() if hasattr(X, "detach") else X, dtype=float))
    B, n, d_model = X.shape
    d_k = d_model // num_heads
    expected = X.view(B, n, num_heads, d_k).transpose(1, 2)  # [B, h, n, d_k]
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be a tensor; got {type(answer).__name__}.")
    if _close(got, expected.numpy()):
        return _right("Head i holds columns i*d_k to (i+1)*d_k - 1 of every token.")
    if _close(got, X.reshape(B, num_heads, n, d_k).numpy()):
        return _wrong(
            "Right shape, wrong contents: view(B, h, n, d_k) cuts the memory in the wrong "
            "order and mixes tokens into heads. Use view(B, n, h, d_k).transpose(1, 2)."
        )
    if _close(got, X.view(B, n, num_heads, d_k).numpy()):
        return _wrong("This is [B, n, h, d_k]: transpose(1, 2) to put heads before tokens.")
    return _wrong(
        f"Expected shape [B, h, n, d_k] = {list(expected.shape)}; yours is {list(got.shape)}."
    )


def check_mha_parameter_count(answer: Any, d_model: int, bias: bool = True) -> Verdict:
    """Check the parameter count of multi-head attention of width ``d_model`` (chapter 7)."""
    if _is_missing(answer):
        return _unanswered("a whole number")
    try:
        value = int(answer)
    except (TypeError, ValueError):
        return _wrong(f"The answer should be a number; got {type(answer).__name__}.")
    weights, biases = 4 * d_model * d_model, 4 * d_model
    expected = weights + (biases if bias else 0)
    if value == expected:
        return _right(
            "W_Q, W_K, W_V and W_O are each d_model x d_model, whatever the number of heads."
        )
    if value == 3 * d_model * d_model + (3 * d_model if bias else 0):
        return _wrong(
            "You counted W_Q, W_K and W_V; the output projection W_O has d_model² weights too."
        )
    if bias and value == weights:
        return _wrong(
            "Close: add the biases, one per output of each of the four projections (4 d_model)."
        )
    if not bias and value == weights + biases:
        return _wrong("This layer has bias=False: count the weights only.")
    return _wrong(
        "Count four d_model x d_model projections (Q, K, V, O), plus their biases if any."
    )


def check_sinusoidal_encoding(answer: Any, n_positions: int, d_model: int) -> Verdict:
    """Check a sinusoidal positional encoding ``[n_positions, d_model]`` (chapter 8)."""
    if _is_missing(answer):
        return _unanswered(f"a [{n_positions}, {d_model}] array")
    from .positions import sinusoidal_encoding

    expected = sinusoidal_encoding(n_positions, d_model)  # [n, d_model]
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be an array; got {type(answer).__name__}.")
    if got.shape != expected.shape:
        return _wrong(
            f"One row per position and one column per dimension: shape {list(expected.shape)}; yours {list(got.shape)}."
        )
    if _close(got, expected):
        return _right("Even columns are sines, odd columns cosines, with geometric wavelengths.")
    swapped = expected.copy()
    swapped[:, 0::2], swapped[:, 1::2] = expected[:, 1::2], expected[:, 0::2]
    if _close(got, swapped):
        return _wrong("Sine and cosine are swapped: column 2i is the sine, column 2i+1 the cosine.")
    halves = np.concatenate([expected[:, 0::2], expected[:, 1::2]], axis=1)
    if _close(got, halves):
        return _wrong(
            "All sines first, then all cosines: a layout some code uses, but this book "
            "interleaves them (column 2i sine, 2i+1 cosine)."
        )
    positions = np.arange(n_positions)[:, None]  # [n, 1]
    i = np.arange(d_model // 2)[None, :]  # [1, d/2]
    wrong_exponent = np.empty_like(expected)
    wrong_exponent[:, 0::2] = np.sin(positions / 10000 ** (i / d_model))
    wrong_exponent[:, 1::2] = np.cos(positions / 10000 ** (i / d_model))
    if _close(got, wrong_exponent):
        return _wrong(
            "The exponent is 2i / d_model, where i indexes the pair: you used i / d_model."
        )
    return _wrong("PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(the same).")


def check_block_output(answer: Any, block: Any, x: Any) -> Verdict:
    """Check a transformer block computed by hand from its parts (chapter 9).

    ``block`` is a ``lessons.TransformerBlock``; ``x [B, n, d_model]``.
    """
    if _is_missing(answer):
        return _unanswered("the block's output, shape [B, n, d_model]")
    with torch.no_grad():
        expected = block(x).numpy()  # [B, n, d_model]
        attend = block.attention(x)[0]
        ff, n1, n2 = block.feed_forward, block.norm1, block.norm2
        post = n2(n1(x + attend) + ff(n1(x + attend))).numpy()
        h = x + block.attention(n1(x))[0]
        pre = (h + ff(n2(h))).numpy()
        no_residual_post = n2(ff(n1(attend))).numpy()
    got = _as_float_array(answer)
    if got is None:
        return _wrong(f"The answer should be a tensor; got {type(answer).__name__}.")
    if _close(got, expected):
        return _right(
            "Attention and feed-forward, each with its residual and norm, in the right order."
        )
    other = post if block.norm_first else pre
    if _close(got, other):
        arrangement = "post-norm" if block.norm_first else "pre-norm"
        return _wrong(
            f"That is the {arrangement} arrangement; this block has norm_first={block.norm_first}."
        )
    if _close(got, no_residual_post):
        return _wrong(
            "The residual connections are missing: add each sublayer's input back to its output."
        )
    return _wrong(
        "Follow the block's two steps: attention with residual and norm, then feed-forward with residual and norm."
    )
