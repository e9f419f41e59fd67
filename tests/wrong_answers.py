"""The mutation library: plausible wrong answers to every self-check, written as learners write them.

For each public ``lessons.check_*``:

- ``GIVENS[check]``: the inputs it judges on. First the chapter's own exercise inputs,
  read from the notebook's exercise cell (``exercise_givens``), so a notebook whose
  givens let a wrong formula through fails here; then other inputs, random (seeded) and
  hostile (square shapes, coincident sizes, large magnitudes), where a check is also
  used outside its exercise.
- ``WRONG[check]``: wrong implementations or values (a transpose, the wrong axis, the
  wrong scale, an off-by-one mask, frozen state, a missing term, the wrong head layout,
  no max subtraction, the mask's True and False swapped ...). Each is a function of the
  givens that returns what a learner making that slip would hand the check (for a check
  of a function, the learner's function itself). ``mistake`` is the catalogue's name for
  it, where the catalogue names it; the test then asserts the verdict says that name.
- ``RIGHT[check]``: right answers in other valid forms (float32, lists, tensors, einsum,
  another arrangement of the same formula), each to be judged right.

A slip that cannot happen on some givens (its code would raise on those shapes, or it
needs a square weight) returns ``NOT_APPLICABLE`` there; every slip applies to the
chapter's own givens unless it says ``exercise=False``.
``tests/test_checks_reject_wrong_answers.py`` runs the library.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import torch
from exercise_givens import givens as notebook_givens

import lessons
import lessons.lm as lm
from kit import course
from lessons.toy import FEATURES

#: What a slip returns on givens where its code could not run (it would raise there).
NOT_APPLICABLE = object()


@dataclass(frozen=True)
class Wrong:
    """A wrong answer: ``make(*givens, **keyword_givens)`` is what the learner hands in."""

    label: str
    make: Callable[..., Any]
    mistake: str | None = None  # the catalogue's name, where it names this slip
    exercise: bool = True  # applies to the chapter's own givens


@dataclass(frozen=True)
class Givens:
    """One set of inputs for a check: ``check(answer, *args, **kwargs)``."""

    label: str
    args: tuple
    kwargs: dict


def _from(notebook: str, check: str) -> list[Givens]:
    calls = notebook_givens(notebook)[check]
    return [Givens(f"{notebook[:2]} exercise", args, kwargs) for args, kwargs in calls]


def softmax(x: Any, axis: int = -1) -> np.ndarray:
    return lessons.softmax(np.asarray(x, dtype=float), axis=axis)


# --- chapter 1 -----------------------------------------------------------------------------------


def _lookup_parts(q, keys, values):
    q, keys, values = (np.asarray(a, dtype=float) for a in (q, keys, values))
    s = keys @ q  # [n]
    return q, keys, values, s


def _soft(fn):
    def make(q, keys, values):
        return fn(*_lookup_parts(q, keys, values))

    return make


SOFT_LOOKUP = [
    Wrong("raw scores", _soft(lambda q, k, v, s: s), "raw_scores"),
    Wrong("the weights", _soft(lambda q, k, v, s: softmax(s)), "weights_not_output"),
    Wrong("weighted, not summed", _soft(lambda q, k, v, s: softmax(s)[:, None] * v), "not_summed"),
    Wrong("no softmax", _soft(lambda q, k, v, s: s @ v), "no_softmax"),
    Wrong("scores over their sum", _soft(lambda q, k, v, s: (s / s.sum()) @ v), "scores_over_sum"),
    Wrong("hard look-up", _soft(lambda q, k, v, s: v[np.argmax(s)]), "hard_lookup"),
    Wrong("plain average", _soft(lambda q, k, v, s: v.mean(axis=0)), "plain_average"),
    Wrong("averaged the keys", _soft(lambda q, k, v, s: softmax(s) @ k), "averaged_keys"),
    Wrong("scaled by sqrt(d)", _soft(lambda q, k, v, s: softmax(s / np.sqrt(q.size)) @ v)),
    Wrong("exp, not normalised", _soft(lambda q, k, v, s: np.exp(s) @ v)),
    Wrong("softmax of minus the scores", _soft(lambda q, k, v, s: softmax(-s) @ v)),
    Wrong("last key's value", _soft(lambda q, k, v, s: v[-1])),
]


def _split(fn):
    def make(keys, pair, **_):
        keys = np.asarray(keys, dtype=float)
        return fn(keys, *pair)

    return make


def _others(keys, one, two):
    return [j for j in range(len(keys)) if j not in (one, two)]


SPLIT_QUERY = [
    Wrong("the zero query", _split(lambda k, a, b: np.zeros(k.shape[1])), "zero_query"),
    Wrong("one key of the pair", _split(lambda k, a, b: 5 * k[a]), "uneven_split"),
    Wrong(
        "between two other keys",
        _split(lambda k, a, b: 5 * k[_others(k, a, b)].sum(axis=0)),
        "points_elsewhere",
    ),
    Wrong("right way, too short", _split(lambda k, a, b: (k[a] + k[b]) / 40), "too_short"),
    Wrong("the difference of the keys", _split(lambda k, a, b: 5 * (k[a] - k[b]))),
    Wrong("a value, one number", _split(lambda k, a, b: 25.0), "value_not_query"),
    Wrong("a [1, d_k] row", _split(lambda k, a, b: (k[a] + k[b])[None, :]), "wrong_shape"),
    Wrong("lopsided sum", _split(lambda k, a, b: 3 * k[a] + k[b]), "uneven_split"),
]


def _count(fn):
    return lambda n: fn(n)


PAIR_COUNT = [
    Wrong("unordered pairs", _count(lambda n: n * (n - 1) // 2), "unordered_pairs"),
    Wrong("no diagonal", _count(lambda n: n * (n - 1)), "no_diagonal"),
    Wrong("one each", _count(lambda n: n), "one_each"),
    Wrong("unordered pairs with the diagonal", _count(lambda n: n * (n + 1) // 2), "other"),
    Wrong("2n", _count(lambda n: 2 * n)),
    Wrong("n² as a fraction", _count(lambda n: n * n + 0.5), "not_a_whole_number"),
    Wrong("n² as text", _count(lambda n: str(n * n)), "not_a_whole_number"),
]

# --- chapter 2 -----------------------------------------------------------------------------------


def _ab(fn):
    def make(a, b):
        return fn(np.asarray(a, dtype=float), np.asarray(b, dtype=float))

    return make


DOT_PRODUCT = [
    Wrong("products not summed", _ab(lambda a, b: a * b), "not_summed"),
    Wrong("the cosine", _ab(lambda a, b: a @ b / np.linalg.norm(a) / np.linalg.norm(b)), "cosine"),
    Wrong("sign flipped", _ab(lambda a, b: -(a @ b)), "sign_flipped"),
    Wrong("sum of the sums", _ab(lambda a, b: a.sum() + b.sum()), "other"),
    Wrong("product of the sums", _ab(lambda a, b: a.sum() * b.sum()), "other"),
    Wrong("product of the lengths", _ab(lambda a, b: np.linalg.norm(a) * np.linalg.norm(b))),
    Wrong("outer product", _ab(lambda a, b: np.outer(a, b)), "wrong_shape"),
]


def _qk(fn):
    def make(Q, K):
        return fn(np.asarray(Q, dtype=float), np.asarray(K, dtype=float))

    return make


def _square_only(fn):
    """A slip whose code runs only where its product's shapes happen to fit."""

    def make(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ValueError, RuntimeError, IndexError):
            return NOT_APPLICABLE

    return make


SCORE_MATRIX = [
    Wrong("K @ Q.T", _qk(lambda Q, K: K @ Q.T), "transpose"),
    Wrong("Q * K", _square_only(_qk(lambda Q, K: Q * K)), "elementwise", exercise=False),
    Wrong("scaled scores", _qk(lambda Q, K: Q @ K.T / np.sqrt(Q.shape[1]))),
    Wrong("softmaxed scores", _qk(lambda Q, K: softmax(Q @ K.T))),
    Wrong("Q.T @ K", _square_only(_qk(lambda Q, K: Q.T @ K)), exercise=False),
    Wrong("Q @ K", _square_only(_qk(lambda Q, K: Q @ K)), exercise=False),
    Wrong("columns summed", _qk(lambda Q, K: (Q @ K.T).sum(axis=0))),
]


def _perp(fn):
    def make(a, b, k):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        rest = a @ b - a[k] * b[k]
        return fn(a, b, k, rest)

    return make


PERPENDICULAR = [
    Wrong("sign slip", _perp(lambda a, b, k, rest: rest / a[k]), "sign_slip"),
    Wrong("not divided", _perp(lambda a, b, k, rest: -rest), "not_divided"),
    Wrong("the dot product", _perp(lambda a, b, k, rest: rest), "dot_product"),
    Wrong("multiplied by a_k", _perp(lambda a, b, k, rest: -rest * a[k])),
    Wrong(
        "solved for the next entry (1-based k)",
        _square_only(_perp(lambda a, b, k, rest: -(a @ b - a[k + 1] * b[k + 1]) / a[k + 1])),
    ),
    Wrong("a vector", _perp(lambda a, b, k, rest: np.full(2, -rest / a[k])), "wrong_shape"),
]


def _key(fn):
    def make(Q, scores):
        return fn(np.asarray(Q, dtype=float), np.asarray(scores, dtype=float))

    return make


KEY_FOR_SCORES = [
    Wrong("the scores themselves", _key(lambda Q, s: s), "scores_as_key"),
    Wrong("columns of Q", _key(lambda Q, s: np.linalg.solve(Q.T, s)), "columns_of_q"),
    Wrong("the best query", _key(lambda Q, s: Q[np.argmax(s)]), "a_query"),
    Wrong("Q @ scores (multiplied, not solved)", _key(lambda Q, s: Q @ s)),
    Wrong("Q.T @ scores", _key(lambda Q, s: Q.T @ s)),
    Wrong("scores @ Q", _key(lambda Q, s: s @ Q)),
    Wrong("divided entry by entry", _key(lambda Q, s: s / np.diag(Q))),
    Wrong("a [n_q, 1] column", _key(lambda Q, s: np.linalg.solve(Q, s)[:, None]), "wrong_shape"),
]


