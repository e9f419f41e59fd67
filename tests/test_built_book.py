"""The book as readers get it: offline, and working in a real browser.

These tests read `_build/html`, which `make test` builds first. The browser tests
use the session's `browser` (tests/conftest.py: Debian's chromium with every
non-local host unreachable), which is skipped, with the reason printed, where
chromium is not installed.
"""

from __future__ import annotations

import json
import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from repo_paths import BOOK, HTML, ROOT

import lessons
from kit import course
from lessons.book.widgets import lm_widget

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
CHAPTERS = [c.stem for c in course.load().chapters]

pytestmark = pytest.mark.built_book  # every test here reads the built book

if not (HTML / "index.html").exists():
    pytest.skip("the book is not built: run `make book` (make test does)", allow_module_level=True)

PAGES = sorted(
    p for p in HTML.rglob("*.html") if "_static" not in p.parts and p.name != "genindex.html"
)
BOOK_PAGES = [p for p in PAGES if p.parent.name == "book"]


class _Resources(HTMLParser):
    """Collect every URL a page loads by itself (not the links a reader may follow)."""

    LOADED = {
        "script": "src",
        "img": "src",
        "source": "src",
        "iframe": "src",
        "video": "src",
        "audio": "src",
    }

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in self.LOADED and attributes.get(self.LOADED[tag]):
            self.urls.append(attributes[self.LOADED[tag]])
        if tag == "link" and attributes.get("href"):
            rel = (attributes.get("rel") or "").lower()
            if any(
                word in rel
                for word in ("stylesheet", "icon", "preload", "modulepreload", "manifest")
            ):
                self.urls.append(attributes["href"])


def test_the_built_book_has_a_page_per_chapter_and_lands_on_the_intro():
    assert {p.stem for p in BOOK_PAGES} >= set(CHAPTERS)
    assert "book/intro.html" in (HTML / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(HTML)))
def test_no_page_loads_anything_from_another_host(page):
    parser = _Resources()
    parser.feed(page.read_text(encoding="utf-8"))
    external = [u for u in parser.urls if re.match(r"^(https?:)?//", u)]
    assert external == [], f"{page.relative_to(HTML)} loads {external}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_chapters_colab_and_binder_buttons_open_its_reader_notebook(chapter):
    # The Pages workflow publishes the reader notebooks (`make notebooks`) on this branch,
    # under the same book/ paths; _ext/reader_launch.py points the buttons there.
    branch = CONFIG["sphinx"]["config"].get("reader_notebooks_branch", "notebooks")
    html = (HTML / "book" / f"{chapter}.html").read_text(encoding="utf-8")
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    colab = f"https://colab.research.google.com/github/{repo}/blob/{branch}/book/{chapter}.ipynb"
    binder = re.escape(
        f"{CONFIG['launch_buttons']['binderhub_url']}/v2/gh/{repo}/{branch}?urlpath="
    )
    binder += r"[\w/]*" + re.escape(f"/book/{chapter}.ipynb")  # tree/ or lab/tree/
    assert colab in html
    assert re.search(binder, html), binder
    assert f"/blob/{CONFIG['repository']['branch']}/book/" not in html
    assert (BOOK / f"{chapter}.ipynb").exists()


def test_no_page_or_stylesheet_uses_fontawesome_and_every_icon_is_an_inline_svg():
    # _ext/icons.py: the theme's FontAwesome icons become inline SVG and CSS masks, and
    # FontAwesome's fonts, rules and script leave the book.
    static = HTML / "_static"
    assert not (static / "vendor" / "fontawesome").exists()
    assert not list(static.rglob("fontawesome.js*"))
    assert not list(static.rglob("fa-*.woff2"))
    for sheet in static.rglob("*.css"):
        if "mathjax" in sheet.parts:
            continue
        css = sheet.read_text(encoding="utf-8")
        name = sheet.relative_to(HTML)
        assert "Font Awesome" not in css and "--fa-" not in css, name
        assert not re.search(r"[\ue000-\uf8ff]|content:\s*\"\\[ef][0-9a-fA-F]{3}\"", css), name
    theme = (static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    assert "mask-image:var(--pst-icon-admonition-note)" in theme  # the admonitions' icons
    fa_class = re.compile(r'class="[^"]*(?<![\w-])fa(?:[srb]|-[a-z0-9-]+)?(?![\w-])')
    icon = re.compile(r'<(i|span) [^>]*class="[^"]*\bsa-icon\b[^>]*>(.*?)</\1>', re.S)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(HTML)
        assert not fa_class.search(text), (name, fa_class.search(text)[0])
        assert "fontawesome" not in text.lower(), name
        icons = icon.findall(text)
        if "bd-header" in text:  # not index.html, which only redirects
            assert len(icons) >= 5, name  # menu, search, colour mode, back to top ...
        for _, inner in icons:
            assert re.fullmatch(
                r'<svg [^>]*viewBox="0 0 \d+ \d+"[^>]*>(<path [^>]+></path>)+</svg>', inner
            ), (name, inner[:80])


# --- in a real browser -------------------------------------------------------------


def _open(browser, page: Path) -> None:
    """Open `page` and wait until it has loaded and MathJax has typeset all of it.

    MathJax typesets in batches (`_ext/static/phone.js`): its startup promise resolves
    after the last one.
    """
    browser.get(page.as_uri())
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; const t0 = Date.now();"
        "(function wait() {"
        "  if (document.readyState !== 'complete' && Date.now() - t0 < 10000) {"
        "    setTimeout(wait, 50);"
        "  } else if (window.MathJax && MathJax.startup && MathJax.startup.promise) {"
        "    MathJax.startup.promise.then(() => done(true), () => done(false));"
        "  } else { done(true); }"
        "})();"
    )


