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
  `tests/figure_text.json`, measured by `tools/figure_text.py`);
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
    assert sizes, f"{picture} on {page} is not in figure_text.json: run tools/figure_text.py"
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
