"""Sphinx extension: the theme's icons as inline SVG, with no FontAwesome on any page (issue 36).

pydata-sphinx-theme 0.17.1 and sphinx-book-theme 1.3.0 (pinned in requirements.txt; neither
has an option to leave FontAwesome out) draw about twenty icons with FontAwesome: the
menu, search, contents, download, full-screen, colour-mode, launch and GitHub buttons
(`<i class="fa-solid fa-bars">` in their templates) and, from the stylesheet, the
admonitions' and a few links' icons (`content: "\\f05a"` in FontAwesome's web font). A page
that shows one of them downloads the font files it needs: 275 kB on every page of this book,
for glyphs a few pixels wide. Once the HTML builder has written the book (`build-finished`):

- in every page, each element whose classes name a FontAwesome icon gets the same icon
  as an inline `<svg>` instead (GitHub's Octicons, which sphinx-design, already a
  dependency, ships), keeping its other classes (`theme-switch`, and so on); and the
  `<script>` tag of the theme's FontAwesome script goes;
- in every stylesheet under `_static`, FontAwesome's own rules (its `@font-face` fonts, its
  `.fa-*` classes, its `--fa-*` variables) go, and each rule that drew an icon with its font
  draws the same icon as a CSS mask of the SVG in the text colour (so an admonition's icon
  keeps its colour, in light and dark mode alike);
- FontAwesome's fonts and script are deleted from `_static`: nothing can load them.

An icon this map does not know is a build warning (the `-W` build fails), so a theme
upgrade that adds one cannot ship an empty box. Registered in _config.yml under `sphinx:
local_extensions:`; `_ext/static/icons.css` sizes the inline icons; tests/test_phone.py and
tests/test_built_book.py check that no page loads FontAwesome and that every icon shows.
"""

from __future__ import annotations

import re
import shutil
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: FontAwesome's name of each icon the themes use (and a few they may) -> the Octicon drawn
#: instead. Two names of one FontAwesome glyph (aliases) may both be listed.
ICONS = {
    "angle-down": "chevron-down",
    "angle-left": "chevron-left",
    "angle-right": "chevron-right",
    "arrow-up": "arrow-up",
    "arrow-up-right-from-square": "link-external",
    "bars": "three-bars",
    "bell": "bell",
    "check-circle": "check-circle",
    "chevron-down": "chevron-down",
    "chevron-left": "chevron-left",
    "chevron-right": "chevron-right",
    "chevron-up": "chevron-up",
    "circle-half-stroke": "half-circle",  # the colour mode "auto": no Octicon, ours below
    "circle-check": "check-circle",
    "circle-exclamation": "issue-opened",
    "circle-info": "info",
    "circle-xmark": "x-circle",
    "download": "download",
    "exclamation-circle": "issue-opened",
    "exclamation-triangle": "alert",
    "expand": "screen-full",
    "external-link": "link-external",
    "file": "file-code",  # the notebook (.ipynb) in the download menu
    "file-pdf": "file",
    "github": "mark-github",
    "gitlab": "git-merge",
    "info-circle": "info",
    "lightbulb": "light-bulb",
    "list": "list-unordered",
    "magnifying-glass": "search",
    "magnifying-glass-minus": "zoom-out",
    "moon": "moon",
    "outdent": "list-unordered",  # the "On this page" button: the same contents list
    "pencil": "pencil",
    "rocket": "rocket",
    "search": "search",
    "search-minus": "zoom-out",
    "share": "share",
    "sun": "sun",
    "times-circle": "x-circle",
    "triangle-exclamation": "alert",
    "up-right-from-square": "link-external",
    "xmark": "x",
}

#: Drawn here, not an Octicon: a ring with its left half filled (the colour mode "auto").
OWN = {
    "half-circle": (
        16,
        16,
        '<path fill-rule="evenodd" d="M8 0a8 8 0 1 0 0 16A8 8 0 0 0 8 0Zm0 1.5a6.5 6.5 0 0 1 0 13Z"></path>',
    )
}

