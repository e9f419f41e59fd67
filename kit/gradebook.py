"""The gradebook of a grading run: points, totals, the platforms' import files, feedback pages.

`kit/grade.py` calls `write_all` at the end of every run; it writes into the run's folder:

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

Points come from a TOML file (`--points FILE`; `python -m kit gradebook --points-template`
prints one with every exercise and its named mistakes):

    [exercises]
    "2.1" = 2                                         # right: 2 points, anything else 0
    "2.3" = { points = 3, partial = { softmax_over_columns = 1 } }   # named mistake: 1

A `right` row gets the exercise's points; a `wrong` row whose check named a mistake listed
under `partial` gets that many, unless the row also carries `given_edited` or `tampered`;
every other row gets 0. An exercise the file does not list is worth `default` (1).

Students: `student_of` reads the names of a Canvas or Moodle bulk download (see its docstring).
"""

from __future__ import annotations

import argparse
import csv
import html
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

import tomllib

#: Canvas's bulk download: `lastfirst_12345_67890_file.ipynb` (`lastfirst_LATE_12345_...` late).
CANVAS = re.compile(r"^(?P<name>[^_/]+?)(?:_LATE)?_(?P<id>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
#: Moodle's: `Full Name_123456_assignsubmission_file_file.ipynb`, or that as a folder.
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_file_(?P<file>.*)$")
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
MARKS = {"right": "✔", "wrong": "✘", "unanswered": "✏", "error": "⚠", "timeout": "⏱"}


@dataclass(frozen=True)
class Student:
    key: str  # the name the grades use: unique in a class
    name: str  # as the platform or the folder gives it
    platform: str = ""  # "canvas", "moodle" or ""
    platform_id: str = ""  # Canvas's user id, Moodle's participant id


def student_of(relative: PurePosixPath | Path) -> Student:
    """The student of a submitted file, from its path inside the submissions folder.

    Canvas: `name_userid_submissionid_file.ipynb` (a late one `name_LATE_userid_...`), the
    name lower-case letters. Moodle: `Full Name_participantid_assignsubmission_file_...`, as
    the file's name or its folder's. Otherwise a subfolder's name, or the file's stem.
    """
    parts = PurePosixPath(*Path(relative).parts).parts
    for part in parts[:1] if len(parts) > 1 else parts:
        match = MOODLE.match(part)
        if match:
            name = match["name"].strip()
            return Student(f"{name}_{match['id']}", name, "moodle", match["id"])
    if len(parts) == 1:
        match = CANVAS.match(parts[0])
        if match:
            return Student(f"{match['name']}_{match['id']}", match["name"], "canvas", match["id"])
        stem = parts[0].removesuffix(".ipynb")
        return Student(stem, stem)
    return Student(parts[0], parts[0])


@dataclass
class Points:
    """Points per exercise, and partial credit for named mistakes."""

    exercises: dict[str, float] = field(default_factory=dict)
    partial: dict[str, dict[str, float]] = field(default_factory=dict)
    default: float = 1.0

    @classmethod
    def load(cls, path: Path) -> Points:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        book = cls(default=float(data.get("default", 1)))
        for exercise, value in data.get("exercises", {}).items():
            if isinstance(value, dict):
                book.exercises[exercise] = float(value.get("points", book.default))
                partial = {k: float(v) for k, v in value.get("partial", {}).items()}
                too_many = {k: v for k, v in partial.items() if v > book.exercises[exercise]}
                if too_many:
                    raise ValueError(
                        f"{path}: Exercise {exercise}: partial credit above its points: {too_many}"
                    )
                book.partial[exercise] = partial
            else:
                book.exercises[exercise] = float(value)
        return book

    def possible(self, exercise: str) -> float:
        return self.exercises.get(exercise, self.default)

    def of(self, row) -> float:
        if not row.exercise:
            return 0.0
        if row.verdict == "right":
            return self.possible(row.exercise)
        if row.verdict != "wrong" or {"given_edited", "tampered"} & set(row.mistakes):
            return 0.0
        credit = self.partial.get(row.exercise, {})
        return max((credit[m] for m in row.mistakes if m in credit), default=0.0)

    def apply(self, rows, templates) -> None:
        for row in rows:
            row.points = self.of(row)


def template_text(templates, catalogue) -> str:
    """A points file listing every graded exercise, its mistakes as comments."""
    lines = [
        "# Points per exercise for kit/grade.py --points (TOML).",
        "# A right answer gets `points`; a wrong one whose mistake is under `partial` gets that.",
        "default = 1",
        "",
        "[exercises]",
    ]
    every = {name: words for chapter in catalogue.values() for name, words in chapter.items()}
    for template in templates.values():
        described = {c.name: every.get(c.name, {}) for c in template.checks}
        if template.checks:
            lines.append(f"# Chapter {template.number}: {template.title}")
        for check in template.checks:
            lines.append(f'"{check.exercise}" = {{ points = 1, partial = {{ }} }}  # {check.name}')
            for name, words in described.get(check.name, {}).items():
                lines.append(f"#   {name}: {words}")
    return "\n".join(lines) + "\n"


# --- the files ----------------------------------------------------------------------------------


def _number(value: float) -> str:
    return f"{value:g}"


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
                    *map(_number, points),
                    _number(total),
                    _number(total_possible),
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
                *(_number(possible_of[t.chapter]) for t in chapters),
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
                    *(_number(chapter_total(key, t.chapter)) for t in chapters),
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
                    f"Exercise {r.exercise}: {r.verdict} ({_number(r.points or 0)})" for r in mine
                )
                writer.writerow(
                    [
                        f"{MOODLE_PARTICIPANT}{student.platform_id}",
                        student.name,
                        _number(chapter_total(key, template.chapter)),
                        _number(possible_of[template.chapter]),
                        stamp,
                        comments,
                    ]
                )
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    for key in students:
        mine = [r for r in rows if r.student == key]
        (feedback / f"{_safe(key)}.html").write_text(
            page(key, mine, templates, book), encoding="utf-8"
        )
    (out / "exports.txt").write_text(
        "\n".join(notes or ["every student is in every export"]) + "\n", encoding="utf-8"
    )


