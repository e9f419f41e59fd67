"""Grade a class's submitted notebooks: one row per student and exercise, each mistake named.

`make grade SUBMISSIONS=folder` runs this. SECURITY: a submission is code, and grading runs
it with your permissions (it can read, write and delete your files, and reach the network).
Grade an untrusted class only inside a container or a throw-away VM that holds nothing else.

Input: every `*.ipynb` in the folder. A file directly in it is one student's notebook, the
student named by the file's stem (`alice.ipynb`); a subfolder is one student (its name) with
any number of chapters. Any chapter may be submitted.

Which chapter a notebook is: the student notebooks of `make assignments` carry their
chapter's id in their metadata (`metadata.lessons.chapter`, e.g. `02_dot_products_and_softmax`).
Where an editor dropped it, the chapter is found by content: among the chapters whose
title (`# ...`) or one of whose checks (`lessons.check_*(`) the notebook shows, the one
sharing the most code lines with it. A notebook that matches none gets one `error` row,
mistake `unknown_chapter`; a file that is not a notebook (not JSON, not nbformat) one `error`
row, mistake `not_a_notebook`.

How a notebook is graded. The template is the chapter itself (`book/NN_*.ipynb`): each
exercise (`### Exercise N.k`, whose id "N.k" names the row) with a reader cell that ends in a
`lessons.check_*(...)` call is graded; exercises answered in words are not. The submission's
cell for an exercise is the last one that calls its check, or else the last code cell under
the exercise's heading. The grader runs the submission's code cells in order in a fresh
kernel (`python3`, a new temporary working folder), with two changes:

- in each exercise cell it removes the student's own check call and puts the exercise's
  placeholders (`answer = ...`) first, so that a cell that never sets its answer is graded
  unanswered, not with an earlier exercise's answer; right after the cell it runs the
  template's check call (the original, even if the student edited theirs) in a cell of its
  own, which captures the returned `Verdict`'s `record()` and displays it as an
  `application/vnd.lessons.verdict+json` output stamped with a random token of this run.
  The verdict is read from there, never from printed text; the check is the one `lessons`
  held before any submitted cell ran, so a redefined `lessons.check_*` cannot fake it;
- a first grader cell imports `lessons` and keeps those checks.

Verdicts (`grades.csv` column `verdict`): `right`, `wrong`, `unanswered` (from the check);
`error`; `timeout`. Column `mistake`: the check's name for the mistake (its
`Verdict.mistake`), or what went wrong, several joined by `;`:

- `check_edited`: the student changed the check call, or a line the exercise gives (its
  inputs: no cell up to the answer holds it as given, or the answer's cell assigns its names
  otherwise); graded with the original check all the same (a changed input stays changed:
  the message names the line, read it);
- `check_deleted` (verdict `error`): no cell of the exercise is left to grade;
- an exception's type (verdict `error`), raised in the student's exercise cell, or by the
  check; the message gives the exception. An exception in any cell does not stop the
  notebook: every later cell still runs, so later exercises are graded where they can be
  (an exception outside the exercises is noted in the next exercise's message);
- `timed_out` (verdict `timeout`), `kernel_died` (the kernel crashed or exited),
  `not_a_notebook`, `unknown_chapter`.

Verdict `timeout`: the notebook ran past `--timeout` seconds (default 120, counted from its
first cell; the kernel's start and the grader's `import lessons` are not counted); the kernel
is killed; exercises graded before keep their verdict, the others get `timeout` (mistake
`timed_out`), and the
message names the cell that was running. `--jobs N` runs N notebooks at once, each in its
own kernel.

Output, in the submissions folder: `grades.csv` (`student,notebook,exercise,verdict,mistake`,
`notebook` the chapter's id), `grades.json` (the same rows with each `check` and `message`), and
`summary.md`, also printed: per chapter, the verdicts per exercise, then every named mistake
counted in words from the checks' catalogue (`lessons.checks.catalogue()`), the most common
first: "3 of 30 students normalised down the columns instead of along each row
(check_softmax_function, Exercise 2.3)"; then the faults above, counted the same way, for the
teacher to read those notebooks. One broken submission never stops the batch.

A dry run before a class: grade the teacher's copies, `make grade
SUBMISSIONS=_build/assignments/solutions` (after `make assignments`); every exercise of every
chapter should come out `right`.

What the grader does not stop: code that attacks the kernel itself (patching `lessons`'
internals, reading the grader's cells) can still fake a verdict. Read the code of a
surprising result; that is one more reason for a container.

Usage: python tools/grade.py SUBMISSIONS [--timeout SECONDS] [--jobs N]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import csv
import json
import math
import re
import secrets
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_core.utils import ensure_event_loop
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import assignments  # noqa: E402

ROOT = assignments.ROOT
MIME = "application/vnd.lessons.verdict+json"
VERDICTS = ("right", "wrong", "unanswered", "error", "timeout")
COLUMNS = ("student", "notebook", "exercise", "verdict", "mistake")
OUTPUTS = ("grades.csv", "grades.json", "summary.md")
SETUP_TIMEOUT = 300  # seconds for the grader's own `import lessons`, not the student's time
EXERCISE_ID = re.compile(r"Exercise\s+(\d+(?:\.\d+)*)")
#: What a fault's row says in the summary; completes "2 of 30 students ...".
FAULTS = {
    "check_edited": "edited the check call or the lines the exercise gives",
    "check_deleted": "deleted the exercise's check cell",
    "kernel_died": "crashed the kernel",
    "timed_out": "ran past the time limit (an endless loop, or a very slow cell)",
    "not_a_notebook": "sent a file that is not a notebook",
    "unknown_chapter": "sent a notebook of no known chapter",
}


# --- the templates: the chapters' exercises and their checks --------------------------------


@dataclass
class Check:
    """One graded exercise: its reader cell in the template and the check it ends with."""

    exercise: str  # "2.1"
    name: str  # "check_perpendicular_entry"
    call: str  # the template's check call, as written
    call_dump: str  # ... as an AST, to compare with the student's
    givens: list[tuple[str, str]]  # the lines the exercise gives: (AST, source)
    placeholders: list[str]  # `answer = ...`: reset before the student's cell runs


@dataclass
class Template:
    chapter: str  # "02_dot_products_and_softmax"
    number: int  # 2
    title: str  # "Dot products and softmax"
    checks: list[Check]
    lines: set[str]  # the chapter's code lines, to recognise a notebook by its content


def _dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=False)


def _check_name(statement: ast.stmt) -> str | None:
    """`check_x` when the statement is a call `lessons.check_x(...)` or `check_x(...)`."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return None
    func = statement.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name if name and name.startswith("check_") else None


