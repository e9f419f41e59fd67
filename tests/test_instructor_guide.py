"""The instructor's guide (`book/instructor_guide.md`) says what the chapters and checks say.

Its per-chapter part is written by `kit/instructor_guide.py` (`make guide`) from the
notebooks and from `lessons.checks.catalogue()`. These tests write it again and compare,
and check, independently of the tool, that every check of the catalogue and every
exercise with a check is on the page, under its chapter.
"""

from __future__ import annotations

import re
import shutil

import nbformat
import pytest
import yaml
from repo_paths import BOOK, ROOT

from kit import course
from kit import instructor_guide as guide
from lessons.checks import catalogue  # noqa: E402

CHAPTERS = course.load().paths  # in the order of _toc.yml


@pytest.fixture(scope="module")
def page() -> str:
    return guide.PAGE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def generated() -> str:
    return guide.generate()


def _sections(page: str) -> dict[int, str]:
    """Chapter number -> the text of its `## Chapter N: ...` section of the page."""
    parts = re.split(r"^## ", page, flags=re.M)
    found = {}
    for part in parts:
        match = re.match(r"(?:Chapter|Checks of chapter) (\d+)\b", part)
        if match:
            found[int(match.group(1))] = part
    return found


def test_the_page_is_current(page, generated):
    assert page == guide.updated(page, generated), (
        "book/instructor_guide.md is stale: its generated part no longer matches the chapters "
        "and the checks. Run `make guide` (python -m kit guide) and commit the page."
    )


def test_the_page_holds_the_markers_once_and_hand_written_text_outside_them(page):
    assert page.count(guide.BEGIN) == 1 and page.count(guide.END) == 1
    before = page.split(guide.BEGIN)[0]
    for command in (
        "make assignments",
        "make grade SUBMISSIONS=",
        "make slides",
        "make repository",
    ):
        assert command in before, f"the hand-written part should explain `{command}`"


def test_every_chapter_has_a_section_with_its_title_and_objectives(page):
    sections = _sections(page)
    for path in CHAPTERS:
        nb = nbformat.read(path, as_version=4)
        number = int(path.name[:2])
        assert number in sections, f"no '## Chapter {number}' section for {path.name}"
        title = re.search(r"^# (.+)$", nb.cells[0].source, re.M).group(1).strip()
        assert sections[number].startswith(f"Chapter {number}: {title}\n")
        assert f"<{path.stem}>`" in sections[number], "the section links to its chapter"
        for objective in course.objectives_of(nb, path.name):
            assert f"- {objective}\n" in sections[number]


def test_every_check_in_the_catalogue_and_each_of_its_mistakes_is_on_the_page(page):
    sections = _sections(page)
    for chapter, checks in catalogue().items():
        assert chapter in sections, f"chapter {chapter}'s checks are not on the page"
        for check, mistakes in checks.items():
            name = guide.check_name(check)
            assert f"`{name}`" in sections[chapter], f"{name} is not under chapter {chapter}"
            for mistake in mistakes:
                assert f"`{mistake}`" in sections[chapter] or f"`{mistake}`" in page, (
                    f"{name}'s mistake {mistake} is not on the page"
                )


def _exercises_with_checks(path) -> list[tuple[str, str]]:
    """(exercise title, check) for each check a reader's cell calls, read without the tool."""
    nb = nbformat.read(path, as_version=4)
    found, title, started = [], None, False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            started = started or bool(re.search(r"^## Exercises\s*$", cell.source, re.M))
            titles = re.findall(r"^### (Exercise .+)$", cell.source, re.M)
            title = titles[-1].strip() if titles and started else title
        elif started and title and not cell.source.startswith("# Solution"):
            found += [(title, c) for c in re.findall(r"\b(check_\w+)\(", cell.source)]
    return found


def test_every_exercise_with_a_check_is_on_the_page_as_homework_with_its_check(page):
    sections = _sections(page)
    seen = 0
    for path in CHAPTERS:
        section = sections[int(path.name[:2])]
        for title, check in _exercises_with_checks(path):
            line = next((x for x in section.splitlines() if x.startswith(f"- *{title}*")), None)
            assert line is not None, f"{path.name}: {title} is not on the page"
            assert "make grade" in line and f"`{check}`" in line, line
            seen += 1
    assert seen >= len(CHAPTERS)  # every chapter has at least one


def test_open_ended_exercises_are_marked_so(page):
    sections = _sections(page)
    for path in CHAPTERS:
        section = sections[int(path.name[:2])]
        checked = {t for t, _ in _exercises_with_checks(path)}
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        for title in re.findall(r"^### (Exercise .+)$", text, re.M):
            if title.strip() not in checked:
                assert f"- *{title.strip()}*: open-ended, no check" in section


