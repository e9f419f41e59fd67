"""The run's own files: `grades.csv`, `grades.json` and `summary.md` (also printed)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

from kit.grading.rows import COLUMNS, FAULTS, VERDICTS, Row
from kit.grading.templates import Template


def summary(rows: list[Row], templates: dict[str, Template], catalogue: dict) -> str:
    """The class summary in Markdown: verdicts per exercise, then each mistake in words."""
    files = {(r.student, r.notebook) for r in rows}
    lines = [f"# Grades: {len(files)} submitted files", ""]
    # A chapter may reuse another chapter's check (5.2 calls chapter 4's check_attention).
    every = {name: words for chapter in catalogue.values() for name, words in chapter.items()}
    ungraded = [r for r in rows if not r.notebook]
    if ungraded:
        lines += [f"Not graded ({len(ungraded)}):", ""]
        lines += [f"- {r.student}: {FAULTS.get(r.mistake, r.mistake)}" for r in ungraded]
        lines.append("")
    for template in templates.values():
        mine = [r for r in rows if r.notebook == template.chapter]
        if not mine:
            continue
        students = len({r.student for r in mine})
        described = {c.name: every.get(c.name, {}) for c in template.checks}
        lines += [
            f"## Chapter {template.number}: {template.title} "
            f"({students} student{'' if students == 1 else 's'})",
            "",
            "| Exercise | Check | " + " | ".join(VERDICTS) + " |",
            "|---|---|" + "---|" * len(VERDICTS),
        ]
        for check in template.checks:
            counts = Counter(r.verdict for r in mine if r.exercise == check.exercise)
            cells = " | ".join(str(counts[v]) for v in VERDICTS)
            lines.append(f"| {check.exercise} | {check.name} | {cells} |")
        lines.append("")
        counted = Counter((r.exercise, r.check, m) for r in mine for m in r.mistakes if r.check)
        ordered = _most_common_first(counted, template, described)
        named = [(key, n) for key, n in ordered if key[2] in described.get(key[1], {})]
        faults = [(key, n) for key, n in ordered if key[2] not in described.get(key[1], {})]
        for heading, group in (
            ("Mistakes, the most common first:", named),
            ("Faults (read these notebooks):", faults),
        ):
            if group:
                lines += [heading, ""]
                lines += [
                    "- " + sentence(n, students, m, c, e, described.get(c, {}))
                    for (e, c, m), n in group
                ]
                lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _most_common_first(
    counted: Counter, template: Template, described: dict
) -> list[tuple[tuple[str, str, str], int]]:
    """(exercise, check, mistake) counts: most common first, then in the book's order."""
    exercises = [c.exercise for c in template.checks]

    def order(item: tuple[tuple[str, str, str], int]) -> tuple:
        (exercise, check, mistake), count = item
        names = list(described.get(check, {}))  # the catalogue's order, then the rest
        rank = names.index(mistake) if mistake in names else len(names)
        index = exercises.index(exercise) if exercise in exercises else len(exercises)
        return (-count, index, rank, mistake)

    return sorted(counted.items(), key=order)


def sentence(
    count: int, students: int, mistake: str, check: str, exercise: str, described: dict
) -> str:
    """ "3 of 30 students normalised down the columns ... (check_x, Exercise 2.3)"."""
    words = described.get(mistake) or FAULTS.get(mistake)
    if words is None:
        words = f"raised {mistake}" if mistake[:1].isupper() else f"made the mistake {mistake}"
    return f"{count} of {students} students {words} ({check}, Exercise {exercise})"


def write(out: Path, rows: list[Row], text: str) -> None:
    with (out / "grades.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow([row.student, row.notebook, row.exercise, row.verdict, row.mistake])
    (out / "grades.json").write_text(
        json.dumps([r.as_dict() for r in rows], indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    (out / "summary.md").write_text(text, encoding="utf-8")