def _is_placeholder(statement: ast.stmt) -> bool:
    """`answer = ...` or `my_softmax = None`: what the student replaces."""
    return (
        isinstance(statement, ast.Assign)
        and isinstance(statement.value, ast.Constant)
        and statement.value.value in (Ellipsis, None)
    )


def _title(nb: nbformat.NotebookNode) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+?)\s*$", cell.source, re.M)
            if match:
                return match.group(1)
    return ""


def _code_lines(nb: nbformat.NotebookNode) -> set[str]:
    return {
        line.strip()
        for cell in nb.cells
        if cell.cell_type == "code"
        for line in cell.source.splitlines()
        if len(line.strip()) >= 8 and not line.strip().startswith("#")
    }


def load_template(path: Path) -> Template:
    """The graded exercises of one chapter (`book/NN_*.ipynb`)."""
    nb = nbformat.read(path, as_version=4)
    checks: list[Check] = []
    for exercise in assignments.find_exercises(nb, path.name):
        match = EXERCISE_ID.match(exercise.title)
        ident = match.group(1) if match else exercise.title
        for index in exercise.reader_cells:
            source = nb.cells[index].source
            statements = ast.parse(source).body
            if not statements or _check_name(statements[-1]) is None:
                continue  # a reader cell without a check: nothing to grade
            call = statements[-1]
            count = sum(c.exercise.split(" ")[0] == ident for c in checks)
            checks.append(
                Check(
                    exercise=ident if count == 0 else f"{ident} ({count + 1})",
                    name=_check_name(call),
                    call=ast.get_source_segment(source, call),
                    call_dump=_dump(call),
                    givens=[
                        (_dump(s), ast.get_source_segment(source, s))
                        for s in statements[:-1]
                        if not _is_placeholder(s)
                    ],
                    placeholders=[
                        ast.get_source_segment(source, s)
                        for s in statements[:-1]
                        if _is_placeholder(s)
                    ],
                )
            )
    return Template(path.stem, int(path.name[:2]), _title(nb), checks, _code_lines(nb))


