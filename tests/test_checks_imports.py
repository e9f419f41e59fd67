"""`lessons.checks` imports every chapter's checks by name, as an editor and a reader follow."""

from __future__ import annotations

import ast
import importlib

from repo_paths import ROOT

import lessons
import lessons.checks

CHECKS = ROOT / "lessons" / "checks"
PRESENT = sorted(p.stem for p in CHECKS.glob("ch[0-9][0-9].py"))


def _imports() -> dict[str, list[str]]:
    """Module -> names that `lessons/checks/__init__.py` imports from it, read from its source."""
    tree = ast.parse((CHECKS / "__init__.py").read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module is None:
                for alias in node.names:
                    found.setdefault(alias.name, [])
            else:
                found.setdefault(node.module, []).extend(a.name for a in node.names)
    return found


def test_no_module_is_found_by_a_computed_name():
    source = (CHECKS / "__init__.py").read_text(encoding="utf-8")
    assert "import_module" not in source and "globals()" not in source


def test_every_chapter_module_present_is_imported_with_each_of_its_checks():
    imports = _imports()
    assert [m for m in PRESENT if m not in imports] == [], "a chNN.py that __init__ never imports"
    for name in PRESENT:
        module = importlib.import_module(f"lessons.checks.{name}")
        assert sorted(imports[name]) == sorted(module.__all__), f"{name}: import its __all__"
        for check in module.__all__:
            assert getattr(lessons.checks, check) is getattr(module, check)
            assert getattr(lessons, check) is getattr(module, check)


def test_the_exported_names_are_the_modules_checks_in_book_order():
    modules = [importlib.import_module(f"lessons.checks.{m}") for m in PRESENT]
    assert lessons.checks.__all__ == ["Verdict", *(n for m in modules for n in m.__all__)]
    assert list(lessons.checks.MODULES) == [int(m[2:]) for m in PRESENT]
