"""The kit's tools on a book of two tiny chapters, `tests/fixtures/book/`: no kernel, in a second.

The fixture has the course's layout (`_config.yml`, `_toc.yml`, `references.bib`,
`book/NN_*.ipynb` with outputs stored, a glossary) and one of each thing the tools read: a
glued number, a term, a citation, a link to the other chapter, an exercise whose solution is
a `# Solution` cell, one whose solution is a dropdown, and an in-page question. What is
tested here holds for any book; `tests/test_reader_notebooks.py` and
`tests/test_assignments.py` test the course's own chapters. The tools take the book's root:
`kit.course` (`Course.read`), `kit.reader_notebooks` (`notebook_sources`, `reader_notebook`, `write_all`) and
`kit.assignments` (`chapter_sources`, `find_exercises`, `split`, `write_all` given a Book).
"""

from __future__ import annotations

import json
import re
import shutil

import nbformat
import pytest
from repo_paths import ROOT

from kit import assignments, course, instructor_guide, myst, slides
from kit import reader_notebooks as rn

FIXTURE = ROOT / "tests" / "fixtures" / "book"
CHAPTERS = ["01_weights.ipynb", "02_pairs.ipynb"]
MYST = ("{glue", "{term}", "{cite}", "{doc}", ":::{", "```{")


@pytest.fixture(scope="module")
def book() -> course.Course:
    return course.Course.read(FIXTURE)


@pytest.fixture(scope="module")
def readers(book) -> dict[str, nbformat.NotebookNode]:
    return {p.name: rn.reader_notebook(p, book, FIXTURE) for p in rn.notebook_sources(FIXTURE)}


def _markdown(nb: nbformat.NotebookNode) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_the_fixture_stays_tiny_and_keeps_its_outputs():
    for name in CHAPTERS:
        path = FIXTURE / "book" / name
        nb = nbformat.read(path, as_version=4)
        assert len(nb.cells) <= 6 and path.stat().st_size < 40_000, name
        assert all(c.outputs for c in nb.cells if c.cell_type == "code"), name


def test_the_book_is_read_from_its_own_config_toc_glossary_and_bibliography(book):
    assert book.url == "https://self-attention-course.github.io/fixture-book/"
    assert book.pages == {
        "book/intro": "A fixture book",
        "book/01_weights": "Weights",
        "book/02_pairs": "Pairs",
        "book/glossary": "Glossary",
    }
    assert book.terms == {"softmax": "softmax"}
    assert book.citations == {"Vaswani2017": "Vaswani et al., 2017"}


def test_the_chapters_are_the_tocs_notebooks_in_its_order():
    assert [p.name for p in rn.notebook_sources(FIXTURE)] == CHAPTERS
    assert [p.name for p in assignments.chapter_sources(FIXTURE)] == CHAPTERS


def test_no_myst_survives_and_every_link_points_into_the_fixtures_book(readers, book):
    for name, reader in readers.items():
        text = _markdown(reader)
        assert not [m for m in MYST if m in text], name
        links = re.findall(r"\]\((https?://[^)]+)\)", text)
        assert links and all(link.startswith(book.url) for link in links), (name, links)


def test_the_glued_value_is_written_in_as_the_code_stored_it(readers):
    source = nbformat.read(FIXTURE / "book" / CHAPTERS[0], as_version=4)
    record = course.glue_records(source)["top_weight"]
    assert myst.glue_text(record, None) == "0.67"
    assert "gets the weight 0.67;" in _markdown(readers[CHAPTERS[0]])
    outputs = [o for c in readers[CHAPTERS[0]].cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if course.is_glue_record(o)], "glue records left in the outputs"


def test_terms_and_citations_become_links_and_text(readers, book):
    text = _markdown(readers[CHAPTERS[0]])
    assert f"[softmax]({book.page_url('book/glossary', myst.term_anchor('softmax'))})" in text
    assert "Vaswani et al., 2017" in text


