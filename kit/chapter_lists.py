"""The pages that list the chapters, generated from or checked against the course model.

`make guide` runs this (with `kit/instructor_guide.py`). `book/intro.md` holds two regions
this tool writes from `kit/course.py`, between `BEGIN GENERATED` and `END GENERATED`
markers (HTML comments the book does not show):

- the outcomes ("By the end you will be able to:"): one bullet per chapter, its `outcome`;
- the chapter table: each chapter's number, its page and its `question`, then the shortest
  path to the last chapter: the chapters it `assumes`, and the ones those assume in turn
  (`path_to`).

Both come from each chapter's own metadata (`metadata["course"]`), so a new chapter in
`_toc.yml` appears there by itself. Two hand-written pages are checked instead, since
their prose matters: `book/cheatsheet.md` must name every chapter (`{doc}` links written
`ch. N <NN_name>` with a no-break space, and the right number), and each number of `book/notation.md`'s
"Chapter" column must be a chapter. `tests/test_chapter_lists.py` fails when a region is
stale or a check finds a problem.

Usage: python -m kit intro [--check]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from kit import course
from kit.course import Course

ROOT = course.ROOT
INTRO = Path("book") / "intro.md"
COMMAND = "make guide"
REGIONS = ("outcomes", "chapters")


def markers(region: str) -> tuple[str, str]:
    """The two markers around one generated region of the intro."""
    return (
        f"<!-- BEGIN GENERATED {region} by kit/chapter_lists.py from each chapter's metadata: "
        f"do not edit by hand; change the chapters, then run `{COMMAND}` -->",
        f"<!-- END GENERATED {region} -->",
    )


def outcomes(model: Course) -> str:
    """One bullet per chapter, its outcome; the last ends the sentence."""
    bullets = [f"- {c.facts.outcome}" for c in model.chapters]
    return ";\n".join(bullets) + "."


def chapter_table(model: Course) -> str:
    rows = [f"| {c.number} | {{doc}}`{c.stem}` | {c.facts.question} |" for c in model.chapters]
    table = "\n".join(["| | Chapter | The question it answers |", "|---|---|---|", *rows])
    return table + "\n\n" + shortest_path(model)


def path_to(model: Course, number: int) -> list[int]:
    """Chapter `number` and every chapter it assumes, directly or through another, in order.

    The transitive closure of the chapters' `assumes`: what a reader must read to reach it.
    """
    assumes = {c.number: c.facts.assumes for c in model.chapters}
    needed, todo = set(), [number]
    while todo:
        n = todo.pop()
        if n not in needed:
            needed.add(n)
            todo.extend(assumes.get(n, ()))
    return sorted(needed)


def spans(numbers: list[int]) -> str:
    """Sorted chapter numbers as runs: [1, 2, 3, 5, 7, 8] -> "1–3, 5, 7 and 8"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = []
    for r in runs:
        parts += [f"{r[0]}\u2013{r[-1]}"] if len(r) > 2 else [str(n) for n in r]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def shortest_path(model: Course) -> str:
    """The sentence under the table: which chapters reach the last one, and which can wait."""
    last = model.chapters[-1]
    path = path_to(model, last.number)
    waiting = [c.number for c in model.chapters if c.number not in path]
    later = (
        f" Chapter{'s' if len(waiting) > 1 else ''} {spans(waiting)} can wait." if waiting else ""
    )
    return (
        f"**To reach chapter {last.number}** ({{doc}}`{last.stem}`): read chapters "
        f"{spans(path)}, the chapters it builds on and the ones they build on in turn.{later}"
    )


def updated(page: str, region: str, body: str) -> str:
    """`page` with the text between the region's markers replaced by `body`."""
    begin, end = markers(region)
    start, stop = page.find(begin), page.find(end)
    if page.count(begin) != 1 or page.count(end) != 1 or stop < start:
        raise ValueError(
            f"{INTRO} must hold these two markers once each, in order:\n{begin}\n{end}"
        )
    return page[: start + len(begin)] + "\n" + body + "\n" + page[stop:]


def intro(model: Course, page: str) -> str:
    """The intro with both regions written from the model."""
    page = updated(page, "outcomes", outcomes(model))
    return updated(page, "chapters", chapter_table(model))


CHEATSHEET_LINK = re.compile(r"\{doc\}`ch\.\s(\d+) <([^>]+)>`")  # "ch.", a no-break space, N


def cheatsheet_problems(model: Course, page: str) -> list[str]:
    """What is wrong with the cheat sheet's chapter references; empty when nothing is."""
    problems, named = [], set()
    stems = {c.stem: c.number for c in model.chapters}
    for number, stem in CHEATSHEET_LINK.findall(page):
        if stem not in stems:
            problems.append(f"ch. {number} <{stem}>: {stem} is not a chapter of _toc.yml")
        elif stems[stem] != int(number):
            problems.append(f"ch. {number} <{stem}>: that chapter is number {stems[stem]}")
        else:
            named.add(stem)
    problems += [
        f"chapter {c.number} ({c.stem}) has no row: add its formulas with {{doc}}`ch.\u00a0{c.number} <{c.stem}>`"
        for c in model.chapters
        if c.stem not in named
    ]
    return problems


def notation_problems(model: Course, page: str) -> list[str]:
    """Numbers in the notation page's "Chapter" column that are no chapter of the course."""
    problems, numbers = [], {c.number for c in model.chapters}
    column = None
    for line in page.split("\n"):
        cells = (
            [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        )
        if not cells:
            column = None
        elif column is None:
            column = cells.index("Chapter") if "Chapter" in cells else -1
        elif column >= 0 and not set(cells[0]) <= {"-", ":"}:
            for number in re.split(r",\s*", cells[column]):
                if not number.isdigit() or int(number) not in numbers:
                    problems.append(f"{cells[0]}: {number!r} is not a chapter")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="only say whether the pages are current"
    )
    args = parser.parse_args(argv)
    model = course.load()
    path = model.root / INTRO
    page = path.read_text(encoding="utf-8")
    new = intro(model, page)
    book = model.root / "book"
    problems = [
        *(
            f"book/cheatsheet.md: {p}"
            for p in cheatsheet_problems(model, (book / "cheatsheet.md").read_text("utf-8"))
        ),
        *(
            f"book/notation.md: {p}"
            for p in notation_problems(model, (book / "notation.md").read_text("utf-8"))
        ),
    ]
    for problem in problems:
        print(problem, file=sys.stderr)
    if args.check:
        if new != page:
            print(f"{INTRO} is stale: run `{COMMAND}`", file=sys.stderr)
        return int(new != page or bool(problems))
    if new != page:
        path.write_text(new, encoding="utf-8")
        print(f"rewrote {INTRO}")
    return int(bool(problems))


if __name__ == "__main__":
    sys.exit(main())
