"""Who imports whom, read from the source with `ast`: every import statement counts.

A module is named as Python would import it from the folder on `sys.path` it lives under
(``base``): `lessons/book/chapter.py` under the repository is `lessons.book.chapter`,
`tests/checks/library.py` under `tests/` is `checks.library`, `_ext/icons.py` under `_ext/`
is `icons`. Imports inside functions and under `if TYPE_CHECKING:` count like any other.
Used by `tests/test_lessons_structure.py` and `tests/test_repository_structure.py`.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

SKIPPED = {"__pycache__", ".ipynb_checkpoints"}


@cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of ``path``, read once per test session."""
    return ast.parse(path.read_text(encoding="utf-8"))


def module_name(path: Path, base: Path) -> str:
    """`base/lessons/book/lab.py` -> `lessons.book.lab`; `__init__.py` names its folder."""
    parts = path.relative_to(base).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, base: Path, known: set[str]) -> set[str]:
    """Every known module that ``path`` imports, in any statement anywhere in it.

    ``from X import name`` counts as importing ``X.name`` when that is a module, else ``X``.
    Parent packages run on import too, but an edge to each of them would make every module
    depend on its package's front door; only the modules named in the statements count.
    """
    name = module_name(path, base)
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".")
                parts = parts if is_package else parts[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                source = ".".join(parts + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                child = f"{source}.{alias.name}"
                found.add(child if child in known else source)
    return {m for m in found if m in known and m != name}


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if not SKIPPED & set(p.parts))


def import_graph(*trees: tuple[Path, Path]) -> dict[str, set[str]]:
    """The graph of every module in the ``(folder, base)`` trees: module -> modules it imports."""
    files = [(p, base) for folder, base in trees for p in python_files(folder)]
    known = {module_name(p, base) for p, base in files}
    return {module_name(p, base): imported_modules(p, base, known) for p, base in files}


def package_graph(package: Path) -> dict[str, set[str]]:
    """The graph of one package, its modules named from the folder above it."""
    return import_graph((package, package.parent))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import loop, each once, as the modules along it (depth-first search)."""
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()

    def walk(node: str, trail: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in trail:
                loop = trail[trail.index(nxt) :]
                if frozenset(loop) not in seen:
                    seen.add(frozenset(loop))
                    found.append([*loop, nxt])
            elif nxt not in done:
                walk(nxt, [*trail, nxt])
        done.add(node)

    done: set[str] = set()
    for start in sorted(graph):
        if start not in done:
            walk(start, [start])
    return found
