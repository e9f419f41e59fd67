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

Usage: python -m kit notebooks [--out DIR] [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import re
import sys
import tempfile
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "_build" / "notebooks"
GLUE_PREFIX = "application/papermill.record/"

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


def book_url(config: dict) -> str:
    """The online book's address, from `repository.url` in `_config.yml`.

    GitHub Pages serves `https://github.com/OWNER/REPO` at `https://OWNER.github.io/REPO/`;
    this is the one place that rule is written, so changing the repository URL in
    `_config.yml` moves every link of the reader notebooks with it.
    """
    url = str(config.get("repository", {}).get("url", "")).rstrip("/")
    match = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)(?:\.git)?", url)
    if match is None:
        raise ValueError(f"repository.url must be https://github.com/OWNER/REPO; got {url!r}")
    owner, repo = match.groups()
    return f"https://{owner.lower()}.github.io/{repo}/"


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


# --- what the book knows: toc, glossary, bibliography, labels -------------------------------


def toc_pages(toc: dict) -> list[str]:
    """Every page of `_toc.yml`, as paths without suffix ("book/05_hand_worked_example")."""
    pages = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    walk(toc.get("chapters", []))
    return pages


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


def _title(path: Path) -> str:
    """A page's first `# ` heading (Markdown file or notebook)."""
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    match = re.search(r"^# (.+)$", text, re.M)
    return match.group(1).strip() if match else path.stem


def _source_path(root: Path, page: str) -> Path:
    for suffix in (".ipynb", ".md"):
        if (root / f"{page}{suffix}").exists():
            return root / f"{page}{suffix}"
    raise ValueError(f"_toc.yml names {page!r}, which has no .ipynb or .md file")


@dataclass
class Book:
    """What the converter needs to know about the whole book."""

    url: str
    pages: dict[str, str]  # page ("book/notation") -> title
    terms: dict[str, str]  # lower-case term -> term as the glossary writes it
    citations: dict[str, str]  # BibTeX key -> "Author et al., 2017"
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)  # label -> (page, title)

    @classmethod
    def load(cls, root: Path = ROOT) -> Book:
        config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
        toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
        pages, labels = {}, {}
        for page in toc_pages(toc):
            path = _source_path(root, page)
            pages[page] = _title(path)
            if path.suffix == ".ipynb":
                nb = nbformat.read(path, as_version=4)
                text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
            else:
                text = path.read_text(encoding="utf-8")
            for label, heading in re.findall(r"^\(([^)\s]+)\)=\s*\n+#+ (.+)$", text, re.M):
                labels[label] = (page, heading.strip())
        bibfiles = config.get("bibtex_bibfiles", ["references.bib"])
        bib = "\n".join((root / name).read_text(encoding="utf-8") for name in bibfiles)
        return cls(
            url=book_url(config),
            pages=pages,
            terms=glossary_terms((root / "book" / "glossary.md").read_text(encoding="utf-8")),
            citations=citation_labels(bib),
            labels=labels,
        )

    def page_url(self, page: str, anchor: str = "") -> str:
        return f"{self.url}{page}.html" + (f"#{anchor}" if anchor else "")


# --- glue: the values the code stored -----------------------------------------------------


def glue_records(nb: nbformat.NotebookNode) -> dict[str, dict[str, str]]:
    """Every value the notebook glued: name -> {mime type: text}, from the stored outputs."""
    records = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is None:
                continue
            records[name] = {
                mime.removeprefix(GLUE_PREFIX): "".join(value) if isinstance(value, list) else value
                for mime, value in output.get("data", {}).items()
                if mime.startswith(GLUE_PREFIX)
            }
    return records


def is_glue_record(output: dict) -> bool:
    data = output.get("data", {})
    return bool(data) and all(mime.startswith(GLUE_PREFIX) for mime in data)


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
LABEL = re.compile(r"^\((?P<label>[^)\s]+)\)=\s*$")


def _text_and_target(content: str) -> tuple[str | None, str]:
    match = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>", content.strip())
    if match:
        return match.group(1).strip(), match.group(2).strip()
    return None, content.strip()


@dataclass
class Page:
    """One notebook being converted: the book, its own page path and its glue records."""

    book: Book
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
            text, target = _text_and_target(content)
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
            text, target = _text_and_target(content)
            if target.startswith("/"):  # from the book's root
                page = target.removeprefix("/")
            else:
                page = os.path.normpath(Path(self.page).parent / target).replace(os.sep, "/")
            page = re.sub(r"\.(md|ipynb)$", "", page)
            if page not in self.book.pages:
                raise ValueError(f"{self.page}: {{doc}} target {target!r} is not in _toc.yml")
            return f"[{text or self.book.pages[page]}]({self.book.page_url(page)})"
        if name in ("ref", "numref"):
            text, target = _text_and_target(content)
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
            marker = fence.group("fence")
            close = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
            end = i + 1
            while end < len(lines) and not close.match(lines[end]):
                end += 1
            if end == len(lines):
                raise ValueError(f"{self.page}: the fence {line!r} is never closed")
            body = lines[i + 1 : end]
            directive = DIRECTIVE.match(fence.group("info").strip())
            if directive is None:
                if marker[0] == ":":
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


# --- notebooks -----------------------------------------------------------------------------


def _markdown_cell(source: str, cell_id: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source)
    cell.id = cell_id[:64]
    return cell


def reader_notebook(path: Path, book: Book, root: Path = ROOT) -> nbformat.NotebookNode:
    """The reader notebook of one book notebook (see the module docstring)."""
    nb = nbformat.read(path, as_version=4)
    page = path.relative_to(root).with_suffix("").as_posix()
    if page not in book.pages:
        raise ValueError(f"{path} is not in _toc.yml")
    converter = Page(book, page, glue_records(nb))
    reader = copy.deepcopy(nb)
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
        cell.outputs = [o for o in cell.outputs if not is_glue_record(o)]
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


def _banner(book: Book, page: str) -> str:
    return (
        f"> This notebook is the reader copy of [{book.pages[page]}]({book.page_url(page)}),"
        " a page of the online book **Self-Attention, Step by Step**. Run its cells from"
        " the top: the first one installs the course's helpers where they are missing."
    )


def notebook_sources(root: Path = ROOT) -> list[Path]:
    """The book's notebooks, in the order of the table of contents."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    paths = [root / f"{page}.ipynb" for page in toc_pages(toc)]
    return [p for p in paths if p.exists()]


def write_all(
    sources: list[Path], out: Path, root: Path = ROOT, log: Callable[[str], None] = print
) -> list[Path]:
    """Convert each source notebook into `out/<name>.ipynb`; return the written paths."""
    book = Book.load(root)
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--out", type=Path, default=OUT, help="default: _build/notebooks")
    args = parser.parse_args(argv)
    sources = args.notebooks or notebook_sources()
    write_all(sources, args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
