"""The attention explorer's Python side: its data, its HTML and its errors.

The browser side (the script computing every stage, the controls, the clicks) is
tested in a real browser by tests/test_explorer_browser.py.
"""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser
from importlib import resources

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import lessons
from lessons.book.widgets.explorer import STAGES, Explorer, explorer, explorer_from_embeddings

# The worked example of chapter 5.
TOKENS = ["a", "b", "c"]
Q = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)  # [3, 2]
K = np.array([[1, 1], [1, 0], [0, 1]], dtype=float)  # [3, 2]
V = np.array([[2, 0], [0, 2], [1, 1]], dtype=float)  # [3, 2]


def payload(html: str) -> dict:
    """The JSON the widget embeds, read back out of its HTML."""
    (text,) = re.findall(
        r'<script type="application/json" data-explorer-data="">(.*?)</script>', html, re.S
    )
    return json.loads(text)


def expected(Q, K, V, *, scale=True, causal=False, temperature=1.0):
    """Weights and outputs written out: softmax(mask(Q K^T / (sqrt(d_k) T))) and A V."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    n, d_k = Q.shape
    Z = Q @ K.T / ((math.sqrt(d_k) if scale else 1.0) * temperature)  # [n, n]
    if causal:
        Z = np.where(lessons.causal_mask(n), Z, -np.inf)
    A = lessons.softmax(Z)  # [n, n]
    return A @ V, A


class Cells(HTMLParser):
    """Collects the attributes of every element that carries a given attribute."""

    def __init__(self, attribute: str) -> None:
        super().__init__()
        self.attribute = attribute
        self.found: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.attribute in attrs:
            self.found.append(attrs)


def cells(html: str, attribute: str) -> list[dict[str, str | None]]:
    parser = Cells(attribute)
    parser.feed(html)
    return parser.found


def test_the_embedded_data_equal_lessons_attention_for_the_default_settings():
    data = payload(explorer(TOKENS, Q, K, V)._repr_html_())
    output, weights = lessons.attention(Q, K, V)
    (head,) = data["heads"]
    np.testing.assert_array_equal(head["Q"], Q)
    np.testing.assert_array_equal(head["K"], K)
    np.testing.assert_array_equal(head["V"], V)
    np.testing.assert_allclose(data["reference"]["weights"][0], weights, atol=1e-9)
    np.testing.assert_allclose(data["reference"]["output"][0], output, atol=1e-9)
    assert data["tokens"] == TOKENS
    assert data["defaults"] == {
        "stage": "weights",
        "scale": True,
        "causal": False,
        "temperature": 1.0,
        "head": 0,
    }


@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_the_embedded_reference_follows_the_settings(scale, causal, temperature):
    ex = explorer(TOKENS, Q, K, V, scale=scale, causal=causal, temperature=temperature)
    data = payload(ex._repr_html_())
    output, weights = expected(Q, K, V, scale=scale, causal=causal, temperature=temperature)
    np.testing.assert_allclose(data["reference"]["weights"][0], weights, atol=1e-9)
    np.testing.assert_allclose(data["reference"]["output"][0], output, atol=1e-9)
    assert data["defaults"]["scale"] is scale and data["defaults"]["causal"] is causal
    if causal:
        A = np.array(data["reference"]["weights"][0])
        assert (A[~lessons.causal_mask(3)] == 0).all()


def test_heads_split_by_columns_as_split_heads_does():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4, 6))  # [n, h * d_k] with h = 2, d_k = 3
    Y = rng.normal(size=(4, 6))  # [n, h * d_k]
    W = rng.normal(size=(4, 4))  # [n, h * d_v] with d_v = 2
    data = payload(explorer("w x y z", X, Y, W, heads=2)._repr_html_())
    split = [lessons.split_heads(torch.tensor(a)[None], 2)[0].numpy() for a in (X, Y, W)]
    assert len(data["heads"]) == 2
    for h in range(2):
        Qh, Kh, Vh = (s[h] for s in split)  # [4, 3], [4, 3], [4, 2]
        np.testing.assert_allclose(data["heads"][h]["Q"], Qh, atol=1e-9)
        np.testing.assert_allclose(data["heads"][h]["V"], Vh, atol=1e-9)
        output, weights = lessons.attention(Qh, Kh, Vh)
        np.testing.assert_allclose(data["reference"]["weights"][h], weights, atol=1e-9)
        np.testing.assert_allclose(data["reference"]["output"][h], output, atol=1e-9)
    assert data["heads"][1]["label"] == "head 1 (columns 3–5 of Q and K, 2–3 of V)"


def test_heads_given_as_a_leading_axis_and_torch_tensors_are_accepted():
    rng = np.random.default_rng(2)
    Qh, Kh, Vh = (torch.tensor(rng.normal(size=(3, 5, 2))) for _ in range(3))  # [h, n, d]
    ex = explorer(list("abcde"), Qh, Kh, Vh, head=2)
    assert ex.num_heads == 3
    data = payload(ex._repr_html_())
    _, weights = lessons.attention(Qh, Kh, Vh)  # [3, 5, 5]
    np.testing.assert_allclose(data["reference"]["weights"], weights.numpy(), atol=1e-9)
    assert data["defaults"]["head"] == 2


def test_built_from_embeddings_the_first_stage_shows_them():
    X = lessons.word_vectors("not good")  # [2, 6]
    rng = np.random.default_rng(3)
    W_Q, W_K, W_V = (rng.normal(size=(6, 2)) for _ in range(3))
    ex = explorer_from_embeddings(
        "not good", X, W_Q, W_K, W_V, features=lessons.toy.FEATURES, stage="embeddings"
    )
    data = payload(ex._repr_html_())
    np.testing.assert_array_equal(data["X"], X)
    assert data["features"] == list(lessons.toy.FEATURES)
    assert data["projected"] is True and data["defaults"]["stage"] == "embeddings"
    np.testing.assert_allclose(data["heads"][0]["Q"], X @ W_Q, atol=1e-9)
    _, weights = lessons.attention(X @ W_Q, X @ W_K, X @ W_V)
    np.testing.assert_allclose(data["reference"]["weights"][0], weights, atol=1e-9)


def test_the_html_is_the_same_on_every_call():
    first = explorer(TOKENS, Q, K, V, causal=True)._repr_html_()
    again = explorer(TOKENS, Q.tolist(), K.tolist(), V.tolist(), causal=True)._repr_html_()
    assert first == again
    assert first == explorer(TOKENS, Q, K, V, causal=True)._repr_html_()


def test_the_html_is_self_contained_and_has_no_ids():
    html = explorer(TOKENS, Q, K, V)._repr_html_()
    assert " id=" not in html, "ids must come from the content, not from randomness"
    assert "http://" not in html and "https://" not in html and " src=" not in html
    js = (resources.files("lessons.book.widgets") / "assets" / "explorer.js").read_text("utf-8")
    css = (resources.files("lessons.book.widgets") / "assets" / "explorer.css").read_text("utf-8")
    assert f"<script>{js}</script>" in html and f"<style>{css}</style>" in html
    assert "document.currentScript" in js
    assert html.startswith('<div class="attn-explorer" data-explorer="attention"')


def test_tokens_that_look_like_markup_cannot_break_out_of_the_page():
    tokens = ["</script>", "<b>", "a&b"]
    html = explorer(tokens, Q, K, V)._repr_html_()
    assert html.count("</script>") == 2  # the data's and the code's own
    assert "<b>" not in html and "&lt;b&gt;" in html and "a&amp;b" in html
    assert payload(html)["tokens"] == tokens


def test_without_javascript_the_weights_show_as_a_plain_table():
    html = explorer(TOKENS, Q, K, V, causal=True)._repr_html_()
    static = html[html.index('<div class="ax-static">') : html.index("<script")]
    weight_cells = cells(static, "data-weight")
    _, weights = expected(Q, K, V, causal=True)
    assert len(weight_cells) == 9
    for cell in weight_cells:
        i, j = (int(k) for k in cell["data-weight"].split(","))
        assert float(cell["data-value"]) == pytest.approx(weights[i, j], abs=1e-9)
        assert (cell.get("data-masked") == "true") == (j > i)
        if j > i:
            assert float(cell["data-value"]) == 0.0
    sums = cells(static, "data-row-sum")
    assert [float(c["data-value"]) for c in sums] == pytest.approx([1, 1, 1], abs=1e-9)
    assert "0.401" not in static and "0.670" in static  # causal row 1: (0.670, 0.330, 0)
    assert "causal_mask(Q Kᵀ / √d_k)" in static


def test_the_repr_is_stable_and_says_what_is_shown():
    ex = explorer(TOKENS, Q, K, V, temperature=0.5)
    assert repr(ex) == (
        "Explorer(tokens=['a', 'b', 'c'], heads=1, d_k=2, d_v=2, stage='weights', "
        "scale=True, causal=False, temperature=0.5)"
    )
    assert repr(ex) == repr(explorer(TOKENS, Q, K, V, temperature=0.5))
    assert isinstance(ex, Explorer) and "0x" not in repr(ex)


def test_compute_gives_lessons_attention_for_any_settings():
    ex = explorer(TOKENS, Q, K, V)
    output, weights = ex.compute(scale=False, causal=True, temperature=2.0)
    want_output, want_weights = expected(Q, K, V, scale=False, causal=True, temperature=2.0)
    np.testing.assert_allclose(weights[0], want_weights, atol=1e-12)
    np.testing.assert_allclose(output[0], want_output, atol=1e-12)


def test_a_string_of_tokens_is_split_on_spaces_and_stages_are_listed_in_order():
    assert explorer("a b c", Q, K, V).tokens == ("a", "b", "c")
    assert STAGES == ("embeddings", "qkv", "scores", "scaled", "masked", "weights", "output")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tokens": [["a", "b"], "c", "d"]}, r"flat list of strings.*item 0"),
        ({"tokens": ["a", "b"]}, r"2 tokens, but Q has 3 rows"),
        ({"tokens": ["a", "b", "c", "d"]}, r"4 tokens, but Q has 3 rows"),
        ({"tokens": []}, r"at least one token"),
        ({"tokens": 3}, r"list of strings"),
        ({"Q": [[1, 0], [0, 1, 2], [1, 1]]}, r"Q must be a rectangular array"),
        ({"Q": [[1, 0, 1], [0, 1, 1], [1, 1, 1]]}, r"same d_k.*Q \(3, 3\), K \(3, 2\)"),
        ({"V": [[2, 0], [0, 2]]}, r"3 tokens, but V has 2 rows"),
        ({"K": [1, 2, 3]}, r"K must be 2-D or 3-D; got shape \(3,\)"),
        ({"V": np.ones((1, 3, 2))}, r"all be 2-D or all 3-D.*V \(1, 3, 2\)"),
        ({"Q": [[1, 0], [0, math.nan], [1, 1]]}, r"Q of shape \(3, 2\) holds NaN"),
        ({"heads": 3}, r"heads=3 must divide the width of Q"),
        ({"heads": 0}, r"heads must be a positive integer"),
        ({"temperature": 0}, r"temperature must lie between 0.05 and 5.0"),
        ({"temperature": 0.33}, r"in steps of 0.05"),
        ({"stage": "softmax"}, r"stage must be one of"),
        ({"stage": "embeddings"}, r"stage must be one of"),
        ({"head": 1}, r"head must be an index from 0 to 0"),
        ({"features": ["x"]}, r"features name the columns of X"),
        ({"X": np.ones((2, 4))}, r"one row of X per token: there are 3 tokens.*\(2, 4\)"),
        ({"X": np.ones((3, 4)), "features": ["x"]}, r"name each of X's 4 columns"),
    ],
)
def test_bad_input_is_a_value_error_that_names_the_shapes(change, message):
    arguments = {"tokens": TOKENS, "Q": Q, "K": K, "V": V, **change}
    tokens = arguments.pop("tokens")
    with pytest.raises(ValueError, match=message):
        explorer(tokens, arguments.pop("Q"), arguments.pop("K"), arguments.pop("V"), **arguments)


def test_three_d_inputs_must_agree_with_heads():
    Qh = np.ones((2, 3, 2))  # [h, n, d_k]
    with pytest.raises(ValueError, match=r"heads=3 but the inputs hold 2 heads"):
        explorer(TOKENS, Qh, Qh, Qh, heads=3)
    with pytest.raises(ValueError, match=r"same number of heads.*K \(1, 3, 2\)"):
        explorer(TOKENS, Qh, Qh[:1], Qh)


def test_projections_that_do_not_fit_the_embeddings_are_value_errors():
    X = np.ones((3, 4))  # [n, d_model]
    with pytest.raises(ValueError, match=r"X has shape \(3, 4\), W has shape \(5, 2\)"):
        explorer_from_embeddings(TOKENS, X, np.ones((5, 2)), np.ones((4, 2)), np.ones((4, 2)))


# ---------------------------------------------------------------- padding mode (issue 17)

PAD_TOKENS = ["we", "sat", "<pad>", "<pad>", "<pad>"]
PAD_Q = np.array([[1, 0], [0, 1], [1, 1], [2, 0], [0, -1]], dtype=float)  # [5, 2]
PAD_K = np.array([[1, 1], [1, 0], [0, 1], [-1, 2], [3, 1]], dtype=float)  # [5, 2]
PAD_V = np.array([[2, 0], [0, 2], [1, 1], [5, 5], [-3, 4]], dtype=float)  # [5, 2]


def padded_keep(n: int, length: int, causal: bool, pad_queries: bool) -> np.ndarray:
    """The keep-mask written out: key j < length, query i < length with pad_queries."""
    i, j = np.indices((n, n))  # [n, n] each
    keep = j < length
    if causal:
        keep &= j <= i
    if pad_queries:
        keep &= i < length
    return keep


@settings(max_examples=40, deadline=None)
@given(
    length=st.integers(1, 5),
    causal=st.booleans(),
    pad_queries=st.booleans(),
    start=st.integers(1, 5),
)
def test_compute_with_padding_equals_lessons_attention_with_the_padding_mask(
    length, causal, pad_queries, start
):
    ex = explorer(PAD_TOKENS, PAD_Q, PAD_K, PAD_V, length=start)
    output, weights = ex.compute(length=length, causal=causal, pad_queries=pad_queries)
    keep = padded_keep(5, length, causal, pad_queries)  # [5, 5]
    want_output, want_weights = lessons.attention(PAD_Q, PAD_K, PAD_V, keep)
    np.testing.assert_allclose(weights[0], want_weights, atol=1e-12)
    np.testing.assert_allclose(output[0], want_output, atol=1e-12)
    assert (weights[0][~keep] == 0.0).all()
    sums = weights[0].sum(axis=1)  # [5]
    empty = ~keep.any(axis=1)  # [5]
    np.testing.assert_allclose(sums[~empty], 1.0, atol=1e-12)
    assert (sums[empty] == 0.0).all() and (output[0][empty] == 0.0).all()
    assert empty.any() == (pad_queries and length < 5)


def test_padding_settings_reach_the_payload_and_the_static_table():
    ex = explorer(PAD_TOKENS, PAD_Q, PAD_K, PAD_V, length=2, pad_queries=True, causal=True)
    assert (ex.settings.length, ex.settings.pad_queries) == (2, True)
    html = ex._repr_html_()
    data = payload(html)
    assert data["defaults"]["length"] == 2 and data["defaults"]["pad_queries"] is True
    _, want = lessons.attention(PAD_Q, PAD_K, PAD_V, padded_keep(5, 2, True, True))
    np.testing.assert_allclose(data["reference"]["weights"][0], want, atol=1e-10)
    static = cells(html, "data-weight")
    masked = {c["data-weight"] for c in static if c.get("data-masked") == "true"}
    keep = padded_keep(5, 2, True, True)
    assert masked == {f"{i},{j}" for i in range(5) for j in range(5) if not keep[i, j]}
    sums = {c["data-row-sum"]: float(c["data-value"]) for c in cells(html, "data-row-sum")}
    assert sums == {"0": 1.0, "1": 1.0, "2": 0.0, "3": 0.0, "4": 0.0}
    assert html.split("<script")[0].count("nothing left to attend to") == 3
    assert "padding_mask(" in html and "length 2 of 5" in html


def test_without_length_the_payload_has_no_padding_keys():
    data = explorer(TOKENS, Q, K, V).data()
    assert "length" not in data["defaults"] and "pad_queries" not in data["defaults"]
    assert explorer(TOKENS, Q, K, V, length=3).data()["defaults"]["length"] == 3


@pytest.mark.parametrize("length", [0, 6, -1, True, 2.0, "2"])
def test_a_length_outside_one_to_n_is_a_value_error_naming_it(length):
    with pytest.raises(ValueError, match=r"length must be an integer from 1 to 5"):
        explorer(PAD_TOKENS, PAD_Q, PAD_K, PAD_V, length=length)
    ex = explorer(PAD_TOKENS, PAD_Q, PAD_K, PAD_V)
    with pytest.raises(ValueError, match=r"length must be an integer from 1 to 5"):
        ex.compute(length=length)
