"""The graded copy of a submission: the student's cells as written, with the grader's cells.

The first cell runs `kernel_side.py` in the kernel (it wraps the `lessons.check_*`
functions, to record each call). After every cell that names an exercise's check (and,
where none does, after the last code cell under the exercise's heading) a capture cell
shows what that check received (see `kernel_side.capture`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from kit.grading.templates import Check, Template, heading_region

KERNEL_CODE = Path(__file__).resolve().parent / "kernel_side.py"
MIME = "application/vnd.lessons.capture+json"


@dataclass
class Slot:
    """A grader cell that captures one exercise's arguments after a submitted cell."""

    exercise: str
    seq: int  # its number among all captures of the notebook
    index: int  # its index in the graded notebook
    after: int  # the graded cell it follows (the one that checks the exercise)
    #: Whether the answer may be read by its name where the check was not called: its name
    #: was last set (before this slot) in a cell of this exercise. `why` says why not.
    allow_names: bool = False
    why: str = ""
    #: One per check after the last cell: it shows the calls no earlier capture showed (a
    #: check imported under another name and called in a cell that does not name it).
    tail: bool = False


def _setup_source(token: str, reference: bool) -> str:
    """The grader's first cell: `kernel_side.py` as a module of its own, kept in
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


def _capture_source(check: Check, token: str, slot: Slot) -> str:
    sources = [None if a.role == "constant" else a.source for a in check.arguments]
    return (
        f"# lessons grader: Exercise {check.exercise}, not part of the submission\n"
        f"__import__('sys').modules['_lessons_grader_{token}'].capture(\n"
        f"    {check.exercise!r}, {slot.seq}, {check.name!r}, {check.template!r}, {sources!r},\n"
        f"    {slot.allow_names!r},\n)"
    )


def _without_magics(source: str) -> str:
    """A cell's Python: a cell magic's first line and `%`/`!` lines blanked."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        lines[0] = ""
    return "\n".join("" if x.lstrip().startswith(("%", "!")) else x for x in lines)


def binds(source: str) -> set[str]:
    """The names a cell sets at its top level (in loops, `with`, `if` too; not in functions)."""
    try:
        tree = ast.parse(_without_magics(source))
    except SyntaxError:
        return set()
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.add(child.name)
                continue
            if isinstance(child, ast.Lambda):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                found.add(child.id)
            elif isinstance(child, ast.alias):
                found.add((child.asname or child.name).split(".")[0])
            visit(child)

    visit(tree)
    return found


def provenance(nb: nbformat.NotebookNode, check: Check, after: int, own: list[int]) -> str:
    """Why the answer's name may not stand for what the student checked ("" if it may).

    It may where every name holding the answer was last set, at or before the cell `after`,
    in one of `own` (the cells under the exercise's heading, and the cell `after`): then the
    value is this exercise's, not one left from another exercise."""
    for name in check.answers:
        setting = [
            i
            for i in range(after + 1)
            if nb.cells[i].cell_type == "code" and name in binds(nb.cells[i].source)
        ]
        if not setting:
            return f"`{name}` is never set"
        if setting[-1] not in own:
            return f"`{name}` was last set in cell {setting[-1] + 1}, outside Exercise {check.exercise}"
    return ""


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
        region = heading_region(nb, check.exercise)
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
            slot.why = provenance(nb, check, index, [*heading_region(nb, check.exercise), index])
            slot.allow_names = not slot.why
            graded.cells.append(nbformat.v4.new_code_cell(_capture_source(check, token, slot)))
            slots.append(slot)
    for check in template.checks:
        if check.exercise in deleted:
            continue
        slot = Slot(check.exercise, len(slots), len(graded.cells), len(graded.cells) - 1)
        slot.why, slot.tail = "its check was called after every cell that names it", True
        graded.cells.append(nbformat.v4.new_code_cell(_capture_source(check, token, slot)))
        slots.append(slot)
    return graded, slots, origin, deleted
