"""Write the slides: one reveal.js deck per chapter, from the cells the chapter tags.

`make slides` runs this. For every chapter `book/NN_*.ipynb` it writes
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
(`kit/reader_notebooks.py`, imported): glued values written in from the stored glue
records (a sentence whose value is missing is dropped), terms and citations as plain
text (no links leave the deck), admonitions as plain boxes, dropdowns left out (they hold
solutions and answers). A code cell tagged `slide` shows its stored figures (PNG or SVG,
embedded, with the cell's caption and alt text), the prompt of an in-page question (never
its answer) with the lines of its cell that write its data out, or else its printed text;
never its code. A slide without a heading of its own is titled by the section it sits in.
A tagged solution (a `# Solution` cell, or one tagged `hide-cell`) is an error: slides
never show a solution.

Usage: python -m kit slides [--out DIR] [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import ast
import base64
import html
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from kit import reader_notebooks as rn

ROOT = rn.ROOT
OUT = ROOT / "_build" / "slides"
SLIDE, OUTLINE, FRAGMENT, CODE = "slide", "slide-outline", "slide-fragment", "slide-code"
TAGS = (SLIDE, OUTLINE, FRAGMENT, CODE)
REVEAL = ROOT / "node_modules" / "reveal.js" / "dist"
REVEAL_FILES = (
    "reveal.js",
    "reveal.css",
    "theme/white.css",
    "plugin/notes.js",
    "plugin/highlight.js",
)
MATHJAX_DIRS = (
    ROOT / ".mathjax" / "_static" / "mathjax",
    ROOT / "node_modules" / "mathjax" / "es5",
)
MATHJAX_FILES = ("tex-mml-chtml.js", "output/chtml/fonts")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
MISSING = "\u2063missing-glue\u2063"  # stands for a glued value the notebook does not hold
PLACEHOLDER = "\u2063box{}\u2063"


def chapters(root: Path = ROOT) -> list[Path]:
    """Every chapter notebook, `book/NN_*.ipynb`, in order."""
    return sorted((root / "book").glob("[0-9][0-9]_*.ipynb"))


def _markdown_it() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    dollarmath_plugin(md, allow_space=True, allow_digits=True, double_inline=True)
    # MathJax reads \( \) and \[ \]: no `$` survives in the HTML (an untypeset `$$` would show).
    md.add_render_rule(
        "math_inline", lambda self, tokens, idx, options, env: _tex(tokens[idx].content, False)
    )
    md.add_render_rule(
        "math_inline_double",
        lambda self, tokens, idx, options, env: _tex(tokens[idx].content, True),
    )
    md.add_render_rule(
        "math_block",
        lambda self, tokens, idx, options, env: _tex(tokens[idx].content, True) + "\n",
    )
    md.add_render_rule(
        "math_block_label",
        lambda self, tokens, idx, options, env: _tex(tokens[idx].content, True) + "\n",
    )
    return md


def _tex(content: str, display: bool) -> str:
    tex = html.escape(content.strip(), quote=False)
    return f'<div class="math">\\[{tex}\\]</div>' if display else f"\\({tex}\\)"


MD = _markdown_it()


class SlideText(rn.Page):
    """MyST to Markdown for a slide: plain-text terms and citations, no dropdowns."""

    def __init__(self, book: rn.Book, page: str, glue: dict) -> None:
        super().__init__(book, page, glue)
        self.boxes: list[str] = []
        self.outline = False  # an outline (`slide-outline`) keeps no prose paragraph
        self.notes: list[str] | None = None  # where a box's shortened prose goes

    def role(self, name: str, content: str) -> str:
        if name.startswith("glue"):
            key = content.rsplit(":", 1)[0] if name == "glue:text" else content
            return super().role(name, content) if key in self.glue else MISSING
        if name == "term":
            text, target = rn._text_and_target(content)
            return text or target
        if name in ("doc", "ref", "numref"):
            text, target = rn._text_and_target(content)
            return text or self.book.labels.get(target, ("", target.split("/")[-1]))[1]
        return super().role(name, content)  # citations: their links are dropped when rendered

    def link(self, target: str) -> str:
        return ""  # links are dropped after rendering: a deck leads nowhere else

    def directive(self, name: str, argument: str, body: list[str]) -> str:
        while body and re.match(r"^:[\w-]+:", body[0]):
            option = body.pop(0)
            if option.startswith(":class:") and "dropdown" in option:
                return ""
        if name == "dropdown":
            return ""  # a solution, an answer, or a prediction's reveal: never on a slide
        if name in ("math", "equation"):
            return "$$\n" + "\n".join(body).strip() + "\n$$"
        if name == "admonition" or name in rn.ALERTS:
            title = self.inline(argument) if name == "admonition" else name.title()
            if name != "admonition" and argument:
                body = [argument, "", *body]
            content = _render(self.markdown("\n".join(body).strip("\n")), self.outline, self.notes)
            if not content.strip():
                return ""  # a box of prose, in an outline
            opening = f'<div class="box"><p class="box-title">{_inline(title)}</p>'
            going_on = f'<div class="box"><p class="box-title">{_inline(title)} (continued)</p>'
            content = content.replace(SPLIT, f"</div>{SPLIT}{going_on}")
            self.boxes.append(f"{opening}{content}</div>")
            return PLACEHOLDER.format(len(self.boxes) - 1)
        return ""  # other directives (figures, tables of contents): left out


def _drop_missing(markdown: str) -> str:
    """Drop each sentence that quotes a glued value the notebook does not hold."""
    if MISSING not in markdown:
        return markdown
    # Sentences end at . ! or ? before white space (a decimal point does not end one).
    parts = re.split(r"((?<=[.!?])\s+|\n\s*\n)", markdown) + [""]
    kept = []
    for sentence, gap in zip(parts[::2], parts[1::2], strict=True):
        if MISSING not in sentence:
            kept.append(sentence + gap)
        elif "\n" in gap:
            kept.append(gap)  # the line break keeps the lines around it apart
    return "".join(kept)


#: A prose paragraph, a list item or a figure's caption longer than this many words is a
#: wall: the slide keeps its first sentence (or its first `WALL` words) and the speaker
#: notes get all of it.
WALL = 45
#: A list item longer than this many words keeps its first sentence (or `ITEM_WALL` words).
ITEM_WALL = 32
#: An inline formula `$x = ...$` in prose an outline leaves off defines `x`: when a display
#: formula the slide keeps uses `x` and nothing kept defines it, the definition stays
#: (`where x = ...`), so that no slide uses a symbol it does not define.
DEFINITION = re.compile(r"^\s*([^=<>]{1,40}?)\s*=\s*(?=\S)([^=]+)$", re.S)


def _words(tokens) -> int:
    return sum(len(t.content.split()) for t in tokens if t.type == "inline")


# Spans a cut may not split: inline math, inline code, and MyST's placeholders.
ATOM = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\S+", re.S)


def _cut(text: str, limit: int) -> str:
    """`text`'s first sentence, or its first `limit` words and an ellipsis if shorter.

    A formula or a piece of code counts as one word and is never cut in two.
    """
    lead = re.split(r"(?<=[.!?:])\s+(?=[A-Z(`$])", text.strip(), maxsplit=1)[0]
    atoms = ATOM.findall(lead)
    if len(atoms) <= limit:
        return lead
    return " ".join(atoms[:limit]).rstrip(",;:") + " …"


def _shorten_items(group, limit: int, notes: list[str] | None) -> None:
    """Each list item of more than `limit` words keeps its first sentence; notes get it all."""
    for k, token in enumerate(group):
        if token.type != "list_item_open":
            continue
        inline = next((t for t in group[k:] if t.type == "inline"), None)
        if inline is None or len(inline.content.split()) <= limit:
            continue
        if notes is not None:
            notes.append(f"<p>{MD.renderInline(inline.content)}</p>")
        short = _cut(inline.content, limit)
        inline.content = short
        inline.children = MD.parseInline(short)[0].children


def _inline_math(tokens) -> list[str]:
    return [
        child.content
        for t in tokens
        if t.type == "inline"
        for child in t.children or []
        if child.type == "math_inline"
    ]


def _where(dropped: list, kept: list) -> list[tuple[int, str]]:
    """Definitions in dropped prose of symbols a kept display formula uses (see DEFINITION).

    Each comes with the index of the first kept group whose display math uses it.
    """
    defined = {" ".join(m.split()) for group in kept for m in _inline_math(group)}
    found, seen = [], set()
    for group in dropped:
        for formula in _inline_math(group):
            match = DEFINITION.match(formula)
            if match is None:
                continue
            symbol, value = " ".join(match.group(1).split()), match.group(2)
            bare = re.sub(r"\{[^{}]*\}", "", re.sub(r"\{[^{}]*\}", "", symbol))
            if (
                not re.search(r"[_']", symbol)  # a single letter matches too much
                or re.search(r"\s", bare)  # an expression, not one symbol
                or re.fullmatch(r"[-+\d\s.,()\[\]]+", value)  # a value of the example
                or symbol in seen
                or any(symbol in d for d in defined)
            ):
                continue
            for index, kept_group in enumerate(kept):
                display = " ".join(
                    " ".join(t.content.split())
                    for t in kept_group
                    if t.type in ("math_block", "math_block_label")
                )
                if symbol in display and not re.search(re.escape(symbol) + r"\s*&?=", display):
                    found.append((index, formula))
                    seen.add(symbol)
                    break
    return found


#: A slide shows at most this many list items, or this many words of them: a longer list
#: goes on over the next slides ("… (continued)").
MAX_ITEMS, LIST_WORDS = 8, 170
#: A slide of more words than this goes on over the next slide at its last heading.
SLIDE_WORDS = 150
SPLIT = "<!--slide-split-->"  # where a long list goes on to the next slide


def _split_list(group) -> list:
    """A top-level list as one group, or, when too long for a slide, several groups with an
    empty group (a slide break) between them."""
    items, depth, start = [], 0, None
    for k, token in enumerate(group):
        if token.type == "list_item_open" and depth == 1:
            start = k
        depth += token.nesting
        if token.type == "list_item_close" and depth == 1:
            items.append((start, k + 1, _words(group[start : k + 1])))
    if len(items) <= MAX_ITEMS and sum(w for *_, w in items) <= LIST_WORDS:
        return [group]
    total = sum(w for *_, w in items)
    count = max(-(-len(items) // MAX_ITEMS), -(-total // LIST_WORDS))
    while True:  # `count` slides of about equal words, each within both limits
        chunks, chunk, words = [], [], 0
        for k, item in enumerate(items):
            left = len(items) - k  # items not placed yet, this one included
            full = len(chunk) == MAX_ITEMS or words + item[2] > LIST_WORDS
            if chunk and len(chunks) < count - 1 and (full or words >= total / count):
                chunks.append(chunk)
                chunk, words = [], 0
            elif chunk and left <= count - 1 - len(chunks):
                chunks.append(chunk)
                chunk, words = [], 0
            chunk.append(item)
            words += item[2]
        chunks.append(chunk)
        if all(
            len(c) <= MAX_ITEMS and sum(w for *_, w in c) <= LIST_WORDS or len(c) == 1
            for c in chunks
        ):
            break
        count += 1
    out, number = [], 1
    for chunk in chunks:
        opening = group[0].copy()
        if opening.type == "ordered_list_open" and number > 1:
            opening.attrs = {**(opening.attrs or {}), "start": number}
        body = [t for first, last, _ in chunk for t in group[first:last]]
        out += [[opening, *body, group[-1]], []]
        number += len(chunk)
    return out[:-1]


def _render(markdown: str, outline: bool = False, notes: list[str] | None = None) -> str:
    """A cell's Markdown as slide HTML; the prose it leaves off goes into `notes`."""
    tokens = MD.parse(markdown)
    kept, dropped, group, depth = [], [], [], 0
    for token in tokens:
        group.append(token)
        depth += token.nesting
        if depth:
            continue
        first = group[0]
        is_box = first.type == "paragraph_open" and re.fullmatch(
            PLACEHOLDER.replace("{}", r"\d+"), group[1].content.strip()
        )
        loose = first.type.endswith("list_open") and any(
            t.type == "paragraph_open" and not t.hidden for t in group
        )
        prose = (first.type == "paragraph_open" and not is_box) or loose
        if outline and prose:
            if notes is not None:
                notes.append(MD.renderer.render(group, MD.options, {}))
            dropped.append(group)
        elif prose and first.type == "paragraph_open" and _words(group) > WALL:
            if notes is not None:
                notes.append(MD.renderer.render(group, MD.options, {}))
            kept.append(MD.parse(_cut(group[1].content, WALL)))
        else:
            if first.type.endswith("list_open"):
                _shorten_items(group, ITEM_WALL, notes)
                kept.extend(_split_list(group))
            else:
                kept.append(group)
        group = []
    headed = [k for k, g in enumerate(kept) if k and g and g[0].type == "heading_open"]
    if headed and sum(_words(g) for g in kept) > SLIDE_WORDS:
        kept.insert(headed[-1], [])  # a long slide goes on at its last heading
    where = _where(dropped, kept) if outline else []
    out = []
    for index, kept_group in enumerate(kept):
        if not kept_group:
            out.append(SPLIT)
            continue
        for _, formula in (w for w in where if w[0] == index):
            out.append(f'<p class="where">where {_tex(formula, False)}</p>')
        out.append(MD.renderer.render(kept_group, MD.options, {}))
    return re.sub(r"</?a\b[^>]*>", "", "".join(out))  # no link leaves the deck


