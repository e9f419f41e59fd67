"""A docstring that says where a function is taught must be right: the chapter uses it.

`lessons` docstrings name their chapters, "(chapter 4)" or "(chapters 4 to 7)", so a
reader can go from a function to the page that teaches it. These tests read every
public function's and class's docstring and check each chapter it names against the
code cells of that chapter's notebook.
"""

from __future__ import annotations

import inspect
import json
import re
from functools import cache

import pytest

import lessons
import lessons.checks
import lessons.lm
from kit import course

REFERENCE = re.compile(r"\(chapters? (\d+(?:(?:, | and | to |, and )\d+)*)\)")


def chapters_named(docstring: str) -> set[int]:
    """Every chapter a docstring names in "(chapter N)" / "(chapters A, B and C)" / "(chapters A to B)"."""
    named: set[int] = set()
    for match in REFERENCE.finditer(docstring):
        text = match.group(1)
        for start, end in re.findall(r"(\d+) to (\d+)", text):
            named.update(range(int(start), int(end) + 1))
        named.update(int(n) for n in re.findall(r"\d+", text))
    return named


@cache
def code_of_chapter(number: int) -> str:
    """The code cells of chapter ``number``, joined."""
    path = course.load().chapter(number).path
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def public_objects():
    """Every public function and class of ``lessons``, its checks and ``lessons.lm`` (chapter 12)."""
    names = set(lessons.__all__) | set(lessons.checks.__all__) | set(lessons.lm.__all__)
    for name in sorted(names):
        obj = (
            getattr(lessons, name, None)
            or getattr(lessons.checks, name, None)
            or getattr(lessons.lm, name)
        )
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield name, obj


CLAIMS = [
    (name, chapter)
    for name, obj in public_objects()
    for chapter in sorted(chapters_named(inspect.getdoc(obj) or ""))
]


def test_the_reference_pattern_reads_every_form():
    assert chapters_named("Split heads (chapter 7).") == {7}
    assert chapters_named("An explorer (chapters 4 to 7).") == {4, 5, 6, 7}
    assert chapters_named("Split (chapters 3, 7 and 9).") == {3, 7, 9}
    assert chapters_named("Chapter 6 shows both (chapter 6 shows both traps).") == set()


def test_most_public_functions_name_their_chapter():
    assert len({name for name, _ in CLAIMS}) >= 40


def test_the_language_model_package_is_covered():
    """``lessons.lm``'s names are checked against chapter 12 like the rest of ``lessons``."""
    covered = {name for name, chapter in CLAIMS if chapter == 12}
    assert {"head_scores", "induction_score", "k_composition", "lm_widget"} <= covered


@pytest.mark.parametrize(("name", "chapter"), CLAIMS, ids=[f"{n}-ch{c}" for n, c in CLAIMS])
def test_a_docstrings_chapter_uses_the_name(name, chapter):
    assert re.search(rf"\b{name}\b", code_of_chapter(chapter)), (
        f"the docstring of lessons.{name} names chapter {chapter}, "
        f"but no code cell of chapter {chapter} uses {name}"
    )