def test_a_solution_and_a_question_are_folded_and_keep_their_outputs(readers):
    cells = readers[CHAPTERS[0]].cells
    solution = next(c for c in cells if c.cell_type == "code" and c.source.startswith("# Solution"))
    assert solution.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert solution.outputs and "Correct" in json.dumps(solution.outputs)
    question = next(c for c in readers[CHAPTERS[1]].cells if "lessons.question" in c.source)
    assert question.metadata["jupyter"] == {"source_hidden": True}
    assert question.outputs


def test_write_all_writes_one_valid_reader_notebook_per_chapter(tmp_path):
    written = rn.write_all(rn.notebook_sources(FIXTURE), tmp_path, FIXTURE, log=lambda _: None)
    assert [p.name for p in written] == CHAPTERS
    for path in written:
        nbformat.validate(nbformat.read(path, as_version=4))


def test_each_exercise_is_found_with_its_solution_of_either_kind():
    found = {
        name: assignments.find_exercises(nbformat.read(FIXTURE / "book" / name, 4), name)
        for name in CHAPTERS
    }
    (first,) = found[CHAPTERS[0]]
    assert first.title == "Exercise 1.1: count the scores"
    assert first.solution_cells == [4] and first.reader_cells == [3] and not first.dropdowns
    (second,) = found[CHAPTERS[1]]
    assert second.title == "Exercise 2.1: why n squared"
    assert [block.argument for _, block in second.dropdowns] == ["Solution"]


def test_the_student_copies_lack_the_solutions_the_teachers_copies_keep(tmp_path, book):
    written = assignments.write_all(assignments.chapter_sources(FIXTURE), tmp_path, book)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == sorted(
        f"{kind}/{name}" for kind in ("student", "solutions") for name in CHAPTERS
    )
    for name, solution_text in zip(CHAPTERS, ["answer = 4 * 4", "n times n"], strict=True):
        student = nbformat.read(tmp_path / "student" / name, as_version=4)
        teacher = nbformat.read(tmp_path / "solutions" / name, as_version=4)
        assert solution_text not in json.dumps(student.cells), name
        assert solution_text in json.dumps(teacher.cells), name
        assert student.metadata["lessons"] == {"chapter": name.removesuffix(".ipynb")}
    student = nbformat.read(tmp_path / "student" / CHAPTERS[0], as_version=4)
    reader_cell = next(c for c in student.cells if "# your code here" in c.source)
    assert reader_cell.outputs == [] and reader_cell.execution_count is None, "a verdict left in"


def test_a_solution_cell_without_its_tags_stops_the_assignments_naming_the_tag(tmp_path):
    copy = tmp_path / "book"
    shutil.copytree(FIXTURE, copy)
    path = copy / "book" / CHAPTERS[0]
    nb = nbformat.read(path, as_version=4)
    solution = next(c for c in nb.cells if c.source.startswith("# Solution"))
    solution.metadata["tags"] = ["hide-input"]
    with pytest.raises(ValueError, match="lacks the tag.*hide-cell"):
        assignments.find_exercises(nb, CHAPTERS[0])


def test_a_deck_holds_the_tagged_cells_title_first_and_never_a_solution(book):
    deck = slides.build_deck(FIXTURE / "book" / CHAPTERS[0], book, FIXTURE)
    assert (deck.number, deck.title, len(deck.slides)) == (1, "Weights", 2)
    title, code = ("".join(s.parts) for s in deck.slides)
    assert "<h1>Weights</h1>" in title and "Learning objectives" in title
    assert "weights = lessons.softmax(scores)" in code and "[0.67 0.24 0.09]" in code
    assert "answer = 4 * 4" not in title + code


def test_the_guide_describes_each_chapter_from_its_notebook():
    text = instructor_guide.generate(FIXTURE)
    for number, title, objective in [
        (1, "Weights", "turn a row of scores into weights with a softmax"),
        (2, "Pairs", "count the scores of n queries and n keys"),
    ]:
        assert f"## Chapter {number}: {title}" in text
        assert f"- {objective}" in text
    assert "*Exercise 1.1: count the scores*: homework that grades itself" in text
    assert "checked by `check_pair_count`" in text