def _notes_html(notes: list[str]) -> str:
    body = re.sub(r"</?a\b[^>]*>", "", "".join(notes))
    return f'<aside class="notes">{body}</aside>' if body.strip() else ""


def _inline(markdown: str) -> str:
    return re.sub(r"</?a\b[^>]*>", "", MD.renderInline(markdown))


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
        return f"<section{kind}>{heading}{body}{_notes_html(self.notes)}</section>"


def _is_solution(cell: nbformat.NotebookNode) -> bool:
    tags = cell.metadata.get("tags", [])
    return "hide-cell" in tags or (
        cell.cell_type == "code" and cell.source.lstrip().startswith("# Solution")
    )


def _question(html_text: str, given: list[str] = ()) -> str | None:
    """The prompt of an in-page question (and its choices): never its answer or messages."""
    prompt = re.search(r'<p class="lq-prompt">(.*?)</p>', html_text, re.S)
    if prompt is None:
        return None
    text = re.sub(r'<span class="lq-tag">.*?</span>\s*', "", prompt.group(1))
    said = set(re.findall(r"\d+(?:\.\d+)?", text))
    given = [line for line in given if not set(re.findall(r"\d+(?:\.\d+)?", line)) <= said]
    choices = [
        re.sub(r"<input[^>]*>\s*", "", c)
        for c in re.findall(r'<label class="lq-choice">(.*?)</label>', html_text, re.S)
    ]
    items = "".join(f"<li>{c}</li>" for c in choices)
    data = (
        '<pre class="code short given"><code class="language-python" data-trim>'
        f"{html.escape(chr(10).join(given))}</code></pre>"
        if given
        else ""
    )
    return (
        '<div class="question"><p class="question-tag">Predict, then check</p>'
        f"{data}<p>{text}</p>" + (f'<ol type="A">{items}</ol>' if items else "") + "</div>"
    )


