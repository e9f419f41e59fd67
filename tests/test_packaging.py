"""The two install paths: exact pins for the book, loose bounds for `lessons` on Colab."""

from __future__ import annotations

import re

import tomllib
from repo_paths import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements(name: str) -> list[str]:
    lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def test_lessons_depends_on_lower_bounds_only_so_colab_keeps_its_own_torch():
    for requirement in PYPROJECT["project"]["dependencies"]:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+>=[0-9.]+", requirement), requirement


def test_every_requirement_is_pinned_exactly_and_torch_is_the_cpu_release():
    pins = [r for r in _requirements("requirements.txt") if r != "-e ."]
    assert "-e ." in _requirements("requirements.txt")
    for requirement in pins:
        assert re.fullmatch(r"[A-Za-z0-9_.\[\]-]+==[A-Za-z0-9_.+]+", requirement), requirement
    assert "torch==2.13.0" in pins and "jupyter-book==1.0.4.post1" in pins


def test_every_direct_dependency_is_in_the_pins():
    pinned = {r.split("==")[0].lower() for r in _requirements("requirements.txt")}
    for requirement in _requirements("requirements.in"):
        if requirement != "-e .":
            assert re.split(r"[=<>]", requirement)[0].lower() in pinned, requirement


def test_a_plain_install_ships_every_subpackage_and_every_widget_asset():
    """`pip install .` (what Colab's first cell does) must carry all of `lessons`."""
    from fnmatch import fnmatch

    package = ROOT / "lessons"
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in package.rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found <= listed, f"subpackages missing from [tool.setuptools] packages: {found - listed}"
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["lessons.book.widgets"]
    widgets = package / "book" / "widgets"
    for path in (widgets / "assets").iterdir():
        if path.suffix in (".js", ".css"):
            name = path.relative_to(widgets).as_posix()
            assert any(fnmatch(name, p) for p in patterns), name


def test_loading_nbformat_builds_no_grammar():
    """Every test worker and every book build loads nbformat, which loads jsonschema.

    jsonschema 4.24 and later also import rfc3987-syntax, which builds a grammar at
    import: 2.7 s per process on a 2-core machine. requirements.in keeps jsonschema<4.24.
    """
    import subprocess
    import sys

    code = "import sys, nbformat; print('rfc3987_syntax' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"
