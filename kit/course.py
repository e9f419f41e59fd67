"""The course as its sources say it is: the one model every tool and test asks.

Which chapters exist, in what order, and what each holds are read from `_toc.yml`,
`_config.yml`, `references.bib`, `book/glossary.md` and the notebooks alone:

- the chapters are the entries of `_toc.yml`'s numbered parts, in its order; chapter N's
  file starts with `NN_` (a mismatch is an error, so the file name and the table of
  contents cannot disagree);
- a chapter's title is its `# Title`, its objectives the bullets of its `Learning
  objectives` admonition, its exercises the `### Exercise` headings under `## Exercises`
  (`kit/exercises.py`), its glue the values its stored outputs record;
- the facts a tool cannot read from a chapter's text live in the notebook's own metadata,
  `metadata["course"]` (`Facts`): the question it answers (the intro's table), what a
  learner can do after it (the intro's outcomes), what it assumes (the instructor's guide)
  and the code its slides must show (`tests/test_slides.py`);
- the whole book's pages and their titles, its `(label)=` targets, glossary terms and
  citations, and the online book's address, for links.

`load()` reads once per root and keeps the result; `Course.read(root)` reads afresh.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import nbformat
import yaml

from kit import exercises as exercise_cells
from kit.references import citation_labels, glossary_terms

ROOT = Path(__file__).resolve().parent.parent
GLUE_PREFIX = "application/papermill.record/"
OBJECTIVES = re.compile(
    r"^(?P<fence>:{3,}|`{3,})\{admonition\}\s*Learning objectives\s*\n(?P<body>.*?)^(?P=fence)\s*$",
    re.M | re.S,
)
CHECK_CALL = re.compile(r"\b(check_\w+)\s*\(")
CITE = re.compile(r"\{cite(?::\w+)?\}`([^`]+)`")
TERM = re.compile(r"\{term\}`(?:[^`<]*<)?([^`<>]+)>?`")


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


def _source_path(root: Path, page: str) -> Path:
    for suffix in (".ipynb", ".md"):
        if (root / f"{page}{suffix}").exists():
            return root / f"{page}{suffix}"
    raise ValueError(f"_toc.yml names {page!r}, which has no .ipynb or .md file")


def markdown_text(nb: nbformat.NotebookNode) -> str:
    """Every Markdown cell of a notebook, joined by newlines."""
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def objectives_of(nb: nbformat.NotebookNode, name: str) -> list[str]:
    """The bullets of the chapter's `Learning objectives` admonition, one string each."""
    for cell in nb.cells:
        match = OBJECTIVES.search(cell.source) if cell.cell_type == "markdown" else None
        if match is None:
            continue
        bullets: list[str] = []
        for line in match.group("body").split("\n"):
            if line.startswith("- "):
                bullets.append(line[2:].strip())
            elif bullets and line.startswith(" ") and line.strip():
                bullets[-1] += " " + line.strip()  # a bullet that wraps
        if bullets:
            return bullets
    raise ValueError(f"{name}: no 'Learning objectives' admonition with a list of objectives")


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


# --- one chapter ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Facts:
    """What a chapter's notebook says about itself in `metadata["course"]`.

    A tool reads these; nothing else types them. Each is written in the course's voice:
    `question` completes the intro's table ("The question it answers"), `outcome` one
    bullet of "By the end you will be able to:", `assumes` the chapters it builds on and
    `builds_on` the ideas it takes from them (the instructor's guide), `key_code` the
    snippets of code its slides must show (may be empty).
    """

    question: str
    outcome: str
    assumes: tuple[int, ...]
    builds_on: str
    key_code: tuple[str, ...] = ()

    KEYS = ("question", "outcome", "assumes", "builds_on", "key_code")

    @classmethod
    def of(cls, metadata: dict, where: str) -> Facts:
        facts = metadata.get("course")
        if not isinstance(facts, dict):
            raise ValueError(
                f'{where}: the notebook\'s metadata has no "course" entry: add '
                f'{{"course": {{{", ".join(repr(k) + ": ..." for k in cls.KEYS)}}}}} '
                '(CONTRIBUTING.md, "A new chapter")'
            )
        missing = [k for k in cls.KEYS if k not in facts]
        unknown = sorted(set(facts) - set(cls.KEYS))
        if missing or unknown:
            raise ValueError(
                f'{where}: metadata["course"] lacks {missing} / has unknown keys {unknown}; '
                f"it holds exactly {list(cls.KEYS)}"
            )
        for key in ("question", "outcome", "builds_on"):
            if not isinstance(facts[key], str) or not facts[key].strip():
                raise ValueError(f'{where}: metadata["course"][{key!r}] must be a sentence')
        return cls(
            question=facts["question"],
            outcome=facts["outcome"],
            assumes=tuple(int(n) for n in facts["assumes"]),
            builds_on=facts["builds_on"],
            key_code=tuple(facts["key_code"]),
        )