def _literal(node: ast.AST) -> bool:
    """Whether an expression is written-out data: numbers (at least one), lists, tuples,
    `np.inf`, and `np.array(...)` or `torch.tensor(...)` of such."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(map(_literal, node.elts))
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.Attribute):
        return ast.unparse(node) in ("np.inf", "math.inf", "math.pi", "np.pi")
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        return (
            name in ("np.array", "torch.tensor") and len(node.args) == 1 and _literal(node.args[0])
        )
    return False


def givens(source: str) -> list[str]:
    """The lines of a question's cell that write its data out (`x = [2.0, 1.0]`, with their
    comment), before the call that asks it: a slide shows them with the prompt."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines, found = source.split("\n"), []
    for node in tree.body:
        if "question(" in ast.unparse(node):
            break
        if isinstance(node, ast.Assign) and _literal(node.value):
            found += lines[node.lineno - 1 : node.end_lineno]
    return found


def _code_parts(
    cell: nbformat.NotebookNode, text: SlideText, notes: list[str] | None = None
) -> str:
    """What a code cell shows on a slide: figures, a question's prompt, or printed text."""
    mystnb = cell.metadata.get("mystnb", {})
    alt = mystnb.get("image", {}).get("alt", "")
    caption = mystnb.get("figure", {}).get("caption", "")
    figures, questions, printed = [], [], []
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/svg+xml" in data or "image/png" in data:
            mime = "image/svg+xml" if "image/svg+xml" in data else "image/png"
            value = data[mime]
            value = "".join(value) if isinstance(value, list) else value
            payload = (
                base64.b64encode(value.encode("utf-8")).decode("ascii")
                if mime == "image/svg+xml"
                else "".join(value.split())
            )
            figures.append(
                f'<img src="data:{mime};base64,{payload}" alt="{html.escape(alt or caption)}">'
            )
        elif "text/html" in data:
            value = data["text/html"]
            prompt = _question(
                "".join(value) if isinstance(value, list) else value, givens(cell.source)
            )
            if prompt:
                questions.append(prompt)
        elif output.get("output_type") == "stream" and output.get("name") == "stdout":
            value = output["text"]
            printed.append("".join(value) if isinstance(value, list) else value)
    parts = questions[:]
    if figures:
        caption = _drop_missing(text.inline(caption)) if caption else ""
        if len(ATOM.findall(caption)) > WALL:  # a wall of a caption: its first sentence
            if notes is not None:
                notes.append(f"<p>{_inline(caption)}</p>")
            caption = _cut(caption, WALL)
        figcaption = f"<figcaption>{_inline(caption)}</figcaption>" if caption else ""
        parts.append(f"<figure>{''.join(figures)}{figcaption}</figure>")
    if not parts and printed:
        parts.append(f"<pre>{html.escape(''.join(printed).rstrip())}</pre>")
    return "".join(parts)


