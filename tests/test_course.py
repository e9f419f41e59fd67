"""The course model (`kit/course.py`): one answer to "which chapters, in what order, holding what"."""

from __future__ import annotations

import copy
import re
import shutil

import nbformat
import pytest
import yaml
from repo_paths import ROOT

import lessons
from kit import course, exercises

MODEL = course.load()


def _book(tmp_path, files: list[str]) -> None:
    """A copy of the book's configuration with a table of contents of `files` (one part)."""
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    part = {"caption": "All", "numbered": 2, "chapters": [{"file": f} for f in files]}
    toc = {"format": "jb-book", "root": "book/intro", "parts": [part]}
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc), encoding="utf-8")
    (tmp_path / "book").mkdir(exist_ok=True)


def test_the_chapters_are_those_of_the_toc_numbered_in_its_order():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    listed = [e["file"] for p in toc["parts"] if p.get("numbered") for e in p["chapters"]]
    assert [c.page for c in MODEL.chapters] == listed
    assert [c.number for c in MODEL.chapters] == list(range(1, len(listed) + 1))
    assert all(c.name.startswith(f"{c.number:02d}_") for c in MODEL.chapters)


def test_a_chapter_whose_file_name_disagrees_with_its_place_in_the_toc_is_an_error(tmp_path):
    _book(tmp_path, ["book/02_second"])
    shutil.copy(MODEL.chapters[1].path, tmp_path / "book" / "02_second.ipynb")
    with pytest.raises(ValueError, match="as chapter 1: its file name must start with 01_"):
        course.Course.read(tmp_path)


def test_a_chapter_listed_without_its_notebook_is_an_error(tmp_path):
    _book(tmp_path, ["book/01_missing"])
    with pytest.raises(ValueError, match="01_missing.*has no notebook"):
        course.Course.read(tmp_path)


@pytest.mark.parametrize("chapter", MODEL.chapters, ids=lambda c: c.stem)
def test_every_chapter_states_its_facts_in_its_metadata(chapter):
    facts = chapter.facts
    assert facts.question.endswith("?") and facts.outcome[0].islower()
    assert all(0 < n < chapter.number for n in facts.assumes), "it builds on earlier chapters"
    assert list(facts.assumes) == sorted(set(facts.assumes))
    code = "\n".join(c.source for c in chapter.notebook.cells if c.cell_type == "code")
    assert [k for k in facts.key_code if k not in code] == [], "key code is the chapter's own"


def test_missing_or_unknown_facts_are_errors_that_say_what_to_write():
    nb = copy.deepcopy(MODEL.chapters[0].notebook)
    del nb.metadata["course"]["outcome"]
    with pytest.raises(ValueError, match=r"lacks \['outcome'\]"):
        course.Facts.of(nb.metadata, "x.ipynb")
    nb.metadata["course"] = {**MODEL.chapters[0].notebook.metadata["course"], "extra": 1}
    with pytest.raises(ValueError, match=r"unknown keys \['extra'\]"):
        course.Facts.of(nb.metadata, "x.ipynb")
    del nb.metadata["course"]
    with pytest.raises(ValueError, match='x.ipynb: the notebook.s metadata has no "course" entry'):
        course.Facts.of(nb.metadata, "x.ipynb")


def test_a_chapter_is_found_by_number_stem_or_path():
    seventh = MODEL.chapters[6]
    assert MODEL.chapter(7) is MODEL.chapter(seventh.stem) is MODEL.chapter(seventh.path) is seventh
    with pytest.raises(KeyError):
        MODEL.chapter(len(MODEL.chapters) + 1)


def test_what_each_chapter_holds_is_read_from_its_notebook():
    for chapter in MODEL.chapters:
        text = course.markdown_text(chapter.notebook)
        assert f"# {chapter.title}" in text and chapter.objectives
        assert [e.title for e in chapter.exercises] == [
            line[4:].strip() for line in text.split("\n") if line.startswith("### Exercise")
        ]
        assert set(chapter.citations) <= set(MODEL.citations)
        assert {t.lower() for t in chapter.terms} <= set(MODEL.terms)
        quoted = {m.rsplit(":", 1)[0] for m in re.findall(r"\{glue:text\}`([^`]+)`", text)}
        assert quoted <= set(chapter.glue), "every value the text quotes is a glue record"


def test_the_pages_are_every_entry_of_the_toc_with_its_title():
    assert MODEL.pages["book/intro"] == "Self-Attention, Step by Step"
    assert set(c.page for c in MODEL.chapters) < set(MODEL.pages)
    assert MODEL.notebooks[: len(MODEL.chapters)] == MODEL.paths


def test_the_reader_copies_leave_the_models_facts_out(tmp_path):
    from kit import reader_notebooks

    reader = reader_notebooks.reader_notebook(MODEL.chapters[0].path, MODEL)
    assert "course" not in reader.metadata
    assert "course" in nbformat.read(MODEL.chapters[0].path, as_version=4).metadata


def test_no_chapter_keeps_the_templates_placeholder_facts():
    template = nbformat.read(ROOT / "templates" / "chapter_template.ipynb", as_version=4)
    placeholder = course.Facts.of(template.metadata, "the template")
    for chapter in MODEL.chapters:
        assert chapter.facts.question != placeholder.question, chapter.name
        assert chapter.facts.outcome != placeholder.outcome, chapter.name
        assert chapter.facts.builds_on != placeholder.builds_on, chapter.name


def test_each_check_an_exercise_calls_is_traced_to_its_first_chapter():
    chapters = MODEL.exercise_chapters()
    for chapter in MODEL.chapters:
        for title, checks in chapter.exercise_checks.items():
            assert title in [e.title for e in chapter.exercises]
            for check in checks:
                assert hasattr(lessons, check) and chapters[check].number <= chapter.number
    assert chapters["check_soft_lookup"].number == 1


def test_the_templates_exercises_follow_the_convention_the_tools_read():
    template = nbformat.read(ROOT / "templates" / "chapter_template.ipynb", as_version=4)
    found = exercises.find_exercises(template, "chapter_template.ipynb")  # ValueError if not
    assert [bool(e.solution_cells or e.dropdowns) for e in found] == [True] * len(found)
