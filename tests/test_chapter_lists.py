"""Every page that lists the chapters agrees with the course model (`kit/chapter_lists.py`)."""

from __future__ import annotations

import dataclasses

import pytest
from repo_paths import BOOK

from kit import chapter_lists, course

MODEL = course.load()


def test_the_intros_outcomes_and_chapter_table_are_current():
    page = (BOOK / "intro.md").read_text(encoding="utf-8")
    assert page == chapter_lists.intro(MODEL, page), (
        "book/intro.md's chapter lists no longer match the chapters: run `make guide`"
    )


def test_the_intro_names_every_chapter_with_its_question_and_outcome():
    page = (BOOK / "intro.md").read_text(encoding="utf-8")
    for chapter in MODEL.chapters:
        assert f"| {chapter.number} | {{doc}}`{chapter.stem}` | {chapter.facts.question} |" in page
        assert f"- {chapter.facts.outcome}" in page


def test_a_chapter_the_intro_does_not_list_makes_it_stale():
    current = chapter_lists.intro(MODEL, (BOOK / "intro.md").read_text(encoding="utf-8"))
    fewer = dataclasses.replace(MODEL, chapters=MODEL.chapters[:-1])
    assert chapter_lists.intro(fewer, current) != current


def test_the_intro_must_hold_its_markers():
    with pytest.raises(ValueError, match="BEGIN GENERATED outcomes"):
        chapter_lists.intro(MODEL, "# Intro\n")


def test_the_cheat_sheet_names_every_chapter_by_its_number():
    page = (BOOK / "cheatsheet.md").read_text(encoding="utf-8")
    assert chapter_lists.cheatsheet_problems(MODEL, page) == []


def test_a_cheat_sheet_without_a_chapter_or_with_a_wrong_number_is_caught():
    page = (BOOK / "cheatsheet.md").read_text(encoding="utf-8")
    last = MODEL.chapters[-1]
    without = page.replace(f"<{last.stem}>", "<01_why_attention>")
    assert any(
        f"chapter {last.number} " in p for p in chapter_lists.cheatsheet_problems(MODEL, without)
    )
    wrong = page.replace("ch.\u00a02 <02_", "ch.\u00a03 <02_")
    assert any(
        "that chapter is number 2" in p for p in chapter_lists.cheatsheet_problems(MODEL, wrong)
    )


def test_the_notation_pages_chapter_column_names_only_chapters():
    page = (BOOK / "notation.md").read_text(encoding="utf-8")
    assert "| Chapter |" in page
    assert chapter_lists.notation_problems(MODEL, page) == []
    beyond = page.replace("| 12 |", f"| {len(MODEL.chapters) + 1} |", 1)
    assert chapter_lists.notation_problems(MODEL, beyond) != []