def _function(fn):
    return lambda: fn


def _naive(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _shifted(shift):
    def softmax_(x):
        e = np.exp(x - shift(x))
        return e / e.sum(axis=-1, keepdims=True)

    return softmax_


def _raises(x):
    if x.ndim > 1:
        raise ValueError("only rows")
    return _naive(x - x.max())


SOFTMAX_FUNCTION = [
    Wrong("not a function", lambda: softmax(np.array([1.0, 2.0, 3.0])), "not_a_function"),
    Wrong("no max subtraction", _function(_naive), "overflows"),
    Wrong("the table's max, not each row's", _function(_shifted(lambda x: x.max())), "overflows"),
    Wrong(
        "the row's min", _function(_shifted(lambda x: x.min(axis=-1, keepdims=True))), "overflows"
    ),
    Wrong(
        "the row's mean", _function(_shifted(lambda x: x.mean(axis=-1, keepdims=True))), "overflows"
    ),
    Wrong(
        "max without keepdims",
        _function(lambda x: (e := np.exp(x - x.max(axis=-1))) / e.sum(axis=-1, keepdims=True)),
    ),
    Wrong(
        "sum without keepdims",
        _function(lambda x: (e := np.exp(x - x.max(axis=-1, keepdims=True))) / e.sum(axis=-1)),
    ),
    Wrong(
        "over the columns",
        _function(lambda x: (e := np.exp(x - x.max(axis=0))) / e.sum(axis=0)),
        "softmax_over_columns",
    ),
    Wrong(
        "over the whole table",
        _function(lambda x: (e := np.exp(x - x.max())) / e.sum()),
        "softmax_over_table",
    ),
    Wrong(
        "not normalised",
        _function(lambda x: np.exp(x - x.max(axis=-1, keepdims=True))),
        "not_normalised",
    ),
    Wrong(
        "divided by the max",
        _function(lambda x: (e := np.exp(x - x.max(axis=-1, keepdims=True))) / e.max()),
    ),
    Wrong(
        "temperature 2",
        _function(lambda x: softmax(x / 2)),
    ),
    Wrong("rows only", _function(_raises), "raises"),
    Wrong("flattened", _function(lambda x: softmax(x).ravel()), "returns_wrong_shape"),
    Wrong("returns None", _function(lambda x: None), "returns_wrong_shape"),
]

# --- chapter 3 -----------------------------------------------------------------------------------


def _xw(fn):
    def make(X, W):
        return fn(np.asarray(X, dtype=float), np.asarray(W, dtype=float))

    return make


PROJECTION = [
    Wrong("the transpose", _xw(lambda X, W: (X @ W).T), "transpose"),
    Wrong("W.T @ X.T", _xw(lambda X, W: W.T @ X.T), "transpose"),
    Wrong("X @ W.T", _square_only(_xw(lambda X, W: X @ W.T)), "w_transposed", exercise=False),
    Wrong("W @ X", _square_only(_xw(lambda X, W: W @ X)), exercise=False),
    Wrong("X.T @ W", _square_only(_xw(lambda X, W: X.T @ W)), exercise=False),
    Wrong("X * W", _square_only(_xw(lambda X, W: X * W)), exercise=False),
    Wrong("rows summed", _xw(lambda X, W: (X @ W).sum(axis=0))),
]


def _fused(fn):
    def make(weight, X, i, j):
        weight, X = np.asarray(weight, dtype=float), np.asarray(X, dtype=float)
        Q, K, V = np.split(X @ weight.T, 3, axis=1)
        return fn(weight, X, i, j, Q, K, V)

    return make


def _not_transposed(weight, X, i, j, Q, K, V):
    Q_s, K_s, _ = np.split(X @ weight, 3, axis=1)
    return Q_s[i] @ K_s[j]


FUSED_SCORE = [
    Wrong("X @ weight", _square_only(_fused(_not_transposed)), "not_transposed"),
    Wrong("q_j · k_i", _fused(lambda w, X, i, j, Q, K, V: Q[j] @ K[i]), "wrong_direction"),
    Wrong("thirds as K, Q, V", _fused(lambda w, X, i, j, Q, K, V: K[i] @ Q[j]), "wrong_direction"),
    Wrong("values as keys", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ V[j]), "value_for_key"),
    Wrong("own key", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ K[i]), "own_key"),
    Wrong("two queries", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ Q[j])),
    Wrong("two keys", _fused(lambda w, X, i, j, Q, K, V: K[i] @ K[j])),
    Wrong("scaled score", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ K[j] / np.sqrt(Q.shape[1]))),
    Wrong(
        "the attention weight",
        _fused(lambda w, X, i, j, Q, K, V: softmax(Q @ K.T / np.sqrt(Q.shape[1]))[i, j]),
    ),
    Wrong(
        "interleaved thirds",
        _fused(lambda w, X, i, j, Q, K, V: (X @ w[0::3].T)[i] @ (X @ w[1::3].T)[j]),
    ),
    Wrong("the whole score row", _fused(lambda w, X, i, j, Q, K, V: Q[i] @ K.T), "wrong_shape"),
]


def _look(fn):
    def make(words, looker, target, *_, **__):
        negation, quality = FEATURES.index("negation"), FEATURES.index("quality")
        W_Q, W_K = np.zeros((len(FEATURES), 1)), np.zeros((len(FEATURES), 1))
        return fn(W_Q, W_K, negation, quality)

    return make


def _solution(W_Q, W_K, negation, quality, strength=2.0):
    W_Q[quality, 0], W_Q[negation, 0] = strength, -0.3 * strength
    W_K[negation, 0] = strength
    return W_Q, W_K


def _looks(*, swap=False, strength=2.0, cancel=True, key_feature=None):
    def design(W_Q, W_K, negation, quality):
        W_Q, W_K = _solution(W_Q, W_K, negation, quality, strength)
        if not cancel:
            W_Q[negation, 0] = 0.0
        if key_feature is not None:
            W_K[:, 0] = 0.0
            W_K[FEATURES.index(key_feature), 0] = strength
        return (W_K, W_Q) if swap else (W_Q, W_K)

    return design


ONE_WAY_LOOK = [
    Wrong("W_Q and W_K swapped", _look(_looks(swap=True)), "wrong_way"),
    Wrong(
        "nn.Linear's layout", _look(lambda *a: tuple(W.T for W in _looks()(*a))), "linear_layout"
    ),
    Wrong(
        "1-D vectors", _look(lambda *a: tuple(W.ravel() for W in _looks()(*a))), "one_dimensional"
    ),
    Wrong("one shared matrix", _look(lambda *a: (_looks()(*a)[0],) * 2), "shared_matrix"),
    Wrong("too weak", _look(_looks(strength=0.2)), "too_weak"),
    Wrong("a little too weak", _look(_looks(strength=1.0)), "too_weak"),
    Wrong("no cancelling entry", _look(_looks(cancel=False)), "target_not_idle"),
    Wrong(
        "a query that reads nothing",
        _look(lambda W_Q, *a: (np.zeros_like(W_Q), _looks()(W_Q, *a)[1])),
        "looker_asks_nothing",
    ),
    Wrong("scores that overflow", _look(_looks(strength=1e200)), "overflow"),
    Wrong(
        "queries and keys of different widths",
        _look(lambda *a: (_looks()(*a)[0], np.hstack([_looks()(*a)[1]] * 2))),
        "different_d_k",
    ),
    Wrong("keys read function words", _look(_looks(key_feature="function")), "other_target"),
    Wrong("text for a matrix", _look(lambda *a: ("W_Q", "W_K")), "not_a_number"),
]

# --- chapter 4 and 5 ------------------------------------------------------------------------------


def _qkv(fn):
    def make(Q, K, V):
        Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
        return fn(Q, K, V, Q @ K.T)

    return make


def _by(scale):
    return _qkv(lambda Q, K, V, S: softmax(S / scale(Q, K, V)) @ V)


def _whole_table(Z):
    e = np.exp(Z - Z.max())
    return e / e.sum()


def _dk(Q):
    return math.sqrt(Q.shape[-1])


ATTENTION = [
    Wrong("the weights", _qkv(lambda Q, K, V, S: softmax(S / _dk(Q))), "weights_not_output"),
    Wrong("(A @ V).T", _qkv(lambda Q, K, V, S: (softmax(S / _dk(Q)) @ V).T), "transposed_output"),
    Wrong("no scaling", _qkv(lambda Q, K, V, S: softmax(S) @ V), "no_scaling"),
    Wrong("divided by d_k", _by(lambda Q, K, V: Q.shape[1]), "divided_by_d_k"),
    Wrong(
        "multiplied by sqrt(d_k)",
        _qkv(lambda Q, K, V, S: softmax(S * _dk(Q)) @ V),
        "multiplied_by_sqrt",
    ),
    Wrong("sqrt(K.shape[0])", _by(lambda Q, K, V: math.sqrt(K.shape[0])), "scaled_by_n_k"),
    Wrong("sqrt(Q.shape[0])", _by(lambda Q, K, V: math.sqrt(Q.shape[0])), "scaled_by_n_q"),
    Wrong("sqrt(V.shape[1])", _by(lambda Q, K, V: math.sqrt(V.shape[1])), "scaled_by_d_v"),
    Wrong("divided by Q.shape[0]", _by(lambda Q, K, V: Q.shape[0])),
    Wrong("divided by V.shape[1]", _by(lambda Q, K, V: V.shape[1])),
    Wrong("divided by K.shape[0]", _by(lambda Q, K, V: K.shape[0])),
    Wrong("divided by a literal 2", _by(lambda Q, K, V: 2.0)),
    Wrong("sqrt(d_model) guessed as 8", _by(lambda Q, K, V: 8.0)),
    Wrong(
        "softmax down the columns",
        _qkv(lambda Q, K, V, S: softmax(S / _dk(Q), axis=0) @ V),
        "softmax_over_columns",
    ),
    Wrong(
        "softmax over the table",
        _qkv(lambda Q, K, V, S: _whole_table(S / _dk(Q)) @ V),
        "softmax_over_table",
    ),
    Wrong("no softmax", _qkv(lambda Q, K, V, S: S / _dk(Q) @ V), "no_softmax"),
    Wrong("neither softmax nor scaling", _qkv(lambda Q, K, V, S: S @ V), "no_softmax_no_scaling"),
    Wrong("scaled after the softmax", _qkv(lambda Q, K, V, S: softmax(S) / _dk(Q) @ V)),
    Wrong("output scaled", _qkv(lambda Q, K, V, S: softmax(S) @ V / _dk(Q))),
    Wrong("exp, not normalised", _qkv(lambda Q, K, V, S: np.exp(S / _dk(Q)) @ V)),
    Wrong(
        "A @ V.T", _square_only(_qkv(lambda Q, K, V, S: softmax(S / _dk(Q)) @ V.T)), exercise=False
    ),
    Wrong(
        "A.T @ V", _square_only(_qkv(lambda Q, K, V, S: softmax(S / _dk(Q)).T @ V)), exercise=False
    ),
    Wrong("keys for values", _square_only(_qkv(lambda Q, K, V, S: softmax(S / _dk(Q)) @ K))),
]


