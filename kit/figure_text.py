"""Measure the smallest text in every figure the book shows (issue 36: figures on a phone).

Usage: python -m kit figure-text [NOTEBOOK ...]   (default: every notebook of the book with figures)

Runs each notebook in a fresh kernel, as `kit/execute_notebooks.py` does, with one cell put
first that watches matplotlib: every piece of text drawn while
`lessons.book.inline.figure_png` makes a figure's picture is recorded with its size in the
picture's pixels (font size in points x dpi / 72). Nothing is written into the notebook. The
result, `tests/figure_text.json`, maps each picture's SHA-256 (the name the book gives it in
`_build/html/_images/`) to its notebook, its width and its smallest text in pixels;
`tests/test_phone.py` multiplies that by the scale at which a phone shows the picture, and
fails on a picture it does not find there. `make execute` runs this after it stores the
outputs (`make figure-text` alone); after `python -m kit execute NOTEBOOK`, give it the same
NOTEBOOK.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from kit import course

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "figure_text.json"

WATCH = """
import base64 as _b64, hashlib as _hl, json as _json, os as _os
import matplotlib.text as _mtext
import lessons.book.inline as _inline
_drawn = []
_text_draw = _mtext.Text.draw
def _draw(self, renderer):
    if self.get_visible() and self.get_text().strip():
        _drawn.append(self)
    return _text_draw(self, renderer)
_mtext.Text.draw = _draw
_figure_png = _inline.figure_png
def _measured_png(fig, pad=0.1):
    _drawn.clear()
    png = _figure_png(fig, pad)
    sizes = [t.get_fontsize() * fig.dpi / 72 for t in _drawn if t.get_figure(root=True) is fig]
    data = _b64.b64decode(png)
    with open(_os.environ["FIGURE_TEXT_LOG"], "a") as log:
        log.write(_json.dumps([_hl.sha256(data).hexdigest(), min(sizes, default=None)]) + "\\n")
    return png
_inline.figure_png = _measured_png
"""


def measure(path: Path) -> dict[str, float | None]:
    """Run one notebook with the watch cell first; picture SHA-256 -> smallest text (px)."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(WATCH))
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as log:
        log_path = log.name
    os.environ["FIGURE_TEXT_LOG"] = log_path
    try:
        NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()
        lines = Path(log_path).read_text(encoding="utf-8").splitlines()
    finally:
        os.unlink(log_path)
    return dict(json.loads(line) for line in lines)


def main(argv: list[str]) -> int:
    with_figures = [p for p in course.load().notebooks if '"image/png"' in p.read_text("utf-8")]
    paths = [Path(a).resolve() for a in argv] or with_figures
    table = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() and argv else {}
    table = {k: v for k, v in table.items() if v["notebook"] not in {p.name for p in paths}}
    for path in paths:
        found = measure(path)
        print(f"{path.name}: {len(found)} pictures", flush=True)
        for sha, px in found.items():
            table[sha] = {"notebook": path.name, "min_text_px": px if px is None else round(px, 2)}
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
