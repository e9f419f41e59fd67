"""Each widget's markup is read back by one reader beside the code that writes it."""

from __future__ import annotations

import re

from repo_paths import ROOT

import lessons
from lessons.book.widgets import explorer_page, lm_widget, question_page, widget

ASSETS = ROOT / "lessons" / "book" / "widgets" / "assets"


def test_a_question_reads_back_as_written():
    page = lessons.question("Which is larger, `a` or `b`?", "a", choices=["a", "b"])._repr_html_()
    (stored,) = question_page.read_questions(page)
    assert stored.prompt == "Which is larger, <code>a</code> or <code>b</code>?"
    assert [re.sub(r"<[^>]+>", "", c).strip() for c in stored.choices] == ["a", "b"]
    assert stored.data["kind"] == "choice" and stored.data["messages"]["revealed"]


def test_two_questions_in_one_page_read_back_apart():
    first = lessons.question("One?", 1)._repr_html_()
    second = lessons.question("Two?", 2)._repr_html_()
    prompts = [q.prompt for q in question_page.read_questions(first + second)]
    assert prompts == ["One?", "Two?"]


def test_the_explorers_data_and_script_are_found_where_page_html_writes_them():
    Q = K = V = [[1.0, 0.0], [0.0, 1.0]]  # [n, d_k]
    page = lessons.explorer(["a", "b"], Q, K, V)._repr_html_()
    (data,) = explorer_page.read_data(page)
    assert "a" in str(data) and "b" in str(data)
    printable, count = explorer_page.without_scripts(page)
    assert count == 1 and '<script type="text/plain">' in printable


def test_the_ready_attributes_are_the_ones_the_scripts_set():
    assert f'setAttribute("{widget.READY}", "true")' in (ASSETS / "core.js").read_text("utf-8")
    explorer = (ASSETS / "explorer.js").read_text("utf-8")
    assert f'setAttribute("{explorer_page.READY}", "true")' in explorer
    assert f'setAttribute("{lm_widget.LOADED}"' in (ASSETS / "lm.js").read_text("utf-8")


def test_the_lm_widgets_pattern_matches_the_element_widget_html_writes():
    page = widget.widget_html(
        {"class": "lw"},
        "",
        {"x": 1},
        data_attribute=lm_widget.DATA_ATTRIBUTE,
        styles=("core.css",),
        script="lm.js",
        label="test",
    )
    (match,) = lm_widget.DATA.finditer(page)
    assert match.group(2) == '{"x":1}'
