"""Write the slides: one reveal.js deck per chapter, from the cells the chapter tags.

`make slides` runs this. For every chapter of `_toc.yml` (`kit/course.py`) it writes
`_build/slides/NN_*.html`, a reveal.js deck, and `_build/slides/index.html`, a list of the
decks. reveal.js (from `node_modules`, as `npm ci` installs it) and MathJax (the book's
copy in `.mathjax/`, or `node_modules/mathjax`) are copied beside the decks, which load
them by relative paths: the folder opens from disk (`file://`) or from any web server,
and nothing is fetched from the network.

A deck holds only the cells the chapter tags (CONTRIBUTING.md, "Slides"):

- `slide`: the cell starts a new slide and shows as written (a paragraph wall shortened);
- `slide-outline`: the cell starts a new slide and shows its headings, lists, display
  math and boxes (admonitions), without its prose paragraphs;
- `slide-fragment`: the cell joins the slide above, appearing on the next key press;
- `slide-code`: a code cell starts a new slide showing its source (at most `CODE_LINES`
  lines, chosen with `slide-lines:A-B` tags where the cell is longer; magics and bare
  `lessons.glue(...)` calls left out), highlighted in the browser by reveal.js's highlight
  plugin (copied beside the decks), and the first `OUTPUT_LINES` lines it prints.

Speaker notes (reveal.js's notes plugin, copied beside the decks: press S) hold the
chapter's text: the prose paragraphs an outline leaves off, a paragraph of more than `WALL`
words, a list item of more than `ITEM_WALL` words or a caption of more than `WALL` words
(the slide keeps the first sentence: no slide is a wall of text), and the untagged Markdown
cells after a slide up to the next `#`/`##` heading. A list too long for one slide
(`MAX_ITEMS`, `LIST_WORDS`) and a slide of more than `SLIDE_WORDS` words with a heading
inside go on over the next slide. An outline whose display math uses a symbol defined
only in the prose it drops (`$z' = ...$`) keeps that definition (`where ...`).

A Markdown cell is rendered from MyST as the reader notebooks render it
(`kit/myst.py`, imported): glued values written in from the stored glue
records (a sentence whose value is missing is dropped), terms and citations as plain
text (no links leave the deck), admonitions as plain boxes, dropdowns left out (they hold
solutions and answers). A code cell tagged `slide` shows its stored figures (PNG or SVG,
embedded, with the cell's caption and alt text), the prompt of an in-page question (never
its answer) with the lines of its cell that write its data out, or else its printed text;
never its code. A slide without a heading of its own is titled by the section it sits in.
A tagged solution (a `# Solution` cell, or one tagged `hide-cell`) is an error: slides
never show a solution.

The parts: `text.py` (a cell's Markdown as slide HTML), `cells.py` (what a code cell
shows), `deck.py` (a chapter's slides), `page.py` (the reveal.js page and its assets).

Usage: python -m kit slides [--out DIR] [NOTEBOOK ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from kit import course
from kit.arguments import chapter_arguments
from kit.slides.deck import TAGS, Deck, Slide, build_deck
from kit.slides.page import copy_assets, deck_html, index_html

__all__ = [
    "Deck",
    "Slide",
    "build_deck",
    "chapters",
    "copy_assets",
    "deck_html",
    "index_html",
    "main",
    "write_all",
]

ROOT = course.ROOT
OUT = ROOT / "_build" / "slides"


def chapters(root: Path = ROOT) -> list[Path]:
    """Every chapter notebook, in the order of `_toc.yml` (`kit/course.py`)."""
    return course.chapters(root)


def write_all(
    sources: list[Path], out: Path, root: Path = ROOT, assets: bool = True, log=print
) -> list[Deck]:
    """Write a deck per chapter and the index into `out`; with `assets`, copy the libraries."""
    book = course.load(root)
    out.mkdir(parents=True, exist_ok=True)
    decks = []
    for path in sources:
        deck = build_deck(path.resolve(), book, root)
        if not deck.slides:
            raise ValueError(f"{path.name}: no cell is tagged for slides ({', '.join(TAGS)})")
        target = out / f"{deck.name}.html"
        target.write_text(deck_html(deck), encoding="utf-8")
        decks.append(deck)
        log(f"wrote {target} ({len(deck.slides)} slides)")
    (out / "index.html").write_text(index_html(decks), encoding="utf-8")
    if assets:
        copy_assets(out)
    return decks


def main(argv: list[str] | None = None) -> int:
    args = chapter_arguments(__doc__, OUT, argv)
    try:
        write_all(args.notebooks or chapters(), args.out.resolve())
    except (ValueError, FileNotFoundError) as error:
        print(f"slides: {error}", file=sys.stderr)
        return 1
    print(f"The slides are at {args.out.resolve() / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
