"""The book's MyST Markdown as CommonMark and HTML that plain Jupyter and Colab render.

`Page` converts one page's Markdown: glued values written in (formatted as myst-nb
formats them, from the stored glue records), `{term}` as a link to the online glossary,
`{cite}` as "(Author, year)" linked to the references, `{ref}`, `{doc}` and relative
links as links into the online book, admonitions as an HTML box, dropdowns as
`<details>`, math left as math. Anything MyST that it does not know raises
`ValueError`, so new syntax cannot slip through unconverted. The reader notebooks
(`kit/reader_notebooks.py`) and, through a subclass, the slides (`kit/slides/`) use it;
what it links to comes from the course model (`kit/course.py`).
"""

from __future__ import annotations

import ast
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

# Admonition classes and the Bootstrap alert that classic Jupyter and JupyterLab style.
ALERTS = {
    "tip": "alert-success",
    "hint": "alert-success",
    "note": "alert-info",
    "seealso": "alert-info",
    "important": "alert-info",
    "warning": "alert-warning",
    "attention": "alert-warning",
    "caution": "alert-warning",
    "danger": "alert-danger",
    "error": "alert-danger",
}


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def term_anchor(term: str) -> str:
    """The HTML id Sphinx gives a glossary term: "term-" and the term, case kept."""
    slug = re.sub(r"[^a-zA-Z0-9._]+", "-", " ".join(_ascii(term).split()))
    return "term-" + re.sub(r"^[-0-9._]+|-+$", "", slug)


def label_anchor(label: str) -> str:
    """The HTML id docutils gives a `(label)=` target: lower case, hyphens."""
    slug = re.sub(r"[^a-z0-9]+", "-", " ".join(_ascii(label).lower().split()))
    return re.sub(r"^[^a-z]+|-+$", "", slug)


class Links(Protocol):
    """What a page's links need to know of the book (`kit.course.Course` has it)."""

    pages: dict[str, str]
    terms: dict[str, str]
    citations: dict[str, str]
    labels: dict[str, tuple[str, str]]

    def page_url(self, page: str, anchor: str = "") -> str: ...


def glue_text(record: dict[str, str], spec: str | None) -> str:
    """`{glue:text}` as the book shows it: the plain text, formatted by `spec` if given.

    As myst-nb does: the stored repr is read back as a Python literal where it is one
    (so strings lose their quotes), and the last letter of `spec` says whether to
    format it as a string, an integer or a float.
    """
    text = str(record["text/plain"])
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    if not spec:
        return str(value)
    kind = spec[-1]
    if kind in "bcdoxX":
        value = int(value)
    elif kind in "eEfFgGn%":
        value = float(value)
    elif kind == "s":
        value = str(value)
    return format(value, spec)


def glue_any(record: dict[str, str]) -> str:
    """`{glue}` as the book shows it: the Markdown form where there is one, else plain text."""
    return record.get("text/markdown", record["text/plain"])


# --- Markdown --------------------------------------------------------------------------------

ROLE_OR_CODE = re.compile(
    r"\{(?P<role>[a-z][\w:+-]*)\}`(?P<content>[^`]*)`"
    r"|(?P<ticks>`+).+?(?P=ticks)"
    r"|\]\((?P<link>(?![a-z][\w+.-]*:|#)[^)\s]+\.(?:md|ipynb)(?:#[^)\s]*)?)\)",
    re.S,
)
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|:{3,})(?P<info>.*)$")
DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<argument>.*)$")


def fence_end(lines: list[str], start: int, fence: re.Match, where: str) -> int:
    """The index of the line that closes the fence opened at `lines[start]` (`fence`: its
    `FENCE` match); a fence never closed is an error naming `where`."""
    marker = fence.group("fence")
    close = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
    end = start + 1
    while end < len(lines) and not close.match(lines[end]):
        end += 1
    if end == len(lines):
        raise ValueError(f"{where}: the fence {lines[start]!r} is never closed")
    return end


LABEL = re.compile(r"^\((?P<label>[^)\s]+)\)=\s*$")


def text_and_target(content: str) -> tuple[str | None, str]:
    """A role's `text <target>` as (text, target); a bare `target` as (None, target)."""
    match = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>", content.strip())
    if match:
        return match.group(1).strip(), match.group(2).strip()
    return None, content.strip()