def _safe(name: str) -> str:
    """A file name for a student's key: letters, digits, `-`, `_`, `.` kept."""
    return re.sub(r"[^\w.-]+", "_", name, flags=re.ASCII).strip("._") or "student"


def page(student: str, rows, templates, book: Points) -> str:
    """One student's feedback as a self-contained HTML page (no script, nothing fetched)."""
    esc = html.escape
    titles = {t.chapter: f"Chapter {t.number}: {t.title}" for t in templates.values()}
    parts = []
    for chapter in dict.fromkeys(r.notebook for r in rows):
        mine = [r for r in rows if r.notebook == chapter]
        heading = titles.get(chapter, "Files that could not be graded")
        body = []
        for row in mine:
            possible = book.possible(row.exercise) if row.exercise else 0
            mark = MARKS.get(row.verdict, "")
            body.append(
                f'<tr class="{esc(row.verdict)}"><th scope="row">{esc(row.exercise or row.file)}</th>'
                f"<td>{mark} {esc(row.verdict)}</td>"
                f"<td>{_number(row.points or 0)} / {_number(possible)}</td>"
                f"<td>{esc(row.message)}</td></tr>"
            )
        total = sum(r.points or 0 for r in mine)
        possible = sum(book.possible(r.exercise) for r in mine if r.exercise)
        parts.append(
            f"<h2>{esc(heading)}</h2>\n<p>{_number(total)} of {_number(possible)} points</p>\n"
            '<table><thead><tr><th scope="col">Exercise</th><th scope="col">Verdict</th>'
            '<th scope="col">Points</th><th scope="col">Message</th></tr></thead>\n<tbody>\n'
            + "\n".join(body)
            + "\n</tbody></table>"
        )
    style = (
        "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;"
        "color:#222}table{border-collapse:collapse;width:100%}th,td{border:1px solid #bbb;"
        "padding:.3rem .5rem;text-align:left;vertical-align:top}.right td:nth-child(2)"
        "{color:#006b4f}.wrong td:nth-child(2),.error td:nth-child(2),.timeout td:nth-child(2)"
        "{color:#a23c00}.unanswered td:nth-child(2){color:#004f80}"
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Feedback: {esc(student)}</title><style>{style}</style></head>\n<body>\n"
        f"<h1>Feedback for {esc(student)}</h1>\n"
        "<p>Each exercise as the grader ran your notebook, top to bottom, in a fresh kernel.</p>\n"
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points-template", action="store_true", help="print a points file")
    args = parser.parse_args(argv)
    if not args.points_template:
        parser.print_help()
        return 2
    from kit import grade
    from lessons.checks import catalogue

    print(template_text(grade.load_templates(), catalogue()), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
