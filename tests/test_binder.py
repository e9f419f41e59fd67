"""Binder's environment: PyTorch's CPU build and the book's own pins for what chapters import."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from repo_paths import ROOT

from kit import course

BINDER = ROOT / "binder"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
# What a chapter imports (the Colab-like check installs the same five).
COURSE_PACKAGES = ("numpy", "torch", "matplotlib", "seaborn", "ipykernel")
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def _pins(path: Path) -> dict[str, str]:
    return {
        line.split("==")[0].lower(): line.split("==")[1] for line in _lines(path) if "==" in line
    }


def test_binder_pins_what_the_book_pins_with_the_cpu_build_of_torch():
    book, binder = _pins(ROOT / "requirements.txt"), _pins(BINDER / "requirements.txt")
    assert set(binder) == set(COURSE_PACKAGES)
    for name in COURSE_PACKAGES:
        expected = book[name] + "+cpu" if name == "torch" else book[name]
        assert binder[name] == expected, f"binder pins {name}=={binder[name]}, not {expected}"


def test_binder_takes_torch_from_pytorchs_cpu_index_and_installs_lessons_from_the_checkout():
    lines = _lines(BINDER / "requirements.txt")
    assert f"--extra-index-url {CPU_INDEX}" in lines
    assert lines[-1] == "."  # repo2docker installs it from the repository root
    assert not any(line.startswith("nvidia") for line in lines)


def test_binder_runs_the_python_the_book_is_built_with():
    assert (BINDER / "runtime.txt").read_text(encoding="utf-8").strip() == "python-3.11"


def test_each_chapters_binder_button_opens_that_chapter():
    html = ROOT / "_build" / "html" / "book"
    if not html.is_dir():
        pytest.skip("the book is not built: run `make book` (make test does)")
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    # The launch buttons open the reader notebooks, published on their own branch.
    branch = CONFIG["sphinx"]["config"].get("reader_notebooks_branch", "notebooks")
    chapters = sorted(c.stem for c in course.load().chapters)
    for chapter in chapters:
        page = (html / f"{chapter}.html").read_text(encoding="utf-8")
        expected = f"https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=tree/book/{chapter}.ipynb"
        assert expected in page, f"{chapter}: no Binder button opening {expected}"
