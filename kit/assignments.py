"""Write the assignments: each chapter as a student notebook and as the teacher's solutions.

`make assignments` runs this. For every chapter of `_toc.yml` (`kit/course.py`) it writes

- `_build/assignments/student/NN_*.ipynb`: the chapter with every exercise's solution
  removed (each solution code cell, code and output, and each ```` ```{dropdown} Solution ````
  block of the Markdown); every reader cell (`answer = ...  # your code here` and its
  `lessons.check_*` call) kept, with no stored output; everything else as in the chapter,
  in-page questions included;
- `_build/assignments/solutions/NN_*.ipynb`: the same notebook with the solutions kept.

Each carries its chapter's id in the notebook's metadata, `{"lessons": {"chapter": "NN_name"}}`,
so that the grader (`kit/grading/`) knows a submitted copy's chapter whatever its file is called.

Both are reader notebooks (`kit/reader_notebooks.py`, imported, not copied): MyST turned
into Markdown that plain Jupyter and Colab render, glued values written in. The student's
values come from the student notebook's own stored outputs, so a Markdown cell that quotes
a value only a solution computes stops the conversion instead of leaking it.

A solution is recognised by the course's convention (CONTRIBUTING.md, "Exercises";
`kit/exercises.py` finds them), the one
`tests/test_notebooks.py` enforces: a code cell starting with `# Solution`, tagged
`hide-input` and `hide-cell`, or a ```` ```{dropdown} Solution ```` block (its title starts
with "Solution"). Every `### Exercise` heading after `## Exercises` opens an exercise that runs
to the next one; an exercise with no such solution, a `# Solution` cell without both tags, a
hidden (`hide-cell`) cell that is not marked `# Solution`, or a "Solution" block that is not a
dropdown is an error naming the chapter and the exercise: nothing passes silently.

Usage: python -m kit assignments [--out DIR] [NOTEBOOK ...]
"""

from __future__ import annotations

import copy
import sys
import tempfile
from pathlib import Path

import nbformat

from kit import course, reader_notebooks
from kit.arguments import chapter_arguments
from kit.course import Course
from kit.exercises import find_exercises

ROOT = course.ROOT
OUT = ROOT / "_build" / "assignments"


def _unexecuted(cell: nbformat.NotebookNode) -> None:
    cell.outputs = []
    cell.execution_count = None


def split(nb: nbformat.NotebookNode, chapter: str) -> tuple[nbformat.NotebookNode, ...]:
    """The student and solutions notebooks of one chapter, in MyST (before the reader form)."""
    exercises = find_exercises(nb, chapter)
    solutions = copy.deepcopy(nb)
    for exercise in exercises:
        for index in exercise.reader_cells:
            _unexecuted(solutions.cells[index])
    drop_cells = {i for e in exercises for i in e.solution_cells}
    drop_lines: dict[int, set[int]] = {}
    for exercise in exercises:
        for index, block in exercise.dropdowns:
            lines = nb.cells[index].source.split("\n")
            end = block.end
            if end + 1 < len(lines) and not lines[end + 1].strip():
                end += 1  # the blank line after the block goes with it
            drop_lines.setdefault(index, set()).update(range(block.start, end + 1))
    student = copy.deepcopy(solutions)
    student.cells = []
    for index, cell in enumerate(solutions.cells):
        if index in drop_cells:
            continue
        cell = copy.deepcopy(cell)
        if index in drop_lines:
            lines = [x for n, x in enumerate(cell.source.split("\n")) if n not in drop_lines[index]]
            cell.source = "\n".join(lines).strip("\n")
            if not cell.source.strip():
                continue
        student.cells.append(cell)
    return student, solutions


def reader_form(
    nb: nbformat.NotebookNode, name: str, book: Course, workdir: Path
) -> nbformat.NotebookNode:
    """`reader_notebooks.reader_notebook` of an in-memory notebook (it reads from a file)."""
    path = workdir / "book" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    try:
        return reader_notebooks.reader_notebook(path, book, root=workdir)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from error


def chapter_sources(root: Path = ROOT) -> list[Path]:
    """The chapters, in the order of `_toc.yml` (`kit/course.py`)."""
    return course.chapters(root)


def write_all(sources: list[Path], out: Path, book: Course | None = None) -> list[Path]:
    """Write `out/student/<name>` and `out/solutions/<name>` for each chapter; return them."""
    book = book or course.load()
    pairs = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sources:
            nb = nbformat.read(path, as_version=4)
            student, solutions = split(nb, path.name)
            pairs.append(
                (
                    path.name,
                    reader_form(student, path.name, book, Path(tmp) / "student"),
                    reader_form(solutions, path.name, book, Path(tmp) / "solutions"),
                )
            )
    written = []
    for name, student, solutions in pairs:  # every chapter converted before any is written
        for kind, reader in (("student", student), ("solutions", solutions)):
            reader.metadata["lessons"] = {"chapter": Path(name).stem}  # for the grader
            nbformat.validate(reader)
            target = out / kind / name
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(reader, target)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    args = chapter_arguments(__doc__, OUT, argv)
    try:
        written = write_all(args.notebooks or chapter_sources(), args.out.resolve())
    except ValueError as error:
        print(f"assignments: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(written) // 2} student notebooks and their solutions into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
