"""A deck as a reveal.js page, the folder's index, and the libraries copied beside them."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from kit import course
from kit.slides.deck import Deck

ROOT = course.ROOT
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
