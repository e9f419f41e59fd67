"""Grading a class: each file in its own kernel, `--jobs` at once; then the run's files."""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from kit.grading import exports
from kit.grading.collect import collect
from kit.grading.instrument import build
from kit.grading.points import Points
from kit.grading.reference import reference_of
from kit.grading.report import summary, write
from kit.grading.rows import Row
from kit.grading.run import default_jobs, execute
from kit.grading.runs import latest_run, new_run_folder, submissions
from kit.grading.templates import Template, load_templates, match_chapter, read_notebook


def chapter_of(path: Path, templates: dict[str, Template]) -> Template | None:
    """The chapter of a submitted file with checks to grade, or None."""
    nb = read_notebook(path)
    template = match_chapter(nb, templates) if nb is not None else None
    return template if template is not None and template.checks else None


def grade_one(
    path: Path,
    student: str,
    templates: dict[str, Template],
    timeout: float,
    notebook_timeout: float = 600,
    file: str = "",
) -> list[Row]:
    """The rows of one submitted file; never raises for anything the file holds."""
    nb = read_notebook(path)
    if nb is None:
        message = f"{path.name} is not a notebook (not JSON, or not nbformat)"
        return [Row(student, "", "", "error", ["not_a_notebook"], message, file=file)]
    template = match_chapter(nb, templates)
    if template is None:
        message = (
            f"{path.name} matches no chapter (no chapter id in its metadata, and neither a "
            "chapter's title nor its checks)"
        )
        return [Row(student, "", "", "error", ["unknown_chapter"], message, file=file)]
    if not template.checks:
        message = f"chapter {template.chapter} has no self-checked exercise to grade"
        return [Row(student, template.chapter, "", "error", ["no_checks"], message, file=file)]
    token = secrets.token_hex(8)
    graded, slots, origin, deleted = build(nb, template, token)
    run = execute(graded, timeout, notebook_timeout)
    # The givens are needed only to judge: the student's kernel runs while the chapter's does.
    reference = reference_of(template, timeout, notebook_timeout)
    return collect(
        graded, slots, origin, deleted, template, run, token, reference, student, file, timeout
    )


# --- the batch ---------------------------------------------------------------------------------


def grade(
    folder: Path,
    timeout: float = 60,
    jobs: int | None = None,
    templates: dict[str, Template] | None = None,
    *,
    notebook_timeout: float = 600,
    points: Path | None = None,
    student: str | None = None,
    out: Path | None = None,
    now: datetime | None = None,
    seconds: dict[str, float] | None = None,
) -> tuple[list[Row], str, Path]:
    """Grade the submissions in `folder` (or one `student`'s), write a new run, return it.

    `jobs` notebooks run at once, each in its own fresh kernel (default: one per CPU); the
    rows and files are the same whatever `jobs` is. `now` stamps the run (its folder's name,
    Moodle's `Last modified (grade)`); `seconds`, if given, receives each file's grading
    time (wall clock, in seconds), for `kit/bench_grade.py`.
    """
    from lessons.checks import catalogue

    now = now or datetime.now(timezone.utc)
    jobs = default_jobs() if jobs is None else max(1, jobs)
    templates = templates or load_templates()
    found = submissions(folder)
    kept: list[Row] = []
    if student is not None:
        previous = latest_run(folder)
        if previous is None:
            raise ValueError(f"no earlier run in {folder / 'grading'} to regrade {student} into")
        kept = [
            Row.from_dict(d)
            for d in json.loads((previous / "grades.json").read_text(encoding="utf-8"))
            if d["student"] != student
        ]
        found = [(p, s) for p, s in found if s == student]
        if not found:
            raise ValueError(f"no submission of {student!r} in {folder}")
    lock = threading.Lock()
    done = [0]

    def one(item: tuple[Path, str]) -> list[Row]:
        path, name = item
        file = path.relative_to(folder).as_posix()
        start = time.monotonic()
        try:
            rows = grade_one(path, name, templates, timeout, notebook_timeout, file)
        except Exception as error:  # a grader bug must not stop the batch either
            message = f"{type(error).__name__}: {error}"
            rows = [Row(name, "", "", "error", ["grader_failed"], message, file=file)]
        took = time.monotonic() - start
        with lock:
            done[0] += 1
            if seconds is not None:
                seconds[file] = took
            print(f"[{done[0]}/{len(found)}] {file} ({took:.0f} s)", file=sys.stderr)
        return rows

    def reference(template: Template) -> None:
        with contextlib.suppress(Exception):  # a failure shows in the rows' messages
            reference_of(template, timeout, notebook_timeout)

    # Each chapter's own run goes first, while the first students' kernels run beside it.
    chapters = {t.chapter: t for path, _ in found if (t := chapter_of(path, templates))}
    with ThreadPoolExecutor(jobs) as pool:
        if jobs > 1:
            for template in chapters.values():
                pool.submit(reference, template)
        results = list(pool.map(one, found))  # in the submissions' order, whatever finished first
    rows = [row for result in results for row in result]
    rows = sorted(kept + rows, key=lambda r: (r.student, r.notebook, r.file))
    book = Points.load(points) if points else Points()
    book.apply(rows, templates)
    text = summary(rows, templates, catalogue())
    run = out or new_run_folder(folder, now)
    run.mkdir(parents=True, exist_ok=True)
    write(run, rows, text)
    exports.write_all(run, rows, templates, book, now)
    return rows, text, run
