"""A slide's text: MyST rendered to slide HTML, walls of prose cut, long lists split.

A Markdown cell is rendered from MyST as the reader notebooks render it (`kit/myst.py`):
glued values written in from the stored glue records (a sentence whose value is missing is
dropped), terms and citations as plain text (no links leave the deck), admonitions as plain
boxes, dropdowns left out (they hold solutions and answers). The limits below keep a slide
from becoming a wall of text; what a slide leaves off goes into its speaker notes.
"""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from kit import myst

HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
MISSING = "\u2063missing-glue\u2063"  # stands for a glued value the notebook does not hold
PLACEHOLDER = "\u2063box{}\u2063"


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


class SlideText(myst.Page):
    """MyST to Markdown for a slide: plain-text terms and citations, no dropdowns."""

    def __init__(self, book: myst.Links, page: str, glue: dict) -> None:
        super().__init__(book, page, glue)
        self.boxes: list[str] = []
        self.outline = False  # an outline (`slide-outline`) keeps no prose paragraph
        self.notes: list[str] | None = None  # where a box's shortened prose goes

    def role(self, name: str, content: str) -> str:
        if name.startswith("glue"):
            key = content.rsplit(":", 1)[0] if name == "glue:text" else content
            return super().role(name, content) if key in self.glue else MISSING
        if name == "term":
            text, target = myst.text_and_target(content)
            return text or target
        if name in ("doc", "ref", "numref"):
            text, target = myst.text_and_target(content)
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
        if name == "admonition" or name in myst.ALERTS:
            title = self.inline(argument) if name == "admonition" else name.title()
            if name != "admonition" and argument:
                body = [argument, "", *body]
            content = render(self.markdown("\n".join(body).strip("\n")), self.outline, self.notes)
            if not content.strip():
                return ""  # a box of prose, in an outline
            opening = f'<div class="box"><p class="box-title">{inline(title)}</p>'
            going_on = f'<div class="box"><p class="box-title">{inline(title)} (continued)</p>'
            content = content.replace(SPLIT, f"</div>{SPLIT}{going_on}")
            self.boxes.append(f"{opening}{content}</div>")
            return PLACEHOLDER.format(len(self.boxes) - 1)
        return ""  # other directives (figures, tables of contents): left out


def drop_missing(markdown: str) -> str:
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


def cut(text: str, limit: int) -> str:
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
        short = cut(inline.content, limit)
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


def split_list(group) -> list:
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


def render(markdown: str, outline: bool = False, notes: list[str] | None = None) -> str:
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
            kept.append(MD.parse(cut(group[1].content, WALL)))
        else:
            if first.type.endswith("list_open"):
                _shorten_items(group, ITEM_WALL, notes)
                kept.extend(split_list(group))
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


def notes_html(notes: list[str]) -> str:
    body = re.sub(r"</?a\b[^>]*>", "", "".join(notes))
    return f'<aside class="notes">{body}</aside>' if body.strip() else ""


def inline(markdown: str) -> str:
    return re.sub(r"</?a\b[^>]*>", "", MD.renderInline(markdown))
