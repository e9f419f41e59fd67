"""Chapter 12's page, with everything it loads, stays under 4 MB.

Counted in the session's browser (tests/conftest.py) as a reader's browser loads the page
from a web server: the HTML, the theme's styles, scripts and fonts, MathJax's components
and fonts, the figures, and the in-page model with its three checkpoints (one in the page,
two in the script it adds once idle). Bytes are counted as decoded: a server that
compresses sends fewer. What keeps the page light is in `_ext/icons.py` (no FontAwesome),
`_ext/templates/layout.html` (no search index outside the search page), the Makefile
(MathJax's components, not its combined file) and `lessons/book/widgets/lm_widget.py`
(three checkpoints, in base 85); `_ext/lm_checkpoints.py` moves two of them out of the
page, which changes when they arrive, not the total.
"""

from __future__ import annotations

import functools
import http.server
import threading
import time

import pytest
from repo_paths import HTML

pytestmark = pytest.mark.built_book  # every test here reads the built book

if not (HTML / "index.html").exists():
    pytest.skip("the book is not built: run `make book` (make test does)", allow_module_level=True)

MAX_BYTES = 4_000_000
CHAPTER = "book/12_language_model_on_real_text.html"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served():
    """The built book on a free port of localhost; the base URL."""
    server = http.server.ThreadingHTTPServer(
        ("localhost", 0), functools.partial(_Quiet, directory=str(HTML))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://localhost:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _load_everything(browser, url: str) -> list[tuple[str, int]]:
    """Open ``url``, wait for MathJax, the fonts and the widgets, scroll to the end; every load."""
    browser.get(url)
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; const t0 = Date.now();"
        "(function wait() {"
        "  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {"
        "    MathJax.startup.promise.then(() => document.fonts.ready).then(() => done(true));"
        "  } else if (Date.now() - t0 > 30000) { done(false); } else { setTimeout(wait, 100); }"
        "})();"
    )
    height = browser.execute_script("return document.body.scrollHeight")
    for y in range(0, height + 1000, 1000):  # images below the fold load as they come in view
        browser.execute_script("window.scrollTo(0, arguments[0])", y)
        time.sleep(0.05)
    time.sleep(1)
    # The language model's other checkpoints come in a script added once the page is idle
    # (_ext/lm_checkpoints.py): they count with the page.
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; const t0 = Date.now();"
        "(function wait() {"
        "  const roots = document.querySelectorAll('[data-lm-widget]');"
        "  if (Array.from(roots).every(r => r.getAttribute('data-lm-loaded') === 'true')) {"
        "    done(true); } else if (Date.now() - t0 > 30000) { done(false); }"
        "  else { setTimeout(wait, 100); }"
        "})();"
    )
    return browser.execute_script(
        "return performance.getEntriesByType('navigation')"
        ".concat(performance.getEntriesByType('resource'))"
        ".map(e => [e.name, e.decodedBodySize]);"
    )


def test_chapter_12_with_everything_it_loads_is_under_4_mb(browser, served):
    loads = _load_everything(browser, served + CHAPTER)
    assert loads[0][0] == served + CHAPTER and loads[0][1] > 400_000  # the page itself
    # with one checkpoint inline and the others in their script, which the count includes
    weights = [size for name, size in loads if "/_static/lm-checkpoints-" in name]
    assert len(weights) == 1 and loads[0][1] + weights[0] > 1_500_000
    assert [name for name, _ in loads if not name.startswith(served)] == []
    names = " ".join(name for name, _ in loads)
    for part in ("mathjax/core.js", "pydata-sphinx-theme.css", "_images/"):
        assert part in names, part  # the count covers the theme, MathJax and the figures
    assert [n for n, _ in loads if "fontawesome" in n or "/webfonts/" in n] == []
    total = sum(size for _, size in loads)
    heaviest = sorted(loads, key=lambda load: -load[1])[:8]
    assert total < MAX_BYTES, (total, heaviest)
    print(f"chapter 12 with all it loads: {total:,} bytes in {len(loads)} files")


def test_the_theme_s_heavy_extras_stay_out_of_every_page():
    # FontAwesome (its 1.5 MB script, 275 kB of fonts, 84 kB of rules) is gone: _ext/icons.py
    # draws the theme's icons as inline SVG.
    assert not (HTML / "_static" / "scripts" / "fontawesome.js").exists()
    # The search index (0.15 MB) is loaded by the search page only.
    pages = [p for p in HTML.rglob("*.html") if "_static" not in p.parts]
    with_index = [
        p.relative_to(HTML).as_posix()
        for p in pages
        if "searchindex.js" in p.read_text(encoding="utf-8")
    ]
    assert with_index == ["search.html"]
    # MathJax comes as its components, not the 1.2 MB combined file.
    chapter = (HTML / CHAPTER).read_text(encoding="utf-8")
    assert "mathjax/startup.js" in chapter and "tex-mml-chtml.js" not in chapter
