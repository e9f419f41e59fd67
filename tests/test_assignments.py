"""The assignments (`make assignments`): student notebooks without solutions, and the teacher's.

`kit/assignments.py` is run into a temporary folder (a few seconds, no kernel). The
solutions are found here by the convention of CONTRIBUTING.md ("Exercises"), independently
of the tool: a code cell starting with `# Solution`, and a ```` ```{dropdown} Solution ````
block. No solution may survive anywhere in a student notebook's JSON: not a cell's source,
not a line of its code, not one of its outputs, not a line of a dropdown solution. A
string the chapter shows outside its solutions (a line of code the exercise gives, a
check call that the reader cell holds too) is not a leak, so it is not looked for.
"""

from __future__ import annotations

import copy
import json
import re

import nbformat
import pytest
from repo_paths import ROOT

from kit import assignments, course
from kit import reader_notebooks as rn

CHAPTERS = assignments.chapter_sources()
DROPDOWN = re.compile(
    r"^(?P<fence>`{3,})\{dropdown\}\s*Solution[^\n]*\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S
)
SHORT = 6  # strings shorter than this ("2", "[0. 1.]") say nothing on their own


@pytest.fixture(scope="module")
def book() -> course.Course:
    return course.load()


@pytest.fixture(scope="module")
def out(tmp_path_factory, book):
    folder = tmp_path_factory.mktemp("assignments")
    assignments.write_all(CHAPTERS, folder, book)
    return folder


def test_the_command_writes_a_student_and_a_solutions_notebook_per_chapter(tmp_path):
    assert assignments.main(["--out", str(tmp_path), str(CHAPTERS[0])]) == 0
    for kind in ("student", "solutions"):
        assert [p.name for p in (tmp_path / kind).iterdir()] == [CHAPTERS[0].name]
        nbformat.validate(_load(tmp_path / kind / CHAPTERS[0].name))
    names = {p.name for p in CHAPTERS}
    assert len(CHAPTERS) >= 11 and "explorer.ipynb" not in names


