"""The built book on a phone (390 x 844) and a tablet (820 x 1180), page by page (issue 36).

Each page opens in the session's chromium (tests/conftest.py) with DevTools' device
emulation and touch, as a phone or tablet shows it, and must have:

- no horizontal overflow: the page is no wider than the screen;
- a site menu and an "On this page" panel that open with a tap on their buttons and close
  with a tap beside them (pydata-sphinx-theme 0.17's binding, upstream issue 2451, is worked
  around in `_ext/static/phone.js`);
- no display equation or table cut off without a cue that it scrolls (`data-scroll-cue`,
  faded in `_ext/static/phone.css`);
- no figure whose smallest text is under FLOOR CSS px as shown, unless one tap enlarges it to
  its drawn size, where it is at least FLOOR (the sizes in figure pixels are
  `tests/figure_text.json`, measured by `kit/figure_text.py` as `make execute` ends);
- no widget control smaller than 24 x 24 px (WCAG 2.2, 2.5.8), a checkbox through its label,
  and no text field under 16 px (a phone zooms the page on focus below that);
- nothing in the console at the warning level or above.

What each page measures is `tests/phone_probe.js`.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from repo_paths import HTML, ROOT
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

pytestmark = pytest.mark.built_book  # every test here reads the built book

if not (HTML / "index.html").exists():
    pytest.skip("the book is not built: run `make book` (make test does)", allow_module_level=True)

PAGES = sorted(p.stem for p in (HTML / "book").glob("*.html"))
DEVICES = {
    "phone": {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True},
    "tablet": {"width": 820, "height": 1180, "deviceScaleFactor": 2, "mobile": True},
}
FLOOR = 9.0  # CSS px: the smallest figure text a reader can read on a phone
PROBE = (ROOT / "tests" / "phone_probe.js").read_text(encoding="utf-8")
FIGURE_TEXT = json.loads((ROOT / "tests" / "figure_text.json").read_text(encoding="utf-8"))


def smallest_text(picture: str, page: str) -> float:
    """A picture's smallest text in its own pixels, from figure_text.json.

    A picture the table does not hold (a cell whose stored figure is kept from an earlier
    run, such as chapter 10's timings) counts as the smallest text of its notebook's figures.
    """
    entry = FIGURE_TEXT.get(picture.removesuffix(".png"))
    if entry is not None:
        return entry["min_text_px"]
    sizes = [e["min_text_px"] for e in FIGURE_TEXT.values() if e["notebook"] == page + ".ipynb"]
    assert sizes, f"{picture} on {page} is not in figure_text.json: run make figure-text"
    return min(sizes)


@pytest.fixture(params=DEVICES)
def device(request, browser_session):
    """The session's browser as a phone or a tablet with a touch screen; a desktop again after."""
    metrics = DEVICES[request.param]
    browser_session.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    browser_session.execute_cdp_cmd(
        "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5}
    )
    yield request.param
    browser_session.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser_session.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def tap(browser, x: float, y: float) -> None:
    """A finger's tap at (x, y) in CSS px of the viewport (touchStart, touchEnd)."""
    point = {"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1}
    browser.execute_cdp_cmd(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]}
    )
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def tap_element(browser, element) -> None:
    rect = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];",
        element,
    )
    tap(browser, *rect)


def is_open(browser, dialog_id: str) -> bool:
    return browser.execute_script(f"return document.getElementById('{dialog_id}').open;")


