"""The gradebook of a grading run: points, totals, the platforms' import files, feedback pages.

`kit/grading/batch.py` calls `write_all` at the end of every run; it writes into the run's folder:

- `gradebook.csv`: one row per student: `student`, `platform`, `platform_id`, one column
  per graded exercise (`02_dot_products_and_softmax 2.1`) with its points, then `total`,
  `possible` and `percent`;
- `canvas.csv`: Canvas's gradebook import (Grades, Import): the columns `Student`, `ID`,
  `SIS User ID`, `SIS Login ID`, `Section`, then one assignment column per chapter
  (`Chapter 2: Dot products and softmax`), a `Points Possible` row first. Canvas matches a
  row to a student by `ID`, its user id, which its bulk download writes into each file's
  name; students without one (not from a Canvas download) are left out and named in
  `exports.txt`. A new assignment name creates that assignment on import;
- `moodle_<chapter>.csv`: Moodle's assignment "offline grading worksheet" (enable it in the
  assignment's feedback types, then Upload grading worksheet): `Identifier`
  (`Participant <id>`, the id its bulk download writes into each name), `Full name`,
  `Grade`, `Maximum Grade`, `Last modified (grade)`, `Feedback comments`. Moodle reads
  `Identifier`, `Grade` and `Last modified (grade)` and refuses a file without them;
- `feedback/<student>.html`: one page per student, readable offline, with each exercise's
  verdict, points and message;
- `exports.txt`: who is in which export and who is not, and why.

Points come from a TOML file (`--points FILE`, `kit/grading/points.py`; `python -m kit
gradebook --points-template` prints one with every exercise and its named mistakes).

Students: `kit/grading/students.py` reads the names of a Canvas or Moodle bulk download.
"""

from __future__ import annotations

import csv
from datetime import datetime, timezone
from pathlib import Path

from kit.grading.feedback import page, safe_name
from kit.grading.points import Points, number
from kit.grading.students import Student, student_of

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = (
    "Identifier",
    "Full name",
    "Grade",
    "Maximum Grade",
    "Last modified (grade)",
    "Feedback comments",
)
MOODLE_TIME = "%Y-%m-%d %H:%M:%S UTC"  # `Last modified (grade)`: a date PHP's strtotime reads
MOODLE_PARTICIPANT = "Participant "  # Moodle's prefix of an Identifier (string `hiddenuser`)


def _columns(rows, templates) -> list[tuple[str, str]]:
    """(chapter, exercise) of every graded exercise that has rows, in the book's order."""
    present = {(r.notebook, r.exercise) for r in rows if r.exercise}
    return [
        (t.chapter, c.exercise)
        for t in templates.values()
        for c in t.checks
        if (t.chapter, c.exercise) in present
    ]


def _students(rows) -> dict[str, Student]:
    found = {}
    for row in rows:
        found.setdefault(
            row.student,
            student_of(Path(row.file)) if row.file else Student(row.student, row.student),
        )
    return dict(sorted(found.items()))


def _best(rows) -> dict[tuple[str, str, str], float]:
    """(student, chapter, exercise) -> points, the best where a chapter came twice."""
    best: dict[tuple[str, str, str], float] = {}
    for row in rows:
        if row.exercise:
            key = (row.student, row.notebook, row.exercise)
            best[key] = max(best.get(key, 0.0), row.points or 0.0)
    return best


def write_all(out: Path, rows, templates, book: Points, now: datetime | None = None) -> None:
    """Write the gradebook, the exports, the feedback pages and `exports.txt` into `out`.

    `now` (default: the present) is Moodle's `Last modified (grade)`: the run's time."""
    students = _students(rows)
    columns = _columns(rows, templates)
    best = _best(rows)
    chapters = [t for t in templates.values() if any(c == t.chapter for c, _ in columns)]
    possible_of = {
        t.chapter: sum(book.possible(e) for c, e in columns if c == t.chapter) for t in chapters
    }
    total_possible = sum(possible_of.values())
    with (out / "gradebook.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "student",
                "platform",
                "platform_id",
                *(f"{c} {e}" for c, e in columns),
                "total",
                "possible",
                "percent",
            ]
        )
        for key, student in students.items():
            points = [best.get((key, c, e), 0.0) for c, e in columns]
            total = sum(points)
            percent = 100 * total / total_possible if total_possible else 0.0
            writer.writerow(
                [
                    key,
                    student.platform,
                    student.platform_id,
                    *map(number, points),
                    number(total),
                    number(total_possible),
                    f"{percent:.1f}",
                ]
            )
    notes = []
    titles = {t.chapter: f"Chapter {t.number}: {t.title}" for t in chapters}

    def chapter_total(key: str, chapter: str) -> float:
        return sum(best.get((key, chapter, e), 0.0) for c, e in columns if c == chapter)

    with (out / "canvas.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([*CANVAS_COLUMNS, *(titles[t.chapter] for t in chapters)])
        writer.writerow(
            [
                "Points Possible",
                "",
                "",
                "",
                "",
                *(number(possible_of[t.chapter]) for t in chapters),
            ]
        )
        for key, student in students.items():
            if student.platform != "canvas":
                notes.append(f"canvas.csv leaves out {key}: no Canvas user id in the file name")
                continue
            writer.writerow(
                [
                    student.name,
                    student.platform_id,
                    "",
                    "",
                    "",
                    *(number(chapter_total(key, t.chapter)) for t in chapters),
                ]
            )
    stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime(MOODLE_TIME)
    for template in chapters:
        with (out / f"moodle_{template.chapter}.csv").open(
            "w", newline="", encoding="utf-8"
        ) as handle:
            writer = csv.writer(handle)
            writer.writerow(MOODLE_COLUMNS)
            for key, student in students.items():
                if student.platform != "moodle":
                    notes.append(
                        f"moodle_{template.chapter}.csv leaves out {key}: no Moodle participant id"
                    )
                    continue
                mine = [r for r in rows if r.student == key and r.notebook == template.chapter]
                if not mine:
                    continue
                comments = "; ".join(
                    f"Exercise {r.exercise}: {r.verdict} ({number(r.points or 0)})" for r in mine
                )
                writer.writerow(
                    [
                        f"{MOODLE_PARTICIPANT}{student.platform_id}",
                        student.name,
                        number(chapter_total(key, template.chapter)),
                        number(possible_of[template.chapter]),
                        stamp,
                        comments,
                    ]
                )
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    for key in students:
        mine = [r for r in rows if r.student == key]
        (feedback / f"{safe_name(key)}.html").write_text(
            page(key, mine, templates, book), encoding="utf-8"
        )
    (out / "exports.txt").write_text(
        "\n".join(notes or ["every student is in every export"]) + "\n", encoding="utf-8"
    )