@dataclass
class Page:
    """One notebook being converted: the book, its own page path and its glue records."""

    book: Links  # the course (`kit.course.Course`)
    page: str  # "book/05_hand_worked_example"
    glue: dict[str, dict[str, str]]

    def role(self, name: str, content: str) -> str:
        """The Markdown for one MyST role."""
        if name in ("glue", "glue:any", "glue:md", "glue:text"):
            key, spec = content, None
            if name == "glue:text" and ":" in content:
                key, spec = content.rsplit(":", 1)
            if key not in self.glue:
                raise ValueError(f"{self.page}: no glued value named {key!r}")
            return (
                glue_text(self.glue[key], spec) if name == "glue:text" else glue_any(self.glue[key])
            )
        if name == "term":
            text, target = text_and_target(content)
            term = self.book.terms.get(target.lower())
            if term is None:
                raise ValueError(f"{self.page}: {target!r} is not a term of book/glossary.md")
            url = self.book.page_url("book/glossary", term_anchor(term))
            return f"[{text or target}]({url})"
        if name in ("cite", "cite:p", "cite:t", "cite:ps", "cite:ts"):
            parts = []
            for key in (k.strip() for k in content.split(",")):
                if key not in self.book.citations:
                    raise ValueError(f"{self.page}: {key!r} is not in references.bib")
                label = self.book.citations[key]
                if name.startswith("cite:t"):
                    who, year = label.rsplit(", ", 1)
                    label = f"{who} ({year})"
                parts.append(f"[{label}]({self.book.page_url('book/bibliography')})")
            return "; ".join(parts) if name.startswith("cite:t") else "(" + "; ".join(parts) + ")"
        if name == "doc":
            text, target = text_and_target(content)
            if target.startswith("/"):  # from the book's root
                page = target.removeprefix("/")
            else:
                page = os.path.normpath(Path(self.page).parent / target).replace(os.sep, "/")
            page = re.sub(r"\.(md|ipynb)$", "", page)
            if page not in self.book.pages:
                raise ValueError(f"{self.page}: {{doc}} target {target!r} is not in _toc.yml")
            return f"[{text or self.book.pages[page]}]({self.book.page_url(page)})"
        if name in ("ref", "numref"):
            text, target = text_and_target(content)
            if target not in self.book.labels:
                raise ValueError(f"{self.page}: no label ({target})= in the book")
            page, title = self.book.labels[target]
            return f"[{text or title}]({self.book.page_url(page, label_anchor(target))})"
        if name in ("math", "eq"):
            return f"${content}$"
        if name in ("sub", "sup", "abbr", "kbd"):
            return content
        raise ValueError(f"{self.page}: the MyST role {{{name}}} has no reader form")

    def link(self, target: str) -> str:
        """A Markdown link to another page of the book ("notation.md#x"), made absolute."""
        path, _, anchor = target.partition("#")
        page = os.path.normpath(Path(self.page).parent / path).replace(os.sep, "/")
        page = re.sub(r"\.(md|ipynb)$", "", page)
        if page not in self.book.pages:
            raise ValueError(f"{self.page}: the link ({target}) is to no page of _toc.yml")
        return self.book.page_url(page, anchor)

    def inline(self, text: str) -> str:
        """Replace every role and relative link in `text`, leaving code spans as they are."""

        def replace(match: re.Match) -> str:
            if match.group("link") is not None:
                return f"]({self.link(match.group('link'))})"
            if match.group("role") is None:
                return match.group(0)
            return self.role(match.group("role"), match.group("content"))

        return ROLE_OR_CODE.sub(replace, text)

    def markdown(self, text: str) -> str:
        """Convert one Markdown cell (or a directive's body) to CommonMark and HTML."""
        lines = text.split("\n")
        out: list[str] = []
        paragraph: list[str] = []

        def flush() -> None:
            if paragraph:
                out.append(self.inline("\n".join(paragraph)))
                paragraph.clear()

        i = 0
        while i < len(lines):
            line = lines[i]
            fence = FENCE.match(line)
            if fence is None:
                label = LABEL.match(line)
                if label:
                    flush()
                    out.append(f'<a id="{label_anchor(label.group("label"))}"></a>')
                else:
                    paragraph.append(line)
                i += 1
                continue
            flush()
            end = fence_end(lines, i, fence, self.page)
            body = lines[i + 1 : end]
            directive = DIRECTIVE.match(fence.group("info").strip())
            if directive is None:
                if fence.group("fence")[0] == ":":
                    raise ValueError(f"{self.page}: {line!r} is a colon fence without a directive")
                out.extend(lines[i : end + 1])  # a code block: verbatim
            else:
                out.append(self.directive(directive["name"], directive["argument"], body))
            i = end + 1
        flush()
        return "\n".join(out)

    def directive(self, name: str, argument: str, body: list[str]) -> str:
        """The HTML and Markdown for one MyST directive."""
        options = {}
        while body and re.match(r"^:[\w-]+:", body[0]):
            key, _, value = body.pop(0)[1:].partition(":")
            options[key] = value.strip()
        content = self.markdown("\n".join(body).strip("\n"))
        classes = options.get("class", "").split()
        is_admonition = name == "admonition" or name in ALERTS
        if name in ALERTS and argument:  # `{note} text`: the text opens the body
            content, argument = f"{self.inline(argument)}\n\n{content}", ""
        title = self.inline(argument) or ("Show" if name == "dropdown" else name.title())
        if name == "dropdown" or (is_admonition and "dropdown" in classes):
            return f"<details>\n<summary>{title}</summary>\n\n{content}\n\n</details>"
        if is_admonition:
            alert = ALERTS.get(next((c for c in classes if c in ALERTS), name), "alert-info")
            return f'<div class="alert alert-block {alert}">\n<b>{title}</b>\n\n{content}\n\n</div>'
        if name in ("math", "equation"):
            return f"$$\n{content}\n$$"
        if name == "table":  # its classes only style the book's page (a phone's cards)
            return f"**{self.inline(argument)}**\n\n{content}" if argument else content
        raise ValueError(f"{self.page}: the MyST directive {{{name}}} has no reader form")