def _weights(fn):
    def make(Q, K):
        Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
        return fn(Q, K, Q @ K.T)

    return make


ATTENTION_WEIGHTS = [
    Wrong("raw scores", _weights(lambda Q, K, S: S), "raw_scores"),
    Wrong("scaled scores", _weights(lambda Q, K, S: S / _dk(Q)), "scaled_scores"),
    Wrong("no scaling", _weights(lambda Q, K, S: softmax(S)), "no_scaling"),
    Wrong("the transpose", _weights(lambda Q, K, S: softmax(S / _dk(Q)).T), "transpose"),
    Wrong(
        "softmax down the columns",
        _weights(lambda Q, K, S: softmax(S / _dk(Q), axis=0)),
        "softmax_over_columns",
    ),
    Wrong(
        "exp, not normalised", _weights(lambda Q, K, S: np.exp(S / _dk(Q))), "rows_not_normalised"
    ),
    Wrong("divided by d_k", _weights(lambda Q, K, S: softmax(S / Q.shape[1]))),
    Wrong("sqrt(Q.shape[0])", _weights(lambda Q, K, S: softmax(S / math.sqrt(Q.shape[0])))),
    Wrong("sqrt(K.shape[0])", _weights(lambda Q, K, S: softmax(S / math.sqrt(K.shape[0])))),
    Wrong("divided by Q.shape[0]", _weights(lambda Q, K, S: softmax(S / Q.shape[0]))),
    Wrong("softmax over the table", _weights(lambda Q, K, S: _whole_table(S / _dk(Q)))),
    Wrong("multiplied by sqrt(d_k)", _weights(lambda Q, K, S: softmax(S * _dk(Q)))),
]

# --- chapter 6 -----------------------------------------------------------------------------------


def _causal(fn):
    def make(n, prefix=0):
        rows, cols = np.arange(n)[:, None], np.arange(n)[None, :]
        return fn(n, prefix, rows, cols)

    return make


def _prompt(fn):
    """A slip in the prompt rule: none where there is no prompt (``prefix = 0``)."""
    inner = _causal(fn)
    return lambda n, prefix=0: inner(n, prefix) if prefix else NOT_APPLICABLE


CAUSAL_MASK = [
    Wrong(
        "True means blocked",
        _causal(lambda n, p, i, j: ~((j <= i) | (j < p))),
        "true_means_blocked",
    ),
    Wrong("the transpose", _causal(lambda n, p, i, j: (i <= j) | (i < p)), "transpose"),
    Wrong(
        "no diagonal", _causal(lambda n, p, i, j: ((j <= i) | (j < p)) & (i != j)), "no_diagonal"
    ),
    Wrong(
        "the plain causal mask",
        _prompt(lambda n, p, i, j: np.broadcast_to(j <= i, (n, n))),
        "plain_causal",
    ),
    Wrong("AND, not OR", _prompt(lambda n, p, i, j: (j <= i) & (j < p)), "and_not_or"),
    Wrong(
        "nothing blocked",
        _prompt(lambda n, p, i, j: np.ones((n, n), dtype=bool)),
        "nothing_blocked",
    ),
    Wrong("j <= p", _prompt(lambda n, p, i, j: (j <= i) | (j <= p)), "prompt_too_long"),
    Wrong("j < p - 1", _prompt(lambda n, p, i, j: (j <= i) | (j < p - 1)), "other"),
    Wrong("prompt rows, not prompt keys", _prompt(lambda n, p, i, j: (j <= i) | (i < p)), "other"),
    Wrong("strictly below the diagonal", _causal(lambda n, p, i, j: (j < i) | (j < p))),
    Wrong(
        "as numbers",
        _causal(lambda n, p, i, j: ((j <= i) | (j < p)).astype(int)),
        "numbers_not_booleans",
    ),
    Wrong(
        "additive 0 / -inf",
        _causal(lambda n, p, i, j: np.where((j <= i) | (j < p), 0.0, -np.inf)),
        "additive_mask",
    ),
    Wrong(
        "additive, True and False swapped",
        _causal(lambda n, p, i, j: np.where((j <= i) | (j < p), -np.inf, 0.0)),
        "not_boolean",
    ),
    Wrong(
        "a [1, n, n] mask", _causal(lambda n, p, i, j: ((j <= i) | (j < p))[None]), "wrong_shape"
    ),
]


def _padding(fn):
    def make(lengths, n):
        lengths = np.asarray(lengths)[:, None]  # [B, 1]
        return fn(lengths, np.arange(n)[None, :])  # [B, n] comparisons

    return make


PADDING_MASK = [
    Wrong("no query axis", _padding(lambda L, j: j < L), "missing_query_axis"),
    Wrong("True means padding", _padding(lambda L, j: (j >= L)[:, None, :]), "true_means_padding"),
    Wrong("j <= length", _padding(lambda L, j: (j <= L)[:, None, :]), "other"),
    Wrong("j < length - 1", _padding(lambda L, j: (j < L - 1)[:, None, :]), "other"),
    Wrong("query axis last", _padding(lambda L, j: (j < L)[:, :, None]), "wrong_shape"),
    Wrong("[B, 1, 1, n]", _padding(lambda L, j: (j < L)[:, None, None, :]), "wrong_shape"),
    Wrong("as numbers", _padding(lambda L, j: (j < L)[:, None, :].astype(float)), "not_boolean"),
    Wrong(
        "additive", _padding(lambda L, j: np.where(j < L, 0.0, -np.inf)[:, None, :]), "not_boolean"
    ),
    Wrong("sequences reversed", _padding(lambda L, j: (j < L[::-1])[:, None, :]), "other"),
]

# --- chapter 7 -----------------------------------------------------------------------------------


def _heads(fn):
    def make(X, h):
        X = torch.as_tensor(np.asarray(X, dtype=float))
        B, n, d_model = X.shape
        return fn(X, B, n, h, d_model // h)

    return make


SPLIT_HEADS = [
    Wrong(
        "view without the transpose",
        _heads(lambda X, B, n, h, d: X.reshape(B, h, n, d)),
        "view_without_transpose",
    ),
    Wrong(
        "stopped at [B, n, h, d_k]",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d)),
        "heads_after_tokens",
    ),
    Wrong(
        "strided heads (d_k before h)",
        _heads(lambda X, B, n, h, d: X.view(B, n, d, h).permute(0, 3, 1, 2)),
        "other",
    ),
    Wrong(
        "all axes reversed (.T)",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d).permute(3, 2, 1, 0)),
    ),
    Wrong(
        "h and d_k swapped",
        _heads(lambda X, B, n, h, d: X.view(B, n, d, h).transpose(1, 2)),
        "wrong_shape",
    ),
    Wrong(
        "tokens and features",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d).transpose(1, 3)),
        "wrong_shape",
    ),
    Wrong("heads and batch", _heads(lambda X, B, n, h, d: X.view(B, n, h, d).permute(2, 1, 0, 3))),
    Wrong(
        "tokens reversed",
        _heads(lambda X, B, n, h, d: X.view(B, n, h, d).transpose(1, 2).flip(2)),
        "other",
    ),
]


def _count3(fn):
    return lambda d_model, num_heads, d_k: fn(d_model, num_heads, d_k, num_heads * d_k)


HEAD_WIDTH = [
    Wrong("4 d_model²", _count3(lambda d, h, k, w: 4 * d * d), "d_k_is_d_model_over_h"),
    Wrong("square W_O", _count3(lambda d, h, k, w: 3 * d * w + d * d), "square_output_projection"),
    Wrong("one head", _count3(lambda d, h, k, w: 4 * d * k), "one_head"),
    Wrong("all h·d_k square", _count3(lambda d, h, k, w: 4 * w * w), "all_square_in_head_width"),
    Wrong("biases counted", _count3(lambda d, h, k, w: 4 * d * w + 3 * w + d), "biases_counted"),
    Wrong("no W_O", _count3(lambda d, h, k, w: 3 * d * w), "other"),
    Wrong("every bias h·d_k", _count3(lambda d, h, k, w: 4 * d * w + 4 * w)),
    Wrong("per head, d_k² each", _count3(lambda d, h, k, w: 4 * h * k * k)),
]


def _mha(fn):
    return lambda d_model, bias=True: fn(d_model, bias)


MHA_COUNT = [
    Wrong("no W_O", _mha(lambda d, b: 3 * d * d + (3 * d if b else 0)), "no_output_projection"),
    Wrong("weights only", _mha(lambda d, b: 4 * d * d if b else NOT_APPLICABLE), "no_biases"),
    Wrong(
        "biases counted",
        _mha(lambda d, b: NOT_APPLICABLE if b else 4 * d * d + 4 * d),
        "biases_counted",
    ),
    Wrong("one bias per layer", _mha(lambda d, b: 4 * d * d + 4), "other"),
    Wrong("h times d_model²", _mha(lambda d, b: 8 * d * d), "other"),
]