def load_templates(root: Path = ROOT) -> dict[str, Template]:
    return {p.stem: load_template(p) for p in assignments.chapter_sources(root)}


# --- one submission --------------------------------------------------------------------------


@dataclass
class Row:
    student: str
    notebook: str
    exercise: str
    verdict: str
    mistakes: list[str] = field(default_factory=list)
    message: str = ""
    check: str = ""

    @property
    def mistake(self) -> str:
        return ";".join(self.mistakes)

    def as_dict(self) -> dict[str, str]:
        return {
            "student": self.student,
            "notebook": self.notebook,
            "exercise": self.exercise,
            "verdict": self.verdict,
            "mistake": self.mistake,
            "check": self.check,
            "message": self.message,
        }


def read_notebook(path: Path) -> nbformat.NotebookNode | None:
    """The notebook in `path`, or None when it is not JSON or not a notebook."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            return None
        nb = nbformat.reads(json.dumps(data), as_version=4)
        for cell in nb.cells:
            if not isinstance(cell.get("source"), str) or "cell_type" not in cell:
                return None
        return nb
    except Exception:  # any way of not being a notebook
        return None


def match_chapter(nb: nbformat.NotebookNode, templates: dict[str, Template]) -> Template | None:
    """The chapter of a submission: its metadata's id, or else its content (see the docstring)."""
    chapter = nb.metadata.get("lessons", {})
    chapter = chapter.get("chapter") if isinstance(chapter, dict) else None
    if isinstance(chapter, str) and chapter in templates:
        return templates[chapter]
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    title, lines = _title(nb), _code_lines(nb)
    candidates = [
        t
        for t in templates.values()
        if (title and title == t.title)
        or any(re.search(rf"\b{c.name}\s*\(", code) for c in t.checks)
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda t: (len(t.lines & lines), title == t.title))


@dataclass
class Plan:
    """Where each check's cells are in the graded notebook, and what was found wrong."""

    answer: int | None = None  # index of the student's exercise cell (graded notebook)
    verdict: int | None = None  # index of the grader's check cell
    edits: list[str] = field(default_factory=list)  # what the student changed
    deleted: bool = False