@dataclass(frozen=True)
class Chapter:
    """One chapter of `_toc.yml`; what it holds is read from its notebook when first asked."""

    number: int  # its place among the chapters, from 1
    page: str  # "book/01_why_attention", as `_toc.yml` writes it
    path: Path
    part: str  # the caption of its part of the table of contents

    @property
    def stem(self) -> str:
        return self.path.stem  # "01_why_attention"

    @property
    def name(self) -> str:
        return self.path.name  # "01_why_attention.ipynb"

    @cached_property
    def notebook(self) -> nbformat.NotebookNode:
        return nbformat.read(self.path, as_version=4)

    @cached_property
    def title(self) -> str:
        match = re.search(r"^# (.+)$", markdown_text(self.notebook), re.M)
        if match is None:
            raise ValueError(f"{self.name}: no '# Title' heading")
        return match.group(1).strip()

    @cached_property
    def objectives(self) -> list[str]:
        return objectives_of(self.notebook, self.name)

    @cached_property
    def facts(self) -> Facts:
        return Facts.of(self.notebook.metadata, self.name)

    @cached_property
    def exercises(self) -> list[exercise_cells.Exercise]:
        return exercise_cells.find_exercises(self.notebook, self.name)

    @cached_property
    def exercise_checks(self) -> dict[str, list[str]]:
        """Each exercise's title -> the `lessons.check_*` its reader cells call, in order."""
        found = {}
        for exercise in self.exercises:
            calls = [
                check
                for index in exercise.reader_cells
                for check in CHECK_CALL.findall(self.notebook.cells[index].source)
            ]
            found[exercise.title] = list(dict.fromkeys(calls))
        return found

    @cached_property
    def glue(self) -> dict[str, dict[str, str]]:
        return glue_records(self.notebook)

    @cached_property
    def citations(self) -> list[str]:
        """The BibTeX keys its text cites, in order of first use."""
        keys = [k.strip() for m in CITE.findall(markdown_text(self.notebook)) for k in m.split(",")]
        return list(dict.fromkeys(keys))

    @cached_property
    def terms(self) -> list[str]:
        """The glossary terms its text links (`{term}`), as written, in order of first use."""
        return list(dict.fromkeys(t.strip() for t in TERM.findall(markdown_text(self.notebook))))


# --- the whole course --------------------------------------------------------------------


def _toc_chapters(toc: dict) -> list[tuple[str, str]]:
    """(page, part caption) of each entry of a numbered part of `_toc.yml`, in order."""
    return [
        (entry["file"], part.get("caption", ""))
        for part in toc.get("parts", [])
        if part.get("numbered")
        for entry in part.get("chapters", [])
    ]


