"""The shape of `lessons` itself: small modules, no reaching into another module's privates.

A reader opens `lessons` like a textbook's appendix: one idea per module, each short
enough to read in one sitting, and every module using the others only through their
public names (the shared input rules live in the private `_validate`, made for that).
Chapters use the self-checks of `lessons.checks`; no notebook writes its own.
"""

from __future__ import annotations

import ast
import json

import pytest
from repo_paths import BOOK, ROOT

PACKAGE = ROOT / "lessons"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 320  # about 300: one idea, read in one sitting


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_fits_in_one_reading(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines; split it by idea"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_another_modules_private_names(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level > 0 or (node.module or "").split(".")[0] == "lessons":
            private = [a.name for a in node.names if a.name.startswith("_")]
            assert not private, (
                f"{path.name} imports {private} from {node.module}: use public names, "
                "or put what both need in lessons/_validate.py"
            )


def test_the_private_names_rule_catches_an_offender():
    source = "from .attention import _broadcast\n"
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.ImportFrom) and node.names[0].name.startswith("_")


@pytest.mark.parametrize("path", sorted(BOOK.glob("*.ipynb")), ids=lambda p: p.name)
def test_no_notebook_defines_its_own_self_check(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if source.lstrip().startswith("%"):
            continue  # IPython magics are not Python
        tree = ast.parse(
            "\n".join(ln for ln in source.splitlines() if not ln.lstrip().startswith("%"))
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                assert not node.name.startswith("check_"), (
                    f"{path.name} defines {node.name}: self-checks live in lessons/checks/chNN.py"
                )
