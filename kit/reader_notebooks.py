"""Write the reader notebooks: every chapter as plain Jupyter and Colab render it.

`make notebooks` runs this. The book's notebooks are written in MyST Markdown, which
only the built book renders: opened in JupyterLab or Colab, a chapter shows
`{glue:text}` roles instead of its numbers. This script writes one reader notebook per
notebook page of the table of contents into `_build/notebooks/`, with the same code
cells and stored outputs and with Markdown that plain CommonMark renders:

- glued values written in, formatted as the book formats them (from the stored
  glue records, so no kernel runs);
- `{term}` as a link to the online glossary, `{cite}` as "(Author, year)" linked to
  the online references, `{ref}`, `{doc}` and relative links (`[x](notation.md)`) as
  links into the online book;
- admonitions as an HTML box, dropdowns as `<details>`, a solution cell (tag
  `hide-input`) behind a `<details>` that shows its code, with the cell kept and
  its input collapsed, so "Run all" still checks the solution;
- a cell whose input the book removes (tag `remove-input`: the in-page questions, whose
  code holds the answer) kept with its input folded and no "Show code" box;
- figure captions as a Markdown cell under the figure; math left as math;
- the glue records dropped from the outputs (their values are in the text now, and
  Jupyter has no renderer for them); every other output kept as stored.

Anything MyST that it does not know raises `ValueError`, so new syntax in a chapter
cannot slip through unconverted. The reader notebooks are never edited by hand:
edit `book/*.ipynb` and run `make notebooks` again.

The MyST conversion itself is `kit/myst.py`; what the book holds (its pages, glossary,
citations, labels and address) is the course model, `kit/course.py`.

Usage: python -m kit notebooks [--out DIR] [NOTEBOOK ...]
"""

from __future__ import annotations

import copy
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import nbformat

from kit import course
from kit.arguments import chapter_arguments
from kit.course import Course
from kit.myst import Page

ROOT = course.ROOT
OUT = ROOT / "_build" / "notebooks"


def _markdown_cell(source: str, cell_id: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source)
    cell.id = cell_id[:64]
    return cell


def reader_notebook(path: Path, book: Course, root: Path = ROOT) -> nbformat.NotebookNode:
    """The reader notebook of one book notebook (see the module docstring)."""
    nb = nbformat.read(path, as_version=4)
    page = path.relative_to(root).with_suffix("").as_posix()
    if page not in book.pages:
        raise ValueError(f"{path} is not in _toc.yml")
    converter = Page(book, page, course.glue_records(nb))
    reader = copy.deepcopy(nb)
    reader.metadata.pop("course", None)  # the course model's facts (kit/course.py), not for readers
    reader.cells = []
    for cell in nb.cells:
        cell = copy.deepcopy(cell)
        if cell.cell_type == "markdown":
            cell.source = converter.markdown(cell.source)
            reader.cells.append(cell)
            if len(reader.cells) == 1:
                reader.cells.append(_markdown_cell(_banner(book, page), f"{cell.id}-reader"))
            continue
        if cell.cell_type != "code":
            reader.cells.append(cell)
            continue
        # Glue records only feed the book's {glue} roles, whose values are now written in;
        # Jupyter has no renderer for them (JupyterLab would say so under the cell).
        cell.outputs = [o for o in cell.outputs if not course.is_glue_record(o)]
        mystnb = cell.metadata.get("mystnb", {})
        if "hide-input" in cell.metadata.get("tags", []):
            prompt = mystnb.get("code_prompt_show", "Show code")
            code = cell.source.rstrip("\n")
            reader.cells.append(
                _markdown_cell(
                    f"<details>\n<summary>{prompt}</summary>\n\n```python\n{code}\n```\n\n"
                    "The cell below runs this code; its input is folded.\n\n</details>",
                    f"{cell.id}-details",
                )
            )
            cell.metadata["jupyter"] = {**cell.metadata.get("jupyter", {}), "source_hidden": True}
            cell.metadata["cellView"] = "form"  # Colab folds the code of a "form" cell
            if "hide-cell" in cell.metadata.get("tags", []):
                # The book hides this solution's output too: so does JupyterLab here.
                cell.metadata["jupyter"]["outputs_hidden"] = True
        elif "remove-input" in cell.metadata.get("tags", []):
            # The book shows only the output (an in-page question, whose code holds the
            # answer): fold the code here too, without a "Show code" box.
            cell.metadata["jupyter"] = {**cell.metadata.get("jupyter", {}), "source_hidden": True}
            cell.metadata["cellView"] = "form"
        reader.cells.append(cell)
        caption = mystnb.get("figure", {}).get("caption")
        if caption:
            reader.cells.append(
                _markdown_cell(f"*Figure: {converter.inline(caption)}*", f"{cell.id}-caption")
            )
    return reader


def _banner(book: Course, page: str) -> str:
    return (
        f"> This notebook is the reader copy of [{book.pages[page]}]({book.page_url(page)}),"
        " a page of the online book **Self-Attention, Step by Step**. Run its cells from"
        " the top: the first one installs the course's helpers where they are missing."
    )


def notebook_sources(root: Path = ROOT) -> list[Path]:
    """The book's notebooks, in the order of the table of contents."""
    return course.load(root).notebooks


def write_all(
    sources: list[Path], out: Path, root: Path = ROOT, log: Callable[[str], None] = print
) -> list[Path]:
    """Convert each source notebook into `out/<name>.ipynb`; return the written paths."""
    book = course.load(root)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sources:
        reader = reader_notebook(path.resolve(), book, root)
        nbformat.validate(reader)
        target = out / path.name
        # Write beside the target, then rename: two processes (pytest-xdist workers)
        # writing the same notebook never leave a half-written file for a reader.
        with tempfile.NamedTemporaryFile("w", dir=out, suffix=".tmp", delete=False) as tmp:
            nbformat.write(reader, tmp)
        os.chmod(tmp.name, 0o644)
        os.replace(tmp.name, target)
        written.append(target)
        log(f"wrote {target.relative_to(root) if target.is_relative_to(root) else target}")
    return written


def main(argv: list[str] | None = None) -> int:
    args = chapter_arguments(__doc__, OUT, argv, every="every notebook")
    sources = args.notebooks or notebook_sources()
    write_all(sources, args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