@dataclass(frozen=True)
class Course:
    """The book: its chapters in order, and what its links need to know."""

    root: Path
    chapters: tuple[Chapter, ...]
    toc: dict = field(repr=False, compare=False)
    config: dict = field(repr=False, compare=False)

    @classmethod
    def read(cls, root: Path = ROOT) -> Course:
        root = Path(root)
        toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
        config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
        chapters = []
        for number, (page, part) in enumerate(_toc_chapters(toc), 1):
            path = root / f"{page}.ipynb"
            if not path.exists():
                raise ValueError(f"_toc.yml lists the chapter {page!r}, which has no notebook")
            if not path.name.startswith(f"{number:02d}_"):
                raise ValueError(
                    f"_toc.yml lists {page!r} as chapter {number}: its file name must start "
                    f"with {number:02d}_ (rename it, or move its line in _toc.yml)"
                )
            chapters.append(Chapter(number, page, path, part))
        return cls(root, tuple(chapters), toc, config)

    def chapter(self, key: int | str | Path) -> Chapter:
        """A chapter by number (7), stem ("07_multi_head_attention") or notebook path."""
        for chapter in self.chapters:
            if key in (chapter.number, chapter.stem, chapter.page, chapter.name) or (
                isinstance(key, Path) and key.resolve() == chapter.path.resolve()
            ):
                return chapter
        raise KeyError(f"no chapter {key!r} in _toc.yml")

    def exercise_chapters(self) -> dict[str, Chapter]:
        """Each check an exercise calls -> the first chapter whose exercise calls it."""
        found: dict[str, Chapter] = {}
        for chapter in self.chapters:
            for checks in chapter.exercise_checks.values():
                for check in checks:
                    found.setdefault(check, chapter)
        return found

    @property
    def paths(self) -> list[Path]:
        """The chapters' notebooks, in order."""
        return [c.path for c in self.chapters]

    @cached_property
    def page_paths(self) -> dict[str, Path]:
        """Every page of `_toc.yml` ("book/notation") -> its source file."""
        return {page: _source_path(self.root, page) for page in toc_pages(self.toc)}

    @cached_property
    def notebooks(self) -> list[Path]:
        """Every notebook page of the book (chapters and reference pages), in toc order."""
        return [p for p in self.page_paths.values() if p.suffix == ".ipynb"]

    @cached_property
    def _page_texts(self) -> dict[str, str]:
        texts = {}
        for page, path in self.page_paths.items():
            if path.suffix == ".ipynb":
                texts[page] = markdown_text(nbformat.read(path, as_version=4))
            else:
                texts[page] = path.read_text(encoding="utf-8")
        return texts

    @cached_property
    def pages(self) -> dict[str, str]:
        """Every page ("book/notation") -> its title (its first `# ` heading)."""
        return {
            page: (m.group(1).strip() if (m := re.search(r"^# (.+)$", text, re.M)) else page)
            for page, text in self._page_texts.items()
        }

    @cached_property
    def labels(self) -> dict[str, tuple[str, str]]:
        """Every `(label)=` target above a heading -> (page, the heading)."""
        labels = {}
        for page, text in self._page_texts.items():
            for label, heading in re.findall(r"^\(([^)\s]+)\)=\s*\n+#+ (.+)$", text, re.M):
                labels[label] = (page, heading.strip())
        return labels

    @cached_property
    def terms(self) -> dict[str, str]:
        """Each glossary term, lower-cased -> the term as `book/glossary.md` writes it."""
        return glossary_terms((self.root / "book" / "glossary.md").read_text(encoding="utf-8"))

    @cached_property
    def citations(self) -> dict[str, str]:
        """Each BibTeX key -> its author-year label ("Vaswani et al., 2017")."""
        names = self.config.get("bibtex_bibfiles", ["references.bib"])
        return citation_labels(
            "\n".join((self.root / n).read_text(encoding="utf-8") for n in names)
        )

    @cached_property
    def url(self) -> str:
        return book_url(self.config)

    def page_url(self, page: str, anchor: str = "") -> str:
        return f"{self.url}{page}.html" + (f"#{anchor}" if anchor else "")


@functools.cache
def _load(root: Path) -> Course:
    return Course.read(root)


def load(root: Path = ROOT) -> Course:
    """The course at `root`, read once and kept (the tools ask it many times)."""
    return _load(Path(root).resolve())


def chapters(root: Path = ROOT) -> list[Path]:
    """The chapters' notebooks, in the order of `_toc.yml`."""
    return load(root).paths