def check_drawers(browser) -> list[str]:
    """Tap each visible menu button: its drawer opens; a tap beside the drawer closes it."""
    problems = []
    for toggle, dialog in (
        (".primary-toggle", "pst-primary-sidebar-modal"),
        (".secondary-toggle", "pst-secondary-sidebar-modal"),
    ):
        buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, toggle) if b.is_displayed()]
        if not buttons:
            if toggle == ".primary-toggle":
                problems.append("no visible site-menu button")
            continue
        tap_element(browser, buttons[0])
        try:
            WebDriverWait(browser, 3, poll_frequency=0.05).until(
                lambda d, dialog=dialog: is_open(d, dialog)
            )
        except Exception:
            problems.append(f"a tap on {toggle} did not open #{dialog}")
            continue
        right = browser.execute_script(
            f"const r = document.getElementById('{dialog}').getBoundingClientRect();"
            "return r.right < innerWidth - 20 ? [innerWidth - 10, innerHeight / 2]"
            " : [10, innerHeight / 2];"
        )
        tap(browser, *right)
        try:
            WebDriverWait(browser, 3, poll_frequency=0.05).until(
                lambda d, dialog=dialog: not is_open(d, dialog)
            )
        except Exception:
            problems.append(f"a tap beside #{dialog} did not close it")
            browser.execute_script(f"document.getElementById('{dialog}').close();")
    return problems


@pytest.mark.parametrize("page", PAGES)
def test_page_reads_on_a_touch_screen(browser, device, page):
    browser.get((HTML / "book" / f"{page}.html").as_uri())
    m = browser.execute_async_script(PROBE)
    problems = defaultdict(list)
    if m["pageWidth"] > m["width"] or m["layoutWidth"] > m["width"]:
        problems["wider than the screen"] = [m["pageWidth"], m["wide"][:5]]
    problems["equations cut off without a cue"] = [e for e in m["math"] if not e["cue"]]
    problems["tables cut off without a cue"] = [t for t in m["tables"] if not t["cue"]]
    for figure in m["figures"]:
        px = smallest_text(figure["src"], page)
        if px * figure["scale"] < FLOOR and not (figure["zoom"] and px >= FLOOR):
            problems["figure text under the floor"].append(
                [figure["src"][:12], round(px * figure["scale"], 1), figure["zoom"]]
            )
    problems["widget targets under 24 px"] = m["targets"][:5]
    problems["text fields under 16 px"] = m["inputs"][:5]
    problems["console"] = [
        e["message"][:200]
        for e in browser.get_log("browser")
        if e["level"] in ("WARNING", "SEVERE")
    ]
    problems["menus"] = check_drawers(browser)
    found = {k: v for k, v in problems.items() if v}
    assert not found, json.dumps(found, indent=1, ensure_ascii=False)


def test_the_sidebar_button_collapses_the_sidebar_on_a_desktop(browser):
    browser.set_window_size(1280, 1000)
    browser.get((HTML / "book" / "05_hand_worked_example.html").as_uri())
    sidebar = browser.find_element(By.ID, "pst-primary-sidebar")
    button = next(
        b for b in browser.find_elements(By.CSS_SELECTOR, ".primary-toggle") if b.is_displayed()
    )
    assert "pst-sidebar-hidden" not in sidebar.get_attribute("class")
    button.click()
    assert "pst-sidebar-hidden" in sidebar.get_attribute("class")
    assert not is_open(browser, "pst-primary-sidebar-modal")
    button.click()
    assert "pst-sidebar-hidden" not in sidebar.get_attribute("class")


def test_a_tap_enlarges_a_figure_to_its_drawn_size_and_a_tap_closes_it(browser, device):
    browser.get((HTML / "book" / "07_multi_head_attention.html").as_uri())
    browser.execute_async_script(PROBE)
    opener = browser.find_element(By.CSS_SELECTOR, "button.figure-zoom-open[data-shrunk]")
    img = opener.find_element(By.TAG_NAME, "img")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", opener)
    natural = browser.execute_script("return arguments[0].naturalWidth;", img)
    assert img.rect["width"] < natural
    tap_element(browser, opener)
    dialog = browser.find_element(By.CSS_SELECTOR, "dialog.figure-zoom")
    WebDriverWait(browser, 3, poll_frequency=0.05).until(
        lambda d: dialog.get_attribute("open") is not None
    )
    big = dialog.find_element(By.TAG_NAME, "img")
    assert big.rect["width"] == natural and big.get_attribute("alt") == img.get_attribute("alt")
    tap_element(browser, dialog.find_element(By.CSS_SELECTOR, ".figure-zoom-close"))
    WebDriverWait(browser, 3, poll_frequency=0.05).until(
        lambda d: dialog.get_attribute("open") is None
    )