#: A class that names a FontAwesome icon or style (`fa-bars`, `fa-solid`, `fas`, `fa-lg`).
FA_CLASS = re.compile(r"^(fa|fas|far|fab|fa-[a-z0-9-]+)$")
#: The style and size classes, which name no icon.
FA_STYLES = {"fa", "fas", "far", "fab", "fa-solid", "fa-regular", "fa-brands", "fa-lg", "fa-fw"}
#: An element that holds nothing but a FontAwesome icon: `<i class="fas fa-rocket"></i>`.
FA_ELEMENT = re.compile(
    r'<(?P<tag>i|span)(?P<before>[^>]*?)\sclass="(?P<classes>[^"]*?(?<![\w-])fa(?:[srb]|-[a-z0-9-]+)?(?![\w-])[^"]*)"'
    r"(?P<after>[^>]*)>\s*</(?P=tag)>"
)
#: The theme's `<script>` for FontAwesome's SVG script (webpack-macros.html).
FA_SCRIPT = re.compile(
    r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>'
)
#: A selector that needs a FontAwesome class.
FA_SELECTOR = re.compile(r"\.(?:fa|fas|far|fab|fa-[\w-]+)(?![\w-])")
#: A font declaration that draws with FontAwesome's font.
FA_FONT = re.compile(r"^(font:\s*var\(--fa-font-[a-z]+\)|font-family:\s*Font Awesome.*)$", re.I)
#: A CSS string holding one code point of FontAwesome's private-use range, escaped or not.
GLYPH = re.compile(r'^"(?:\\([0-9a-fA-F]{4,5})|([\ue000-\uf8ff]))"$')
#: FontAwesome's own class rules, `.fa-bars:before{content:"\f0c9"}`: code point -> names.
GLYPH_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+:+before,?)+)\{content:"\\([0-9a-f]{4,5})"\}')

#: Declarations that turn a pseudo-element into a 1 em box painted in the text colour
#: through the icon's mask (in place of the FontAwesome font).
MASK_BOX = (
    "display:inline-block;width:1em;height:1em;vertical-align:-.125em;"
    "background-color:currentColor;"
    "-webkit-mask-repeat:no-repeat;mask-repeat:no-repeat;"
    "-webkit-mask-position:center;mask-position:center;"
    "-webkit-mask-size:contain;mask-size:contain;"
    "-webkit-mask-origin:content-box;mask-origin:content-box;"
    "-webkit-mask-clip:content-box;mask-clip:content-box"
)


def drawing(icon: str) -> tuple[int, int, str]:
    """An icon's view-box width and height and its `<path>` elements (an Octicon or `OWN`)."""
    if icon in OWN:
        return OWN[icon]
    from sphinx_design.icons import get_octicon_data

    heights = get_octicon_data()[icon]["heights"]
    size = "16" if "16" in heights else next(iter(heights))
    return heights[size]["width"], int(size), heights[size]["path"]


def inline_svg(icon: str) -> str:
    """The icon as an inline `<svg>`, 1 em tall, in the text colour, hidden from screen readers."""
    width, height, paths = drawing(icon)
    return (
        f'<svg class="sa-icon-svg" viewBox="0 0 {width} {height}" aria-hidden="true" '
        f'focusable="false">{paths}</svg>'
    )


def mask_url(icon: str) -> str:
    """The icon as a CSS `url(data:...)`, for a mask."""
    width, height, paths = drawing(icon)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}">{paths}</svg>'
    return 'url("data:image/svg+xml,' + urllib.parse.quote(svg, safe=" /=:-.,") + '")'


# ---- The pages ----


def page_icons(text: str) -> tuple[str, list[str]]:
    """`text` (a page) with each FontAwesome element as an inline SVG, and the unknown icons.

    The element keeps its tag and its classes other than FontAwesome's, gains `sa-icon`
    (`sa-icon-lg` for `fa-lg`) and `aria-hidden`; an icon `ICONS` does not name is left as
    it is and returned.
    """
    unknown: list[str] = []

    def swap(match: re.Match) -> str:
        classes = match["classes"].split()
        names = [c[3:] for c in classes if FA_CLASS.match(c) and c not in FA_STYLES]
        if len(names) != 1 or names[0] not in ICONS:
            unknown.append(match["classes"])
            return match[0]
        kept = [c for c in classes if not FA_CLASS.match(c)]
        kept += ["sa-icon"] + (["sa-icon-lg"] if "fa-lg" in classes else [])
        attributes = match["before"] + f' class="{" ".join(kept)}"' + match["after"]
        if "aria-hidden" not in attributes:
            attributes += ' aria-hidden="true"'
        tag = match["tag"]
        return f"<{tag}{attributes}>{inline_svg(ICONS[names[0]])}</{tag}>"

    text = FA_ELEMENT.sub(swap, text)
    return FA_SCRIPT.sub("", text), unknown


# ---- The stylesheets ----