def _transform(source: str) -> str:
    """IPython's magics (`%time`, `!ls`) as Python, so that the cell can be parsed."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _statements(source: str) -> tuple[str, list[ast.stmt]]:
    """A cell's source as Python (magics turned into calls) and its top-level statements;
    SyntaxError where it is no Python."""
    try:
        python = _transform(source)
    except Exception as error:  # IPython's transformers reject the cell
        raise SyntaxError(str(error)) from error
    return python, ast.parse(python).body


def _assigned(statement: ast.stmt) -> set[str]:
    """The names a top-level assignment binds (`Q_ex = ...`, `a, b = ...`; not `b[1] = ...`)."""

    def bound(target: ast.AST | None) -> set[str]:
        if isinstance(target, ast.Name):
            return {target.id}
        if isinstance(target, ast.Tuple | ast.List):
            return {name for element in target.elts for name in bound(element)}
        if isinstance(target, ast.Starred):
            return bound(target.value)
        return set()

    targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
    return {name for target in targets for name in bound(target)}


def _without_check(source: str, check: Check, plan: Plan, earlier: set[str]) -> str:
    """The student's cell without its calls of the check; notes in `plan` what they changed.

    A line the exercise gives (`Q_ex = ...`) counts as changed where neither this cell nor
    an earlier one holds it as given, or where this cell assigns its names otherwise.
    `earlier`: the statements (as AST) of the code cells above this one.
    """
    try:
        python, statements = _statements(source)
    except SyntaxError:
        return source  # it will raise SyntaxError when run: an `error` row names it
    calls = [s for s in statements if _check_name(s) == check.name]
    if not any(_dump(s) == check.call_dump for s in calls):
        first = calls[-1] if calls else None
        plan.edits.append(
            f"the check call was changed to `{ast.get_source_segment(python, first)[:200]}`"
            if first is not None
            else f"the check call `{check.call}` was removed"
        )
    here = {_dump(s): s for s in statements}
    givens = {dump for dump, _ in check.givens}
    for dump, given in check.givens:
        names = _assigned(ast.parse(given).body[0]) - {"_"}
        others = [s for d, s in here.items() if d not in givens and names & _assigned(s)]
        if others:
            changed = ast.get_source_segment(python, others[0])[:200]
            plan.edits.append(f"the given line `{given}` was changed to `{changed}`")
        elif dump not in here and dump not in earlier:
            plan.edits.append(f"the given line `{given}` was changed or removed")
    return _cut(python, calls)


def _cut(python: str, statements: list[ast.stmt]) -> str:
    """`python` with each of `statements` replaced by `pass` (other code on its lines kept)."""
    lines = python.encode("utf-8").splitlines(keepends=True)  # AST offsets count UTF-8 bytes
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    data = python.encode("utf-8")
    spans = sorted(
        (
            (starts[s.lineno - 1] + s.col_offset, starts[s.end_lineno - 1] + s.end_col_offset)
            for s in statements
        ),
        reverse=True,
    )
    for start, end in spans:
        data = data[:start] + b"pass" + data[end:]
    return data.decode("utf-8")


def _answer_source(source: str, check: Check, plan: Plan, earlier: set[str]) -> str:
    """The student's exercise cell as the grader runs it: the exercise's placeholders first
    (`answer = ...`, so that a cell that never sets its answer is graded unanswered, not with
    an earlier exercise's answer), then the cell without its check call."""
    return "\n".join([*check.placeholders, _without_check(source, check, plan, earlier)])


def _heading_region(nb: nbformat.NotebookNode, ident: str) -> list[int]:
    """Indices of the code cells under the heading `### Exercise <ident>`, to the next heading."""
    heading = re.compile(rf"^#{{1,6}}\s+Exercise\s+{re.escape(ident)}(?![\d.]*\d)", re.M)
    start = next(
        (
            i
            for i, c in enumerate(nb.cells)
            if c.cell_type == "markdown" and heading.search(c.source)
        ),
        None,
    )
    if start is None:
        return []
    region = []
    for index in range(start + 1, len(nb.cells)):
        cell = nb.cells[index]
        if cell.cell_type == "markdown" and re.search(r"^#{1,3}\s", cell.source, re.M):
            break
        if cell.cell_type == "code":
            region.append(index)
    return region


def _setup_source(token: str) -> str:
    return (
        "# lessons grader: not part of the submission\n"
        "import lessons as _lessons_grader_module\n"
        f"_lessons_grader_{token} = {{\n"
        "    _name: getattr(_lessons_grader_module, _name)\n"
        "    for _name in dir(_lessons_grader_module)\n"
        "    if _name.startswith('check_')\n"
        "}\n"
        f"_lessons_grader_{token}['lessons'] = _lessons_grader_module"
    )


def _verdict_source(check: Check, token: str) -> str:
    """The grader's cell: the template's check call, its record shown under MIME."""
    return f"""# lessons grader: Exercise {check.exercise}, not part of the submission
def _lessons_grader_run(_kept=_lessons_grader_{token}):
    import IPython.display

    class _Lessons:  # `lessons` with the checks it held before the submission ran
        def __getattr__(self, name):
            return _kept[name] if name.startswith("check_") else getattr(_kept["lessons"], name)

    try:
        _call = {check.call!r}
        _verdict = eval(compile(_call, "<check>", "eval"), {{**globals(), "lessons": _Lessons()}})
        _record = dict(_verdict.record())
    except Exception as _error:  # the check raised, or returned no Verdict
        _record = {{
            "verdict": "error",
            "mistake": type(_error).__name__,
            "message": f"the check raised {{type(_error).__name__}}: {{_error}}",
        }}
    IPython.display.display({{{MIME!r}: {{**_record, "token": {token!r}}}}}, raw=True)


_lessons_grader_run()
del _lessons_grader_run"""


def build(
    nb: nbformat.NotebookNode, template: Template, token: str
) -> tuple[nbformat.NotebookNode, dict[str, Plan], dict[int, int]]:
    """The notebook the kernel runs, each check's `Plan`, graded cell -> submission cell."""
    plans = {c.exercise: Plan() for c in template.checks}
    chosen: dict[int, Check] = {}
    for check in template.checks:
        calling = [
            i
            for i, c in enumerate(nb.cells)
            if c.cell_type == "code"
            and i not in chosen
            and re.search(rf"\b{check.name}\s*\(", c.source)
        ]
        region = [i for i in _heading_region(nb, check.exercise) if i not in chosen]
        if calling:
            chosen[calling[-1]] = check
        elif region:
            chosen[region[-1]] = check
        else:
            plans[check.exercise].deleted = True
    graded = nbformat.v4.new_notebook()
    graded.cells = [nbformat.v4.new_code_cell(_setup_source(token))]
    origin: dict[int, int] = {}
    earlier: set[str] = set()  # the statements of the code cells so far, as AST
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        check = chosen.get(index)
        earlier_here = set(earlier)
        with contextlib.suppress(SyntaxError):
            earlier |= {_dump(s) for s in _statements(cell.source)[1]}
        if check is None:
            origin[len(graded.cells)] = index
            graded.cells.append(nbformat.v4.new_code_cell(cell.source))
            continue
        plan = plans[check.exercise]
        plan.answer = len(graded.cells)
        origin[plan.answer] = index
        answer = _answer_source(cell.source, check, plan, earlier_here)
        graded.cells.append(nbformat.v4.new_code_cell(answer))
        plan.verdict = len(graded.cells)
        graded.cells.append(nbformat.v4.new_code_cell(_verdict_source(check, token)))
    return graded, plans, origin


def execute(graded: nbformat.NotebookNode, timeout: float) -> tuple[str | None, int | None]:
    """Run the graded notebook in a fresh kernel: (fault or None, index of the cell it hit).

    The fault is "timeout" (past `timeout` seconds from the first submitted cell; the
    kernel is killed), "kernel_died", or "kernel_failed: ..." (no kernel started).
    """
    state = {"deadline": None, "cell": None}
    index_of = {id(c): i for i, c in enumerate(graded.cells)}

    def cell_timeout(cell) -> float:
        state["cell"] = index_of.get(id(cell))
        if state["cell"] == 0:
            return SETUP_TIMEOUT
        if state["deadline"] is None:
            state["deadline"] = time.monotonic() + timeout
        return max(0.01, state["deadline"] - time.monotonic())

    with tempfile.TemporaryDirectory(prefix="grade-") as workdir:
        client = NotebookClient(
            graded,
            kernel_name="python3",
            timeout=max(1, math.ceil(timeout)),
            timeout_func=cell_timeout,
            allow_errors=True,
            record_timing=False,
            shutdown_kernel="immediate",
            resources={"metadata": {"path": workdir}},
        )
        try:
            client.execute()
        except CellTimeoutError:
            return "timeout", state["cell"]
        except DeadKernelError:
            return "kernel_died", state["cell"]
        except Exception as error:  # the kernel did not start, or nbclient failed
            return f"kernel_failed: {type(error).__name__}: {error}", state["cell"]
        finally:
            _cancel_pending()
    return None, None


def _cancel_pending() -> None:
    """Cancel what nbclient left waiting on this thread's event loop (after a timeout)."""
    loop = ensure_event_loop()
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _error(cell: nbformat.NotebookNode) -> tuple[str, str] | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output.get("ename", "Exception"), str(output.get("evalue", ""))
    return None


def _describe(
    index: int | None,
    graded: nbformat.NotebookNode,
    plans: dict[str, Plan],
    origin: dict[int, int],
) -> str:
    """Which cell the graded notebook's cell `index` is, in the student's words."""
    for exercise, plan in plans.items():
        if index == plan.answer:
            return f"the cell of Exercise {exercise} (cell {origin[index] + 1})"
        if index == plan.verdict:
            return f"the check of Exercise {exercise}"
    if index in origin:
        lines = [x.strip() for x in graded.cells[index].source.splitlines() if x.strip()]
        return f"cell {origin[index] + 1} (`{lines[0][:60] if lines else ''}`)"
    return "the grader's set-up (import lessons)"


def collect(
    graded: nbformat.NotebookNode,
    plans: dict[str, Plan],
    template: Template,
    origin: dict[int, int],
    fault: str | None,
    where: int | None,
    token: str,
    timeout: float,
    student: str,
) -> list[Row]:
    """One row per check, from the grader cells' outputs."""
    rows = []
    setup = _error(graded.cells[0])
    notes: list[str] = []
    noted = 0  # graded cells up to here are noted
    for check in template.checks:
        plan = plans[check.exercise]
        row = Row(student, template.chapter, check.exercise, "error", check=check.name)
        if plan.edits:
            row.mistakes.append("check_edited")
        end = plan.verdict if plan.verdict is not None else noted
        for index in range(max(noted, 1), end):
            error = _error(graded.cells[index])
            if error and index != plan.answer and index in origin:
                notes.append(f"cell {origin[index] + 1} raised {error[0]}: {error[1]}")
        noted = max(noted, end)
        record = None
        if plan.verdict is not None:
            shown = [
                o["data"][MIME]
                for o in graded.cells[plan.verdict].get("outputs", [])
                if MIME in o.get("data", {}) and o["data"][MIME].get("token") == token
            ]
            record = shown[0] if len(shown) == 1 else None
        answer_error = _error(graded.cells[plan.answer]) if plan.answer is not None else None
        messages = []
        if setup is not None:
            row.mistakes = ["grader_setup"]
            messages.append(f"the grader could not import lessons: {setup[0]}: {setup[1]}")
        elif plan.deleted:
            row.mistakes.append("check_deleted")
            messages.append(
                f"no cell calls {check.name} and none is left under Exercise {check.exercise}"
            )
        elif answer_error is not None:
            row.mistakes.append(answer_error[0])
            messages.append(f"your exercise cell raised {answer_error[0]}: {answer_error[1]}")
        elif record is not None:
            row.verdict = record.get("verdict", "error")
            if row.verdict not in VERDICTS:
                row.verdict = "error"
            if record.get("mistake"):
                row.mistakes.append(str(record["mistake"]))
            messages.append(str(record.get("message", "")))
        elif fault == "timeout":
            row.verdict = "timeout"
            row.mistakes.append("timed_out")
            messages.append(
                f"the notebook ran past its {timeout:g} s limit, "
                f"in {_describe(where, graded, plans, origin)}"
            )
        elif fault == "kernel_died":
            row.mistakes.append(fault)
            messages.append(
                f"not graded: the kernel died in {_describe(where, graded, plans, origin)}"
            )
        elif fault is not None:
            row.mistakes.append(fault.split(":")[0])
            messages.append(f"not graded: {fault}")
        else:
            row.mistakes.append("no_verdict")
            messages.append("the check showed no verdict (was the kernel tampered with?)")
        if plan.edits:
            messages.append("; ".join(plan.edits))
        if notes:
            messages.append("earlier, " + "; ".join(notes))
            notes = []
        row.message = " | ".join(m for m in messages if m)
        rows.append(row)
    return rows


def grade_one(
    path: Path, student: str, templates: dict[str, Template], timeout: float
) -> list[Row]:
    """The rows of one submitted file; never raises for anything the file holds."""
    nb = read_notebook(path)
    if nb is None:
        return [
            Row(
                student,
                "",
                "",
                "error",
                ["not_a_notebook"],
                f"{path.name} is not a notebook (not JSON, or not nbformat)",
            )
        ]
    template = match_chapter(nb, templates)
    if template is None:
        return [
            Row(
                student,
                "",
                "",
                "error",
                ["unknown_chapter"],
                f"{path.name} matches no chapter (no chapter id in its metadata, and neither "
                "a chapter's title nor its checks)",
            )
        ]
    if not template.checks:
        return [
            Row(
                student,
                template.chapter,
                "",
                "error",
                ["no_checks"],
                f"chapter {template.chapter} has no self-checked exercise to grade",
            )
        ]
    token = secrets.token_hex(8)
    graded, plans, origin = build(nb, template, token)
    fault, where = execute(graded, timeout)
    return collect(graded, plans, template, origin, fault, where, token, timeout, student)


# --- the batch ---------------------------------------------------------------------------------


def submissions(folder: Path) -> list[tuple[Path, str]]:
    """(file, student) for each `*.ipynb`: a file's stem, or its subfolder's name."""
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue  # .ipynb_checkpoints and the like
        found.append((path, relative.parts[0] if len(relative.parts) > 1 else path.stem))
    return found


def summary(rows: list[Row], templates: dict[str, Template], catalogue: dict) -> str:
    """The class summary in Markdown: verdicts per exercise, then each mistake in words."""
    files = {(r.student, r.notebook) for r in rows}
    lines = [f"# Grades: {len(files)} submitted files", ""]
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
        described = catalogue.get(template.number, {})
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
        return (-count, exercises.index(exercise), rank, mistake)

    return sorted(counted.items(), key=order)


def sentence(
    count: int, students: int, mistake: str, check: str, exercise: str, described: dict
) -> str:
    """ "3 of 30 students normalised down the columns ... (check_x, Exercise 2.3)"."""
    words = described.get(mistake) or FAULTS.get(mistake)
    if words is None:
        words = f"raised {mistake}" if mistake[:1].isupper() else f"made the mistake {mistake}"
    return f"{count} of {students} students {words} ({check}, Exercise {exercise})"


def write(folder: Path, rows: list[Row], text: str) -> None:
    with (folder / "grades.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow([row.student, row.notebook, row.exercise, row.verdict, row.mistake])
    (folder / "grades.json").write_text(
        json.dumps([r.as_dict() for r in rows], indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    (folder / "summary.md").write_text(text, encoding="utf-8")


def grade(
    folder: Path, timeout: float = 120, jobs: int = 1, templates: dict[str, Template] | None = None
) -> tuple[list[Row], str]:
    """Grade every submission in `folder`, write the three outputs there, return them."""
    from lessons.checks import catalogue

    templates = templates or load_templates()
    found = submissions(folder)
    lock = threading.Lock()
    done = [0]

    def one(item: tuple[Path, str]) -> list[Row]:
        path, student = item
        try:
            rows = grade_one(path, student, templates, timeout)
        except Exception as error:  # a grader bug must not stop the batch either
            rows = [
                Row(student, "", "", "error", ["grader_failed"], f"{type(error).__name__}: {error}")
            ]
        with lock:
            done[0] += 1
            print(f"[{done[0]}/{len(found)}] {path.relative_to(folder)}", file=sys.stderr)
        return rows

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        rows = [row for result in pool.map(one, found) for row in result]
    text = summary(rows, templates, catalogue())
    write(folder, rows, text)
    return rows, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", type=Path, help="the folder of submitted notebooks")
    parser.add_argument(
        "--timeout", type=float, default=120, help="seconds per notebook (default 120)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="notebooks run at once (default 1)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        print(f"grade: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print("grade: --timeout must be > 0", file=sys.stderr)
        return 2
    rows, text = grade(args.submissions, args.timeout, args.jobs)
    print(text)
    print(f"wrote {', '.join(OUTPUTS)} into {args.submissions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
