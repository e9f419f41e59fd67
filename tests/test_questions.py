"""The in-page questions in Python: answers and named mistakes, the grading rule, the HTML.

The page grades with the rule `Question.grade` states (the browser tests check the
page against it); here that rule, the embedded data and the mistakes shared with the
chapters' self-checks are checked against `lessons` itself.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import lessons
from lessons.book.widgets.question import TOLERANCE, mistakes_at, question
from lessons.book.widgets.question_inputs import parse_number, parse_shape
from lessons.checks import ch04, ch05, ch07, ch10

# Chapter 5's worked example.
Q5 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [3, 2]
K5 = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [3, 2]
V5 = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [3, 2]
RNG = np.random.default_rng(3)
Q4, K4, V4 = (RNG.normal(size=(4, 3)) for _ in range(3))  # [4, 3] each
X7 = np.arange(24.0).reshape(2, 3, 4)  # [B, n, d_model]

#: (check, its inputs, the mistakes function) for every check whose mistakes are shared.
SHARED = [
    (lessons.check_attention, (Q4, K4, V4), ch04.attention_mistakes),
    (lessons.check_attention_weights, (Q5, K5), ch05.attention_weight_mistakes),
    (lessons.check_split_heads, (X7, 2), ch07.split_heads_mistakes),
    (lessons.check_mha_parameter_count, (8, True), ch07.mha_parameter_mistakes),
    (lessons.check_mha_parameter_count, (8, False), ch07.mha_parameter_mistakes),
    (lessons.check_weight_bytes, (8, 12, 4096, 2), ch10.weight_bytes_mistakes),
]


@pytest.mark.parametrize(
    ("check", "inputs", "mistakes"), SHARED, ids=lambda x: getattr(x, "__name__", "")
)
def test_every_shared_mistake_gets_the_checks_own_message(check, inputs, mistakes):
    named = {k: v for k, v in mistakes(*inputs).items() if v[0] is not None}
    assert len(named) >= 1
    for name, (value, explanation) in named.items():
        verdict = check(value, *inputs)
        assert not verdict and repr(verdict) == f"✘ Not yet. {explanation}", name


def test_the_weights_question_embeds_lessons_numbers_and_the_checks_messages():
    A = lessons.attention(Q5, K5, V5)[1]  # [3, 3]
    q = question("Predict `A`.", A, mistakes=ch05.attention_weight_mistakes(Q5, K5))
    data = q.data()
    # Stored to 10 significant digits (lessons.book.widgets.widget.stable_floats), the same on every CPU.
    np.testing.assert_allclose(data["answer"], A, rtol=1e-9, atol=0)
    expected = ch05.attention_weight_mistakes(Q5, K5)
    assert [m["name"] for m in data["mistakes"]] == list(expected)
    for m in data["mistakes"]:
        value, explanation = expected[m["name"]]
        np.testing.assert_allclose(m["value"], value, rtol=1e-9, atol=0)
        assert m["message"] == repr(lessons.check_attention_weights(value, Q5, K5))
        assert q.grade(m["shown"])[:2] == ("mistake", m["name"])
    assert q.grade(data["shown"])[0] == "correct"
    assert q.grade([["0.5"] * 3] * 3)[0] == "wrong"


def test_a_row_of_the_weights_is_a_vector_question():
    A = lessons.attention(Q5, K5, V5)[1]  # [3, 3]
    rows = mistakes_at(ch05.attention_weight_mistakes(Q5, K5), 1)
    full = ch05.attention_weight_mistakes(Q5, K5)
    assert list(rows) == list(full)  # all five apply to this square example
    for name, (value, why) in rows.items():
        np.testing.assert_array_equal(value, full[name][0][1])
        assert why == full[name][1]
    q = question("Row 2 of A?", A[1], mistakes=rows, columns=["k1", "k2", "k3"])
    assert q.kind == "array" and np.shape(q.answer) == (3,)
    assert q.shown(q.answer) == [[f"{x:.3f}".rstrip("0").rstrip(".") for x in A[1]]]
    assert q.grade(q.shown(q.answer))[0] == "correct"
    assert "softmax-over-columns" in q.mistakes and "transpose" in q.mistakes


def test_mistakes_at_leaves_out_what_has_no_such_part():
    mistakes = {"none": (None, "x"), "short": ([1.0], "y"), "ok": ([[1.0, 2.0], [3.0, 4.0]], "z")}
    assert list(mistakes_at(mistakes, 1)) == ["ok"]
    assert mistakes_at(mistakes, (1, 0))["ok"][0] == 3.0


def test_a_shape_question_keeps_only_mistakes_of_another_shape():
    expected = lessons.split_heads(torch.as_tensor(X7), 2)  # [2, 2, 3, 2]
    q = question("Shape?", expected, kind="shape", mistakes=ch07.split_heads_mistakes(X7, 2))
    assert q.answer == ("2", "2", "3", "2")
    assert list(q.mistakes) == ["heads-after-tokens"]  # the other has the right shape
    assert q.grade("torch.Size([2, 3, 2, 2])")[:2] == ("mistake", "heads-after-tokens")
    assert q.grade("2x2x3x2")[0] == "correct"


def test_a_count_question_takes_the_checks_counts():
    q = question(
        "Parameters of MHA, d_model = 8?",
        4 * 64 + 4 * 8,
        mistakes=ch07.mha_parameter_mistakes(8),
    )
    assert list(q.mistakes) == ["no-output-projection", "no-biases"]  # "biases-counted": None
    assert q.grade(str(3 * 64 + 3 * 8))[:2] == ("mistake", "no-output-projection")
    assert q.grade(str(4 * 64))[:2] == ("mistake", "no-biases")
    assert q.grade(str(4 * 64 + 4 * 8))[0] == "correct"


def test_mistakes_the_reader_cannot_tell_apart_are_left_out():
    mistakes = {
        "same-as-answer": (1.0004, "too close to the answer"),
        "first": (2.0, "one"),
        "again": (2.001, "as close to the first"),
        "skipped": (None, "cannot apply"),
        "other-shape": ([1.0, 2.0], "not a number"),
    }
    q = question("x?", 1.0, mistakes=mistakes)
    assert list(q.mistakes) == ["first"]


@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(-0.99, 0.99),
    st.sampled_from([0.5, 0.05, TOLERANCE, 1e-4]),
)
def test_a_number_within_the_tolerance_is_right_and_its_shown_form_is_too(answer, frac, tol):
    q = question("x?", answer, tolerance=tol)
    assert q.grade(q.shown(answer))[0] == "correct"
    assert q.grade(repr(answer + frac * tol))[0] == "correct"
    assert q.grade(repr(answer + 2.5 * tol + 1e-9 * abs(answer)))[0] == "wrong"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.4", 0.4),
        (" -.5 ", -0.5),
        ("1e-3", 1e-3),
        ("2/3", 2 / 3),
        ("0,4", 0.4),
        ("\u22121", -1.0),
    ],
)
def test_numbers_are_read_leniently(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1/0", "1,2,3", "1..2", "0x10", "inf", "nan", "1/2/3"])
def test_what_is_not_a_number_is_not_read(text):
    assert parse_number(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "[B, h, n, n]",
        "B x h x n x n",
        "(b,h,n,n)",
        "[B; h; N; n]",
        "B×h×n×n",
        "  [ B , h , n , n ] ",
    ],
)
def test_shapes_are_read_leniently(text):
    assert parse_shape(text) == ("b", "h", "n", "n")


def test_sizes_names_and_expressions_in_shapes():
    assert parse_shape("torch.Size([2, 4, 09, 9])") == ("2", "4", "9", "9")
    assert parse_shape("2x4x9x9") == ("2", "4", "9", "9")
    assert parse_shape("[B, n, d_model / h]") == ("b", "n", "dmodel/h")
    assert parse_shape("[n_q, d_k]") == parse_shape("[nq, DK]")


def test_a_choice_question_names_its_wrong_choices():
    q = question(
        "Which key does the causal mask block for query 1?",
        "key 2",
        choices=["key 0", "key 1", "key 2"],
        mistakes={"own-position": ("key 1", "A token may attend to itself.")},
    )
    assert q.kind == "choice" and q.answer == 2
    assert q.grade(2)[0] == "correct" and q.grade(None)[0] == "unanswered"
    assert q.grade(1)[:2] == ("mistake", "own-position")
    assert q.grade(0)[0] == "wrong"


def test_the_html_is_deterministic_has_no_ids_and_carries_the_contract():
    def build():
        A = lessons.attention(Q5, K5, V5)[1]  # [3, 3]
        return question("Predict A.", A, mistakes=ch05.attention_weight_mistakes(Q5, K5))

    first, second = build(), build()
    page = first._repr_html_()
    assert page == second._repr_html_() and repr(first) == repr(second)
    assert not re.search(r"\sid=", page)
    assert 'data-verdict="unanswered"' in page and f'data-question="{first.name}"' in page
    assert page.count("data-answer=") == 9
    assert 'data-action="check"' in page and 'data-action="reveal"' in page
    assert page.count('data-static-note=""') == 1  # for viewers that do not run the script
    embedded = re.search(r'data-question-data="">(.*?)</script>', page).group(1)
    assert json.loads(embedded) == json.loads(json.dumps(first.data()))


def test_the_paper_form_has_the_prompt_and_the_show_answer_message_it_reads():
    # question.js builds the printed question from the prompt and the embedded JSON:
    # the answers section quotes messages["revealed"], which is what "Show answer" shows.
    q = question("Shape of `A`?", "[B, h, n, n]", kind="shape", explain="One table per head.")
    page = q._repr_html_()
    assert page.count('class="lq-prompt"') == 1
    embedded = json.loads(re.search(r'data-question-data="">(.*?)</script>', page).group(1))
    assert embedded["messages"]["revealed"] == "The answer: [b, h, n, n]. One table per head."
    assert q.answer_text() == "[b, h, n, n]"
    assert "LessonsQuestionPrint" in page and "@media print" in page


def test_the_id_is_a_hash_of_the_content_not_of_the_process():
    assert question("What is 1 + 1?", 2).name == question("What is 1 + 1?", 2).name
    assert question("What is 1 + 1?", 2).name != question("What is 1 + 2?", 3).name
    # sha256 of the content, fixed here: Python's own hash() would change per process.
    assert question("What is 1 + 1?", 2).name == "q-8a0b8b0dab"
    assert question("x?", 1, name="my-question").name == "my-question"


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"answer": 1.0, "kind": "vector"}, "kind"),
        ({"answer": float("nan")}, "answer"),
        ({"answer": np.zeros((2, 2, 2))}, "answer"),
        ({"answer": 1.0, "tolerance": 0}, "tolerance"),
        ({"answer": 1.0, "mistakes": {"Bad Name": (2.0, "x")}}, "mistakes"),
        ({"answer": 1.0, "mistakes": {"ok": 2.0}}, "mistakes['ok']"),
        ({"answer": "b", "choices": ["a", "b"], "mistakes": {"m": ("c", "x")}}, "mistakes['m']"),
        ({"answer": "b", "choices": ["a", "b"], "mistakes": {"m": ("b", "x")}}, "mistakes['m']"),
        ({"answer": "c", "choices": ["a", "b"]}, "answer"),
        ({"answer": [1.0, 2.0], "columns": ["only one"]}, "columns"),
        ({"answer": "", "kind": "shape"}, "answer"),
        ({"answer": 1.0, "name": "Has Spaces"}, "name"),
        ({"answer": 1.0, "kind": "choice"}, "choices"),
    ],
)
def test_an_authors_slip_raises_a_value_error_naming_the_argument(kwargs, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        question("A prompt?", **kwargs)


def test_a_large_answer_keeps_the_digits_its_tolerance_needs():
    """Ten significant digits would store 100000.5469: 0.75 tolerances off would read as wrong."""
    answer, tol = 100000.546875, 1e-4
    q = question("x?", answer, tolerance=tol)
    assert q.grade(repr(answer + 0.75 * tol))[0] == "correct"
    assert q.grade(repr(answer - 0.75 * tol))[0] == "correct"
    assert q.grade(repr(answer + 1.5 * tol))[0] == "wrong"
    stored = json.loads(
        re.search(r"data-question-data=\"\">(.*?)</script>", q._repr_html_()).group(1)
    )
    assert stored["answer"] == q.answer == answer  # the page grades against the same number


@given(st.floats(1e-3, 1e9), st.sampled_from([0.5, 0.05, TOLERANCE, 1e-4, 1e-6]))
def test_stored_numbers_are_within_a_200th_of_the_tolerance(x, tol):
    from lessons.book.widgets.widget import stable_floats, stored_digits

    stored = stable_floats(x, stored_digits(np.asarray(x), tol))
    assert abs(stored - x) <= tol / 200
    assert stored_digits(np.asarray(x), tol) >= 10