# --- chapter 8 -----------------------------------------------------------------------------------


def _pe(fn):
    def make(n_positions, d_model):
        pos = np.arange(n_positions)[:, None]
        f = np.arange(d_model // 2)[None, :]
        return fn(pos, f, d_model)

    return make


def _interleave(sines, cosines):
    out = np.empty((sines.shape[0], 2 * sines.shape[1]))
    out[:, 0::2], out[:, 1::2] = sines, cosines
    return out


def _pe_from(omega):
    return _pe(lambda p, f, d: _interleave(np.sin(p * omega(f, d)), np.cos(p * omega(f, d))))


def _right_omega(f, d):
    return 1 / 10000 ** (2 * f / d)


SINUSOIDAL = [
    Wrong(
        "sine and cosine swapped",
        _pe(
            lambda p, f, d: _interleave(
                np.cos(p * _right_omega(f, d)), np.sin(p * _right_omega(f, d))
            )
        ),
        "sine_cosine_swapped",
    ),
    Wrong(
        "sines first, then cosines",
        _pe(
            lambda p, f, d: np.hstack(
                [np.sin(p * _right_omega(f, d)), np.cos(p * _right_omega(f, d))]
            )
        ),
        "halves_layout",
    ),
    Wrong("exponent f / d_model", _pe_from(lambda f, d: 1 / 10000 ** (f / d)), "wrong_exponent"),
    Wrong("multiplied by 10000^(2f/d)", _pe_from(lambda f, d: 10000 ** (2 * f / d)), "other"),
    Wrong("base 1000", _pe_from(lambda f, d: 1 / 1000 ** (2 * f / d)), "other"),
    Wrong(
        "positions from 1",
        _pe(
            lambda p, f, d: _interleave(
                np.sin((p + 1) * _right_omega(f, d)), np.cos((p + 1) * _right_omega(f, d))
            )
        ),
        "other",
    ),
    Wrong(
        "column index in the exponent",
        _pe(
            lambda p, f, d: _interleave(
                np.sin(p / 10000 ** (2 * f / d)), np.cos(p / 10000 ** ((2 * f + 1) / d))
            )
        ),
        "other",
    ),
    Wrong("the transpose", lambda n, d: _pe_from(_right_omega)(n, d).T, "wrong_shape"),
]


# --- chapter 9 -----------------------------------------------------------------------------------


def _block(fn):
    def make(block, x):
        x = torch.as_tensor(x).to(block.norm1.weight.dtype)
        with torch.no_grad():
            attn = lambda y: block.attention(y)[0]  # noqa: E731
            return fn(block, x, attn, block.feed_forward, block.norm1, block.norm2).numpy()

    return make


def _pre(block, x, attn, ff, n1, n2):
    u = x + attn(n1(x))
    return u + ff(n2(u))


def _post(block, x, attn, ff, n1, n2):
    u = n1(x + attn(x))
    return n2(u + ff(u))


BLOCK_OUTPUT = [
    Wrong("post-norm for a pre-norm block", _block(_post), "post_norm"),
    Wrong(
        "no residuals (pre-norm)",
        _block(lambda b, x, attn, ff, n1, n2: ff(n2(attn(n1(x))))),
        "no_residual",
    ),
    Wrong(
        "first residual only",
        _block(lambda b, x, attn, ff, n1, n2: ff(n2(x + attn(n1(x))))),
    ),
    Wrong(
        "second residual only",
        _block(lambda b, x, attn, ff, n1, n2: (u := attn(n1(x))) + ff(n2(u))),
    ),
    Wrong(
        "norm1 twice",
        _block(lambda b, x, attn, ff, n1, n2: (u := x + attn(n1(x))) + ff(n1(u))),
    ),
    Wrong(
        "no norms",
        _block(lambda b, x, attn, ff, n1, n2: (u := x + attn(x)) + ff(u)),
    ),
    Wrong(
        "a final norm added",
        _block(lambda b, x, attn, ff, n1, n2: n2(_pre(b, x, attn, ff, n1, n2))),
    ),
    Wrong(
        "feed-forward on the input",
        _block(lambda b, x, attn, ff, n1, n2: x + attn(n1(x)) + ff(n2(x))),
    ),
    Wrong("the attention weights", lambda block, x: block.attention(block.norm1(x))[1].detach()),
]

# --- chapter 10 ----------------------------------------------------------------------------------


def _bytes(fn):
    return lambda B, h, n, bytes_per_number: fn(B, h, n, bytes_per_number)


WEIGHT_BYTES = [
    Wrong("no batch", _bytes(lambda B, h, n, b: h * n * n * b), "no_batch"),
    Wrong("no heads", _bytes(lambda B, h, n, b: B * n * n * b), "no_heads"),
    Wrong("numbers, not bytes", _bytes(lambda B, h, n, b: B * h * n * n), "numbers_not_bytes"),
    Wrong("n, not n²", _bytes(lambda B, h, n, b: B * h * n * b), "n_not_n_squared"),
    Wrong("bits, not bytes", _bytes(lambda B, h, n, b: B * h * n * n * b * 8), "other"),
    Wrong("in MiB", _bytes(lambda B, h, n, b: B * h * n * n * b / 2**20)),
]


def _share(fn):
    def make(n, d_model, d_ff):
        proj, quad, ff = 8 * n * d_model**2, 4 * n**2 * d_model, 4 * n * d_model * d_ff
        return fn(n, d_model, d_ff, proj, quad, ff)

    return make


BLOCK_SHARE = [
    Wrong(
        "attention layer only",
        _share(lambda n, d, f, p, q, ff: q / (p + q)),
        "attention_layer_only",
    ),
    Wrong(
        "d_ff = 4 d_model",
        _share(lambda n, d, f, p, q, ff: q / (p + q + 16 * n * d * d)),
        "d_ff_taken_as_4_d_model",
    ),
    Wrong(
        "one feed-forward product",
        _share(lambda n, d, f, p, q, ff: q / (p + q + ff / 2)),
        "one_feed_forward_product",
    ),
    Wrong(
        "scores without A V",
        _share(lambda n, d, f, p, q, ff: (q / 2) / (p + ff + q / 2)),
        "scores_without_weighted_sum",
    ),
    Wrong(
        "the linear share",
        _share(lambda n, d, f, p, q, ff: (p + ff) / (p + q + ff)),
        "linear_share",
    ),
    Wrong("a ratio", _share(lambda n, d, f, p, q, ff: q / (p + ff)), "ratio_not_share"),
    Wrong(
        "three projections, no W_O",
        _share(lambda n, d, f, p, q, ff: q / (p * 3 / 4 + q + ff)),
        "other",
    ),
    Wrong("a percentage", _share(lambda n, d, f, p, q, ff: 100 * q / (p + q + ff)), "other"),
    Wrong("no projections", _share(lambda n, d, f, p, q, ff: q / (q + ff))),
]


def _update(
    z_max,
    ell,
    acc,
    scores,
    values,
    *,
    running=True,
    rescale_acc=True,
    rescale_ell=True,
    subtract=True,
    inverted=False,
):
    z_new = max(z_max, scores.max()) if running else (scores.max() if z_max == -np.inf else z_max)
    factor = np.exp(z_new - z_max) if inverted else np.exp(z_max - z_new)
    p = np.exp(scores - z_new) if subtract else np.exp(scores)
    ell = (ell * factor if rescale_ell else ell) + p.sum()
    acc = (acc * factor if rescale_acc else acc) + p @ values
    return z_new, ell, acc


def _updates(**slip):
    return lambda: lambda z_max, ell, acc, s, v: _update(z_max, ell, acc, s, v, **slip)


def _block_max_only(z_max, ell, acc, scores, values):
    """Keeps the latest block's maximum (not the running one): exact until it drops far."""
    z_new = scores.max()
    factor = np.exp(z_max - z_new)
    p = np.exp(scores - z_new)
    return z_new, ell * factor + p.sum(), acc * factor + p @ values


def _normalised_acc(z_max, ell, acc, scores, values):
    """Keeps acc as the running average instead of the weighted sum."""
    z_new = max(z_max, scores.max())
    p = np.exp(scores - z_new)
    new_ell = ell * np.exp(z_max - z_new) + p.sum()
    return z_new, new_ell, (acc * ell * np.exp(z_max - z_new) + p @ values) / new_ell


ONLINE_UPDATE = [
    Wrong("not a function", lambda: (0.0, 1.0, np.zeros(3)), "not_a_function"),
    Wrong(
        "no max subtraction",
        lambda: lambda z_max, ell, acc, s, v: (z_max, ell + np.exp(s).sum(), acc + np.exp(s) @ v),
        "overflows",
    ),
    Wrong(
        "max subtracted, old state not rescaled",
        _updates(subtract=True, rescale_acc=False, rescale_ell=False),
    ),
    Wrong("max frozen at the first block", _updates(running=False), "overflows"),
    Wrong("the block's own max", lambda: _block_max_only, "overflows"),
    Wrong("acc not rescaled", _updates(rescale_acc=False), "other"),
    Wrong("ell not rescaled", _updates(rescale_ell=False), "other"),
    Wrong("rescale inverted", _updates(inverted=True)),
    Wrong("acc kept as an average", lambda: _normalised_acc, "other"),
    Wrong("raises", lambda: lambda z_max, ell, acc, s, v: s.nonexistent, "raises"),
    Wrong(
        "state not returned",
        lambda: lambda z_max, ell, acc, s, v: _update(z_max, ell, acc, s, v)[1:],
        "raises",
    ),
]

# --- chapter 11 ----------------------------------------------------------------------------------


def _cls(fn):
    def make(model, tokens):
        with torch.no_grad():
            X = model.embed(tokens) + model.positions  # [1, n, d_model]
            w_q, w_k, _ = model.attention.in_proj.weight.chunk(3)
            b_q, b_k, _ = model.attention.in_proj.bias.chunk(3)
            return np.asarray(fn(X[0], w_q, w_k, b_q, b_k), dtype=float)

    return make


def _row(X, w_q, w_k, b_q, b_k, *, query=0, scale=True, bias=True, transpose=False, axis=-1):
    W_q, W_k = (w_q, w_k) if transpose else (w_q.T, w_k.T)
    Q = X @ W_q + (b_q if bias else 0)  # [n, d_k]
    K = X @ W_k + (b_k if bias else 0)  # [n, d_k]
    S = Q[query : query + 1] @ K.T  # [1, n]
    if scale:
        S = S / math.sqrt(K.shape[-1])
    return torch.softmax(S, dim=axis)


CLS_ROW = [
    Wrong("no sqrt(d_k)", _cls(lambda *a: _row(*a, scale=False)), "other"),
    Wrong("no biases", _cls(lambda *a: _row(*a, bias=False)), "other"),
    Wrong("weights not transposed", _cls(lambda *a: _row(*a, transpose=True)), "other"),
    Wrong("row 1, not the [CLS] row", _cls(lambda *a: _row(*a, query=1)), "other"),
    Wrong("softmax over the query axis", _cls(lambda *a: _row(*a, axis=0)), "not_normalised"),
    Wrong(
        "raw scores",
        _cls(lambda X, w_q, w_k, b_q, b_k: (X[:1] @ w_q.T + b_q) @ (X @ w_k.T + b_k).T),
        "not_normalised",
    ),
    Wrong("a 1-D row", _cls(lambda *a: _row(*a)[0]), "wrong_shape"),
    Wrong(
        "the [CLS] column",
        _cls(
            lambda X, w_q, w_k, b_q, b_k: torch.softmax(
                (X @ w_q.T + b_q) @ (X @ w_k.T + b_k).T / math.sqrt(w_q.shape[0]), dim=-1
            )[:, 0][None]
        ),
    ),
]


def _accuracy(fn):
    def make(model, tokens, labels, position):
        n = tokens.shape[1]
        return fn(model, tokens, labels, position, n)

    return make


def _on_training_set(model, tokens, labels, position, n):
    """Exercise 11.2's training data (its cell draws it with seed 1), blocked as asked."""
    x, y = lessons.tasks.position_task(2000, target_positions=(position,), seed=1)
    return lessons.accuracy(model, x, y, mask=torch.arange(n) != position)


BLOCKED_ACCURACY = [
    Wrong("not blocked", _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y)), "unblocked"),
    Wrong(
        "mask True and False swapped (only that key kept)",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) == p)),
    ),
    Wrong(
        "the next position blocked",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != p + 1)),
    ),
    Wrong(
        "the previous position blocked",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != p - 1)),
    ),
    Wrong(
        "the [CLS] key blocked",
        _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != 0)),
    ),
    Wrong(
        "the error rate",
        _accuracy(lambda m, x, y, p, n: 1 - lessons.accuracy(m, x, y, mask=torch.arange(n) != p)),
    ),
    Wrong(
        "as a percentage",
        _accuracy(lambda m, x, y, p, n: 100 * lessons.accuracy(m, x, y, mask=torch.arange(n) != p)),
    ),
    Wrong("two numbers", _accuracy(lambda m, x, y, p, n: [0.5, 0.5]), "not_a_number"),
    Wrong("measured on the training set", _accuracy(_on_training_set)),
]