@dataclass
class Block:
    """One CSS statement: a rule `prelude{body}`, an at-rule with `children`, or a comment."""

    prelude: str
    body: str = ""
    children: list[Block] | None = None
    comment: bool = False
    statement: bool = False  # `@import ...;`
    changed: bool = field(default=False, compare=False)
    raw: str = ""

    def text(self) -> str:
        if self.comment or self.statement or not self.changed:
            return self.raw
        if self.children is not None:
            inner = "".join(child.text() for child in self.children)
            return f"{self.prelude}{{{inner}}}"
        return f"{self.prelude}{{{self.body}}}"


def _scan(css: str, start: int, stop: str | None) -> tuple[list[Block], int]:
    """Parse statements from `start` until `stop` (`}`) or the end; strings and comments kept."""
    blocks: list[Block] = []
    i = start
    n = len(css)
    while i < n:
        if css.startswith("/*", i):
            j = css.index("*/", i + 2) + 2
            blocks.append(Block(css[i:j], comment=True, raw=css[i:j]))
            i = j
            continue
        if css[i].isspace():
            blocks.append(Block(css[i], comment=True, raw=css[i]))  # kept as written
            i += 1
            continue
        if stop and css[i] == stop:
            return blocks, i + 1
        # the prelude, up to `{` or `;` outside strings
        j = next((k for k, c in _outside_strings(css, i) if c in "{;"), n)
        prelude = css[i:j]
        if j >= n or css[j] == ";":
            blocks.append(Block(prelude, statement=True, raw=css[i : j + 1]))
            i = j + 1
            continue
        if prelude.lstrip().startswith("@") and not prelude.lstrip().startswith(
            ("@font-face", "@page")
        ):
            if prelude.lstrip().startswith("@keyframes") or prelude.lstrip().startswith(
                "@-webkit-keyframes"
            ):
                end = _close(css, j)
                blocks.append(Block(prelude, css[j + 1 : end], raw=css[i : end + 1]))
                i = end + 1
                continue
            children, end = _scan(css, j + 1, "}")
            blocks.append(Block(prelude, children=children, raw=css[i:end]))
            i = end
            continue
        end = _close(css, j)
        blocks.append(Block(prelude, css[j + 1 : end], raw=css[i : end + 1]))
        i = end + 1
    return blocks, i


def _outside_strings(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """`(index, character)` of `text` from `start`, leaving out quoted strings."""
    quote = None
    i = start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        else:
            yield i, c
        i += 1


def _close(css: str, open_at: int) -> int:
    """The index of the `}` that closes the `{` at `open_at` (strings skipped)."""
    depth = 0
    for j, c in _outside_strings(css, open_at):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"unbalanced CSS from {open_at}")


