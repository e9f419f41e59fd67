"""Guards over the chapters: what nbval cannot see (CONTRIBUTING.md lists the conventions).

nbval re-runs each notebook and compares outputs, but it skips cells that were never
executed and cannot tell a chapter that breaks the book's conventions. These tests can.
"""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image
from repo_paths import BOOK, ROOT

from kit import course

NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))  # every notebook file, in the toc or not
CHAPTERS = course.load().paths  # the chapters, from _toc.yml (kit/course.py)
TEMPLATE = ROOT / "templates" / "chapter_template.ipynb"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
VOLATILE = re.compile(r"grad_fn=|at 0x[0-9a-f]{6,}|/tmp/|/home/|/work/|/root/|ipykernel_\d+")
GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`([^`:]+)(?::[^`]*)?`")


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_there_are_chapters_to_check():
    assert len(CHAPTERS) >= 11


def test_every_notebook_is_in_the_toc_and_every_toc_entry_exists():
    pages = course.Course.read(ROOT).page_paths  # ValueError: an entry without its file
    assert set(NOTEBOOKS) - set(pages.values()) == set(), "notebooks missing from _toc.yml"


def test_the_chapters_are_the_numbered_notebooks_in_the_order_of_the_toc():
    numbered = sorted(p for p in NOTEBOOKS if re.match(r"\d\d_", p.name))
    assert CHAPTERS == numbered, (
        "a book/NN_*.ipynb must be chapter NN of a numbered part of _toc.yml"
    )


@pytest.fixture(params=NOTEBOOKS, ids=lambda p: p.name)
def notebook(request) -> tuple[str, dict]:
    return request.param.name, _load(request.param)


@pytest.fixture(params=CHAPTERS, ids=lambda p: p.name)
def chapter(request) -> tuple[str, dict]:
    return request.param.name, _load(request.param)


def test_kernel_is_python3(notebook):
    name, nb = notebook
    assert nb["metadata"]["kernelspec"]["name"] == "python3", name


def test_every_code_cell_ran_once_in_one_top_to_bottom_run(notebook):
    name, nb = notebook
    counts = [c["execution_count"] for c in _code_cells(nb)]
    assert None not in counts, f"{name} has unexecuted cells: run `make execute`"
    assert counts == list(range(1, len(counts) + 1)), f"{name} was not run top to bottom: {counts}"


def test_no_stored_error_warning_or_volatile_output(notebook):
    name, nb = notebook
    for i, cell in enumerate(_code_cells(nb), 1):
        for out in cell["outputs"]:
            assert out["output_type"] != "error", f"{name} cell {i} stores an error"
            assert out.get("name") != "stderr", f"{name} cell {i} prints to stderr (a warning?)"
            text = json.dumps(out.get("text", "")) + json.dumps(
                out.get("data", {}).get("text/plain", "")
            )
            assert not VOLATILE.search(text), (
                f"{name} cell {i} output changes between runs: {text[:120]}"
            )


def test_first_code_cell_is_the_templates_bootstrap(notebook):
    name, nb = notebook
    expected = _source(_code_cells(_load(TEMPLATE))[0])
    first = _code_cells(nb)[0]
    assert _source(first) == expected, f"{name}: copy the first code cell of the template"
    assert first["outputs"] == [], f"{name}: the set-up cell must print nothing"


def test_colab_bootstrap_installs_from_the_books_repository():
    source = _source(_code_cells(_load(TEMPLATE))[0])
    assert source.startswith("%matplotlib inline\n")
    (repo,) = re.findall(r'^REPO = "(https://[^"]+)"$', source, flags=re.MULTILINE)
    (branch,) = re.findall(r'%pip install --quiet "git\+\{REPO\}@(\w+)"', source)
    assert (repo, branch) == (CONFIG["repository"]["url"], CONFIG["repository"]["branch"])


def test_no_chapter_needs_myst_nb_to_run(notebook):
    name, nb = notebook
    for cell in _code_cells(nb):
        assert "myst_nb" not in _source(cell), (
            f"{name} imports myst_nb; use lessons.glue (Colab has no myst_nb)"
        )


def test_chapter_starts_with_objectives_and_ends_with_recap_and_exercises(chapter):
    name, nb = chapter
    markdown = [_source(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert markdown[0].startswith("# "), f"{name} must open with its title"
    assert "Learning objectives" in markdown[0], f"{name} must state its objectives first"
    headings = [line for text in markdown for line in text.splitlines() if line.startswith("## ")]
    assert headings[-2:] == ["## Recap", "## Exercises"], f"{name} ends with {headings[-2:]}"


def test_every_exercise_has_a_hidden_solution_that_runs(chapter):
    name, nb = chapter
    cells = nb["cells"]
    start = next(i for i, c in enumerate(cells) if _source(c).startswith("## Exercises"))
    exercises = [i for i, c in enumerate(cells) if i >= start and "### Exercise" in _source(c)]
    assert 2 <= len(exercises) <= 4, f"{name} has {len(exercises)} exercises"
    for k, begin in enumerate(exercises):
        end = exercises[k + 1] if k + 1 < len(exercises) else len(cells)
        block = cells[begin:end]
        solutions = [
            c for c in block if c["cell_type"] == "code" and _source(c).startswith("# Solution")
        ]
        in_words = any("{dropdown} Solution" in _source(c) for c in block)
        assert solutions or in_words, f"{name}: exercise at cell {begin} has no solution"
        for cell in solutions:
            tags = cell["metadata"].get("tags", [])
            assert "hide-input" in tags, f"{name}: solution not hidden"
            # Its output (the check's verdict, printed results) would give the answer away.
            assert "hide-cell" in tags, f"{name}: a solution's output shows before it is asked for"
            prompt = cell["metadata"].get("mystnb", {}).get("code_prompt_show")
            assert prompt == "Show solution", f"{name}: solution toggle must say 'Show solution'"
            if "check_" in _source(cell):
                shown = json.dumps(cell["outputs"])
                assert "Correct" in shown, f"{name}: a solution's own check does not pass"


def test_every_glued_name_used_in_the_text_is_glued_by_the_code(notebook):
    name, nb = notebook
    used = {
        m
        for c in nb["cells"]
        if c["cell_type"] == "markdown"
        for m in GLUE_ROLE.findall(_source(c))
    }
    glued = {
        out["metadata"]["scrapbook"]["name"]
        for c in _code_cells(nb)
        for out in c["outputs"]
        if "scrapbook" in out.get("metadata", {})
    }
    assert used - glued == set(), f"{name} quotes values it never glues"


def test_every_figure_has_a_caption_and_alt_text(notebook):
    name, nb = notebook
    for i, cell in enumerate(_code_cells(nb), 1):
        if any("image/png" in out.get("data", {}) for out in cell["outputs"]):
            meta = cell["metadata"].get("mystnb", {})
            assert meta.get("image", {}).get("alt"), f"{name} cell {i}: figure without alt text"
            assert meta.get("figure", {}).get("caption"), f"{name} cell {i}: figure without caption"


def test_no_figure_is_cut_off_at_its_edge(notebook):
    # lessons.book.figures.figure_png trims a figure to its ink plus a tenth of an inch, so
    # ink on the outermost pixels means the canvas cut something off (a legend or a
    # label drawn outside it): widen the figure or move the artist.
    name, nb = notebook
    for i, cell in enumerate(_code_cells(nb), 1):
        for out in cell["outputs"]:
            if "image/png" not in out.get("data", {}):
                continue
            raw = base64.b64decode(out["data"]["image/png"])
            ink = np.asarray(Image.open(io.BytesIO(raw)).convert("L")) < 250  # [H, W]
            edges = {"top": ink[0], "bottom": ink[-1], "left": ink[:, 0], "right": ink[:, -1]}
            cut = [side for side, pixels in edges.items() if pixels.any()]
            assert not cut, f"{name} cell {i}: a figure is cut off at its {', '.join(cut)} edge"


def test_outputs_carry_no_machine_specific_metadata(notebook):
    name, nb = notebook
    assert "version" not in nb["metadata"].get("language_info", {}), f"{name}: run `make execute`"
    for cell in _code_cells(nb):
        assert "execution" not in cell["metadata"], f"{name} stores cell timings"


def test_template_text_twin_matches_the_template_notebook():
    jupytext = pytest.importorskip("jupytext")
    twin = jupytext.read(TEMPLATE.with_suffix(".py"))
    assert [(c.cell_type, c.source) for c in twin.cells] == [
        (c["cell_type"], _source(c)) for c in _load(TEMPLATE)["cells"]
    ]
