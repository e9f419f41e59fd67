"""The two floors of `lessons`, read from the source: what is taught, and the page machinery.

The root of `lessons` holds the ideas the chapters teach; `lessons/book/` builds the pages.
Imports go one way only, from the machinery to the taught modules: a taught module never
imports `lessons.book` (only the front door, `lessons/__init__.py`, re-exports its names for
the chapters), and no module imports another that imports it back, not even under
`if TYPE_CHECKING:` or inside a function. Every import statement counts, wherever it is.
The map `lessons/README.md` names every root module, so a reader finds each one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import cycles, package_graph
from repo_paths import ROOT

PACKAGE = ROOT / "lessons"
MACHINERY = "lessons.book"
FRONT_DOOR = "lessons"  # lessons/__init__.py re-exports the names the chapters call


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """`taught module -> lessons.book...` edges (the front door excepted)."""
    machinery = (MACHINERY, MACHINERY + ".")
    return sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        if m != FRONT_DOOR and not m.startswith(machinery)
        for t in targets
        if t.startswith(machinery)
    )


def write_package(root: Path, files: dict[str, str]) -> Path:
    """A throwaway package named `lessons` under ``root``, for planting faults."""
    package = root / "lessons"
    for relative, source in files.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return package


# --- the real package -------------------------------------------------------------------


def test_no_taught_module_imports_the_page_machinery():
    offenders = upward_imports(package_graph(PACKAGE))
    assert not offenders, (
        "the root of lessons teaches; lessons.book serves it. Move what these need into the "
        f"taught module, or the code into lessons.book: {offenders}"
    )


def test_lessons_has_no_import_loop_anywhere():
    loops = cycles(package_graph(PACKAGE))
    assert not loops, "import loops (TYPE_CHECKING and function-level imports count): " + "; ".join(
        " -> ".join(loop) for loop in loops
    )


def test_the_machinery_is_in_lessons_book_and_the_root_holds_no_page_code():
    root_modules = {p.stem for p in PACKAGE.glob("*.py")}
    page_words = ("widget", "explorer", "question", "lab", "plot", "diagram", "inline", "page")
    assert not {m for m in root_modules if any(w in m for w in page_words)}, root_modules
    assert not [p for p in PACKAGE.iterdir() if p.is_dir() and p.name.endswith("assets")]


def test_the_map_names_every_root_module_and_subpackage():
    readme = (PACKAGE / "README.md").read_text(encoding="utf-8")
    names = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    names += [p.name + "/" for p in PACKAGE.iterdir() if (p / "__init__.py").exists()]
    names += [p.name + "/" for p in PACKAGE.iterdir() if p.is_dir() and p.name == "lm_weights"]
    missing = [n for n in names if f"`{n}`" not in readme]
    assert not missing, f"lessons/README.md does not list {missing}"


def test_the_map_names_the_machinery_folders_and_every_reading_module():
    readme = (PACKAGE / "README.md").read_text(encoding="utf-8")
    machinery = PACKAGE / "book"
    names = [p.name + "/" for p in machinery.iterdir() if (p / "__init__.py").exists()]
    names += [p.name for p in (machinery / "reading").glob("*.py") if p.name != "__init__.py"]
    missing = [n for n in names if f"`{n}`" not in readme]
    assert not missing, f"lessons/README.md does not list {missing}"


# --- the rules catch what they are for --------------------------------------------------


def test_an_upward_import_is_caught_wherever_it_hides(tmp_path):
    package = write_package(
        tmp_path,
        {
            "__init__.py": "from .attention import attention\nfrom .book.chapter import glue\n",
            "attention.py": "def attention():\n    from .book import chapter\n",
            "masks.py": "import lessons.book.figures\n",
            "book/__init__.py": "",
            "book/chapter.py": "from lessons.attention import attention\n",
            "book/figures.py": "",
        },
    )
    assert upward_imports(package_graph(package)) == [
        "lessons.attention -> lessons.book.chapter",
        "lessons.masks -> lessons.book.figures",
    ]


def test_a_loop_under_type_checking_is_caught(tmp_path):
    package = write_package(
        tmp_path,
        {
            "__init__.py": "",
            "book/__init__.py": "",
            "book/explorer.py": "from .explorer_page import page_html\n",
            "book/explorer_page.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from .explorer import Explorer\n"
            ),
        },
    )
    loops = cycles(package_graph(package))
    assert loops == [
        ["lessons.book.explorer", "lessons.book.explorer_page", "lessons.book.explorer"]
    ]


@pytest.mark.parametrize(
    "statement, expected",
    [
        ("from . import masks", {"lessons.masks"}),
        ("from .masks import causal_mask", {"lessons.masks"}),
        ("from lessons import masks", {"lessons.masks"}),
        ("import lessons.masks as m", {"lessons.masks"}),
        ("from .. import masks", set()),  # above the package: not one of its modules
    ],
)
def test_every_spelling_of_an_import_is_resolved(tmp_path, statement, expected):
    package = write_package(
        tmp_path, {"__init__.py": "", "masks.py": "", "attention.py": statement + "\n"}
    )
    assert package_graph(package)["lessons.attention"] == expected