# --- chapter 12 ----------------------------------------------------------------------------------


def _prev(fn):
    return lambda A: float(fn(np.asarray(A, dtype=float), np.asarray(A).shape[0]))


PREVIOUS_TOKEN = [
    Wrong("main diagonal", _prev(lambda A, n: np.diagonal(A)[1:].mean()), "main_diagonal"),
    Wrong(
        "whole main diagonal", _prev(lambda A, n: np.diagonal(A).mean()), "main_diagonal_all_rows"
    ),
    Wrong("divided by n", _prev(lambda A, n: np.diagonal(A, -1).sum() / n), "divided_by_n"),
    Wrong(
        "loop over every row (A[0, -1] wraps round)",
        _prev(lambda A, n: np.mean([A[i, i - 1] for i in range(n)])),
        "divided_by_n",
    ),
    Wrong("diagonal above", _prev(lambda A, n: np.diagonal(A, 1).mean()), "diagonal_above"),
    Wrong(
        "A[i - 1, i]",
        _prev(lambda A, n: np.mean([A[i - 1, i] for i in range(1, n)])),
        "diagonal_above",
    ),
    Wrong(
        "whole lower triangle",
        _prev(lambda A, n: A[np.tril_indices(n, -1)].mean()),
        "whole_lower_triangle",
    ),
    Wrong("two steps back", _prev(lambda A, n: np.diagonal(A, -2).mean()), "other"),
    Wrong("the sum", _prev(lambda A, n: np.diagonal(A, -1).sum()), "other"),
    Wrong("the median", _prev(lambda A, n: np.median(np.diagonal(A, -1))), "other"),
    Wrong("rows 2 .. n - 1", _prev(lambda A, n: np.diagonal(A, -1)[1:].mean()), "other"),
]


def _ind(fn):
    def make(A, L):
        A = np.asarray(A, dtype=float)
        return float(fn(A, L, np.arange(L + 1, 2 * L + 1)))

    return make


INDUCTION = [
    Wrong("offset -L (same token)", _ind(lambda A, L, r: A[r, r - L].mean()), "same_token"),
    Wrong(
        "every row of the diagonal", _ind(lambda A, L, r: np.diagonal(A, 1 - L).mean()), "every_row"
    ),
    Wrong("previous token", _ind(lambda A, L, r: A[r, r - 1].mean()), "previous_token"),
    Wrong("offset -L - 1", _ind(lambda A, L, r: A[r, r - L - 1].mean()), "other"),
    Wrong("offset 2 - L", _ind(lambda A, L, r: A[r, r - L + 2].mean()), "other"),
    Wrong("rows L .. 2L - 1", _ind(lambda A, L, r: A[r - 1, r - L].mean()), "other"),
    Wrong("rows L + 1 .. 2L - 1", _ind(lambda A, L, r: A[r[:-1], r[:-1] - L + 1].mean()), "other"),
    Wrong("the sum", _ind(lambda A, L, r: A[r, r - L + 1].sum()), "other"),
    Wrong("keys and queries swapped", _ind(lambda A, L, r: A[r - L + 1, r].mean()), "other"),
]


_LOSSES: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _copy(fn):
    def make(snippet, model, blocked=None):
        key = (snippet, id(model), frozenset(blocked or ()))
        if key not in _LOSSES:  # the same two forward passes serve every slip
            _LOSSES[key] = (
                lm.token_losses(snippet * 2, model, blocked=blocked),
                lm.token_losses(snippet * 2, model),
            )
        losses, plain = _LOSSES[key]
        return float(fn(losses, plain, len(snippet)))

    return make


