"""The reference pages keep their promises: citations, FAQ links, glossary, cheat sheet."""

from __future__ import annotations

import json
import re

from repo_paths import BOOK, ROOT

import lessons

BIB = (ROOT / "references.bib").read_text(encoding="utf-8")


def _all_text() -> str:
    parts = [p.read_text(encoding="utf-8") for p in BOOK.glob("*.md")]
    for path in BOOK.glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        parts += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return "\n".join(parts)


def test_every_bibliography_entry_is_cited_somewhere():
    keys = set(re.findall(r"^@\w+\{([^,]+),", BIB, flags=re.MULTILINE))
    cited = {
        k.strip()
        for group in re.findall(r"\{cite\}`([^`]+)`", _all_text())
        for k in group.split(",")
    }
    assert keys - cited == set(), "entries nobody cites"
    assert cited - keys == set(), "citations with no entry"


def test_every_faq_answer_links_into_a_chapter():
    sections = re.split(r"^## ", (BOOK / "faq.md").read_text(encoding="utf-8"), flags=re.MULTILINE)[
        1:
    ]
    assert len(sections) >= 8
    for section in sections:
        question = section.splitlines()[0]
        assert re.search(r"\{doc\}`\d\d_\w+`|\{ref\}`", section), (
            f"FAQ '{question}' links to no chapter"
        )


def test_no_glossary_term_is_defined_twice():
    text = (BOOK / "glossary.md").read_text(encoding="utf-8")
    body = text.split("```{glossary}")[1].split("```")[0]
    terms = [
        line.strip().lower() for line in body.splitlines() if line and not line.startswith(" ")
    ]
    assert len(terms) == len(set(terms)), sorted(t for t in terms if terms.count(t) > 1)


def test_every_lessons_name_in_the_cheat_sheet_exists():
    text = (BOOK / "cheatsheet.md").read_text(encoding="utf-8")
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| ")]
    named = 0
    for cells in rows:
        if cells[1].strip() == "What":
            continue
        for code in re.findall(r"`([^`]+)`", cells[-3]):  # the `lessons` column
            match = re.fullmatch(r"([A-Za-z_]+)(\(.*\))?", code)
            if match:
                named += 1
                assert hasattr(lessons, match[1]), f"cheat sheet names lessons.{match[1]}"
    assert named >= 20
