"""A chapter's deck: its slides, built from the cells the chapter tags."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from kit import course
from kit.slides.cells import code_parts, code_slide, is_solution
from kit.slides.text import (
    HEADING,
    PLACEHOLDER,
    SPLIT,
    SlideText,
    drop_missing,
    inline,
    notes_html,
    render,
)

ROOT = course.ROOT
SLIDE, OUTLINE, FRAGMENT, CODE = "slide", "slide-outline", "slide-fragment", "slide-code"
TAGS = (SLIDE, OUTLINE, FRAGMENT, CODE)


@dataclass
class Slide:
    """One `<section>`: its title (a heading) and its parts, each maybe a fragment."""

    title: str
    level: int  # 1 for the chapter's title slide, 2 otherwise
    parts: list[str] = field(default_factory=list)
    has_heading: bool = False
    notes: list[str] = field(default_factory=list)  # reveal.js speaker notes (press S)

    def html(self) -> str:
        body = "".join(self.parts)
        heading = "" if self.has_heading else f"<h2>{self.title}</h2>"
        kind = ' class="title-slide"' if self.level == 1 else ""
        return f"<section{kind}>{heading}{body}{notes_html(self.notes)}</section>"


@dataclass
class Deck:
    """One chapter's deck: its number, title and slides."""

    number: int
    name: str  # "04_scaled_dot_product_attention"
    title: str
    slides: list[Slide]


def build_deck(path: Path, book: course.Course | None = None, root: Path = ROOT) -> Deck:
    """The slides of one chapter notebook, from its tagged cells."""
    nb = nbformat.read(path, as_version=4)
    page = (
        path.relative_to(root).with_suffix("").as_posix()
        if path.is_relative_to(root)
        else f"book/{path.stem}"
    )
    text = SlideText(book or course.load(root), page, course.glue_records(nb))
    number = int(path.name[:2])
    title, section = path.stem, path.stem
    slides: list[Slide] = []
    talking = False  # whether untagged prose still belongs to the last slide's notes
    for index, cell in enumerate(nb.cells):
        headings = (
            [HEADING.match(line) for line in cell.source.split("\n")]
            if cell.cell_type == "markdown"
            else []
        )
        headings = [h for h in headings if h]
        tags = [t for t in cell.metadata.get("tags", []) if t in TAGS]
        if tags:
            if len(tags) > 1:
                raise ValueError(f"{path.name}: cell {index} has more than one slide tag {tags}")
            if is_solution(cell):
                raise ValueError(
                    f"{path.name}: cell {index} is an exercise's solution: it may not be "
                    f"tagged {tags[0]} (slides never show a solution)"
                )
            notes: list[str] = []
            if cell.cell_type == "markdown":
                text.boxes, text.outline, text.notes = [], tags[0] == OUTLINE, notes
                markdown = drop_missing(text.markdown(cell.source))
                content = render(markdown, outline=tags[0] == OUTLINE, notes=notes)
                for k, box in reversed(list(enumerate(text.boxes))):  # outer boxes first
                    content = content.replace(f"<p>{PLACEHOLDER.format(k)}</p>", box)
                    content = content.replace(PLACEHOLDER.format(k), box)
            elif tags[0] == CODE:
                content = code_slide(cell, f"{path.name}: cell {index}")
            else:
                content = code_parts(cell, text, notes)
            if not content.strip():
                raise ValueError(f"{path.name}: cell {index} is tagged {tags[0]} but shows nothing")
            if tags[0] == CODE and cell.cell_type != "code":
                raise ValueError(f"{path.name}: cell {index} is tagged {CODE} but holds no code")
            if tags[0] == FRAGMENT:
                if not slides:
                    raise ValueError(f"{path.name}: cell {index} is a fragment before any slide")
                slides[-1].parts.append(f'<div class="fragment">{content.replace(SPLIT, "")}</div>')
                slides[-1].notes += notes
            else:
                top = headings[0] if headings else None
                level = 1 if top and len(top.group(1)) == 1 else 2
                own = bool(re.match(r"\s*<h[1-6]", content))  # the cell opens with a heading
                if level == 1:
                    content = f'<p class="chapter">Chapter {number}</p>{content}'
                first, *rest = content.split(SPLIT)
                slides.append(Slide(section, level, [first], has_heading=own, notes=notes))
                titles = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", first, re.S)
                for part in rest:  # a long list, going on
                    if level == 1:  # the title slide's box goes on, titled by the chapter
                        slides.append(Slide(titles[0] if titles else section, 2, [part]))
                    else:
                        title = titles[-1] if titles else section
                        headed = bool(re.match(r"\s*<h[1-6]", part))  # goes on at a heading
                        slides.append(Slide(f"{title} (continued)", 2, [part], headed))
            talking = True
        elif cell.cell_type == "markdown" and slides and not is_solution(cell):
            # The chapter's text after a slide, up to the next section, is what to say there.
            if any(len(h.group(1)) <= 2 for h in headings):
                talking = False
            if talking:
                text.boxes, text.outline, text.notes = [], True, slides[-1].notes
                render(
                    drop_missing(text.markdown(cell.source)), outline=True, notes=slides[-1].notes
                )
        for heading in headings:
            if len(heading.group(1)) == 1:
                title = drop_missing(text.inline(heading.group(2)))
            if len(heading.group(1)) <= 3:
                section = inline(drop_missing(text.inline(heading.group(2))))
    return Deck(number, path.stem, _plain(inline(title)), slides)


def _plain(fragment: str) -> str:
    """The text of an HTML fragment (for a page title), math delimiters kept out."""
    text = html.unescape(re.sub(r"<[^>]+>", "", fragment))
    return re.sub(r"\\[()]", "", text)
