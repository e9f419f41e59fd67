"""The book's glossary and bibliography as the tools read them (`kit/course.py` asks here)."""

from __future__ import annotations

import re
import unicodedata


def glossary_terms(text: str) -> dict[str, str]:
    """Each term of the `{glossary}` block, lower-cased, mapped to the term as written."""
    match = re.search(r"^```+\{glossary\}[^\n]*\n(.*?)^```+\s*$", text, re.M | re.S)
    if match is None:
        raise ValueError("book/glossary.md has no ```{glossary} block")
    terms = {}
    for line in match.group(1).splitlines():
        if line.strip() and not line[0].isspace() and not line.startswith(":"):
            terms[line.strip().lower()] = line.strip()
    return terms


def _bib_field(entry: str, name: str) -> str:
    match = re.search(
        rf"\b{name}\s*=\s*\{{((?:[^{{}}]|\{{(?:[^{{}}]|\{{[^{{}}]*\}})*\}})*)\}}", entry
    )
    return match.group(1) if match else ""


def _latex_to_text(text: str) -> str:
    """Undo the few LaTeX accents and braces that BibTeX names use."""
    accents = {
        "'": "\u0301",
        "`": "\u0300",
        '"': "\u0308",
        "^": "\u0302",
        "~": "\u0303",
        "c": "\u0327",
    }
    text = re.sub(r"\{\\L\}", "Ł", text)
    text = re.sub(
        r"\{?\\([`'\"^~c])\s*\{?(\w)\}?\}?",
        lambda m: unicodedata.normalize("NFC", m.group(2) + accents[m.group(1)]),
        text,
    )
    return text.replace("{", "").replace("}", "")


def citation_labels(bib: str) -> dict[str, str]:
    """Each BibTeX key mapped to its author-year label: "Vaswani et al., 2017"."""
    labels = {}
    for match in re.finditer(r"@\w+\s*\{\s*([^,\s]+)\s*,(.*?)(?=^@|\Z)", bib, re.M | re.S):
        key, entry = match.groups()
        authors = [a.strip() for a in re.split(r"\s+and\s+", _bib_field(entry, "author"))]
        surnames = [_latex_to_text(a.split(",")[0].strip()) for a in authors if a]
        year = _bib_field(entry, "year")
        if not surnames or not year:
            raise ValueError(f"references.bib: {key} needs an author and a year")
        if len(surnames) == 1:
            who = surnames[0]
        elif len(surnames) == 2 and surnames[1] != "others":
            who = f"{surnames[0]} and {surnames[1]}"
        else:
            who = f"{surnames[0]} et al."
        labels[key] = f"{who}, {year}"
    return labels
