"""Guard: long code cells stay out of the reader's way (issue 12).

A visible code cell longer than 25 lines is one a reader must scroll past. Drawing code
belongs in ``lessons.book.figures`` or ``lessons.book.diagrams``, or in a cell tagged ``hide-input``;
at most a few long cells may stay visible, where the code itself is the lesson.
"""

from __future__ import annotations

import json
from pathlib import Path

from repo_paths import ROOT

NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))
HIDDEN_TAGS = {"hide-input", "remove-input", "remove-cell"}
MAX_LINES = 25
MAX_LONG_CELLS = 3


def long_visible_cells(path: Path) -> list[str]:
    """``"name cell k: N lines"`` for each visible code cell of ``path`` over MAX_LINES lines."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or HIDDEN_TAGS & set(cell["metadata"].get("tags", [])):
            continue
        lines = len("".join(cell["source"]).splitlines())
        if lines > MAX_LINES:
            found.append(f"{path.name} cell {k}: {lines} lines")
    return found


def test_the_guard_sees_every_chapter():
    assert len(NOTEBOOKS) >= 11


def test_the_guard_counts_a_long_visible_cell_and_skips_a_hidden_one(tmp_path):
    long_source = "\n".join(f"x{i} = {i}" for i in range(MAX_LINES + 1))
    cells = [
        {"cell_type": "code", "metadata": {}, "source": long_source},
        {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": long_source},
        {"cell_type": "markdown", "metadata": {}, "source": long_source},
        {"cell_type": "code", "metadata": {}, "source": "y = 1\n" * MAX_LINES},
    ]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    assert long_visible_cells(path) == [f"nb.ipynb cell 0: {MAX_LINES + 1} lines"]


def test_at_most_three_visible_code_cells_over_25_lines_in_the_book():
    found = [entry for path in NOTEBOOKS for entry in long_visible_cells(path)]
    assert len(found) <= MAX_LONG_CELLS, (
        f"{len(found)} visible code cells are over {MAX_LINES} lines (at most "
        f"{MAX_LONG_CELLS}): move drawing code into lessons.book.figures or lessons.book.diagrams, "
        "or tag the cell hide-input where the code teaches nothing:\n" + "\n".join(found)
    )
