"""Grade a class's submitted notebooks: one row per student and exercise, each mistake named.

`make grade SUBMISSIONS=folder` runs this. SECURITY: a submission is code, and grading runs
it. Grade an untrusted class inside the sandbox (`make grade-sandboxed`, `kit/grade_sandbox.sh`:
no network, read-only system, nothing of yours visible but the submissions) or in a throw-away
container or VM that holds nothing else.

Input: every `*.ipynb` in the folder (not in `grading/`, where the results go). A file directly
in it is one student's notebook; a subfolder is one student with any number of chapters. Names
from a learning platform's bulk download are read as students (`kit/gradebook.py`): Canvas's
`name_userid_submissionid_file.ipynb` (also `name_LATE_...`) and Moodle's
`Full Name_participantid_assignsubmission_file_file.ipynb` (or that name as a folder), so the
exports can carry each student's platform id. Otherwise the student is the file's stem, or
the subfolder's name.

Which chapter a notebook is: the student notebooks of `make assignments` carry their
chapter's id in their metadata (`metadata.lessons.chapter`). Where an editor dropped it, the
chapter is found by content: among the chapters whose title (`# ...`) or one of whose checks
the notebook shows, the one sharing the most code lines with it. A notebook that matches none
gets one `error` row, mistake `unknown_chapter`; a file that is not a notebook one `error` row,
mistake `not_a_notebook`.

How a notebook is graded: as a fresh kernel reads it. The grader runs the submission's code
cells as they are, in order, in a fresh kernel (`python3`, a new temporary working folder).
Nothing of the student's is removed or rewritten: a check called through `print(...)`, under
`%%time`, imported by name (`from lessons import check_x`) or called twice is just code. After
every cell that calls an exercise's check (and, where none does, after the last code cell
under the exercise's heading), a grader cell evaluates the arguments of the *chapter's* check
call (`lessons.check_attention(answer, Q_ex, K_ex, V_ex)`) in the student's namespace, wherever
they were set (a scratch cell above, a function in its own cell, a second checking cell
below), and shows them in a plain form (numbers, text, array bytes; `kit/grade_kernel.py`).

The verdict is reached outside the kernel: the grader calls the check in its own process on
those values, so patching `lessons` inside the notebook fakes nothing. The givens (every
argument that is not the student's answer) are compared with the chapter's own: the grader
first runs the chapter itself (`book/NN_*.ipynb`, solutions included) the same way, once per
run, and keeps each exercise's givens. A given that differs (a zeroed `V_ex`) is replaced by
the chapter's for the verdict, so an answer built on it is `wrong`, with the fault
`given_edited` and a message naming it; an input the exercise invites the student to choose
(its line says "your own", as `snippet = given_snippet  # or a snippet of your own` in
Exercise 12.3) is the student's to change. Where an answer cannot leave the kernel (a
function, as `my_softmax` of Exercise 2.3), the check runs in the kernel with the checks
`lessons` held before the first submitted cell; a patched checking function is noticed
(fault `tampered`, verdict `error`), but a determined student who reads this file can still
fake those exercises' verdicts from inside the kernel: read the code of a surprising result
(book/instructor_guide.md, "What a determined student can fake").

An exercise checked several times gets its best verdict (`right` if any check of it is
right: each is the grader's own evaluation of the notebook's state), else its last.

Verdicts (`grades.csv` column `verdict`): `right`, `wrong`, `unanswered` (from the check);
`error`; `timeout`. Column `mistake`: the check's name for the mistake, and the faults, joined
by `;`:

- `given_edited`: a given differs from the chapter's (judged with the chapter's);
- `tampered`: the kernel's checking code was patched (named in the message);
- `check_deleted` (verdict `error`): no cell of the exercise is left to grade;
- an exception's type (verdict `error`), raised by the cell that checks the exercise, when
  its answer is not right; exceptions in other cells never stop the notebook and are noted
  in the next exercise's message;
- `timed_out` (verdict `timeout`): a cell ran past `--timeout` seconds (default 60); the
  kernel is interrupted and the next cell runs, so an endless loop costs the exercise whose
  check comes next, not the rest of the notebook. A kernel that ignores the interrupt, or a
  notebook past `--notebook-timeout` (default 600 s), is stopped: what is not graded by then
  gets `timeout`;
- `kernel_died`, `not_a_notebook`, `unknown_chapter`, `no_checks`.

Output: a new folder per run, `SUBMISSIONS/grading/<date-time>/` (earlier runs are kept;
`grading/latest` points at the newest): `grades.csv` (`student,notebook,exercise,verdict,
mistake`), `grades.json` (the same rows with `check`, `message`, `points` and the student's
platform ids), `summary.md` (also printed: per chapter, the verdicts per exercise, then every
named mistake counted in words from the checks' catalogue, the most common first, then the
faults), and the gradebook (`kit/gradebook.py`): `gradebook.csv` (one row per student with
totals), `canvas.csv`, `moodle_<chapter>.csv` and `feedback/<student>.html`. Points come from
`--points FILE` (`python -m kit gradebook --points-template` writes one); without it every
exercise is worth one point.

`--jobs N` runs N notebooks at once (default: one per CPU this process may use), each in its
own fresh kernel with one thread (`OMP_NUM_THREADS=1` unless set); each chapter's own run
goes first, beside the first students' kernels. The rows and every file written are the same
whatever N is. `make bench-grade` (`kit/bench_grade.py`) times a class of 30.

`--student NAME` regrades that student's files only and copies everyone else's rows from the
latest run into a new run. One broken submission never stops the batch.

A dry run before a class: `make grade SUBMISSIONS=_build/assignments/solutions` (after
`make assignments`); every exercise of every chapter should come out `right`.

Usage: python -m kit grade SUBMISSIONS [--timeout S] [--notebook-timeout S] [--jobs N]
       [--points FILE] [--student NAME] [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import base64
import contextlib
import csv
import json
import os
import pickle
import re
import secrets
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import numpy as np
from jupyter_core.utils import ensure_async
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from kit import assignments, gradebook

ROOT = assignments.ROOT
KERNEL_CODE = Path(__file__).resolve().parent / "grade_kernel.py"
MIME = "application/vnd.lessons.capture+json"
VERDICTS = ("right", "wrong", "unanswered", "error", "timeout")
COLUMNS = ("student", "notebook", "exercise", "verdict", "mistake")
SETUP_TIMEOUT = 300  # seconds for the grader's own `import lessons`, not the student's time
EXERCISE_ID = re.compile(r"Exercise\s+(\d+(?:\.\d+)*)")
#: A given equal to the chapter's within these (a float32 copy of a float64 given is equal).
GIVEN_RTOL, GIVEN_ATOL = 1e-5, 1e-8
#: What a fault's row says in the summary; completes "2 of 30 students ...".
FAULTS = {
    "given_edited": "changed an input the exercise gives (judged with the chapter's)",
    "tampered": "patched lessons' checking code inside their notebook",
    "check_deleted": "deleted the exercise's check cell",
    "kernel_died": "crashed the kernel",
    "timed_out": "ran past the time limit (an endless loop, or a very slow cell)",
    "not_a_notebook": "sent a file that is not a notebook",
    "unknown_chapter": "sent a notebook of no known chapter",
}


# --- the templates: the chapters' exercises and their checks --------------------------------


@dataclass
class Argument:
    """One argument of a check call: the student's answer, a given, or a constant."""

    source: str  # `Q_ex`, `test_x[:1]`, `[1, -2, 4]`
    role: str  # "answer", "given", "chosen" (a given the student may change), "constant"


