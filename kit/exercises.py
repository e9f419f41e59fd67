"""A chapter's exercises, found by the course's convention (CONTRIBUTING.md, "Exercises").

Every `### Exercise` heading after `## Exercises` opens an exercise that runs to the next
one. Its solution is a code cell starting with `# Solution`, tagged `hide-input` and
`hide-cell`, or a ```` ```{dropdown} Solution ```` block (its title starts with
"Solution"); its reader cells hold `# your code here` or call a `lessons.check_*`. An
exercise with no such solution, a `# Solution` cell without both tags, a hidden
(`hide-cell`) cell that is not marked `# Solution`, or a "Solution" block that is not a
dropdown is an error naming the chapter and the exercise: nothing passes silently.

`kit/course.py` (each chapter's `exercises`), `kit/assignments.py` (what a student's copy
leaves out), the grader and the instructor's guide all find exercises here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import nbformat

from kit.myst import DIRECTIVE, FENCE, fence_end

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
        fence = FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        end = fence_end(lines, i, fence, where)
        directive = DIRECTIVE.match(fence.group("info").strip())
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