#: A `slide-code` cell shows at most this many lines of code (a longer cell is an error: split
#: it, or tag the cell that holds the point) and this many lines of its printed output (the
#: rest is cut, marked by a last line "⋮").
CODE_LINES, OUTPUT_LINES = 18, 8
#: Code this short (lines, and characters in its longest line) shows in a larger font.
SHORT_CODE = (10, 64)


def _is_bookkeeping(node: ast.stmt) -> bool:
    """A statement the slide leaves out: a bare `lessons.glue(...)` call."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    func = node.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "glue"


def code_lines(source: str) -> list[str]:
    """The lines of a code cell a slide shows: without magics, `# NBVAL_` markers, bare
    `lessons.glue(...)` calls and `x = lessons.glue(...)` whose `x` the cell does not read
    again (they only record a number for the text), blank lines at either end, and runs of
    blank lines squeezed to one."""
    lines = source.split("\n")
    drop = {k for k, line in enumerate(lines) if line.lstrip().startswith(("%", "!", "# NBVAL_"))}
    try:
        tree = ast.parse("\n".join("" if k in drop else line for k, line in enumerate(lines)))
    except SyntaxError:
        tree = None
    body = tree.body if tree else []
    for k, node in enumerate(body):
        if _is_bookkeeping(node):
            drop.update(range(node.lineno - 1, node.end_lineno))
        elif _is_bookkeeping(ast.Expr(node.value)) if isinstance(node, ast.Assign) else False:
            # `x = lessons.glue(...)` whose `x` the rest of the cell never reads
            names = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            later = {
                n.id for rest in body[k + 1 :] for n in ast.walk(rest) if isinstance(n, ast.Name)
            }
            if not names & later:
                drop.update(range(node.lineno - 1, node.end_lineno))
    kept = [line.rstrip() for k, line in enumerate(lines) if k not in drop]
    squeezed = [line for k, line in enumerate(kept) if line or (k and kept[k - 1])]
    while squeezed and not squeezed[0]:
        squeezed.pop(0)
    while squeezed and not squeezed[-1]:
        squeezed.pop()
    return squeezed


def _printed(cell: nbformat.NotebookNode) -> str:
    """A code cell's printed text: its standard output, then a result's plain text."""
    printed = []
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            value = output["text"]
        elif output.get("output_type") == "execute_result" and list(data) == ["text/plain"]:
            value = data["text/plain"]
        else:
            continue
        printed.append("".join(value) if isinstance(value, list) else value)
    return "".join(printed).rstrip()


LINES = re.compile(r"^slide-lines:(\d+)(?:-(\d+))?$")


def _picked(cell: nbformat.NotebookNode, where: str) -> str:
    """The source lines that `slide-lines:A-B` tags pick (numbered from 1; one tag per range,
    since a tag may hold no comma), with `# ...` where lines are left out between them;
    without such a tag, the whole source."""
    picks = [m for t in cell.metadata.get("tags", []) if (m := LINES.match(t))]
    if not picks:
        return cell.source
    lines = cell.source.split("\n")
    chosen = sorted(
        {n for m in picks for n in range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)}
    )
    if not chosen or chosen[0] < 1 or chosen[-1] > len(lines):
        ranges = " ".join(m.group(0) for m in picks)
        raise ValueError(f"{where}: {ranges} does not pick lines 1 to {len(lines)}")
    out = []
    for k, number in enumerate(chosen):
        skipped = lines[chosen[k - 1] : number - 1] if k else []
        if any(line.strip() for line in skipped):
            indent = re.match(r"\s*", lines[number - 1]).group(0)
            out.append(f"{indent}# ...")
        elif skipped:
            out.append("")  # only blank lines left out
        out.append(lines[number - 1])
    return "\n".join(out)


def _code_slide(cell: nbformat.NotebookNode, where: str) -> str:
    """A `slide-code` cell: its code, highlighted in the browser, and its printed output."""
    lines = code_lines(_picked(cell, where))
    if len(lines) > CODE_LINES:
        raise ValueError(
            f"{where} is tagged {CODE} but has {len(lines)} lines of code (at most "
            f"{CODE_LINES}): split the cell, or tag the one that holds the point"
        )
    short = len(lines) <= SHORT_CODE[0] and max(map(len, lines)) <= SHORT_CODE[1]
    size = "code short" if short else "code"
    parts = [
        f'<pre class="{size}"><code class="language-python" data-trim>'
        f"{html.escape(chr(10).join(lines))}</code></pre>"
    ]
    printed = _printed(cell).split("\n")
    if printed != [""]:
        if len(printed) > OUTPUT_LINES:
            printed = printed[: OUTPUT_LINES - 1] + ["⋮"]
        parts.append(f'<pre class="output">{html.escape(chr(10).join(printed))}</pre>')
    return "".join(parts)


@dataclass
class Deck:
    """One chapter's deck: its number, title and slides."""

    number: int
    name: str  # "04_scaled_dot_product_attention"
    title: str
    slides: list[Slide]