COPY_RATIO = [
    Wrong("inverted", _copy(lambda ls, p, m: ls[: m - 1].mean() / ls[m:].mean()), "inverted"),
    Wrong("difference", _copy(lambda ls, p, m: ls[m:].mean() - ls[: m - 1].mean()), "difference"),
    Wrong("not blocked", _copy(lambda ls, p, m: p[m:].mean() / p[: m - 1].mean()), "not_blocked"),
    Wrong(
        "second copy from m - 1",
        _copy(lambda ls, p, m: ls[m - 1 :].mean() / ls[: m - 1].mean()),
        "shifted_copy",
    ),
    Wrong(
        "first copy to m",
        _copy(lambda ls, p, m: ls[m:].mean() / ls[:m].mean()),
        "first_includes_boundary",
    ),
    Wrong(
        "both shifted", _copy(lambda ls, p, m: ls[m - 1 :].mean() / ls[:m].mean()), "both_shifted"
    ),
    Wrong(
        "halves of the losses",
        _copy(lambda ls, p, m: ls[len(ls) // 2 :].mean() / ls[: len(ls) // 2].mean()),
        "shifted_copy",
    ),
    Wrong(
        "second copy without its last", _copy(lambda ls, p, m: ls[m:-1].mean() / ls[: m - 1].mean())
    ),
    Wrong("blocked over trained", _copy(lambda ls, p, m: ls[m:].mean() / p[m:].mean()), "other"),
]


# --- the library -----------------------------------------------------------------------------------

# --- chapter 13: today's attention -----------------------------------------------------------


def _band(fn):
    """A window mask written with query and key positions ``i [n, 1]``, ``j [1, n]``."""

    def make(n, window):
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        return fn(i, j, window)

    return make


WINDOW_MASK = [
    Wrong("i - j <= w: one key too many", _band(lambda i, j, w: (j <= i) & (i - j <= w)),
          "window_plus_one"),
    Wrong("j > i - w + 1: one key too few", _band(lambda i, j, w: (j <= i) & (j > i - w + 1)),
          "window_minus_one"),
    Wrong("the band above the diagonal", _band(lambda i, j, w: (j >= i) & (j - i < w)),
          "mask_direction"),
    Wrong("the plain causal mask", _band(lambda i, j, w: np.broadcast_to(j <= i, (i.size, i.size))),
          "no_window"),
    Wrong("one row short", lambda n, window: np.tril(np.ones((n - 1, n), dtype=bool)),
          "wrong_shape"),
    Wrong("the band without the causal part", _band(lambda i, j, w: np.abs(i - j) < w)),
]  # fmt: skip


def _kv(fn):
    def make(K, num_heads):
        return fn(torch.as_tensor(K), num_heads)

    return make


KV_HEADS = [
    Wrong("repeat, not repeat_interleave",
          _kv(lambda K, h: K.repeat(1, h // K.shape[1], 1, 1)), "repeat_not_interleave"),
    Wrong("cat of copies", _kv(lambda K, h: torch.cat([K] * (h // K.shape[1]), dim=1)),
          "repeat_not_interleave"),
    Wrong("the KV heads unshared", _kv(lambda K, h: K), "not_shared"),
    Wrong("one KV head for all", _kv(lambda K, h: K[:, :1].repeat(1, h, 1, 1))),
    Wrong("interleaved over tokens", _kv(lambda K, h: K.repeat_interleave(h // K.shape[1], dim=2)),
          "wrong_shape"),
]  # fmt: skip


def _sink(fn):
    def make(Z, sinks):
        Z, s = torch.as_tensor(Z), torch.as_tensor(sinks)
        return fn(Z, s.view(-1, 1, 1))  # s: [h, 1, 1]

    return make


SINK_WEIGHTS = [
    Wrong("the sink in the numerator too",
          _sink(lambda Z, s: (Z.exp() + s.exp()) / (Z.exp().sum(-1, keepdim=True) + s.exp())),
          "sink_in_numerator"),
    Wrong("a plain softmax", _sink(lambda Z, s: Z.softmax(-1)), "sink_ignored"),
    Wrong("the sink logit, not exp(s)",
          _sink(lambda Z, s: Z.exp() / (Z.exp().sum(-1, keepdim=True) + s)),
          "sink_not_exponentiated"),
    Wrong("the sink's column kept",
          _sink(lambda Z, s: torch.cat([Z, s.expand(*Z.shape[:-1], 1)], -1).softmax(-1)),
          "sink_column_kept"),
    Wrong("the softmax over queries",
          _sink(lambda Z, s: Z.exp() / (Z.exp().sum(-2, keepdim=True) + s.exp()))),
]  # fmt: skip


def _absorbed_right(q_nope, q_rope, W_UK, C, k_rope):
    n = C.shape[0]
    q_r = lessons.rope(q_rope[None], [n - 1])[0]  # [d_R]: the query at the newest position
    return (C @ (W_UK @ q_nope) + lessons.rope(k_rope) @ q_r) / math.sqrt(len(q_nope) + len(q_rope))


def _absorbed_naive(q_nope, q_rope, W_UK, C, k_rope):
    """Another right form: build each key ``[C W_UK, RoPE(k_rope)]`` and the whole query."""
    n = C.shape[0]
    keys = np.concatenate([C @ W_UK, lessons.rope(k_rope)], axis=1)  # [n, d_nope + d_R]
    query = np.concatenate([q_nope, lessons.rope(q_rope[None], [n - 1])[0]])  # [d_nope + d_R]
    return keys @ query / math.sqrt(len(query))


def _absorbed_rope_on_latent(q_nope, q_rope, W_UK, C, k_rope):
    n = C.shape[0]
    if C.shape[1] % 2:
        return NOT_APPLICABLE  # RoPE pairs columns: an odd latent cannot be rotated
    q_latent = lessons.rope((W_UK @ q_nope)[None], [n - 1])[0]  # [r]
    q_r = lessons.rope(q_rope[None], [n - 1])[0]  # [d_R]
    scores = lessons.rope(C) @ q_latent + lessons.rope(k_rope) @ q_r  # [n]
    return scores / math.sqrt(len(q_nope) + len(q_rope))


def _absorbed_query_at_0(q_nope, q_rope, W_UK, C, k_rope):
    """RoPE positions after prefill: the newest query rotated as if it were the first token."""
    scores = C @ (W_UK @ q_nope) + lessons.rope(k_rope) @ q_rope  # [n]: position 0 turns nothing
    return scores / math.sqrt(len(q_nope) + len(q_rope))


def _absorbed_by_r(q_nope, q_rope, W_UK, C, k_rope):
    if C.shape[1] == len(q_nope) + len(q_rope):
        return NOT_APPLICABLE  # sqrt(r) is the right scale there
    right = _absorbed_right(q_nope, q_rope, W_UK, C, k_rope)
    return right * math.sqrt(len(q_nope) + len(q_rope)) / math.sqrt(C.shape[1])


ABSORBED_SCORES = [
    Wrong("RoPE on the latent", _absorbed_rope_on_latent, "rope_on_latent"),
    Wrong("no RoPE",
          lambda q_nope, q_rope, W_UK, C, k_rope: (
              (C @ (W_UK @ q_nope) + k_rope @ q_rope) / math.sqrt(len(q_nope) + len(q_rope))
          ), "no_rope"),
    Wrong("the latent part only",
          lambda q_nope, q_rope, W_UK, C, k_rope: (
              C @ (W_UK @ q_nope) / math.sqrt(len(q_nope) + len(q_rope))
          ), "latent_part_only"),
    Wrong("divided by sqrt(r)", _absorbed_by_r, "scaled_by_latent_width"),
    Wrong("not scaled",
          lambda *a: _absorbed_right(*a) * math.sqrt(len(a[0]) + len(a[1])), "no_scaling"),
    Wrong("the weights, not the scores", lambda *a: softmax(_absorbed_right(*a))),
    Wrong("the query rotated at position 0", _absorbed_query_at_0),
]  # fmt: skip


WRONG: dict[str, list[Wrong]] = {
    "check_pair_count": PAIR_COUNT,
    "check_soft_lookup": SOFT_LOOKUP,
    "check_split_query": SPLIT_QUERY,
    "check_dot_product": DOT_PRODUCT,
    "check_key_for_scores": KEY_FOR_SCORES,
    "check_perpendicular_entry": PERPENDICULAR,
    "check_score_matrix": SCORE_MATRIX,
    "check_softmax_function": SOFTMAX_FUNCTION,
    "check_fused_score": FUSED_SCORE,
    "check_one_way_look": ONE_WAY_LOOK,
    "check_projection": PROJECTION,
    "check_attention": ATTENTION,
    "check_attention_weights": ATTENTION_WEIGHTS,
    "check_causal_mask": CAUSAL_MASK,
    "check_padding_mask": PADDING_MASK,
    "check_head_width_parameter_count": HEAD_WIDTH,
    "check_mha_parameter_count": MHA_COUNT,
    "check_split_heads": SPLIT_HEADS,
    "check_sinusoidal_encoding": SINUSOIDAL,
    "check_block_output": BLOCK_OUTPUT,
    "check_block_quadratic_share": BLOCK_SHARE,
    "check_online_update": ONLINE_UPDATE,
    "check_weight_bytes": WEIGHT_BYTES,
    "check_blocked_accuracy": BLOCKED_ACCURACY,
    "check_cls_row": CLS_ROW,
    "check_copy_ratio": COPY_RATIO,
    "check_induction_score": INDUCTION,
    "check_previous_token_score": PREVIOUS_TOKEN,
    "check_window_mask": WINDOW_MASK,
    "check_kv_heads": KV_HEADS,
    "check_sink_weights": SINK_WEIGHTS,
    "check_absorbed_scores": ABSORBED_SCORES,
}


def _seeded(seed: int, *shapes: tuple[int, ...], scale: float = 1.0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [scale * rng.normal(size=shape) for shape in shapes]


def _trained_move_model():
    """Exercise 11.2's model, trained as its solution trains it."""
    (model, tokens, labels, position), _ = notebook_givens("11_seeing_attention_learn.ipynb")[
        "check_blocked_accuracy"
    ][0]
    if not getattr(model, "_trained_for_the_library", False):
        x, y = lessons.tasks.position_task(2000, target_positions=(position,), seed=1)
        lessons.train(model, x, y, steps=40, lr=0.02, batch_size=64, seed=0)
        model._trained_for_the_library = True
    return Givens("11 exercise, trained", (model, tokens, labels, position), {})


#: Checks whose exercise's inputs are built below (``EXTRA``), not read from its notebook.
BUILT_HERE = {"check_blocked_accuracy"}


@cache
def givens(check: str) -> list[Givens]:
    """The inputs ``check`` is judged on: its exercise's first, then random and hostile ones."""
    chapter = course.load().exercise_chapters().get(check)  # the exercise that calls it
    ch = chapter.name if chapter is not None and check not in BUILT_HERE else None
    found = _from(ch, check) if ch else []
    found += EXTRA.get(check, lambda: [])()
    return found


@cache
def _last_model():
    return lm.load(lm.checkpoints()[-1])


def _last_model_attention(text: str) -> np.ndarray:
    return lm.forward(text, _last_model())["attention"]  # [layers, h, n, n]


def _extra_attention():
    Q, K, V = _seeded(4, (3, 6), (5, 6), (5, 7))
    out = [Givens("random [3, 6], [5, 6], [5, 7]", (Q, K, V), {})]
    Q, K, V = _seeded(5, (4, 9), (4, 9), (4, 4), scale=2.0)
    out.append(Givens("square, n = d_v = 4, d_k = 9", (Q, K, V), {}))
    ch05 = notebook_givens("05_hand_worked_example.ipynb")["check_attention"]
    out += [Givens("05 exercise", args, kwargs) for args, kwargs in ch05]
    return out


EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_pair_count": lambda: [Givens(f"n = {n}", (n,), {}) for n in (12, 5, 7)],
    "check_soft_lookup": lambda: [
        Givens("random, n = 4, d = 3, d_v = 2", tuple(_seeded(1, (3,), (4, 3), (4, 2))), {})
    ],
    "check_split_query": lambda: [
        Givens("three keys", (np.array([[3.0, 0.0], [0.0, 3.0], [-3.0, -3.0]]), (0, 1)), {})
    ],
    "check_dot_product": lambda: [
        Givens("a = [2, 3], b = [5, -1]", ([2, 3], [5, -1]), {}),
        Givens("random, d = 5", tuple(_seeded(2, (5,), (5,))), {}),
    ],
    "check_score_matrix": lambda: [
        Givens("random [3, 2], [4, 2]", tuple(_seeded(3, (3, 2), (4, 2))), {}),
        Givens("square [3, 3], [3, 3]", tuple(_seeded(6, (3, 3), (3, 3))), {}),
    ],
    "check_key_for_scores": lambda: [Givens("random [3, 3]", tuple(_seeded(7, (3, 3), (3,))), {})],
    "check_perpendicular_entry": lambda: [
        Givens("random, d = 4, k = 2", (*_seeded(8, (4,), (4,)), 2), {})
    ],
    "check_projection": lambda: [
        Givens("random [3, 4] @ [4, 2]", tuple(_seeded(9, (3, 4), (4, 2))), {}),
        Givens("square [3, 3] @ [3, 3]", tuple(_seeded(10, (3, 3), (3, 3))), {}),
    ],
    "check_fused_score": lambda: [
        Givens(
            "random [6, 4] weight",
            (*_seeded(11, (6, 4), (5, 4)), 1, 3),
            {},
        )
    ],
    "check_one_way_look": lambda: [],
    "check_attention": _extra_attention,
    "check_attention_weights": lambda: [
        Givens("random [3, 4], [5, 4]", tuple(_seeded(12, (3, 4), (5, 4))), {})
    ],
    "check_causal_mask": lambda: [
        Givens("n = 5", (5,), {}),
        Givens("n = 7, p = 2", (7,), {"prefix": 2}),
    ],
    "check_padding_mask": lambda: [Givens("lengths [3, 1, 5, 2], n = 5", ([3, 1, 5, 2], 5), {})],
    "check_mha_parameter_count": lambda: [
        Givens("d_model = 512", (512,), {}),
        Givens("d_model = 8, no biases", (8,), {"bias": False}),
    ],
    "check_head_width_parameter_count": lambda: [
        Givens("d_model = 512, h = 8, d_k = 80", (), {"d_model": 512, "num_heads": 8, "d_k": 80})
    ],
    "check_split_heads": lambda: [
        Givens("random [3, 5, 12], h = 4", (torch.from_numpy(_seeded(13, (3, 5, 12))[0]), 4), {})
    ],
    "check_sinusoidal_encoding": lambda: [Givens("n = 7, d = 12", (7, 12), {})],
    "check_block_output": lambda: [],
    "check_weight_bytes": lambda: [Givens("B = 3, h = 8, n = 1024, 2 bytes", (3, 8, 1024, 2), {})],
    "check_block_quadratic_share": lambda: [
        Givens("n = 512, d = 768, d_ff = 2048", (), {"n": 512, "d_model": 768, "d_ff": 2048})
    ],
    "check_blocked_accuracy": lambda: [_trained_move_model()],
    "check_cls_row": lambda: [
        Givens(
            "chapter 11's model, another held-out example",
            (
                notebook_givens("11_seeing_attention_learn.ipynb")["check_cls_row"][0][0][0],
                lessons.tasks.position_task(1000, seed=2)[0][5:6],  # test_x[5:6]
            ),
            {},
        )
    ],
    "check_induction_score": lambda: [
        Givens(
            "head 1.3 on a repeat of 12",
            (_last_model_attention(lm.induction_text(12, seed=1))[1, 3].astype(float), 12),
            {},
        )
    ],
    "check_copy_ratio": lambda: [
        Givens(
            "another snippet, head 1.3 blocked",
            ("total = total + value\n", _last_model(), {(1, 3)}),
            {},
        )
    ],
    "check_previous_token_score": lambda: [
        Givens(
            "a random causal table",
            (
                softmax(
                    np.tril(_seeded(14, (9, 9), scale=2.0)[0]) - np.triu(np.full((9, 9), np.inf), 1)
                ),
            ),
            {},
        )
    ],
    "check_window_mask": lambda: [
        Givens(f"n = {n}, w = {w}", (), {"n": n, "window": w}) for n, w in ((7, 2), (5, 4))
    ],
    "check_kv_heads": lambda: [
        Givens(
            "h_kv = 4 shared by 8 heads",
            (torch.from_numpy(_seeded(15, (2, 4, 3, 5))[0]),),
            {"num_heads": 8},
        )
    ],
    "check_sink_weights": lambda: [
        Givens(
            "4 heads, n_q = 2, n_k = 6",
            tuple(map(torch.from_numpy, _seeded(16, (4, 2, 6), (4,)))),
            {},
        )
    ],
    "check_absorbed_scores": lambda: [
        Givens(
            "r = d_nope + d_R = 6, n = 7",
            tuple(_seeded(17, (4,), (2,), (6, 4), (7, 6), (7, 2))),
            {},
        ),
        Givens(
            "r = 4, d_nope = 2, d_R = 4", tuple(_seeded(18, (2,), (4,), (4, 2), (6, 4), (6, 4))), {}
        ),
    ],
}


# --- right answers in other valid forms ------------------------------------------------------------


@dataclass(frozen=True)
class Right:
    """A right answer in another valid form; ``everywhere=False``: on the exercise's givens only."""

    label: str
    make: Callable[..., Any]
    everywhere: bool = True


def _f32(fn):
    return lambda *a, **k: np.asarray(fn(*a, **k), dtype=np.float32)


def _attention_einsum(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    A = softmax(np.einsum("qd,kd->qk", Q, K) / np.sqrt(Q.shape[1]))
    return np.einsum("qk,kv->qv", A, V)


def _attention_torch(Q, K, V):
    Q, K, V = (torch.as_tensor(np.asarray(a, dtype=np.float32)) for a in (Q, K, V))
    return torch.nn.functional.scaled_dot_product_attention(Q, K, V)


def _solution_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def _online(z_max, ell, acc, scores, values):
    z_new = max(z_max, float(np.max(scores)))
    rescale = math.exp(z_max - z_new) if z_max > -math.inf else 0.0
    p = np.exp(scores - z_new)
    return z_new, ell * rescale + p.sum(), acc * rescale + p @ values


def _online_inplace(z_max, ell, acc, scores, values):
    z_new = np.maximum(z_max, scores.max())
    rescale = np.exp(z_max - z_new)
    p = np.exp(scores - z_new)
    acc *= rescale
    acc += p @ values
    return z_new, ell * rescale + p.sum(), acc


def _online_torch(z_max, ell, acc, scores, values):
    scores, values = torch.as_tensor(scores), torch.as_tensor(values)
    z_new = torch.maximum(torch.as_tensor(z_max, dtype=scores.dtype), scores.max())
    rescale = torch.exp(torch.as_tensor(z_max, dtype=scores.dtype) - z_new)
    p = torch.exp(scores - z_new)
    return z_new, ell * rescale + p.sum(), torch.as_tensor(acc) * rescale + p @ values


RIGHT: dict[str, list[Right]] = {
    "check_pair_count": [
        Right("int", lambda n: n * n),
        Right("float", lambda n: float(n * n)),
        Right("NumPy integer", lambda n: np.int64(n) ** 2),
        Right("tensor", lambda n: torch.tensor(n * n)),
    ],
    "check_soft_lookup": [
        Right(
            "values.T @ weights",
            lambda q, k, v: np.asarray(v, float).T @ softmax(np.asarray(k, float) @ q),
        ),
        Right(
            "float32",
            _f32(lambda q, k, v: softmax(np.asarray(k) @ q) @ np.asarray(v)),
            everywhere=False,
        ),
        Right("list", lambda q, k, v: (softmax(np.asarray(k) @ q) @ np.asarray(v)).tolist()),
        Right(
            "tensor",
            lambda q, k, v: (
                torch.softmax(torch.as_tensor(np.asarray(k, float) @ np.asarray(q, float)), 0)
                @ torch.as_tensor(np.asarray(v, float))
            ),
        ),
    ],
    "check_split_query": [
        Right("the sum of the keys", lambda k, pair, **_: np.asarray(k)[list(pair)].sum(axis=0)),
        Right("longer", lambda k, pair, **_: 3 * np.asarray(k)[list(pair)].sum(axis=0)),
        Right("list", lambda k, pair, **_: (2 * np.asarray(k)[list(pair)].sum(axis=0)).tolist()),
        Right(
            "tensor",
            lambda k, pair, **_: torch.as_tensor(2 * np.asarray(k)[list(pair)].sum(axis=0)),
        ),
    ],
    "check_dot_product": [
        Right("a @ b", lambda a, b: np.asarray(a, float) @ np.asarray(b, float)),
        Right("a loop", lambda a, b: sum(x * y for x, y in zip(a, b, strict=True))),
        Right(
            "torch.dot",
            lambda a, b: torch.dot(
                torch.as_tensor(np.asarray(a, float)), torch.as_tensor(np.asarray(b, float))
            ),
        ),
        Right("a 1-element list", lambda a, b: [float(np.dot(a, b))]),
    ],
    "check_score_matrix": [
        Right("einsum", lambda Q, K: np.einsum("id,jd->ij", Q, K)),
        Right("list", lambda Q, K: (np.asarray(Q) @ np.asarray(K).T).tolist()),
        Right(
            "tensor", lambda Q, K: torch.as_tensor(np.asarray(Q)) @ torch.as_tensor(np.asarray(K)).T
        ),
    ],
    "check_perpendicular_entry": [
        Right("solved", lambda a, b, k: -(np.dot(a, b) - a[k] * b[k]) / a[k]),
        Right("a 1-element list", lambda a, b, k: [-(np.dot(a, b) - a[k] * b[k]) / a[k]]),
        Right(
            "float32",
            lambda a, b, k: np.float32(-(np.dot(a, b) - a[k] * b[k]) / a[k]),
            everywhere=False,
        ),
    ],
    "check_key_for_scores": [
        Right("inverse", lambda Q, s: np.linalg.inv(np.asarray(Q, float)) @ np.asarray(s, float)),
        Right(
            "lstsq",
            lambda Q, s: np.linalg.lstsq(np.asarray(Q, float), np.asarray(s, float), rcond=None)[0],
        ),
        Right("list", lambda Q, s: np.linalg.solve(Q, s).tolist()),
        Right("float32", _f32(lambda Q, s: np.linalg.solve(Q, s)), everywhere=False),
    ],
    "check_softmax_function": [
        Right("the solution", lambda: _solution_softmax),
        Right("lessons.softmax", lambda: lessons.softmax),
        Right("torch", lambda: lambda x: torch.softmax(torch.as_tensor(x), dim=-1)),
        Right("a list", lambda: lambda x: _solution_softmax(x).tolist()),
        Right(
            "log-sum-exp",
            lambda: (
                lambda x: np.exp(
                    x
                    - (m := x.max(-1, keepdims=True))
                    - np.log(np.exp(x - m).sum(-1, keepdims=True))
                )
            ),
        ),
        Right("in float32", lambda: lambda x: _solution_softmax(x.astype(np.float32))),
    ],
    "check_projection": [
        Right("einsum", lambda X, W: np.einsum("nd,do->no", X, W)),
        Right(
            "tensor", lambda X, W: torch.as_tensor(np.asarray(X)) @ torch.as_tensor(np.asarray(W))
        ),
        Right("list", lambda X, W: (np.asarray(X) @ np.asarray(W)).tolist()),
    ],
    "check_fused_score": [
        Right(
            "weights sliced",
            lambda w, X, i, j: (
                (X @ w[: len(w) // 3].T)[i] @ (X @ w[len(w) // 3 : 2 * len(w) // 3].T)[j]
            ),
        ),
        Right(
            "nn.Linear",
            lambda w, X, i, j: _linear_score(w, X, i, j),
        ),
        Right(
            "a 1-element array",
            lambda w, X, i, j: np.array(
                [np.split(X @ w.T, 3, axis=1)[0][i] @ np.split(X @ w.T, 3, axis=1)[1][j]]
            ),
        ),
    ],
    "check_one_way_look": [
        Right(
            "the solution",
            lambda words, looker, target, *a, **k: _look(_looks())(words, looker, target),
        ),
        Right(
            "stronger",
            lambda words, looker, target, *a, **k: _look(_looks(strength=4.0))(
                words, looker, target
            ),
        ),
        Right(
            "tensors",
            lambda words, looker, target, *a, **k: tuple(
                torch.as_tensor(W) for W in _look(_looks())(words, looker, target)
            ),
        ),
    ],
    "check_attention": [
        Right("einsum", _attention_einsum),
        Right("float32", _f32(_attention_einsum)),
        Right("torch's fused kernel", _attention_torch),
        Right("list", lambda Q, K, V: _attention_einsum(Q, K, V).tolist()),
    ],
    "check_attention_weights": [
        Right(
            "exp over the row sum",
            lambda Q, K: (
                (e := np.exp(np.asarray(Q) @ np.asarray(K).T / np.sqrt(np.shape(Q)[1])))
                / e.sum(1, keepdims=True)
            ),
        ),
        Right(
            "float32",
            _f32(lambda Q, K: softmax(np.asarray(Q) @ np.asarray(K).T / np.sqrt(np.shape(Q)[1]))),
        ),
        Right(
            "tensor",
            lambda Q, K: torch.softmax(
                torch.as_tensor(np.asarray(Q, float) @ np.asarray(K, float).T)
                / math.sqrt(np.shape(Q)[1]),
                -1,
            ),
        ),
    ],
    "check_causal_mask": [
        Right(
            "tril | prompt",
            lambda n, prefix=0: np.tril(np.ones((n, n), dtype=bool)) | (np.arange(n) < prefix),
        ),
        Right(
            "tensor",
            lambda n, prefix=0: (
                torch.ones(n, n, dtype=torch.bool).tril() | (torch.arange(n) < prefix)
            ),
        ),
        Right(
            "nested lists",
            lambda n, prefix=0: [[j <= i or j < prefix for j in range(n)] for i in range(n)],
        ),
    ],
    "check_padding_mask": [
        Right(
            "comparison",
            lambda lengths, n: (np.arange(n) < np.asarray(lengths)[:, None])[:, None, :],
        ),
        Right(
            "tensor",
            lambda lengths, n: (torch.arange(n) < torch.tensor(lengths)[:, None]).unsqueeze(1),
        ),
        Right("lists", lambda lengths, n: [[[j < L for j in range(n)]] for L in lengths]),
    ],
    "check_head_width_parameter_count": [
        Right("4 d_model h d_k", lambda d_model, num_heads, d_k: 4 * d_model * num_heads * d_k),
        Right("float", lambda d_model, num_heads, d_k: float(4 * d_model * num_heads * d_k)),
        Right(
            "NumPy integer", lambda d_model, num_heads, d_k: np.int64(4) * d_model * num_heads * d_k
        ),
    ],
    "check_mha_parameter_count": [
        Right("count", lambda d, bias=True: 4 * d * d + (4 * d if bias else 0)),
        Right(
            "nn.MultiheadAttention",
            lambda d, bias=True: sum(
                p.numel() for p in torch.nn.MultiheadAttention(d, 1, bias=bias).parameters()
            ),
        ),
    ],
    "check_split_heads": [
        Right(
            "view, transpose",
            lambda X, h: torch.as_tensor(X).view(X.shape[0], X.shape[1], h, -1).transpose(1, 2),
        ),
        Right(
            "NumPy",
            lambda X, h: np.asarray(X).reshape(X.shape[0], X.shape[1], h, -1).transpose(0, 2, 1, 3),
        ),
        Right(
            "float32 tensor",
            lambda X, h: torch.as_tensor(X).float().unflatten(-1, (h, -1)).permute(0, 2, 1, 3),
        ),
        Right(
            "lists",
            lambda X, h: (
                np.asarray(X).reshape(X.shape[0], X.shape[1], h, -1).transpose(0, 2, 1, 3).tolist()
            ),
        ),
    ],
    "check_sinusoidal_encoding": [
        Right("lessons", lambda n, d: lessons.sinusoidal_encoding(n, d)),
        Right(
            "halves interleaved by stack",
            lambda n, d: np.stack(
                [
                    np.sin(np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)),
                    np.cos(np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)),
                ],
                axis=-1,
            ).reshape(n, d),
        ),
        Right("float32", _f32(lambda n, d: lessons.sinusoidal_encoding(n, d)), everywhere=False),
    ],
    "check_block_output": [
        Right("by hand", _block(_pre)),
        Right("the block itself", lambda block, x: block(x).detach()),
        Right("a list", lambda block, x: block(x).detach().tolist()),
    ],
    "check_block_quadratic_share": [
        Right("n / (n + 2d + d_ff)", lambda n, d_model, d_ff: n / (n + 2 * d_model + d_ff)),
        Right(
            "rounded to 4 places", lambda n, d_model, d_ff: round(n / (n + 2 * d_model + d_ff), 4)
        ),
        Right("float32", lambda n, d_model, d_ff: np.float32(n / (n + 2 * d_model + d_ff))),
    ],
    "check_online_update": [
        Right("the solution", lambda: _online),
        Right("in place", lambda: _online_inplace),
        Right("torch", lambda: _online_torch),
    ],
    "check_weight_bytes": [
        Right("product", lambda B, h, n, b: B * h * n * n * b),
        Right("float", lambda B, h, n, b: float(B * h * n * n * b)),
    ],
    "check_cls_row": [
        Right("the solution", _cls(lambda *a: _row(*a))),
        Right(
            "lessons.attention",
            _cls(
                lambda X, w_q, w_k, b_q, b_k: lessons.attention(
                    (X @ w_q.T + b_q)[:1], X @ w_k.T + b_k, X @ w_k.T + b_k
                )[1]
            ),
        ),
        Right("the model's weights", lambda model, tokens: model(tokens)[1][0, 0, :1].detach()),
    ],
    "check_blocked_accuracy": [
        Right(
            "keep-mask",
            _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=torch.arange(n) != p)),
        ),
        Right(
            "NumPy keep-mask",
            _accuracy(lambda m, x, y, p, n: lessons.accuracy(m, x, y, mask=np.arange(n) != p)),
        ),
    ],
    "check_previous_token_score": [
        Right("loop", _prev(lambda A, n: np.mean([A[i, i - 1] for i in range(1, n)]))),
        Right("diagonal", _prev(lambda A, n: np.diagonal(A, -1).mean())),
        Right("lm", lambda A: lm.previous_token_score(A)),
    ],
    "check_induction_score": [
        Right("fancy indexing", _ind(lambda A, L, r: A[r, r - L + 1].mean())),
        Right("lm", lambda A, L: lm.induction_score(A, L)),
        Right("diagonal", _ind(lambda A, L, r: np.diagonal(A, 1 - L)[2:].mean())),
    ],
    "check_copy_ratio": [
        Right("the solution", _copy(lambda ls, p, m: ls[m:].mean() / ls[: m - 1].mean())),
        Right(
            "float32",
            _copy(lambda ls, p, m: np.float32(ls[m:].mean() / ls[: m - 1].mean())),
            everywhere=False,
        ),
    ],
    "check_window_mask": [
        Right("tril & triu", lambda n, window: np.tril(np.ones((n, n), dtype=bool))
              & np.triu(np.ones((n, n), dtype=bool), -(window - 1))),
        Right("a tensor", lambda n, window: torch.as_tensor(
            lessons.window_mask(np.arange(n), np.arange(n), window))),
    ],
    "check_kv_heads": [
        Right("an axis expanded, then flattened", _kv(lambda K, h: K[:, :, None].expand(
            K.shape[0], K.shape[1], h // K.shape[1], *K.shape[2:]).reshape(
            K.shape[0], h, *K.shape[2:]))),
        Right("NumPy's repeat", lambda K, num_heads: np.repeat(
            np.asarray(K), num_heads // K.shape[1], axis=1)),
    ],
    "check_sink_weights": [
        Right("a sink column, then dropped", _sink(lambda Z, s: torch.cat(
            [Z, s.expand(*Z.shape[:-1], 1)], -1).softmax(-1)[..., :-1])),
        Right("exp / (sum + exp(s))", _sink(lambda Z, s: Z.exp()
              / (Z.exp().sum(-1, keepdim=True) + s.exp()))),
    ],
    "check_absorbed_scores": [
        Right("the absorbed form", _absorbed_right),
        Right("the keys built in full", _absorbed_naive),
    ],
}  # fmt: skip


def _linear_score(w, X, i, j):
    layer = torch.nn.Linear(w.shape[1], w.shape[0], bias=False, dtype=torch.float64)
    with torch.no_grad():
        layer.weight.copy_(torch.as_tensor(w))
        Q, K, _ = layer(torch.as_tensor(X)).chunk(3, dim=-1)
    return Q[i] @ K[j]