def test_generic_mistakes_are_described_once_not_per_check(page):
    from lessons.checks.verdict import GENERIC_MISTAKES

    for name in GENERIC_MISTAKES:
        assert page.count(f"- `{name}`: ") == 1, name


def test_the_in_page_questions_are_listed_with_their_answers_and_mistakes(page):
    sections = _sections(page)
    for path in CHAPTERS:
        nb = nbformat.read(path, as_version=4)
        questions = guide.questions_of(nb)
        section = sections[int(path.name[:2])]
        calls = sum(
            len(re.findall(r"\bquestion\(", c.source)) for c in nb.cells if c.cell_type == "code"
        )
        assert len(questions) == calls, f"{path.name}: a question has no stored output"
        for question in questions:
            assert question.prompt in section
            assert question.answer.startswith("The answer: ")
            assert guide.md(question.answer) in section, f"{path.name}: {question.answer!r}"
            for name, _ in question.mistakes:
                assert f"`{name}`" in section


def test_a_new_chapter_in_the_toc_is_picked_up_and_needs_its_facts(tmp_path):
    (tmp_path / "book").mkdir()
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    first, new = CHAPTERS[0].stem, "02_new_chapter"
    part = {
        "caption": "All",
        "numbered": 2,
        "chapters": [{"file": f"book/{first}"}, {"file": f"book/{new}"}],
    }
    toc = {"format": "jb-book", "root": "book/intro", "parts": [part]}
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc), encoding="utf-8")
    shutil.copy(CHAPTERS[0], tmp_path / "book" / CHAPTERS[0].name)
    nb = nbformat.read(CHAPTERS[0], as_version=4)
    facts = nb.metadata.pop("course")
    nbformat.write(nb, tmp_path / "book" / f"{new}.ipynb")
    model = course.Course.read(tmp_path)
    assert [c.stem for c in model.chapters] == [first, new]
    with pytest.raises(ValueError, match=f'{new}.ipynb: the notebook.s metadata has no "course"'):
        guide.read_chapter(model.chapters[1])
    nb.metadata["course"] = {**facts, "assumes": [1], "builds_on": "chapter 1's soft look-up"}
    nbformat.write(nb, tmp_path / "book" / f"{new}.ipynb")
    model = course.Course.read(tmp_path)
    text = guide.render([guide.read_chapter(c) for c in model.chapters], {}, {})
    assert "## Chapter 2: " in text and f"{{doc}}`Open the chapter <{new}>`" in text
    assert "**Assumes** chapter 1: chapter 1's soft look-up." in text


def test_a_stale_page_names_the_command(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "instructor_guide.md"
    stale.write_text(f"# Guide\n\n{guide.BEGIN}\nold\n{guide.END}\n", encoding="utf-8")
    monkeypatch.setattr(guide, "PAGE", stale)
    monkeypatch.setattr(guide, "ROOT", tmp_path)
    monkeypatch.setattr(guide, "generate", lambda root=None: f"{guide.BEGIN}\nnew\n{guide.END}")
    assert guide.main(["--check"]) == 1
    assert "make guide" in capsys.readouterr().err
    assert guide.main([]) == 0
    assert stale.read_text(encoding="utf-8") == f"# Guide\n\n{guide.BEGIN}\nnew\n{guide.END}\n"
    assert guide.main(["--check"]) == 0


def test_a_page_without_its_markers_is_refused():
    with pytest.raises(ValueError, match="markers"):
        guide.updated("# Guide\n", f"{guide.BEGIN}\n{guide.END}")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("took K @ Q.T, the transpose", "took K @ Q.T, the transpose"),
        ("multiplied a_k * b_k", r"multiplied a\_k \* b\_k"),
        ("gave [n_q, n_k] for <eos> at $5 | 6", r"gave \[n\_q, n\_k\] for \<eos\> at \$5 \| 6"),
        ("wrote `Q * K` for `Q @ K.T`", "wrote `Q * K` for `Q @ K.T`"),
    ],
)
def test_descriptions_are_escaped_for_markdown_outside_code(text, shown):
    assert guide.md(text) == shown


@pytest.mark.parametrize(("words", "minutes"), [(0, 5), (1400, 5), (1600, 10), (3000, 15)])
def test_reading_time_rounds_to_five_minutes_at_200_words_a_minute(words, minutes):
    assert guide.WORDS_PER_MINUTE == 200 and guide.ROUND_TO == 5
    assert guide.minutes_to_read(words) == minutes


def test_the_page_is_in_the_table_of_contents_linked_from_the_landing_page_and_made_by_make():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert "book/instructor_guide" in files
    assert "{doc}`instructor_guide`" in (BOOK / "intro.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^\.PHONY:.*\bguide\b", makefile, re.M)
    assert re.search(r"^guide:.*## .+\n\t.*-m kit guide", makefile, re.M)
