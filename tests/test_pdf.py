"""The printed book (`make pdf` runs this after printing; skipped where no PDF is built).

The PDF must hold the whole book: every chapter's title, enough pages, formulas that
MathJax typeset (no raw TeX left), and the in-page questions in their paper form (each
numbered, no inputs or buttons, its answer in its chapter's "Answers to the questions").
The helpers of the printing and compat tools are checked here too, since they run
outside `make test`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from repo_paths import ROOT

from kit import build_pdf, compat, course
from lessons.book.widgets import explorer_page

PDF = ROOT / "_build" / "pdf" / build_pdf.PDF_NAME
CHAPTERS = course.load().paths
# MathJax leaves untypeset math between its delimiters, or as bare commands.
RAW_TEX = re.compile(r"\\(frac|sqrt|mathrm|top|operatorname|left|right|begin|cdot|in)\b")
DELIMITERS = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$")
CODE = re.compile(r"""\br["']""")  # a raw string: Matplotlib's labels in code cells hold TeX
# What a question shows only on screen: its buttons, its inputs' labels and notes.
SCREEN_ONLY = ("Show answer", "Your answer", "like [2, 3] or [n, d_k]", "checks answers where")
ANSWERS = "Answers to the questions"
QUESTION_DATA = re.compile(r'data-question-data="">(.*?)</script>', flags=re.DOTALL)


def _answers(notebook: Path) -> list[str]:
    """The "Show answer" message of each question the chapter's stored outputs hold, in order."""
    found = []
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            page = "".join(output.get("data", {}).get("text/html", ""))
            found += [json.loads(m)["messages"]["revealed"] for m in QUESTION_DATA.findall(page)]
    return found


def _title(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    first = "".join(next(c for c in cells if c["cell_type"] == "markdown")["source"])
    return first.splitlines()[0].removeprefix("# ").strip()


@pytest.fixture(scope="module")
def text() -> str:
    # A PDF left from an earlier `make pdf` may predate the chapters: only `make pdf`,
    # right after printing, reads it.
    if os.environ.get("CHECK_PDF") != "1" or not PDF.exists():
        pytest.skip("the PDF is checked by `make pdf`, right after it is printed")
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is missing (apt-get install poppler-utils)")
    return subprocess.run(
        ["pdftotext", "-layout", str(PDF), "-"], capture_output=True, text=True, check=True
    ).stdout


def test_the_pdf_has_the_whole_book(text):
    pages = text.count("\f")
    assert pages >= 80, f"only {pages} pages"
    flat = " ".join(text.split()).replace("\u2019", "'")  # the book prints today's as today’s
    for chapter in CHAPTERS:
        assert _title(chapter) in flat, f"{chapter.name}'s title is not in the PDF"
    for back_matter in ("Contents", "Explorer", "Cheat sheet", "Glossary", "References"):
        assert back_matter in flat


def test_the_pdf_holds_typeset_math_not_raw_tex(text):
    lines = text.splitlines()
    assert [line for line in lines if DELIMITERS.search(line)] == []
    prose = [line for line in lines if RAW_TEX.search(line) and not CODE.search(line)]
    assert prose == [], f"raw TeX in the PDF: {prose[:5]}"


def test_the_explorer_prints_its_static_weights_table(text):
    assert "A static view: where JavaScript runs" in " ".join(text.split())


def test_no_question_prints_a_button_or_an_input(text):
    flat = " ".join(text.split())
    assert [words for words in SCREEN_ONLY if words in flat] == []
    assert [line for line in text.splitlines() if line.strip() == "Check"] == []


def test_every_question_is_numbered_and_answered_at_the_end_of_its_chapter(text):
    flat = " ".join(text.split())
    answered = {int(c.name[:2]): _answers(c) for c in CHAPTERS if _answers(c)}
    assert len(answered) >= 10, "the chapters' stored outputs hold the questions"
    # A section's heading is followed by its first answer, "4.1 The answer: ...".
    starts = list(re.finditer(rf"{ANSWERS} (\d+)\.1 The answer:", flat))
    assert [int(m.group(1)) for m in starts] == sorted(answered)
    ends = [m.start() for m in starts[1:]] + [len(flat)]
    for start, end in zip(starts, ends, strict=True):
        chapter = int(start.group(1))
        section = flat[start.start() : end]
        for k, answer in enumerate(answered[chapter], start=1):
            label = f"{chapter}.{k}"
            assert f"Question {label} Predict, then check" in flat[: start.start()], label
            assert f"Answer {label}: under “{ANSWERS}” at the end of this chapter" in flat, label
            assert f"{label} {answer}" in section, f"answer {label} is not in its section"
        assert f"Question {chapter}.{len(answered[chapter]) + 1} " not in flat


def test_the_printed_copy_switches_off_only_the_explorers_scripts():
    page = (
        '<p>x</p><script>keep()</script><div class="attn-explorer">'
        '<script type="application/json" data-explorer-data="">{"a":1}</script>'
        "<script>explorer()</script></div>"
    )
    switched, count = explorer_page.without_scripts(page)  # what build_pdf calls
    assert count == 1
    assert "<script>keep()</script>" in switched
    assert '<script type="text/plain">explorer()</script>' in switched


def test_the_questions_paper_form_comes_from_the_widgets_current_assets():
    css, script = build_pdf.question_assets()
    assert css.count("@media print") == 2  # core.css's and question.css's
    assert ".lq-print" in css and "LessonsQuestionPrint" in script
    assert "window.LessonsQuestionPrint.build(document)" in build_pdf.QUESTIONS_JS


def test_compat_pins_exactly_the_lower_bounds_in_pyproject(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[project]\ndependencies = ["numpy>=1.24", "torch>=2.1.2"]\n', encoding="utf-8"
    )
    assert compat.lower_bounds(pyproject) == ["numpy==1.24", "torch==2.1.2"]
    pyproject.write_text('[project]\ndependencies = ["numpy>=1.24,<3"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="not a plain lower bound"):
        compat.lower_bounds(pyproject)


def test_compat_runs_the_tests_of_lessons_and_not_the_books_toolchain_tests():
    chosen = {p.name for p in compat.lessons_tests()}
    assert {"test_attention.py", "test_masks.py", "test_multihead.py"} <= chosen
    folders = {p.parent.name for p in compat.lessons_tests()}
    assert {"tests", "checks"} <= folders, "the self-checks' tests, in tests/checks/, run too"
    assert not chosen & {"test_notebooks.py", "test_explorer_browser.py", "test_colab_like.py"}
