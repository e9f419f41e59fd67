"""Every page that lists the chapters agrees with the course model (`kit/chapter_lists.py`)."""

from __future__ import annotations

import dataclasses
import re
from types import SimpleNamespace

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


def _closure(model, number: int) -> set[int]:
    """Chapter `number` and all it assumes, grown until nothing new joins (a fixed point)."""
    needed = {number}
    while True:
        grown = needed | {a for c in model.chapters if c.number in needed for a in c.facts.assumes}
        if grown == needed:
            return needed
        needed = grown


def _numbers(spans: str) -> set[int]:
    """ "1–10 and 13" -> {1, ..., 10, 13}."""
    found = set()
    for part in re.split(r",\s*|\s+and\s+", spans.strip()):
        first, _, last = part.partition("\u2013")
        found |= set(range(int(first), int(last or first) + 1))
    return found


def test_the_intros_shortest_path_to_the_last_chapter_is_the_closure_of_what_chapters_assume():
    page = (BOOK / "intro.md").read_text(encoding="utf-8")
    last = MODEL.chapters[-1]
    match = re.search(
        rf"\*\*To reach chapter {last.number}\*\* \({{doc}}`{last.stem}`\): "
        r"read chapters ([0-9–, and]+?), the chapters",
        page,
    )
    assert match, "book/intro.md does not say how to reach the last chapter: run `make guide`"
    assert _numbers(match.group(1)) == _closure(MODEL, last.number)
    waiting = {c.number for c in MODEL.chapters} - _closure(MODEL, last.number)
    if waiting:
        later = re.search(r"Chapters? ([0-9–, and]+?) can wait\.", page)
        assert later and _numbers(later.group(1)) == waiting


def test_the_shortest_path_follows_assumptions_through_other_chapters():
    def chapter(number, assumes):
        facts = SimpleNamespace(assumes=assumes)
        return SimpleNamespace(number=number, stem=f"{number:02d}_x", facts=facts)

    model = SimpleNamespace(
        chapters=[
            chapter(1, ()),
            chapter(2, (1,)),
            chapter(3, ()),
            chapter(4, (2,)),
            chapter(5, (4,)),
        ]
    )
    assert chapter_lists.path_to(model, 5) == [1, 2, 4, 5]  # 1 only through 2, and 2 through 4
    assert "read chapters 1, 2, 4 and 5," in chapter_lists.shortest_path(model)
    assert "Chapter 3 can wait." in chapter_lists.shortest_path(model)
    assert chapter_lists.spans([1, 2, 3, 4, 6, 7, 9]) == "1\u20134, 6, 7 and 9"