def _split(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside parentheses and strings."""
    parts, depth, last = [], 0, 0
    for i, c in _outside_strings(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return parts


def _walk(blocks: list[Block]) -> Iterator[Block]:
    for block in blocks:
        yield block
        if block.children:
            yield from _walk(block.children)


def glyph_names(css: str) -> dict[int, list[str]]:
    """FontAwesome's code points and their names, read from its class rules in `css`."""
    names: dict[int, list[str]] = {}
    for match in GLYPH_RULE.finditer(css):
        selectors = re.findall(r"\.fa-([a-z0-9-]+):", match[1])
        names.setdefault(int(match[2], 16), []).extend(selectors)
    return names


def _glyph(value: str) -> int | None:
    found = GLYPH.match(value.strip())
    if not found:
        return None
    point = int(found[1], 16) if found[1] else ord(found[2])
    return point if 0xE000 <= point <= 0xF8FF else None  # FontAwesome's: the private-use range


def strip_fontawesome(css: str, names: dict[int, list[str]]) -> tuple[str, list[str]]:
    """`css` without FontAwesome, its font icons drawn as SVG masks; and the unknown glyphs.

    `names` maps each code point to FontAwesome's names for it (`glyph_names`). Returns the
    stylesheet unchanged when it holds nothing of FontAwesome's.
    """
    if not re.search(r"Font Awesome|--fa-|\.fa-|[\ue000-\uf8ff]|\"\\[ef][0-9a-fA-F]{3}", css):
        return css, []
    blocks, _ = _scan(css, 0, None)
    unknown: list[str] = []

    def icon_for(point: int) -> str | None:
        icon = next((ICONS[n] for n in names.get(point, []) if n in ICONS), None)
        if icon is None:
            unknown.append(f"U+{point:04X} ({', '.join(names.get(point, [])) or 'no name'})")
        return icon

    # The variables that hold an icon: a glyph ("--pst-icon-bell: '\f0f3'"), or another such
    # variable ("--pst-icon-admonition-note: var(--pst-icon-info-circle)").
    icon_vars: set[str] = set()
    grew = True
    while grew:
        grew = False
        for block in _walk(blocks):
            if block.comment or block.statement or block.children is not None:
                continue
            for decl in _split(block.body, ";"):
                name, _, value = decl.partition(":")
                name, value = name.strip(), value.strip()
                if not name.startswith("--") or name in icon_vars:
                    continue
                chained = re.fullmatch(r"var\((--[\w-]+)\)", value)
                if _glyph(value) is not None or (chained and chained[1] in icon_vars):
                    icon_vars.add(name)
                    grew = True

    def keep(block: Block) -> bool:
        if block.comment:
            return "Font Awesome" not in block.prelude
        if block.statement:
            return True
        head = block.prelude.strip()
        if head.startswith("@font-face"):
            return "Font Awesome" not in block.body
        if re.match(r"@(-webkit-)?keyframes\s+fa-", head):
            return False
        if block.children is not None:
            block.children = [c for c in block.children if keep(c)]
            block.changed = True
            return any(not c.comment for c in block.children)
        if head.startswith("@"):
            return True
        selectors = _split(block.prelude, ",")
        left = [s for s in selectors if not FA_SELECTOR.search(s)]
        if not left:
            return False
        if len(left) < len(selectors):
            block.prelude = ",".join(left)
            block.changed = True
        declarations = [d for d in _split(block.body, ";") if d.strip()]
        kept = []
        for decl in declarations:
            name, _, value = decl.partition(":")
            name, value = name.strip(), value.strip()
            if name.startswith("--fa-"):
                continue
            if name in icon_vars and (point := _glyph(value)) is not None:
                icon = icon_for(point)
                decl = f"{name}:{mask_url(icon) if icon else 'none'}"
            elif name == "content" and (point := _glyph(value)) is not None:
                icon = icon_for(point)
                url = mask_url(icon) if icon else "none"
                decl = f'content:"";-webkit-mask-image:{url};mask-image:{url}'
            elif name == "content" and (var := re.fullmatch(r"var\((--[\w-]+)\)", value)):
                if var[1] in icon_vars:
                    decl = f'content:"";-webkit-mask-image:{value};mask-image:{value}'
            elif FA_FONT.match(decl.strip()):
                decl = MASK_BOX
            elif name == "font-weight" and "Font Awesome" in block.body:
                continue  # the font's weight (900: solid), meaningless without it
            kept.append(decl)
        if not kept and declarations:
            return False
        if kept != declarations:
            block.body = ";".join(kept)
            block.changed = True
        return True

    blocks = [b for b in blocks if keep(b)]
    return "".join(b.text() for b in blocks), unknown


# ---- The build ----


def _theme_glyphs(static: Path) -> dict[int, list[str]]:
    """FontAwesome's code points and names, from the stylesheets in `static` and the theme's.

    The theme's own copy counts too: a second build finds `static`'s copy already stripped.
    """
    import pydata_sphinx_theme

    theme = Path(pydata_sphinx_theme.__file__).resolve().parent / "theme"
    names: dict[int, list[str]] = {}
    for sheet in [*static.rglob("*.css"), *theme.rglob("*.css")]:
        for point, found in glyph_names(sheet.read_text(encoding="utf-8")).items():
            names.setdefault(point, []).extend(found)
    return names


def _rewrite(path: Path, change: Callable[[str], tuple[str, list[str]]], what: str) -> None:
    text = path.read_text(encoding="utf-8")
    new, unknown = change(text)
    for icon in sorted(set(unknown)):
        logger.warning(
            "icons: %s draws the FontAwesome icon %s, which ICONS does not map", what, icon
        )
    if new != text:
        path.write_text(new, encoding="utf-8")


def _replace_fontawesome(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    names = _theme_glyphs(static)
    for sheet in sorted(static.rglob("*.css")):
        if "mathjax" in sheet.parts:
            continue
        _rewrite(
            sheet, lambda css: strip_fontawesome(css, names), sheet.relative_to(out).as_posix()
        )
    for page in sorted(out.rglob("*.html")):
        if "_static" in page.relative_to(out).parts:
            continue
        _rewrite(page, page_icons, page.relative_to(out).as_posix())
    shutil.rmtree(static / "vendor" / "fontawesome", ignore_errors=True)
    if (static / "vendor").is_dir() and not any((static / "vendor").iterdir()):
        (static / "vendor").rmdir()
    for script in (static / "scripts").glob("fontawesome.js*"):
        script.unlink()


def setup(app: Any) -> dict[str, Any]:
    app.add_css_file("icons.css")
    app.connect("build-finished", _replace_fontawesome)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["ICONS", "glyph_names", "inline_svg", "mask_url", "page_icons", "strip_fontawesome"]
