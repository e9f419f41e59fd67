"""Reuse rights a school can rely on: which licence covers what, said the same everywhere.

Code (`lessons`, tools, tests, the chapters' code) is MIT (`LICENSE`); text and figures are
CC BY 4.0 (`LICENSE-text.md`); the README, the book's footer and `CITATION.cff` say so.
`CITATION.cff` is checked against the Citation File Format 1.2.0 schema's rules that matter
here: its required keys, no key the schema does not define, the types of the values.
"""

from __future__ import annotations

import datetime
import re

import pytest
import yaml
from repo_paths import HTML, ROOT

CC_BY = "https://creativecommons.org/licenses/by/4.0/"
#: The top-level keys CFF 1.2.0 defines (its schema has additionalProperties: false).
CFF_KEYS = {
    "abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi",
    "identifiers", "keywords", "license", "license-url", "message", "preferred-citation",
    "references", "repository", "repository-artifact", "repository-code", "title", "type",
    "url", "version",
}  # fmt: skip
CFF_REQUIRED = {"authors", "cff-version", "message", "title"}


def test_the_code_licence_is_mit_with_its_notice():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} \S", text, re.M)
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text


def test_the_text_licence_names_cc_by_4_and_what_it_covers():
    text = (ROOT / "LICENSE-text.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in text and CC_BY in text and f"{CC_BY}legalcode" in text
    assert "## What it covers" in text and "## What it does not cover" in text
    assert "figures" in text and "`LICENSE`" in text  # code stays MIT


def test_the_readme_says_which_licence_covers_what():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Licence and citation", 1)[1]
    assert re.search(r"^\| code: .*\| MIT \| `LICENSE` \|$", section, re.M)
    assert re.search(
        r"^\| text and figures: .*\| CC BY 4\.0 \| `LICENSE-text\.md` \|$", section, re.M
    )
    assert "CITATION.cff" in section


def test_the_book_footer_names_both_licences_and_the_text_licence_page_is_not_a_book_page():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    footer = config["html"]["extra_footer"]
    assert CC_BY in footer and "MIT" in footer and "lessons" in footer
    assert "LICENSE-text.md" in config["exclude_patterns"]


@pytest.mark.skipif(not (HTML / "index.html").exists(), reason="the book is not built (make book)")
def test_every_built_page_shows_the_licence_footer():
    pages = [
        p
        for p in HTML.rglob("*.html")
        if "_static" not in p.parts and 'http-equiv="Refresh"' not in p.read_text("utf-8")
    ]  # the root index.html only redirects to the landing page
    assert len(pages) > 12
    missing = [p.name for p in pages if f'href="{CC_BY}"' not in p.read_text("utf-8")]
    assert missing == []


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_cff_parses_and_keeps_to_the_1_2_0_schema():
    data = _citation()
    assert CFF_REQUIRED <= data.keys(), CFF_REQUIRED - data.keys()
    assert data.keys() <= CFF_KEYS, data.keys() - CFF_KEYS
    assert data["cff-version"] == "1.2.0"
    assert isinstance(data["message"], str) and data["message"].strip()
    assert isinstance(data["title"], str) and data["title"].strip()
    assert isinstance(data["authors"], list) and data["authors"]
    for author in data["authors"]:  # a person (family-names...) or an entity (name)
        assert isinstance(author, dict) and (author.get("name") or author.get("family-names"))
    released = data["date-released"]
    if isinstance(released, datetime.date):  # the schema wants the string form
        pytest.fail("date-released must be quoted (a string, YYYY-MM-DD)")
    assert re.fullmatch(r"\d{4}-(0[1-9]|1[012])-(0[1-9]|[12]\d|3[01])", released)
    assert data["type"] in ("software", "dataset")
    assert data["license"] == "MIT"  # the software's; the message names the text's
    assert "CC BY 4.0" in data["message"]
    assert all(isinstance(k, str) and k for k in data["keywords"])


def test_citation_names_the_repository_and_version_the_project_names():
    import tomllib

    data = _citation()
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert data["repository-code"] == config["repository"]["url"]
    assert data["version"] == project["version"]
    assert data["title"] == config["title"]