def test_every_page_loads_offline_without_a_console_error_with_math_typeset_and_images_described(
    browser,
):
    problems = []
    for page in PAGES:
        name = str(page.relative_to(HTML))
        _open(browser, page)
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            problems.append(f"{name}: console {errors[:2]}")
        has_math = browser.execute_script("return document.querySelectorAll('.math').length > 0")
        if has_math:
            typeset = browser.execute_script(
                "return document.querySelectorAll('mjx-container').length"
            )
            if not typeset:
                problems.append(f"{name}: math not typeset")
        text = browser.execute_script(
            "return document.querySelector('main') ? document.querySelector('main').innerText : ''"
        )
        if "$$" in text or "\\(" in text:
            problems.append(f"{name}: raw TeX in the page")
        images = browser.execute_script(
            "return Array.from(document.querySelectorAll('main img')).map("
            "i => [i.currentSrc || i.src, i.complete && i.naturalWidth > 0, i.getAttribute('alt') || ''])"
        )
        for src, loaded, alt in images:
            if not loaded:
                problems.append(f"{name}: image did not load: {src}")
            if not alt.strip() or alt.endswith(".png") or alt == src:
                problems.append(f"{name}: image without alt text: {src}")
    assert problems == []


def test_hidden_solutions_are_closed_until_clicked(browser):
    from selenium.webdriver.common.by import By

    checked = 0
    for page in BOOK_PAGES:
        if page.stem not in CHAPTERS:
            continue
        _open(browser, page)
        hidden = browser.find_elements(By.CSS_SELECTOR, "details.hide")
        for details in hidden[:1]:
            assert details.get_attribute("open") is None, (
                f"{page.name}: a solution is open before clicking"
            )
            browser.execute_script("arguments[0].scrollIntoView()", details)
            details.find_element(By.TAG_NAME, "summary").click()
            assert details.get_attribute("open") is not None, (
                f"{page.name}: a solution does not open"
            )
            checked += 1
    assert checked >= len(CHAPTERS)


def test_search_finds_softmax_offline(browser):
    browser.get((HTML / "search.html").as_uri() + "?q=softmax")
    deadline = time.monotonic() + 10
    found = 0
    while time.monotonic() < deadline and not found:
        found = browser.execute_script(
            "return document.querySelectorAll('#search-results li').length"
        )
        time.sleep(0.2)
    assert found > 0


def test_no_page_has_a_serious_or_critical_accessibility_violation(browser, axe_script):
    axe = axe_script
    problems = []
    for page in PAGES:
        _open(browser, page)
        browser.execute_script(axe)
        violations = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done("
            "r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')"
            ".map(v => v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ')).join(', '))))"
        )
        problems += [f"{page.relative_to(HTML)}: {v}" for v in violations]
    assert problems == []


def test_chapter_12_carries_one_checkpoint_inline_and_its_script_the_others():
    # _ext/lm_checkpoints.py: the page holds the step the slider starts on; a script in _static,
    # named by the payload's hash, holds the others, exactly as lessons.lm_widget() embeds them.
    page = HTML / "book" / "12_language_model_on_real_text.html"
    html = page.read_text(encoding="utf-8")
    payloads = lm_widget.DATA.findall(html)  # the widget's own reader of its markup
    assert len(payloads) == 1
    data = json.loads(payloads[0][1])
    # _ext/lm_checkpoints.py splits only a page whose inlined lm.js can load the rest
    assert "more" in data, "book/12's stored output predates lm.js's loader: execute it again"
    whole = lessons.lm_widget().payload["checkpoints"]
    assert data["checkpoints"] == whole[-1:]  # the slider starts on the last
    more = data["more"]
    assert more["steps"] == [c["step"] for c in whole]
    assert re.fullmatch(r"[0-9a-f]{16}", more["key"])
    script = (page.parent / more["src"]).resolve()
    assert script == HTML / "_static" / f"lm-checkpoints-{more['key']}.js"
    call = re.search(
        r'window\.LessonsWidgets\.lmCheckpoints\("([0-9a-f]{16})",(.*)\);\s*$',
        script.read_text(encoding="utf-8"),
        re.S,
    )
    assert call and call.group(1) == more["key"]
    assert json.loads(call.group(2)) == whole[:-1]
    assert len(html) < 1_100_000  # one checkpoint (about 0.45 MB) and the chapter