def _load(path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _strings(node) -> list[str]:
    """Every string in a notebook's JSON: sources, outputs, metadata (lists joined)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list) and node and all(isinstance(x, str) for x in node):
        return ["".join(node), *node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


def _text(nb) -> str:
    return "\n".join(_strings(json.loads(nbformat.writes(nb))))


def _is_solution(cell) -> bool:
    return cell.cell_type == "code" and cell.source.startswith("# Solution")


def _output_strings(cell) -> list[str]:
    return [s for output in cell.outputs for s in _strings(output.get("data", {}))] + [
        output["text"] for output in cell.outputs if "text" in output
    ]


def _exposed(nb) -> str:
    """What the chapter shows outside its solutions: sources, outputs and Markdown."""
    shown = copy.deepcopy(nb)
    shown.cells = [c for c in shown.cells if not _is_solution(c)]
    for cell in shown.cells:
        if cell.cell_type == "markdown":
            cell.source = DROPDOWN.sub("", cell.source)
    return _text(shown)


def _leaks(candidates, exposed: str, student: str) -> list[str]:
    return [
        s
        for s in {c.strip() for c in candidates}
        if len(s) >= SHORT and s not in exposed and s in student
    ]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_solution_survives_in_the_student_notebook(path, out):
    source = _load(path)
    student = _text(_load(out / "student" / path.name))
    exposed = _exposed(source)
    solutions = [c for c in source.cells if _is_solution(c)]
    dropdowns = [m["body"] for c in source.cells for m in DROPDOWN.finditer(c.source)]
    assert solutions or dropdowns, f"{path.name} has no solution to hide"
    for marker in ("# Solution", "Show solution", "<summary>Solution"):
        assert marker not in student, f"{path.name}: {marker!r} in the student notebook"
    for cell in solutions:
        assert cell.source not in student
        code = _leaks(cell.source.splitlines(), exposed, student)
        assert code == [], f"{path.name}: solution code in the student notebook: {code}"
        shown = _leaks(_output_strings(cell), exposed, student)
        assert shown == [], f"{path.name}: a solution's output in the student notebook: {shown}"
    words = _leaks([line for body in dropdowns for line in body.splitlines()], exposed, student)
    assert words == [], f"{path.name}: dropdown solution text in the student notebook: {words}"
    # The same lines as the solutions copy writes them (glued values written in).
    teacher = _load(out / "solutions" / path.name)
    written = [
        line
        for c in teacher.cells
        if c.cell_type == "markdown"
        for m in re.finditer(r"<summary>Solution[^<]*</summary>(.*?)</details>", c.source, re.S)
        for line in m.group(1).splitlines()
    ]
    assert _leaks(written, exposed, student) == []


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_reader_cell_and_check_is_kept_and_unexecuted(path, out):
    source = _load(path)
    exercises = assignments.find_exercises(source, path.name)
    readers = [source.cells[i] for e in exercises for i in e.reader_cells]
    assert readers, f"{path.name}: no reader cell found"
    for kind in ("student", "solutions"):
        nb = _load(out / kind / path.name)
        cells = {c.source: c for c in nb.cells if c.cell_type == "code"}
        for reader in readers:
            assert "check_" in reader.source, f"{path.name}: a reader cell without its check"
            kept = cells.get(reader.source)
            assert kept is not None, f"{kind}/{path.name}: a reader cell is missing"
            assert kept.outputs == [] and kept.execution_count is None
        assert "No answer yet" not in _text(nb), f"{kind}/{path.name}: a stored verdict"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_student_notebook_is_the_reader_notebook_less_the_solutions(path, out, book):
    """Same code cells (in-page questions included) and outputs, in the same order."""
    source = _load(path)
    readers = {
        source.cells[i].source
        for e in assignments.find_exercises(source, path.name)
        for i in e.reader_cells
    }
    reader = rn.reader_notebook(path, book)
    expected = [
        (c.source, [] if c.source in readers else c.outputs, c.metadata)
        for c in reader.cells
        if c.cell_type == "code" and not _is_solution(c)
    ]
    student = _load(out / "student" / path.name)
    assert [
        (c.source, c.outputs, c.metadata) for c in student.cells if c.cell_type == "code"
    ] == expected
    assert not re.search(r"\{(glue|term|cite|ref|doc)[:}]|```\{", _text(student)), "MyST left"
    questions = [c for c in source.cells if "remove-input" in c.metadata.get("tags", [])]
    kept = {c.source for c in student.cells}
    assert all(q.source in kept for q in questions), f"{path.name}: an in-page question is lost"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_solutions_copy_holds_every_solution(path, out):
    source = _load(path)
    teacher = _load(out / "solutions" / path.name)
    kept = {c.source: c for c in teacher.cells if c.cell_type == "code"}
    for cell in (c for c in source.cells if _is_solution(c)):
        assert cell.source in kept, f"{path.name}: a solution cell is missing"
        outputs = [o for o in cell.outputs if not course.is_glue_record(o)]
        assert kept[cell.source].outputs == outputs
    dropdowns = sum(len(DROPDOWN.findall(c.source)) for c in source.cells)
    summaries = sum(c.source.count("<summary>Solution") for c in teacher.cells)
    assert summaries == dropdowns


# --- the convention is enforced: a small generated chapter -------------------------------


def _chapter(*extra: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    solution = code("# Solution\nanswer = 2\nlessons.check_x(answer)")
    solution.metadata["tags"] = ["hide-input", "hide-cell"]
    reader = code("answer = ...  # your code here\nlessons.check_x(answer)", execution_count=3)
    reader.outputs = [nbformat.v4.new_output("stream", text="✏ No answer yet\n")]
    nb.cells = [
        md("# A chapter"),
        md("## Exercises\n\n### Exercise 1.1: compute\n\nCompute it."),
        reader,
        solution,
        md(
            "### Exercise 1.2: say\n\nSay why.\n\n```{dropdown} A hint\nLook up.\n```\n\n"
            "```{dropdown} Solution, in words\nBecause it is so.\n```"
        ),
        *extra,
    ]
    return nb


def test_a_generated_chapter_splits_by_the_convention():
    student, solutions = assignments.split(_chapter(), "99_generated.ipynb")
    text = _text(student)
    assert "# Solution" not in text and "Because it is so." not in text
    assert "A hint" in text and "Say why." in text  # a dropdown that is no solution stays
    (reader,) = [c for c in student.cells if "your code here" in c.source]
    assert reader.outputs == [] and reader.execution_count is None
    assert "# Solution" in _text(solutions) and "Because it is so." in _text(solutions)
    assert "No answer yet" not in _text(solutions)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("### Exercise 1.3: nothing\n\nNo solution at all.", "Exercise 1.3: nothing: no solution"),
        (
            "### Exercise 1.3: wrong block\n\n```{admonition} Solution\n:class: dropdown\nX.\n```",
            "Exercise 1.3: wrong block: its solution must be",
        ),
        (
            "### Exercise 1.3: a hint only\n\n```{dropdown} Hint\nNot the answer.\n```",
            "Exercise 1.3: a hint only: no solution",
        ),
    ],
)
def test_an_exercise_without_a_recognisable_solution_stops_the_tool(
    extra, message, tmp_path, capsys
):
    nb = _chapter(nbformat.v4.new_markdown_cell(extra))
    with pytest.raises(ValueError, match=re.escape(f"99_generated.ipynb: {message}")):
        assignments.split(nb, "99_generated.ipynb")
    path = tmp_path / "99_generated.ipynb"
    nbformat.write(nb, path)
    assert assignments.main([str(path), "--out", str(tmp_path / "out")]) == 1
    assert "99_generated.ipynb" in capsys.readouterr().err and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("tags", "source", "message"),
    [
        (["hide-input"], "# Solution\nx = 1", "lacks the tag(s) hide-cell"),
        (["hide-input", "hide-cell"], "x = 1  # the answer", "does not start with '# Solution'"),
    ],
)
def test_a_solution_cell_off_the_convention_stops_the_tool(tags, source, message):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = tags
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        assignments.split(_chapter(cell), "99_generated.ipynb")
    assert "Exercise 1.2: say" in str(error.value)


def test_make_assignments_runs_the_tool():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^\.PHONY:.*\bassignments\b", makefile, re.M)
    assert re.search(r"^assignments:.*## ", makefile, re.M)
    assert "$(BIN)/python -m kit assignments" in makefile


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_exercise_heading_is_an_exercise_with_a_solution(path, out):
    source = _load(path)
    headings = re.findall(r"^### (Exercise\b.*)$", "\n".join(c.source for c in source.cells), re.M)
    exercises = assignments.find_exercises(source, path.name)
    assert [e.title for e in exercises] == [h.strip() for h in headings]
    assert all(e.solution_cells or e.dropdowns for e in exercises)
    student = _text(_load(out / "student" / path.name))
    assert all(f"### {h.strip()}" in student for h in headings), "an exercise statement is lost"