@dataclass
class Check:
    """One graded exercise: its reader cell's check call, as the chapter writes it."""

    exercise: str  # "2.1"
    name: str  # "check_perpendicular_entry"
    call: str  # the chapter's call, as written
    template: str  # the call with each non-constant argument i written `__a<i>`
    arguments: list[Argument]


@dataclass
class Template:
    chapter: str  # "02_dot_products_and_softmax"
    number: int  # 2
    title: str  # "Dot products and softmax"
    checks: list[Check]
    lines: set[str]  # the chapter's code lines, to recognise a notebook by its content
    path: Path | None = None


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


def _invites_a_choice(source: str, statement: ast.stmt) -> bool:
    """A given line the exercise lets the student change: its comment says "your own"."""
    lines = source.splitlines()[statement.lineno - 1 : statement.end_lineno]
    return any("#" in line and "your own" in line.split("#", 1)[1] for line in lines)


def _is_constant(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


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


def _check(exercise: str, source: str) -> Check | None:
    """The graded check of one reader cell, or None when it ends in no check call."""
    statements = ast.parse(source).body
    if not statements or _check_name(statements[-1]) is None:
        return None
    answers = {n for s in statements[:-1] if _is_placeholder(s) for n in _assigned(s)}
    chosen = {
        n
        for s in statements[:-1]
        if not _is_placeholder(s) and _invites_a_choice(source, s)
        for n in _assigned(s)
    }
    call = statements[-1].value
    nodes = [*call.args, *(k.value for k in call.keywords)]
    arguments = []
    for node in nodes:
        text = ast.get_source_segment(source, node)
        if _is_constant(node):
            role = "constant"
        elif isinstance(node, ast.Name) and node.id in answers:
            role = "answer"
        elif isinstance(node, ast.Name) and node.id in chosen:
            role = "chosen"
        else:
            role = "given"
        arguments.append(Argument(text, role))
    numbered = iter(range(len(nodes)))

    def placeholder(node: ast.expr) -> ast.expr:
        index = next(numbered)
        return node if arguments[index].role == "constant" else ast.Name(f"__a{index}")

    rebuilt = ast.Call(
        func=call.func,
        args=[placeholder(a) for a in call.args],
        keywords=[ast.keyword(k.arg, placeholder(k.value)) for k in call.keywords],
    )
    return Check(
        exercise=exercise,
        name=_check_name(statements[-1]),
        call=ast.get_source_segment(source, statements[-1]),
        template=ast.unparse(rebuilt),
        arguments=arguments,
    )


def load_template(path: Path) -> Template:
    """The graded exercises of one chapter (`book/NN_*.ipynb`)."""
    nb = nbformat.read(path, as_version=4)
    checks: list[Check] = []
    for exercise in assignments.find_exercises(nb, path.name):
        match = EXERCISE_ID.match(exercise.title)
        ident = match.group(1) if match else exercise.title
        for index in exercise.reader_cells:
            count = sum(c.exercise.split(" ")[0] == ident for c in checks)
            check = _check(
                ident if count == 0 else f"{ident} ({count + 1})", nb.cells[index].source
            )
            if check is not None:
                checks.append(check)
    return Template(path.stem, int(path.name[:2]), _title(nb), checks, _code_lines(nb), path)


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
    file: str = ""  # the submitted file, relative to the submissions folder
    points: float | None = None  # set by the gradebook

    @property
    def mistake(self) -> str:
        return ";".join(self.mistakes)

    def as_dict(self) -> dict:
        return {
            "student": self.student,
            "notebook": self.notebook,
            "exercise": self.exercise,
            "verdict": self.verdict,
            "mistake": self.mistake,
            "check": self.check,
            "message": self.message,
            "file": self.file,
            "points": self.points,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Row:
        return cls(
            data["student"],
            data["notebook"],
            data["exercise"],
            data["verdict"],
            [m for m in data.get("mistake", "").split(";") if m],
            data.get("message", ""),
            data.get("check", ""),
            data.get("file", ""),
            data.get("points"),
        )


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


@dataclass
class Slot:
    """A grader cell that captures one exercise's arguments after a submitted cell."""

    exercise: str
    seq: int  # its number among all captures of the notebook
    index: int  # its index in the graded notebook
    after: int  # the graded cell it follows (the one that checks the exercise)


def _setup_source(token: str, reference: bool) -> str:
    """The grader's first cell: `kit/grade_kernel.py` as a module of its own, kept in
    `sys.modules`, so that a submission's `%reset` or `del` cannot take it away."""
    code = KERNEL_CODE.read_text(encoding="utf-8")
    code = code.replace('"__TOKEN__"', repr(token)).replace('"__MIME__"', repr(MIME))
    code = code.replace("REFERENCE = False", f"REFERENCE = {reference}")
    return (
        "# lessons grader: not part of the submission\n"
        "import sys as _sys, types as _types\n"
        f"_module = _types.ModuleType('_lessons_grader_{token}')\n"
        f"exec(compile({code!r}, '<lessons grader>', 'exec'), _module.__dict__)\n"
        f"_sys.modules['_lessons_grader_{token}'] = _module\n"
        "del _module, _sys, _types"
    )


def _capture_source(check: Check, token: str, seq: int) -> str:
    sources = [None if a.role == "constant" else a.source for a in check.arguments]
    return (
        f"# lessons grader: Exercise {check.exercise}, not part of the submission\n"
        f"__import__('sys').modules['_lessons_grader_{token}'].capture(\n"
        f"    {check.exercise!r}, {seq}, {check.template!r}, {sources!r}\n)"
    )


def build(
    nb: nbformat.NotebookNode, template: Template, token: str, reference: bool = False
) -> tuple[nbformat.NotebookNode, list[Slot], dict[int, int], set[str]]:
    """The notebook the kernel runs: (it, its capture slots, graded cell -> submitted cell,
    the exercises with no cell left to grade)."""
    after: dict[int, list[Check]] = {}
    deleted = set()
    for check in template.checks:
        calling = [
            i
            for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and re.search(rf"\b{check.name}\b", c.source)
        ]
        region = _heading_region(nb, check.exercise)
        if not calling and region:
            calling = [region[-1]]
        if not calling:
            deleted.add(check.exercise)
        for index in calling:
            after.setdefault(index, []).append(check)
    graded = nbformat.v4.new_notebook()
    graded.cells = [nbformat.v4.new_code_cell(_setup_source(token, reference))]
    origin: dict[int, int] = {}
    slots: list[Slot] = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        origin[len(graded.cells)] = index
        graded.cells.append(nbformat.v4.new_code_cell(cell.source))
        submitted = len(graded.cells) - 1
        for check in after.get(index, []):
            slot = Slot(check.exercise, len(slots), len(graded.cells), submitted)
            graded.cells.append(nbformat.v4.new_code_cell(_capture_source(check, token, slot.seq)))
            slots.append(slot)
    return graded, slots, origin, deleted


@dataclass
class Run:
    """How the kernel run went."""

    fault: str | None = None  # "timeout", "kernel_died", "kernel_failed: ..."
    where: int | None = None  # the graded cell it hit
    timed_out: list[int] = field(default_factory=list)  # cells interrupted past the limit


class _Client(NotebookClient):
    """nbclient, interrupting a cell past its time and going on with the next one."""

    def __init__(self, *args, run: Run, deadline: list, index_of: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self._run, self._deadline, self._index_of = run, deadline, index_of

    async def _async_handle_timeout(self, timeout, cell=None):  # nbclient's hook
        index = self._index_of.get(id(cell))
        past = self._deadline[0] is not None and time.monotonic() > self._deadline[0]
        if index in self._run.timed_out or past:  # the interrupt did not end it, or no time left
            self._run.where = index
            raise CellTimeoutError.error_from_timeout_and_cell("Cell timed out", timeout, cell)
        self._run.timed_out.append(index)
        await ensure_async(self.km.interrupt_kernel())
        return None


#: Threads per kernel where the caller set none: the parallelism is across students (`--jobs`),
#: and one thread per kernel keeps several kernels from fighting over the same cores.
KERNEL_THREADS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def kernel_environment() -> dict[str, str]:
    """The environment of a student's kernel: the grader's, one thread each unless set."""
    env = dict(os.environ)
    for name in KERNEL_THREADS:
        env.setdefault(name, "1")
    return env


def execute(graded: nbformat.NotebookNode, timeout: float, notebook_timeout: float) -> Run:
    """Run the graded notebook in a fresh kernel; each cell gets `timeout` seconds."""
    run = Run()
    deadline: list[float | None] = [None]
    index_of = {id(c): i for i, c in enumerate(graded.cells)}

    def cell_timeout(cell) -> float:
        run.where = index_of.get(id(cell))
        if run.where == 0:
            return SETUP_TIMEOUT
        if deadline[0] is None:
            deadline[0] = time.monotonic() + notebook_timeout
        return max(1, min(timeout, deadline[0] - time.monotonic()))

    with tempfile.TemporaryDirectory(prefix="grade-") as workdir:
        client = _Client(
            graded,
            kernel_name="python3",
            timeout_func=cell_timeout,
            interrupt_on_timeout=True,
            allow_errors=True,
            record_timing=False,
            shutdown_kernel="immediate",
            resources={"metadata": {"path": workdir}},
            run=run,
            deadline=deadline,
            index_of=index_of,
        )
        try:
            client.execute(env=kernel_environment())
        except CellTimeoutError:
            run.fault = "timeout"
        except DeadKernelError:
            run.fault = "kernel_died"
        except Exception as error:  # the kernel did not start, or nbclient failed
            run.fault = f"kernel_failed: {type(error).__name__}: {error}"
    if run.fault is None:
        run.where = None
    return run


def _error(cell: nbformat.NotebookNode) -> tuple[str, str] | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output.get("ename", "Exception"), str(output.get("evalue", ""))[:300]
    return None


# --- values out of the kernel, and the verdict outside it -------------------------------------


@dataclass(frozen=True)
class Opaque:
    """A value that could not leave the kernel (a function, a model): its type's name."""

    type: str
    state: dict | None = None


def decode(data: dict):
    """The value `kit/grade_kernel.py` encoded (no pickle: nothing in it runs code)."""
    kind = data.get("t")
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind == "bool":
        return bool(data["v"])
    if kind == "int":
        return int(data["v"])
    if kind == "float":
        return float(data["v"])
    if kind == "complex":
        return complex(float(data["v"][0]), float(data["v"][1]))
    if kind == "str":
        return str(data["v"])
    if kind == "array":
        raw = base64.b64decode(data["b64"])
        dtype = np.dtype(data["dtype"])
        if dtype.kind not in "biufc":
            raise ValueError(f"dtype {dtype} cannot travel")
        return np.frombuffer(raw, dtype=dtype).reshape(data["shape"]).copy()
    if kind == "npscalar":
        return decode(data["v"])[()]
    if kind == "tensor":
        import torch

        tensor = torch.from_numpy(decode(data["v"]))
        return tensor.to(getattr(torch, data["dtype"])) if data.get("dtype") else tensor
    if kind in ("list", "tuple", "set"):
        items = [decode(x) for x in data["v"]]
        return {"list": list, "tuple": tuple, "set": set}[kind](items)
    if kind == "dict":
        return {decode(k): decode(v) for k, v in data["v"]}
    state = data.get("state")
    return Opaque(str(data.get("type", "?")), state)


def same(student: dict, chapter: dict) -> bool:
    """Whether a given, as the student's kernel held it, equals the chapter's (tolerant)."""
    try:
        a, b = decode(student), decode(chapter)
    except Exception:  # a malformed record
        return False
    return _same(a, b)


def _numbers(value) -> np.ndarray | None:
    if isinstance(value, str | Opaque | dict | set) or value is None or value is Ellipsis:
        return None
    try:
        array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    except (ValueError, TypeError, RuntimeError):
        return None
    return array.astype(float) if array.dtype.kind in "biuf" else None


def _same(a, b) -> bool:
    if isinstance(a, Opaque) or isinstance(b, Opaque):
        if not (isinstance(a, Opaque) and isinstance(b, Opaque)) or a.type != b.type:
            return False
        if a.state is None or b.state is None:
            return a.state is b.state
        return a.state.keys() == b.state.keys() and all(
            same(a.state[k], b.state[k]) for k in a.state
        )
    x, y = _numbers(a), _numbers(b)
    if x is not None and y is not None:
        return x.shape == y.shape and bool(
            np.allclose(x, y, rtol=GIVEN_RTOL, atol=GIVEN_ATOL, equal_nan=True)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, set) and isinstance(b, set):
        return a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@dataclass
class Reference:
    """The chapter's own run: each exercise's givens, plain (to compare) and pickled (to judge)."""

    values: dict[str, dict[str, dict]] = field(default_factory=dict)  # exercise -> index -> plain
    pickled: dict[str, dict[str, str]] = field(default_factory=dict)
    problem: str = ""  # why a chapter's own run failed, if it did


@dataclass
class Outcome:
    verdict: str
    mistakes: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def _names(check: Check, indices) -> str:
    return ", ".join(f"`{check.arguments[int(i)].source}`" for i in indices)


def judge(record: dict, check: Check, reference: Reference) -> Outcome:
    """One capture's verdict: the check, called here, on the student's answer and the givens."""
    roles = {str(i): a.role for i, a in enumerate(check.arguments)}
    missing = [i for i, _ in record.get("missing", [])]
    if any(roles[str(i)] == "answer" for i in missing):
        return Outcome("unanswered", [], [f"{_names(check, missing)} is not defined when checked"])
    if missing or record.get("errors"):
        errors = record.get("errors", {})
        text = "; ".join(f"{check.arguments[int(i)].source}: {e}" for i, e in errors.items())
        name = next(iter(errors.values()), "NameError: ").split(":")[0]
        return Outcome("error", [name], [text or f"{_names(check, missing)} is not defined"])
    values, edited = {}, []
    given = reference.values.get(check.exercise, {})
    pickles = reference.pickled.get(check.exercise, {})
    for index, argument in enumerate(check.arguments):
        key = str(index)
        if argument.role == "constant":
            continue
        plain = record["values"][key]
        if argument.role == "given" and key in given and not same(plain, given[key]):
            edited.append(argument.source)
        if argument.role == "given" and key in pickles:
            values[f"__a{index}"] = pickle.loads(
                base64.b64decode(pickles[key])
            )  # the chapter's own
        else:
            values[f"__a{index}"] = decode(plain)
    outcome = Outcome("error")
    inside = any(isinstance(v, Opaque) for v in values.values())
    if inside:
        verdict = record.get("verdict") or {
            "verdict": "error",
            "mistake": "no_verdict",
            "message": "the check gave no verdict in the kernel",
        }
    else:
        import lessons

        try:
            verdict = eval(
                compile(check.template, "<check>", "eval"), {"lessons": lessons, **values}
            )  # noqa: S307
            verdict = dict(verdict.record())
        except Exception as error:  # the check raised on this answer
            verdict = {
                "verdict": "error",
                "mistake": type(error).__name__,
                "message": f"the check raised {type(error).__name__}: {error}",
            }
    outcome.verdict = verdict.get("verdict") if verdict.get("verdict") in VERDICTS else "error"
    if verdict.get("mistake"):
        outcome.mistakes.append(str(verdict["mistake"]))
    outcome.messages.append(str(verdict.get("message", "")))
    if edited:
        changed = ", ".join(f"`{s}`" for s in edited)
        if inside and outcome.verdict == "right":
            outcome.verdict = "wrong"
        if outcome.verdict != "right":
            outcome.mistakes.append("given_edited")
        outcome.messages.append(
            f"{changed} differs from the chapter's: "
            + ("the chapter's was used to judge" if not inside else "judged with yours, not right")
        )
    if record.get("tampered"):
        outcome.mistakes.append("tampered")
        patched = ", ".join(record["tampered"][:5])
        outcome.messages.append(f"the notebook patched lessons' checking code ({patched})")
        if inside:
            outcome.verdict = "error"
    return outcome


def _records(graded: nbformat.NotebookNode, slot: Slot, token: str) -> dict | None:
    shown = [
        o["data"][MIME]
        for o in graded.cells[slot.index].get("outputs", [])
        if MIME in o.get("data", {})
        and isinstance(o["data"][MIME], dict)
        and o["data"][MIME].get("token") == token
        and o["data"][MIME].get("seq") == slot.seq
    ]
    return shown[0] if len(shown) == 1 else None


def _describe(index: int | None, graded, slots: list[Slot], origin: dict[int, int]) -> str:
    """Which cell the graded notebook's cell `index` is, in the student's words."""
    for slot in slots:
        if index == slot.index:
            return f"the grader's check of Exercise {slot.exercise}"
    if index in origin:
        lines = [x.strip() for x in graded.cells[index].source.splitlines() if x.strip()]
        return f"cell {origin[index] + 1} (`{lines[0][:60] if lines else ''}`)"
    return "the grader's set-up (import lessons)"


def collect(
    graded, slots, origin, deleted, template, run: Run, token, reference, student, file, timeout
) -> list[Row]:
    """One row per check, from the capture cells' outputs."""
    setup = _error(graded.cells[0])
    outcomes: dict[str, list[Outcome]] = {}
    notes: dict[str, list[str]] = {}
    previous = 1
    for slot in slots:
        between = range(previous, slot.index)
        previous = slot.index + 1
        here = notes.setdefault(slot.exercise, [])
        for index in between:
            error = _error(graded.cells[index])
            if (
                error
                and index != slot.after
                and index in origin
                and error[0] != "KeyboardInterrupt"
            ):
                here.append(f"cell {origin[index] + 1} raised {error[0]}: {error[1]}")
        record = _records(graded, slot, token)
        if any(i in run.timed_out for i in between) or slot.index in run.timed_out:
            where = next(i for i in [*between, slot.index] if i in run.timed_out)
            outcome = Outcome(
                "timeout",
                ["timed_out"],
                [
                    f"{_describe(where, graded, slots, origin)} ran past {timeout:g} s and was stopped"
                ],
            )
        elif record is None:
            continue
        else:
            outcome = judge(record, check_of(template, slot.exercise), reference)
            raised = _error(graded.cells[slot.after])
            if raised and outcome.verdict != "right" and raised[0] != "KeyboardInterrupt":
                outcome = Outcome(
                    "error",
                    [raised[0]],
                    [
                        f"the cell that checks it (cell {origin[slot.after] + 1}) raised "
                        f"{raised[0]}: {raised[1]}"
                    ],
                )
        outcomes.setdefault(slot.exercise, []).append(outcome)
    rows = []
    for check in template.checks:
        row = Row(student, template.chapter, check.exercise, "error", check=check.name, file=file)
        found = outcomes.get(check.exercise, [])
        best = next((o for o in found if o.verdict == "right"), None)
        best = best or next((o for o in reversed(found) if o.verdict == "timeout"), None)
        best = best or (found[-1] if found else None)
        messages = []
        if setup is not None:
            row.mistakes = ["grader_setup"]
            messages.append(f"the grader could not start: {setup[0]}: {setup[1]}")
        elif check.exercise in deleted:
            row.mistakes.append("check_deleted")
            messages.append(
                f"no cell calls {check.name} and none is left under Exercise {check.exercise}"
            )
        elif best is not None:
            row.verdict, row.mistakes = best.verdict, list(best.mistakes)
            messages += best.messages
        elif run.fault == "timeout":
            row.verdict = "timeout"
            row.mistakes.append("timed_out")
            messages.append(
                f"not graded: the notebook was stopped in {_describe(run.where, graded, slots, origin)}"
                " (the kernel ignored the interrupt, or the notebook's time ran out)"
            )
        elif run.fault == "kernel_died":
            row.mistakes.append("kernel_died")
            messages.append(
                f"not graded: the kernel died in {_describe(run.where, graded, slots, origin)}"
            )
        elif run.fault is not None:
            row.mistakes.append(run.fault.split(":")[0])
            messages.append(f"not graded: {run.fault}")
        else:
            row.mistakes.append("no_verdict")
            messages.append("the grader's check showed nothing (was the kernel tampered with?)")
        if reference.problem:
            messages.append(f"the chapter's own run: {reference.problem}")
        if notes.get(check.exercise):
            messages.append("earlier, " + "; ".join(notes[check.exercise][:5]))
        row.message = " | ".join(m for m in messages if m)
        rows.append(row)
    return rows


def check_of(template: Template, exercise: str) -> Check:
    return next(c for c in template.checks if c.exercise == exercise)


# --- the chapter's own run: its givens --------------------------------------------------------


_references: dict[str, Reference] = {}
_reference_locks: dict[str, threading.Lock] = {}
_reference_lock = threading.Lock()  # guards _reference_locks


def reference_of(template: Template, timeout: float, notebook_timeout: float) -> Reference:
    """The chapter's givens, from one run of the chapter (solutions included) per process.

    One lock per chapter: a run of chapter 7 never waits for chapter 5's reference."""
    with _reference_lock:
        lock = _reference_locks.setdefault(template.chapter, threading.Lock())
    with lock:
        if template.chapter in _references:
            return _references[template.chapter]
        token = secrets.token_hex(8)
        nb = nbformat.read(template.path, as_version=4)
        graded, slots, _, _ = build(nb, template, token, reference=True)
        run = execute(graded, max(timeout, 120), max(notebook_timeout, 600))
        found = Reference()
        for slot in slots:  # the last capture of each exercise: after its solution
            record = _records(graded, slot, token)
            if record is None:
                continue
            check = check_of(template, slot.exercise)
            keys = [str(i) for i, a in enumerate(check.arguments) if a.role == "given"]
            found.values[slot.exercise] = {
                k: record["values"][k] for k in keys if k in record["values"]
            }
            found.pickled[slot.exercise] = {
                k: record["pickled"][k] for k in keys if k in record["pickled"]
            }
        missing = [c.exercise for c in template.checks if c.exercise not in found.values]
        if run.fault or missing:
            found.problem = (
                f"{template.chapter} did not run to its checks ({run.fault or 'no capture'} for "
                f"{', '.join(missing) or 'none'}); givens not compared there"
            )
        _references[template.chapter] = found
        return found


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


def submissions(folder: Path) -> list[tuple[Path, str]]:
    """(file, student) for each `*.ipynb` (see `gradebook.student_of` for the names)."""
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts) or relative.parts[0] == "grading":
            continue  # .ipynb_checkpoints, earlier results
        found.append((path, gradebook.student_of(relative).key))
    return found


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


def new_run_folder(folder: Path, now: datetime | None = None) -> Path:
    """`folder/grading/<UTC date-time>/`, never an existing one; `grading/latest` points at it."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H-%M-%SZ")
    base = folder / "grading"
    run = base / stamp
    n = 2
    while run.exists():
        run = base / f"{stamp}-{n}"
        n += 1
    run.mkdir(parents=True)
    latest = base / "latest"
    with contextlib.suppress(OSError):
        if latest.is_symlink() or latest.exists():
            latest.unlink()
        latest.symlink_to(run.name, target_is_directory=True)
    (base / "LATEST").write_text(run.name + "\n", encoding="utf-8")
    return run


def latest_run(folder: Path) -> Path | None:
    marker = folder / "grading" / "LATEST"
    if not marker.is_file():
        return None
    run = folder / "grading" / marker.read_text(encoding="utf-8").strip()
    return run if (run / "grades.json").is_file() else None


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


def default_jobs() -> int:
    """Notebooks run at once by default: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


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
    book = gradebook.Points.load(points) if points else gradebook.Points()
    book.apply(rows, templates)
    text = summary(rows, templates, catalogue())
    run = out or new_run_folder(folder, now)
    run.mkdir(parents=True, exist_ok=True)
    write(run, rows, text)
    gradebook.write_all(run, rows, templates, book, now)
    return rows, text, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", type=Path, help="the folder of submitted notebooks")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per cell (default 60)")
    parser.add_argument(
        "--notebook-timeout", type=float, default=600, help="seconds per notebook (default 600)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help=f"notebooks run at once, each in its own kernel (default: the CPUs, {default_jobs()})",
    )
    parser.add_argument("--points", type=Path, help="points per exercise (TOML; see gradebook.py)")
    parser.add_argument("--student", help="regrade this student only, into a new run")
    parser.add_argument("--out", type=Path, help="write the run here (default: a new folder)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        print(f"grade: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    if args.timeout <= 0 or args.notebook_timeout <= 0:
        print("grade: --timeout and --notebook-timeout must be > 0", file=sys.stderr)
        return 2
    if args.jobs is not None and args.jobs < 1:
        print("grade: --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        rows, text, run = grade(
            args.submissions,
            args.timeout,
            args.jobs,
            notebook_timeout=args.notebook_timeout,
            points=args.points,
            student=args.student,
            out=args.out,
        )
    except ValueError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 2
    print(text)
    print(f"wrote the grades, the gradebook and the feedback into {run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