def build_deck(path: Path, book: rn.Book | None = None, root: Path = ROOT) -> Deck:
    """The slides of one chapter notebook, from its tagged cells."""
    nb = nbformat.read(path, as_version=4)
    page = (
        path.relative_to(root).with_suffix("").as_posix()
        if path.is_relative_to(root)
        else f"book/{path.stem}"
    )
    text = SlideText(book or rn.Book.load(root), page, rn.glue_records(nb))
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
            if _is_solution(cell):
                raise ValueError(
                    f"{path.name}: cell {index} is an exercise's solution: it may not be "
                    f"tagged {tags[0]} (slides never show a solution)"
                )
            notes: list[str] = []
            if cell.cell_type == "markdown":
                text.boxes, text.outline, text.notes = [], tags[0] == OUTLINE, notes
                markdown = _drop_missing(text.markdown(cell.source))
                content = _render(markdown, outline=tags[0] == OUTLINE, notes=notes)
                for k, box in reversed(list(enumerate(text.boxes))):  # outer boxes first
                    content = content.replace(f"<p>{PLACEHOLDER.format(k)}</p>", box)
                    content = content.replace(PLACEHOLDER.format(k), box)
            elif tags[0] == CODE:
                content = _code_slide(cell, f"{path.name}: cell {index}")
            else:
                content = _code_parts(cell, text, notes)
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
        elif cell.cell_type == "markdown" and slides and not _is_solution(cell):
            # The chapter's text after a slide, up to the next section, is what to say there.
            if any(len(h.group(1)) <= 2 for h in headings):
                talking = False
            if talking:
                text.boxes, text.outline, text.notes = [], True, slides[-1].notes
                _render(
                    _drop_missing(text.markdown(cell.source)), outline=True, notes=slides[-1].notes
                )
        for heading in headings:
            if len(heading.group(1)) == 1:
                title = _drop_missing(text.inline(heading.group(2)))
            if len(heading.group(1)) <= 3:
                section = _inline(_drop_missing(text.inline(heading.group(2))))
    return Deck(number, path.stem, _plain(_inline(title)), slides)


