"""The repository's shape, read from the source: no import loop, short tool modules, one map.

`tests/test_lessons_structure.py` holds `lessons` to its two floors; this holds the whole
repository (`lessons`, `kit`, `_ext`, `tests`) to three rules: no module imports another that
imports it back (function-level and `TYPE_CHECKING` imports count), no module of `kit/` is
over `MAX_LINES` lines, and no tool or test edits `sys.path` (pytest puts `tests/` on it;
`_ext/` modules are loaded by path). The map in CONTRIBUTING.md ("A map of the repository")
names every top-level entry, every sub-folder of `kit/` and `tests/` and every module of
`kit/`, and names nothing that is not there.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest
from import_graph import cycles, import_graph, parsed, python_files
from repo_paths import ROOT

#: Each folder Python imports from, and the folder on `sys.path` its modules are named from.
TREES = {
    "lessons": (ROOT / "lessons", ROOT),
    "kit": (ROOT / "kit", ROOT),
    "_ext": (ROOT / "_ext", ROOT / "_ext"),
    "tests": (ROOT / "tests", ROOT / "tests"),
}
KIT = ROOT / "kit"
MAX_LINES = 400
#: Modules over MAX_LINES today, each being split (issue 41). Empty this as they land: an
#: entry that is no longer too long fails (strict), so the list cannot go stale.
TOO_LONG_TODAY: set[str] = set()
#: The loop kit/grade.py <-> kit/gradebook.py, being removed with the grader's split (issue 41).
LOOPS_TODAY: set[frozenset[str]] = set()
MAP_HEADING = "## A map of the repository"
#: What the map leaves out: what git ignores, git's own folder, and caches tools write.
UNMAPPED = {".git", ".ruff_cache", ".venv"}


def sys_path_edits(path: Path, root: Path = ROOT) -> list[str]:
    """`sys.path.insert(...)`, `.append`, `.extend`, or an assignment to `sys.path`, in ``path``."""
    found = []
    for node in ast.walk(parsed(path)):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in {"insert", "append", "extend"}:
                target = node.func.value
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            target = next((t for t in targets if ast.unparse(t).startswith("sys.path")), None)
        if target is not None and ast.unparse(target).split("[")[0] == "sys.path":
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)[:60]}")
    return found


def ignored(name: str) -> bool:
    patterns = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    return any(fnmatch.fnmatch(name + "/", p) or fnmatch.fnmatch(name, p) for p in patterns)


def map_paths(text: str) -> list[str]:
    """The paths of the tree drawn under MAP_HEADING: `├── kit/` under `.` is `kit/`."""
    section = text.split(MAP_HEADING, 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block, f"CONTRIBUTING.md: no ```text block under {MAP_HEADING!r}"
    paths, parents = [], []
    for line in block.group(1).splitlines():
        entry = re.match(r"^((?:│   |    )*)(?:├── |└── )(\S+)", line)
        if not entry:
            continue
        depth = len(entry.group(1)) // 4
        parents[depth:] = [entry.group(2)]
        paths.append("".join(parents))
    return paths


def on_disk() -> set[str]:
    """What the map must name: top-level entries, the sub-folders of kit/ and tests/, kit's modules."""
    names = {
        p.name + "/" * p.is_dir()
        for p in ROOT.iterdir()
        if p.name not in UNMAPPED and not ignored(p.name)
    }
    for folder in (KIT, ROOT / "tests"):
        names |= {
            f"{folder.name}/{p.name}/"
            for p in folder.iterdir()
            if p.is_dir() and not ignored(p.name) and not p.name.startswith(".")
        }
    names |= {f"kit/{p.name}" for p in KIT.iterdir() if p.is_file() and not ignored(p.name)}
    return names


# --- the real repository -------------------------------------------------------------------


def test_no_module_anywhere_imports_one_that_imports_it_back():
    loops = cycles(import_graph(*TREES.values()))
    new = [loop for loop in loops if frozenset(loop) not in LOOPS_TODAY]
    assert not new, "import loops (function-level and TYPE_CHECKING imports count): " + "; ".join(
        " -> ".join(loop) for loop in new
    )
    gone = LOOPS_TODAY - {frozenset(loop) for loop in loops}
    assert not gone, f"remove these from LOOPS_TODAY, they are gone: {gone}"


@pytest.mark.parametrize(
    "module",
    [
        pytest.param(
            p.name,
            marks=pytest.mark.xfail(
                p.name in TOO_LONG_TODAY, reason="being split (issue 41)", strict=True
            ),
        )
        for p in sorted(KIT.glob("*.py"))
    ]
    + [p.relative_to(KIT).as_posix() for p in python_files(KIT) if p.parent != KIT],
)
def test_no_module_of_the_kit_is_over_400_lines(module):
    lines = len((KIT / module).read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"kit/{module} has {lines} lines: split it by what each part does"


def test_no_tool_or_test_edits_sys_path():
    edits = [e for tree in ("kit", "tests", "_ext", "lessons") for p in
             python_files(TREES[tree][0]) for e in sys_path_edits(p)]  # fmt: skip
    assert not edits, edits


def test_the_map_names_everything_there_is_and_nothing_else():
    drawn = map_paths((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    missing = sorted(on_disk() - set(drawn))
    assert not missing, f"CONTRIBUTING.md's map does not name {missing}"
    absent = [p for p in drawn if not (ROOT / p).exists() or (ROOT / p).is_dir() != p.endswith("/")]
    assert not absent, f"CONTRIBUTING.md's map names what is not there: {absent}"


# --- the rules catch what they are for -------------------------------------------------------


def test_a_loop_between_a_tool_and_a_test_helper_through_a_function_is_caught(tmp_path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "kit" / "__init__.py").write_text("")
    (tmp_path / "kit" / "grade.py").write_text("def run():\n    import summary\n")
    (tmp_path / "tests" / "summary.py").write_text("from kit.grade import run\n")
    graph = import_graph((tmp_path / "kit", tmp_path), (tmp_path / "tests", tmp_path / "tests"))
    assert cycles(graph) == [["kit.grade", "summary", "kit.grade"]]


@pytest.mark.parametrize(
    "source, found",
    [
        ("import sys\nsys.path.insert(0, 'x')\n", 1),
        ("import sys\ndef f():\n    sys.path.append('x')\n", 1),
        ("import sys\nsys.path[:0] = ['x']\n", 1),
        ("import sys\nsys.path += ['x']\n", 1),
        ("paths = []\npaths.insert(0, 'x')\n", 0),
    ],
)
def test_every_way_of_editing_sys_path_is_caught(tmp_path, source, found):
    path = tmp_path / "planted.py"
    path.write_text(source, encoding="utf-8")
    assert len(sys_path_edits(path, tmp_path)) == found


def test_the_map_is_read_as_a_tree():
    text = f"""{MAP_HEADING}

```text
.
├── kit/            the tools
│   ├── grading/    the grader
│   │   └── run.py  runs it
│   └── slides.py   the decks
└── tests/
```
"""
    assert map_paths(text) == [
        "kit/",
        "kit/grading/",
        "kit/grading/run.py",
        "kit/slides.py",
        "tests/",
    ]
