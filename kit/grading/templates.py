"""The chapters as the grader reads them: each exercise's check call, and its givens.

One reading serves the grader, `make assignments`' checks of the exercises and the
wrong-answer tests (`exercise_checks`): an exercise's reader cell (found by
`kit.assignments.find_exercises`) ends in its `lessons.check_*` call, and each argument
of that call is the student's `answer` (a placeholder `answer = ...` or `name = None`
above it), a `given` the exercise hands over, an input the student may `chosen` (its line
says "your own"), or a literal `constant`. Each argument also knows the check's parameter
it binds, so a student's own call can be matched to it by position or by name.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from kit import assignments

ROOT = assignments.ROOT

EXERCISE_ID = re.compile(r"Exercise\s+(\d+(?:\.\d+)*)")


@dataclass
class Argument:
    """One argument of a check call: the student's answer, a given, or a constant."""

    source: str  # `Q_ex`, `test_x[:1]`, `[1, -2, 4]`
    role: str  # "answer", "given", "chosen" (a given the student may change), "constant"
    parameter: str = ""  # the check's parameter it binds (`Q`), `args[1]` in a `*args`


@dataclass
class Check:
    """One graded exercise: its reader cell's check call, as the chapter writes it."""

    exercise: str  # "2.1"
    name: str  # "check_perpendicular_entry"
    call: str  # the chapter's call, as written
    template: str  # the call with each non-constant argument i written `__a<i>`
    arguments: list[Argument]
    cell: int = -1  # the reader cell's index in the chapter
    source: str = ""  # the reader cell's source

    @property
    def answers(self) -> list[str]:
        """The names the student's answer is held in (`answer`, `my_softmax`)."""
        return [a.source for a in self.arguments if a.role == "answer"]


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

    parameters = _parameters(_check_name(statements[-1]), len(call.args), call.keywords)
    for argument, parameter in zip(arguments, parameters, strict=True):
        argument.parameter = parameter
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


def bound_names(signature: inspect.Signature, positional: int, keywords: list[str]) -> list[str]:
    """The parameter each argument of a call binds, in the call's order (positional first).

    The kernel's record of a student's call (`kernel_side.py`) names its values the same way.
    """
    try:
        bound = signature.bind(*range(positional), **{k: None for k in keywords})
    except TypeError:  # a call the check does not take: named by position
        return [f"args[{i}]" for i in range(positional)] + list(keywords)
    names = [""] * positional
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            for j, index in enumerate(value):
                names[index] = f"{name}[{j}]"
        elif kind is not inspect.Parameter.VAR_KEYWORD and name not in keywords:
            names[value] = name
    return names + list(keywords)


def _parameters(name: str, positional: int, keywords: list[ast.keyword]) -> list[str]:
    """The parameters of `lessons.<name>` that a call's arguments bind."""
    import lessons

    words = [k.arg or "**" for k in keywords]
    check = getattr(lessons, name, None)
    if check is None:
        return [f"args[{i}]" for i in range(positional)] + words
    return bound_names(inspect.signature(check), positional, words)


def exercise_checks(nb: nbformat.NotebookNode, chapter: str) -> list[Check]:
    """Every graded exercise of a chapter, in order: its reader cell and its check call.

    The one reading of an exercise's inputs: the grader (which arguments to compare with
    the chapter's), `tests/exercise_givens.py` (the givens the wrong answers are judged on)
    and `load_template` all take it from here. An exercise with two reader cells gets the
    ids `7.1` and `7.1 (2)`.
    """
    checks: list[Check] = []
    for exercise in assignments.find_exercises(nb, chapter):
        match = EXERCISE_ID.match(exercise.title)
        ident = match.group(1) if match else exercise.title
        for index in exercise.reader_cells:
            count = sum(c.exercise.split(" ")[0] == ident for c in checks)
            check = _check(
                ident if count == 0 else f"{ident} ({count + 1})", nb.cells[index].source
            )
            if check is not None:
                check.cell, check.source = index, nb.cells[index].source
                checks.append(check)
    return checks


def load_template(path: Path) -> Template:
    """The graded exercises of one chapter (`book/NN_*.ipynb`)."""
    nb = nbformat.read(path, as_version=4)
    checks = exercise_checks(nb, path.name)
    return Template(path.stem, int(path.name[:2]), _title(nb), checks, _code_lines(nb), path)


def load_templates(root: Path = ROOT) -> dict[str, Template]:
    return {p.stem: load_template(p) for p in assignments.chapter_sources(root)}


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


def heading_region(nb: nbformat.NotebookNode, ident: str) -> list[int]:
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


def check_of(template: Template, exercise: str) -> Check:
    return next(c for c in template.checks if c.exercise == exercise)
