"""Chapter 13, `requirements.txt` and `requirements.in` agree on the release of `transformers`.

Chapter 13 installs `transformers` where it is missing (`%pip install "transformers==X"`, in
its imports cell), and its stored outputs come from the release `requirements.txt` pins.
`requirements.in` keeps that release as a lower bound only, so the weekly drift job
(`make test REQUIREMENTS=requirements.in`) installs the newest one and shows what a new
release would break. Moving the pin (CONTRIBUTING.md) changes all three together.
"""

from __future__ import annotations

import json
import re

import pytest
from repo_paths import BOOK, ROOT

CHAPTER = BOOK / "13_attention_in_todays_models.ipynb"
VERSION = r"[0-9][0-9A-Za-z.+!-]*"


def _one(pattern: str, text: str, where: str) -> str:
    found = re.findall(pattern, text, flags=re.MULTILINE)
    assert len(found) == 1, f"{where}: {len(found)} matches of {pattern!r}, not one: {found}"
    return found[0]


def chapter_pin(notebook: dict) -> str:
    """The release a chapter's `%pip install "transformers==X"` installs."""
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    return _one(rf'^\s*%pip install [^\n]*"transformers==({VERSION})"', code, "the chapter")


def printed_version(notebook: dict) -> str:
    """The release the chapter ran with, from its stored `transformers X` line."""
    text = "".join(
        "".join(out.get("text", ""))
        for c in notebook["cells"]
        if c["cell_type"] == "code"
        for out in c.get("outputs", [])
        if out.get("output_type") == "stream"
    )
    return _one(rf"^transformers ({VERSION})$", text, "the chapter's stored outputs")


def requirements_pin(text: str) -> str:
    """`requirements.txt`'s exact `transformers==X`."""
    return _one(rf"^transformers==({VERSION})\s*$", text, "requirements.txt")


def lower_bound(text: str) -> str:
    """`requirements.in`'s `transformers>=X`: a lower bound and nothing else."""
    line = _one(r"^(transformers\b[^#\n]*)", text, "requirements.in").strip()
    match = re.fullmatch(rf"transformers>=({VERSION})", line.replace(" ", ""))
    assert match, (
        f"requirements.in says {line!r}: keep `transformers>=X` (X the pin in requirements.txt)"
        " and no upper bound or exact pin, or the drift job never tries a new release"
    )
    return match[1]


def _read(path):
    return path.read_text(encoding="utf-8")


def test_chapter_13_installs_the_release_requirements_txt_pins():
    pinned = requirements_pin(_read(ROOT / "requirements.txt"))
    assert chapter_pin(json.loads(_read(CHAPTER))) == pinned, (
        "chapter 13's %pip install and requirements.txt name different releases of transformers"
    )


def test_requirements_in_starts_the_drift_job_at_the_pin_and_lets_it_go_higher():
    pinned = requirements_pin(_read(ROOT / "requirements.txt"))
    assert lower_bound(_read(ROOT / "requirements.in")) == pinned


def test_chapter_13s_stored_outputs_come_from_the_pinned_release():
    pinned = requirements_pin(_read(ROOT / "requirements.txt"))
    assert printed_version(json.loads(_read(CHAPTER))) == pinned, (
        "re-execute chapter 13 with the pinned transformers installed"
    )


def _notebook(source: str, printed: str = "transformers 5.24.0\n") -> dict:
    cell = {"cell_type": "code", "source": [source], "outputs": [
        {"output_type": "stream", "name": "stdout", "text": [printed]}
    ]}  # fmt: skip
    return {"cells": [cell]}


def test_the_readers_catch_a_moved_or_a_missing_pin():
    """The comparisons above can fail: each reader sees the release that is really there."""
    assert chapter_pin(_notebook('    %pip install --quiet "transformers==5.25.0"')) == "5.25.0"
    assert printed_version(_notebook("", "transformers 5.25.0\n")) == "5.25.0"
    assert requirements_pin("torch==2.13.0\ntransformers==5.25.0\n") == "5.25.0"
    assert lower_bound("transformers>=5.25.0  # a note\n") == "5.25.0"
    for exact in ("transformers==5.24.0\n", "transformers>=5.24.0,<6\n", "transformers\n"):
        with pytest.raises(AssertionError, match="drift job"):
            lower_bound(exact)
    with pytest.raises(AssertionError, match="not one"):
        chapter_pin(_notebook("import transformers"))