def _plain(fragment: str) -> str:
    """The text of an HTML fragment (for a page title), math delimiters kept out."""
    text = html.unescape(re.sub(r"<[^>]+>", "", fragment))
    return re.sub(r"\\[()]", "", text)


STYLE = """
.reveal { font-size: 30px; }
.reveal h1 { font-size: 2.1em; }
.reveal h2 { font-size: 1.35em; margin-bottom: 0.5em; }
.reveal h3 { font-size: 1.1em; }
.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }
.reveal .slides section { text-align: left; }
.reveal .slides section.title-slide { text-align: center; }
.reveal .title-slide .box { text-align: left; }
.reveal p, .reveal li { line-height: 1.3; }
.reveal ul, .reveal ol { margin-left: 1em; }
.reveal .chapter { color: #555; font-size: 0.8em; text-transform: uppercase; letter-spacing: 0.1em; }
.reveal .box { border-left: 6px solid #009e73; background: #f2f8f5; padding: 0.4em 0.8em;
  margin: 0.5em 0; font-size: 0.8em; }
.reveal .box-title { font-weight: bold; margin: 0.2em 0; }
.reveal .question { border-left: 6px solid #0072b2; background: #eef4fa; padding: 0.5em 0.9em; }
.reveal .question ol { list-style-type: upper-alpha; }
.reveal .question-tag { color: #0072b2; font-weight: bold; font-size: 0.8em; margin: 0; }
.reveal figure { margin: 0; text-align: center; }
.reveal figure img { max-height: 540px; max-width: 100%; margin: 0; }
.reveal figcaption { font-size: 0.6em; color: #333; text-align: left; margin-top: 0.3em; }
.reveal pre { font-size: 0.5em; box-shadow: none; }
.reveal pre.code, .reveal pre.output { width: auto; margin: 0.3em 0; font-size: 0.6em;
  line-height: 1.3; box-shadow: none; }
.reveal pre.code.short { font-size: 0.75em; }
.reveal pre.code code { max-height: none; overflow: visible; padding: 0.4em 0.6em;
  background: #f6f8fa; color: #1f2328; border-left: 6px solid #56b4e9; font-size: 1em; }
.reveal pre.output { color: #1f2328; border-left: 6px solid #999; padding: 0.3em 0.6em;
  background: #fff; white-space: pre; }
.reveal .hljs-keyword, .reveal .hljs-operator { color: #b3173b; }
.reveal .hljs-built_in, .reveal .hljs-meta { color: #8a3a00; }
.reveal .hljs-title, .reveal .hljs-params { color: #5a32a3; }
.reveal .hljs-string, .reveal .hljs-subst { color: #0a3069; }
.reveal .hljs-number, .reveal .hljs-literal { color: #0550ae; }
.reveal .hljs-comment { color: #57606a; font-style: italic; }
.reveal p.where { font-size: 0.9em; margin: 0.3em 0 0.3em 1em; }
.reveal code { font-size: 0.9em; background: #f3f4f6; padding: 0 0.15em; }
.reveal .math { font-size: 0.95em; margin: 0.4em 0; }
"""

