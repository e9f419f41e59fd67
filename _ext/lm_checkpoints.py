"""Sphinx extension: chapter 12's language-model widget loads its other checkpoints later (issue 36).

`lessons.lm_widget()` embeds the float16 weights of every checkpoint its slider offers in the
widget's JSON (`<script type="application/json" data-lm-data>`), about 430 kB each. That is
what a notebook needs: in Jupyter and Colab the output is one self-contained piece of HTML,
with no file beside it to load. In the built book it is what a slow reader waits for: the
page's HTML cannot finish arriving (and the widget cannot start) before every checkpoint
has, although the widget starts on one of them. So, in the HTML book only, once the builder
has written the pages (`build-finished`), each widget's payload keeps the checkpoint the
slider starts on (the last) and says where the others are:

    "more": {"key": K, "src": "../_static/lm-checkpoints-K.js", "steps": [every step]}

and the others move to that file, a script that hands them over with
`window.LessonsWidgets.lmCheckpoints(K, [checkpoints])`. `lm.js` adds the script to the page
when the page is idle after the widget is ready, or at once when the reader moves the slider
to a step not yet here. A script, not a `fetch`: a browser refuses to fetch a `file://` URL,
and the book must work opened from the disk. K is the first 16 hex digits of the SHA-256 of
the whole payload, in the file's name and in the call, so a file cached from another build,
or the checkpoints of another widget, are never taken for this one's.

The singlehtml build (`make pdf`) and the other builders keep the payload whole: the printed
page shows the step the slider starts on, and one file is what they are for.
Registered in _config.yml under `sphinx: local_extensions:`; tests/test_built_book.py and
tests/test_lm_widget.py check the split and the widget on the built page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from lessons.book.widgets import lm_widget

#: The widget's JSON, read by the pattern `lm_widget.py` keeps beside the code that writes it.
PAYLOAD = lm_widget.DATA

#: What lm.js defines when it can load the checkpoints its page does not carry.
LOADER = "shared.lmCheckpoints = function"

#: The builders whose pages get the split: one page per document, served beside `_static`.
SPLIT_BUILDERS = {"html", "dirhtml"}


def _json(data: Any) -> str:
    """``data`` as `widget.py`'s ``embed_json`` writes it (compact; ``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text


def split_page(page: Path, outdir: Path) -> list[Path]:
    """Move every widget payload's checkpoints but the last out of ``page``; the files written.

    A payload already split (an incremental build leaves old pages as they were) or with one
    checkpoint is left alone, and so is a page whose widget script (inlined in the notebook's
    stored output) predates the split and could not load the rest: until the notebook is
    executed again it keeps every checkpoint inline, as it was.
    """
    source = page.read_text(encoding="utf-8")
    written: list[Path] = []
    if LOADER not in source:
        return written

    def split(match: re.Match[str]) -> str:
        data = json.loads(match.group(2))
        checkpoints = data.get("checkpoints", [])
        if "more" in data or len(checkpoints) < 2:
            return match.group(0)
        key = hashlib.sha256(match.group(2).encode("utf-8")).hexdigest()[:16]
        target = outdir / "_static" / f"lm-checkpoints-{key}.js"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            "/* Chapter 12's language model: the checkpoints its page does not carry inline"
            " (_ext/lm_checkpoints.py). */\n"
            f'window.LessonsWidgets.lmCheckpoints("{key}",{_json(checkpoints[:-1])});\n',
            encoding="utf-8",
        )
        written.append(target)
        src = os.path.relpath(target, page.parent).replace(os.sep, "/")
        data["more"] = {"key": key, "src": src, "steps": [c["step"] for c in checkpoints]}
        data["checkpoints"] = checkpoints[-1:]  # the step the slider starts on
        return match.group(1) + _json(data) + match.group(3)

    result = PAYLOAD.sub(split, source)
    if result != source:
        page.write_text(result, encoding="utf-8")
    return written


def split_book(outdir: Path) -> list[Path]:
    """``split_page`` on every page of the built book at ``outdir``; the files written."""
    written: list[Path] = []
    for page in sorted(outdir.rglob("*.html")):
        if "_static" not in page.relative_to(
            outdir
        ).parts and lm_widget.DATA_ATTRIBUTE in page.read_text(encoding="utf-8"):
            written += split_page(page, outdir)
    return written


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is None and app.builder.name in SPLIT_BUILDERS:
        split_book(Path(app.outdir))


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # python _ext/lm_checkpoints.py _build/html: split a built book
    for path in split_book(Path(sys.argv[1])):
        print(path)