# --- The theme's icons: inline SVG, no FontAwesome (_ext/icons.py) ---------------------

ICONS_PROBE = """
const done = arguments[arguments.length - 1];
const math = window.MathJax && MathJax.startup && MathJax.startup.promise;
Promise.all([math || Promise.resolve(), document.fonts.ready]).then(() => {
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const icons = Array.from(document.querySelectorAll(".sa-icon")).filter(shown);
  const drawn = e => {
    const r = e.querySelector("svg").getBoundingClientRect();
    return r.width >= 8 && r.height >= 8;
  };
  const pseudo = [];
  document.querySelectorAll("body *").forEach(e => ["::before", "::after"].forEach(p => {
    const s = getComputedStyle(e, p);
    if (s.content !== "none" && /awesome/i.test(s.fontFamily)) pseudo.push(e.className + p);
  }));
  const titles = Array.from(document.querySelectorAll(".admonition > .admonition-title"))
    .filter(shown).map(t => {
      const s = getComputedStyle(t, "::after");
      return [s.maskImage || s.webkitMaskImage, parseFloat(s.width), s.backgroundColor];
    });
  done({
    fonts: Array.from(document.fonts).map(f => f.family).filter(f => /awesome/i.test(f)),
    loads: performance.getEntriesByType("resource").map(e => e.name)
      .filter(n => /fontawesome|webfonts|fa-(solid|brands|regular)/i.test(n)),
    shown: icons.length,
    empty: icons.filter(e => !drawn(e)).map(e => e.outerHTML.slice(0, 80)),
    pseudo: pseudo.slice(0, 5),
    titles: titles,
  });
});
"""


def check_icons(browser, page: str, fewest: int) -> dict:
    browser.get((HTML / "book" / f"{page}.html").as_uri())
    m = browser.execute_async_script(ICONS_PROBE)
    assert m["fonts"] == [] and m["loads"] == [], m  # FontAwesome is neither declared nor loaded
    assert m["pseudo"] == [], m  # no ::before or ::after draws with its font
    assert m["shown"] >= fewest and m["empty"] == [], m  # every icon shown has a size
    for mask, width, colour in m["titles"]:  # an admonition's icon: the SVG, in its colour
        assert mask.startswith('url("data:image/svg+xml') and width > 8, m
        assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), m
    return m


@pytest.mark.parametrize("page", ["06_masking", "12_language_model_on_real_text"])
def test_the_theme_s_icons_show_as_svg_without_fontawesome_on_a_touch_screen(browser, device, page):
    # A phone shows the menu, search and contents buttons and the colour mode at least.
    check_icons(browser, page, 3)


def test_the_theme_s_icons_show_as_svg_without_fontawesome_on_a_desktop(browser):
    browser.set_window_size(1280, 1000)
    m = check_icons(browser, "06_masking", 7)
    assert m["titles"], "chapter 6 opens with an admonition (its learning objectives)"


