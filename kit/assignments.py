"""Write the assignments: each chapter as a student notebook and as the teacher's solutions.

`make assignments` runs this. For every chapter `book/NN_*.ipynb` it writes

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

A solution is recognised by the course's convention (CONTRIBUTING.md, "Exercises"), the one
`tests/test_notebooks.py` enforces: a code cell starting with `# Solution`, tagged
`hide-input` and `hide-cell`, or a ```` ```{dropdown} Solution ```` block (its title starts
with "Solution"). Every `### Exercise` heading after `## Exercises` opens an exercise that runs
to the next one; an exercise with no such solution, a `# Solution` cell without both tags, a
hidden (`hide-cell`) cell that is not marked `# Solution`, or a "Solution" block that is not a
dropdown is an error naming the chapter and the exercise: nothing passes silently.

Usage: python -m kit assignments [--out DIR] [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from kit import reader_notebooks as rn

ROOT = rn.ROOT
OUT = ROOT / "_build" / "assignments"
EXERCISE = re.compile(r"^###\s+(Exercise\b.*)$")
SOLUTION_TAGS = ("hide-input", "hide-cell")


@dataclass
class Block:
    """One fenced block at the top level of a Markdown cell: lines `start` to `end`, both in."""

    start: int
    end: int
    name: str | None  # the directive ("dropdown"), None for a plain code block
    argument: str  # its title ("Solution, in words")


@dataclass
class Exercise:
    """One `### Exercise` and where its solutions and reader cells are."""

    title: str  # "Exercise 1.1: a soft look-up by hand"
    solution_cells: list[int] = field(default_factory=list)  # code cells
    dropdowns: list[tuple[int, Block]] = field(default_factory=list)  # (cell, block)
    reader_cells: list[int] = field(default_factory=list)  # `# your code here` / `check_`


def fenced_blocks(lines: list[str], where: str) -> list[Block]:
    """The top-level fenced blocks of Markdown `lines` (MyST directives and code blocks)."""
    blocks, i = [], 0
    while i < len(lines):
        fence = rn.FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        marker = fence.group("fence")
        close = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        end = i + 1
        while end < len(lines) and not close.match(lines[end]):
            end += 1
        if end == len(lines):
            raise ValueError(f"{where}: the fence {lines[i]!r} is never closed")
        directive = rn.DIRECTIVE.match(fence.group("info").strip())
        name, argument = (
            (directive["name"], directive["argument"].strip()) if directive else (None, "")
        )
        blocks.append(Block(i, end, name, argument))
        i = end + 1
    return blocks


def _is_solution_title(argument: str) -> bool:
    return re.match(r"Solution\b", argument) is not None


def find_exercises(nb: nbformat.NotebookNode, chapter: str) -> list[Exercise]:
    """Every exercise of a chapter with its solutions; ValueError where one has none."""
    cells = nb.cells
    start = next(
        (
            i
            for i, c in enumerate(cells)
            if c.cell_type == "markdown" and re.search(r"^## Exercises\s*$", c.source, re.M)
        ),
        None,
    )
    if start is None:
        raise ValueError(f"{chapter}: no '## Exercises' section")
    exercises: list[Exercise] = []

    def current(what: str) -> Exercise:
        if not exercises:
            raise ValueError(f"{chapter}: {what} under '## Exercises' before any '### Exercise'")
        return exercises[-1]

    for index in range(start, len(cells)):
        cell = cells[index]
        if cell.cell_type == "markdown":
            lines = cell.source.split("\n")
            blocks = fenced_blocks(lines, f"{chapter}, cell {index}")
            inside = {n for b in blocks for n in range(b.start, b.end + 1)}
            headings = [
                (n, m.group(1).strip())
                for n, m in ((n, EXERCISE.match(line)) for n, line in enumerate(lines))
                if m and n not in inside
            ]
            # Headings and blocks in the order they come: a block belongs to the exercise
            # open above it (in this cell or an earlier one).
            events = sorted(
                [(n, title) for n, title in headings] + [(b.start, b) for b in blocks],
                key=lambda event: event[0],
            )
            for _, item in events:
                if isinstance(item, str):
                    exercises.append(Exercise(item))
                    continue
                if not _is_solution_title(item.argument):
                    continue
                owner = current("a solution")
                if item.name != "dropdown":
                    raise ValueError(
                        f"{chapter}: {owner.title}: its solution must be a ```{{dropdown}} "
                        f"Solution block or a '# Solution' code cell, not a "
                        f"{item.name or 'code'} block"
                    )
                owner.dropdowns.append((index, item))
            continue
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        if cell.source.startswith("# Solution"):
            exercise = current("a '# Solution' cell")
            missing = [t for t in SOLUTION_TAGS if t not in tags]
            if missing:
                raise ValueError(
                    f"{chapter}: {exercise.title}: the '# Solution' cell {index} lacks the "
                    f"tag(s) {', '.join(missing)}"
                )
            exercise.solution_cells.append(index)
        elif "hide-cell" in tags:
            raise ValueError(
                f"{chapter}: {current('a hidden cell').title}: cell {index} is hidden "
                "(hide-cell) but does not start with '# Solution'; mark a solution as such"
            )
        elif "# your code here" in cell.source or "check_" in cell.source:
            current("a reader cell").reader_cells.append(index)
    if not exercises:
        raise ValueError(f"{chapter}: '## Exercises' holds no '### Exercise'")
    for exercise in exercises:
        if not exercise.solution_cells and not exercise.dropdowns:
            raise ValueError(
                f"{chapter}: {exercise.title}: no solution found (a code cell starting with "
                "'# Solution', tagged hide-input and hide-cell, or a ```{dropdown} Solution block)"
            )
    return exercises


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
    nb: nbformat.NotebookNode, name: str, book: rn.Book, workdir: Path
) -> nbformat.NotebookNode:
    """`reader_notebooks.reader_notebook` of an in-memory notebook (it reads from a file)."""
    path = workdir / "book" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    try:
        return rn.reader_notebook(path, book, root=workdir)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from error


def chapter_sources(root: Path = ROOT) -> list[Path]:
    """The chapters: `book/NN_*.ipynb`, in order."""
    return sorted((root / "book").glob("[0-9][0-9]_*.ipynb"))


def write_all(sources: list[Path], out: Path, book: rn.Book | None = None) -> list[Path]:
    """Write `out/student/<name>` and `out/solutions/<name>` for each chapter; return them."""
    book = book or rn.Book.load()
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter")
    parser.add_argument("--out", type=Path, default=OUT, help="default: _build/assignments")
    args = parser.parse_args(argv)
    try:
        written = write_all(args.notebooks or chapter_sources(), args.out.resolve())
    except ValueError as error:
        print(f"assignments: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(written) // 2} student notebooks and their solutions into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