# A slide taller than the deck gets a smaller font (at most by 40 %), measured once MathJax
# has typeset it: reveal.js scales the whole deck to the window, but never one slide.
FIT_SCRIPT = """
function fitSlides() {
  var room = Reveal.getConfig().height * 0.94;
  document.querySelectorAll(".reveal .slides > section").forEach(function (section) {
    var display = section.style.display;
    section.style.display = "block";
    section.style.fontSize = "";
    var base = parseFloat(getComputedStyle(section).fontSize);
    for (var k = 0; k < 4 && section.scrollHeight > room; k++) {
      var size = parseFloat(getComputedStyle(section).fontSize);
      var next = Math.max(base * 0.6, size * Math.min(0.95, room / section.scrollHeight));
      if (next >= size) { break; }
      section.style.fontSize = next + "px";
    }
    section.style.display = display;
  });
  Reveal.layout();
  document.body.setAttribute("data-slides-fitted", "true");
}
"""

MATHJAX_CONFIG = """
window.MathJax = {
  tex: {inlineMath: [["\\\\(", "\\\\)"]], displayMath: [["\\\\[", "\\\\]"]]},
  options: {enableMenu: false},
  startup: {
    pageReady() {
      return MathJax.startup.defaultPageReady().then(function () {
        if (window.Reveal && Reveal.isReady()) { fitSlides(); }
      });
    }
  }
};
"""