def test_strip_fontawesome_keeps_other_rules_and_draws_font_icons_as_masks(monkeypatch):
    from repo_paths import EXTENSIONS

    monkeypatch.syspath_prepend(str(EXTENSIONS))
    import icons

    css = (
        "/*!\n * Font Awesome Free 6.5.2 */.fa,.fas{font-family:Font Awesome\\ 6 Free}"
        '.fa-sr-only,.sr-only{height:1px}.fa-bell:before{content:"\\f0f3"}'
        ':root{--fa-font-solid:normal 900 1em/1 "Font Awesome 6 Free"}'
        "@font-face{font-family:Font Awesome\\ 6 Free;src:url(fa-solid-900.woff2)}"
        "@font-face{font-family:Other;src:url(other.woff2)}"
        "@media (prefers-reduced-motion:reduce){.fa-spin{animation:none}}"
        "@keyframes fa-spin{0%{transform:rotate(0)}}"
        ':root{--pst-icon-bell:"\\f0f3";--pst-icon-note:var(--pst-icon-bell);--pst-x:"a"}'
        ".note:after{content:var(--pst-icon-note);font:var(--fa-font-solid);margin:0}"
        'p.x:after{content:"\\f0f3";font-family:Font Awesome\\ 6 Free;font-weight:900}'
        "a{color:red}"
    )
    out, unknown = icons.strip_fontawesome(css, icons.glyph_names(css))
    assert unknown == []
    assert "Font Awesome" not in out and "--fa-" not in out and ".fa" not in out
    assert ".sr-only{height:1px}" in out and "@font-face{font-family:Other" in out
    assert "a{color:red}" in out and '--pst-x:"a"' in out
    bell = icons.mask_url("bell")
    assert f"--pst-icon-bell:{bell}" in out and "--pst-icon-note:var(--pst-icon-bell)" in out
    assert '.note:after{content:"";-webkit-mask-image:var(--pst-icon-note)' in out
    assert f'p.x:after{{content:"";-webkit-mask-image:{bell}' in out and "900" not in out
    assert "@media" not in out and "@keyframes" not in out
    # A glyph the map does not know is reported, never silently drawn empty.
    _, unknown = icons.strip_fontawesome('b:after{content:"\\f000"}', {0xF000: ["glass"]})
    assert unknown == ["U+F000 (glass)"]


def test_page_icons_swaps_each_fontawesome_element_for_an_svg(monkeypatch):
    from repo_paths import EXTENSIONS

    monkeypatch.syspath_prepend(str(EXTENSIONS))
    import icons

    page = (
        '<script defer src="../_static/scripts/fontawesome.js?digest=1"></script>'
        '<i aria-hidden="true" class="theme-switch fa-solid fa-sun fa-lg" data-mode="light"></i>'
        '<span class="fa-solid fa-bars"></span><i class="fas fa-unknown-thing"></i>'
        '<span class="fancy"></span>'
    )
    out, unknown = icons.page_icons(page)
    assert "fontawesome" not in out and unknown == ["fas fa-unknown-thing"]
    assert '<i aria-hidden="true" class="theme-switch sa-icon sa-icon-lg" data-mode="light">' in out
    assert '<span class="sa-icon" aria-hidden="true"><svg class="sa-icon-svg"' in out
    assert '<span class="fancy"></span>' in out


def test_the_masks_table_is_one_card_per_row_on_a_phone_and_a_table_on_a_tablet(browser, device):
    browser.get((HTML / "book" / "masks_elsewhere.html").as_uri())
    browser.execute_async_script(PROBE)
    m = browser.execute_script(
        "const t = document.querySelector('table.phone-cards');"
        "const box = t.closest('.pst-scrollable-table-container') || t.parentElement;"
        "const cells = Array.from(t.querySelectorAll('tbody td'));"
        "return {display: getComputedStyle(t).display, columns: t.querySelectorAll('thead th').length,"
        " overflow: box.scrollWidth - box.clientWidth, cue: box.hasAttribute('data-scroll-cue'),"
        " labels: cells.map(c => c.getAttribute('data-label')),"
        " shown: cells.filter((c, k) => k % 3 === 1).map(c => getComputedStyle(c, '::before').content),"
        " role: t.getAttribute('role')};"
    )
    assert m["columns"] == 3 and m["role"] == "table"
    assert set(m["labels"][:3]) == {"Resource", "Mask argument and shape"} | {
        "What an entry means (convention)"
    }
    if device == "phone":
        assert m["display"] == "block" and m["overflow"] <= 0 and not m["cue"], m
        assert all(c == '"Mask argument and shape"' for c in m["shown"]), m["shown"][:2]
    else:
        assert m["display"] == "table", m
