"""One student's feedback page: self-contained HTML, readable offline."""

from __future__ import annotations

import html
import re

from kit.grading.points import Points, number

MARKS = {"right": "✔", "wrong": "✘", "unanswered": "✏", "error": "⚠", "timeout": "⏱"}


def safe_name(name: str) -> str:
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
                f"<td>{number(row.points or 0)} / {number(possible)}</td>"
                f"<td>{esc(row.message)}</td></tr>"
            )
        total = sum(r.points or 0 for r in mine)
        possible = sum(book.possible(r.exercise) for r in mine if r.exercise)
        parts.append(
            f"<h2>{esc(heading)}</h2>\n<p>{number(total)} of {number(possible)} points</p>\n"
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