def deck_html(deck: Deck) -> str:
    """The deck's page: its slides, with reveal.js and MathJax loaded from beside it."""
    sections = "\n".join(slide.html() for slide in deck.slides)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(f"{deck.number}. {deck.title}")}: slides</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="reveal/reveal.css">
<link rel="stylesheet" href="reveal/theme/white.css">
<style>{STYLE}</style>
<script>{FIT_SCRIPT}{MATHJAX_CONFIG}</script>
<script defer src="mathjax/tex-mml-chtml.js"></script>
</head>
<body>
<div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="reveal/reveal.js"></script>
<script src="reveal/plugin/notes.js"></script>
<script src="reveal/plugin/highlight.js"></script>
<script>
Reveal.initialize({{hash: true, width: 1280, height: 800, margin: 0.04, transition: "none",
  plugins: [RevealNotes, RevealHighlight]}})
  .then(function () {{ if (window.MathJax && MathJax.startup && MathJax.startup.document) {{
    MathJax.startup.promise.then(fitSlides); }} }});
</script>
</body>
</html>
"""


def index_html(decks: list[Deck]) -> str:
    """The folder's front page: one link per deck."""
    items = "\n".join(
        f'<li><a href="{d.name}.html">{d.number}. {html.escape(d.title)}</a> '
        f"({len(d.slides)} slides)</li>"
        for d in decks
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Self-Attention, Step by Step: slides</title>
<link rel="icon" href="data:,">
<style>
body {{ font-family: system-ui, sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em;
  line-height: 1.5; color: #1f2328; }}
a {{ color: #0b5394; }}
</style>
</head>
<body>
<main>
<h1>Self-Attention, Step by Step: slides</h1>
<p>One deck per chapter. Arrow keys or space move on, <kbd>Esc</kbd> shows every slide,
<kbd>F</kbd> goes full screen. The decks work offline: this folder holds everything they load.</p>
<ol>
{items}
</ol>
</main>
</body>
</html>
"""


def copy_assets(out: Path) -> None:
    """reveal.js and MathJax into `out/reveal/` and `out/mathjax/`; an error says what is missing."""
    if not all((REVEAL / name).exists() for name in REVEAL_FILES):
        raise FileNotFoundError(
            f"reveal.js is not installed in {REVEAL.parent}: run `npm ci` (make slides does)"
        )
    mathjax = next((d for d in MATHJAX_DIRS if (d / MATHJAX_FILES[0]).exists()), None)
    if mathjax is None:
        raise FileNotFoundError("MathJax is not installed: run `npm ci` (make slides does)")
    for name in REVEAL_FILES:
        (out / "reveal" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REVEAL / name, out / "reveal" / name)
    shutil.rmtree(out / "mathjax", ignore_errors=True)
    (out / "mathjax" / "output" / "chtml").mkdir(parents=True)
    shutil.copy2(mathjax / MATHJAX_FILES[0], out / "mathjax" / MATHJAX_FILES[0])
    shutil.copytree(mathjax / MATHJAX_FILES[1], out / "mathjax" / MATHJAX_FILES[1])


def write_all(
    sources: list[Path], out: Path, root: Path = ROOT, assets: bool = True, log=print
) -> list[Deck]:
    """Write a deck per chapter and the index into `out`; with `assets`, copy the libraries."""
    book = rn.Book.load(root)
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter")
    parser.add_argument("--out", type=Path, default=OUT, help="default: _build/slides")
    args = parser.parse_args(argv)
    try:
        write_all(args.notebooks or chapters(), args.out.resolve())
    except (ValueError, FileNotFoundError) as error:
        print(f"slides: {error}", file=sys.stderr)
        return 1
    print(f"The slides are at {args.out.resolve() / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
