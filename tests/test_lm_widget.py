"""Chapter 12's in-page language model (lessons.lm_widget): its HTML, and in a browser.

The HTML: the contract's attributes, well under 4 MB, no float at full precision,
byte-identical on two calls, and a ValueError naming a character outside the
vocabulary. In headless Chromium (tests/conftest.py's one browser; skipped without
it): ``root.forward`` agrees with ``lessons.lm.forward`` (PyTorch) to 1e-4 on every
attention weight and logit, at every embedded checkpoint, for random texts of several
lengths up to the context and one with a repeated span; typing a character outside the
vocabulary shows a message naming it; clicking a position or moving the slider updates
the view; the page logs no error.
"""

from __future__ import annotations

import base64
import json
import re
import time

import numpy as np
import pytest
import tomllib
from hypothesis import given
from hypothesis import strategies as st
from repo_paths import EXTENSIONS, HTML
from test_stored_precision import full_precision

import lessons
import lessons.lm as lm
from lessons.book.widgets.lm_widget import DEFAULT_STEPS, PAGE_B85, _base85

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # the browser fixture (tests/conftest.py) then skips or fails, as set
    By = Keys = WebDriverWait = None

TOLERANCE = 1e-4
MAX_BYTES = 4_000_000


@pytest.fixture(scope="module")
def html() -> str:
    return lessons.lm_widget()._repr_html_()


def test_contract_attributes(html):
    assert html.startswith('<div class="lw llm" data-lm-widget=""')
    for needle in ("data-lm-text", "data-lm-step", "data-lm-positions", "data-lm-data"):
        assert needle in html
    assert " id=" not in html


def test_size_and_embedded_steps(html):
    size = len(html.encode("utf-8"))
    assert size < MAX_BYTES / 2, size
    data = json.loads(re.search(r"data-lm-data=\"\">(.*?)</script>", html).group(1))
    assert [c["step"] for c in data["checkpoints"]] == list(DEFAULT_STEPS)
    assert DEFAULT_STEPS[-1] == lm.checkpoints()[-1]
    assert set(DEFAULT_STEPS) <= set(lm.checkpoints())
    assert data["vocab"] == lm.VOCAB
    # float16 bytes in base 85 (the page's alphabet), never lists of floats: exactly the stored numbers
    for entry in data["checkpoints"]:
        stored = lm.load(entry["step"]).state_dict()
        assert sorted(entry["tensors"]) == sorted(stored)
        for name, tensor in entry["tensors"].items():
            assert not set(tensor["b85"]) & set('<>&"\\'), name
            raw = base64.b85decode(tensor["b85"].translate(str.maketrans(".,:", "<>&")))
            got = np.frombuffer(raw, dtype="<f2").reshape(tensor["shape"])
            assert np.array_equal(got, stored[name].numpy().astype(np.float16)), name
    assert data["checkpoints"][0]["tensors"]["embed.weight"]["shape"] == [len(lm.VOCAB), 128]


@given(st.binary(max_size=64))
def test_base85_is_pythons_with_the_pages_digits(raw):
    # NumPy's encoder writes what base64.b85encode writes, with "<>&" read as ".,:"
    expected = base64.b85encode(raw).translate(bytes.maketrans(b"<>&", b".,:"))
    assert _base85(raw) == expected.decode("ascii")
    assert len(set(PAGE_B85)) == 85 and not set(PAGE_B85) & set(b'<>&"\\')


def test_no_full_precision_and_byte_identical(html):
    assert full_precision(html) == []
    assert lessons.lm_widget()._repr_html_() == html


def test_steps_are_checked():
    with pytest.raises(ValueError, match="stored checkpoints"):
        lessons.lm_widget(steps=[123])
    with pytest.raises(ValueError, match="distinct"):
        lessons.lm_widget(steps=[])
    small = lessons.lm_widget(steps=[8000])._repr_html_()
    assert len(small.encode()) < 600_000


def test_assets_ship_as_package_data():
    from fnmatch import fnmatch

    from repo_paths import ROOT

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["lessons.book.widgets"]
    folder = ROOT / "lessons" / "book" / "widgets" / "assets"
    for name in ("lm.js", "lm.css"):
        assert any(fnmatch(f"assets/{name}", p) for p in patterns), name
        assert (folder / name).exists()


def test_text_outside_vocabulary_is_named():
    with pytest.raises(ValueError, match=r"'é' \(U\+00E9\) at index 3"):
        lessons.lm_widget(text="cafée")
    with pytest.raises(ValueError, match="n_ctx=128"):
        lessons.lm_widget(text="a" * 129)


# ---- In the browser ----


def texts() -> list[str]:
    """Random texts from the vocabulary (lengths 1 to 128) and one with a repeated span."""
    rng = np.random.default_rng(12)
    out = ["".join(rng.choice(list(lm.VOCAB), size=n)) for n in (1, 7, 40, 128)]
    span = "".join(rng.choice(list(lm.VOCAB), size=30))
    out.append(("x = " + span + "\n" + span)[:128])
    return out


def settled(browser, root) -> None:
    """Wait for the forward pass that typing asks for (debounced: data-lm-pending meanwhile)."""
    WebDriverWait(browser, 10).until(lambda d: root.get_attribute("data-lm-pending") is None)


def severe(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


@pytest.fixture(scope="module")
def page(standalone_page, html) -> str:
    return standalone_page(html, "Language model widget test")


@pytest.fixture
def root(browser, page):
    browser.get(page)
    WebDriverWait(browser, 30).until(
        lambda d: (
            d.find_element(By.CSS_SELECTOR, "[data-lm-widget]").get_attribute("data-ready")
            == "true"
        )
    )
    return browser.find_element(By.CSS_SELECTOR, "[data-lm-widget]")


def test_forward_matches_pytorch(browser, root):
    worst = {"attention": 0.0, "logits": 0.0}
    for step in DEFAULT_STEPS:
        for text in texts():
            got = browser.execute_script(
                "return arguments[0].forward(arguments[1], arguments[2]);", root, text, step
            )
            want = lm.forward(text, step)
            for key in worst:
                diff = float(np.abs(np.asarray(got[key], dtype=np.float64) - want[key]).max())
                assert diff < TOLERANCE, (key, step, len(text), diff)
                worst[key] = max(worst[key], diff)
    print(f"largest |JS - PyTorch|: {worst}")
    assert severe(browser) == []


def test_forward_reuses_the_rows_a_new_text_shares_with_the_last(browser, root):
    # lm.js keeps the last call's rows: typing at the end, deleting, editing in the middle,
    # the same text again and another step must each give what a fresh pass gives.
    base = texts()[-1]
    sequence = [
        (base[:40], 8000),
        (base[:41], 8000),  # one character typed at the end
        (base, 8000),
        (base[:30], 8000),  # cut back
        (base[:10] + "Q" + base[11:60], 8000),  # an edit in the middle
        (base[:10] + "Q" + base[11:60], 8000),  # the same text again
        (base[:10] + "Q" + base[11:60], DEFAULT_STEPS[0]),  # another step: nothing kept
    ]
    for text, step in sequence:
        got = browser.execute_script(
            "return arguments[0].forward(arguments[1], arguments[2]);", root, text, step
        )
        want = lm.forward(text, step)
        for key in ("attention", "logits"):
            got_key = np.asarray(got[key], dtype=np.float64)
            assert got_key.shape == want[key].shape, (key, len(text))
            assert float(np.abs(got_key - want[key]).max()) < TOLERANCE, (key, len(text), step)


def test_forward_refuses_bad_input(browser, root):
    message = browser.execute_script(
        "try { arguments[0].forward('ab\u00e9', 8000); return null; }"
        " catch (e) { return e.message; }",
        root,
    )
    assert "U+00E9" in message and "index 2" in message
    message = browser.execute_script(
        "try { arguments[0].forward('ab', 123); return null; } catch (e) { return e.message; }",
        root,
    )
    assert "embedded steps" in message


def test_page_updates(browser, root):
    top = root.find_elements(By.CSS_SELECTOR, "[data-lm-top] li")
    assert len(top) == 5
    assert root.get_attribute("data-checkpoint") == str(DEFAULT_STEPS[-1])
    buttons = root.find_elements(By.CSS_SELECTOR, "[data-lm-pos]")
    assert len(buttons) == len(lessons.lm_widget().text)
    buttons[5].click()
    assert root.get_attribute("data-position") == "5"
    cells = root.find_elements(By.CSS_SELECTOR, '[data-layer="1"] td[data-cell]')
    assert len(cells) == 4 * 6  # 4 heads, keys 0 .. 5
    assert len(root.find_elements(By.CSS_SELECTOR, "[data-lm-most] li")) == 2 * 4
    want = lm.forward(lessons.lm_widget().text, DEFAULT_STEPS[-1])
    probs = np.exp(want["logits"][5] - want["logits"][5].max())
    probs /= probs.sum()
    best = lm.VOCAB[int(probs.argmax())]
    first = root.find_element(By.CSS_SELECTOR, "[data-lm-top] li")
    assert first.get_attribute("data-guess") == best
    assert abs(float(first.get_attribute("data-probability")) - probs.max()) < 1e-3
    # arrow keys move the position
    buttons[5].send_keys(Keys.ARROW_RIGHT)
    assert root.get_attribute("data-position") == "6"
    # the slider shows another step
    browser.execute_script(
        "const s = arguments[0].querySelector('[data-lm-step]'); s.value = 0;"
        " s.dispatchEvent(new Event('input', {bubbles: true}));",
        root,
    )
    assert root.get_attribute("data-checkpoint") == str(DEFAULT_STEPS[0])
    assert root.get_attribute("data-position") == "6"
    assert severe(browser) == []


def test_a_new_text_selects_its_last_character_and_heads_are_named_layer_dot_head(browser, root):
    box = root.find_element(By.CSS_SELECTOR, "[data-lm-text]")
    root.find_elements(By.CSS_SELECTOR, "[data-lm-pos]")[3].click()
    text = "abc = 1\nprint(abc)\nprint(abc + 1)\nab"  # 36 characters: past 24
    browser.execute_script(
        "arguments[0].value = arguments[1];"
        " arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        box,
        text,
    )
    assert root.get_attribute("data-lm-pending") == "true"  # debounced: drawn after a pause
    settled(browser, root)
    assert root.get_attribute("data-position") == str(len(text) - 1)
    rows = root.find_elements(By.CSS_SELECTOR, '[data-layer="1"] th[scope="row"]')
    assert [r.text for r in rows][-4:] == ["1.0", "1.1", "1.2", "1.3"]
    # past 24 keys a head's row is a heat strip, and a line says so
    assert root.find_elements(By.CSS_SELECTOR, "[data-lm-legend]")
    assert "heat strip" in root.find_element(By.CSS_SELECTOR, "[data-lm-legend]").text
    # a tap on a strip's cell shows its value (a touch screen shows no title)
    cell = root.find_elements(By.CSS_SELECTOR, '[data-layer="1"] td[data-cell]')[-2]
    cell.click()
    shown = root.find_element(By.CSS_SELECTOR, '[data-layer="1"] [data-lm-cell-value]').text
    assert shown == cell.get_attribute("title") and shown.endswith(
        f"{float(cell.get_attribute('data-value')):.4f}"
    )
    assert cell.get_attribute("aria-current") == "true"
    assert cell.text == ""  # a strip's cell is its colour; its number is in the title
    assert root.find_elements(By.CSS_SELECTOR, "[data-lm-hint]")
    assert severe(browser) == []


def test_outside_vocabulary_message(browser, root):
    box = root.find_element(By.CSS_SELECTOR, "[data-lm-text]")
    message = root.find_element(By.CSS_SELECTOR, "[data-lm-message]")
    assert message.text == ""
    box.send_keys("é")
    settled(browser, root)
    assert root.get_attribute("data-lm-state") == "invalid"
    assert "é" in message.text and "U+00E9" in message.text
    assert "vocabulary" in message.text
    assert root.find_elements(By.CSS_SELECTOR, "[data-lm-top] li") == []
    browser.execute_script(
        "const b = arguments[0]; b.value = 'hello'; b.dispatchEvent(new Event('input'));", box
    )
    settled(browser, root)
    assert root.get_attribute("data-lm-state") == "ok"
    assert message.text == ""
    assert len(root.find_elements(By.CSS_SELECTOR, "[data-lm-pos]")) == 5
    assert severe(browser) == []


def test_initial_text_kept_exactly(browser, standalone_page):
    text = "\n  x = 1\n  x = 1\n"
    browser.get(
        standalone_page(lessons.lm_widget(text=text, steps=[8000])._repr_html_(), "Initial text")
    )
    WebDriverWait(browser, 30).until(
        lambda d: (
            d.find_element(By.CSS_SELECTOR, "[data-lm-widget]").get_attribute("data-ready")
            == "true"
        )
    )
    root = browser.find_element(By.CSS_SELECTOR, "[data-lm-widget]")
    box = root.find_element(By.CSS_SELECTOR, "[data-lm-text]")
    assert browser.execute_script("return arguments[0].value;", box) == text
    assert len(root.find_elements(By.CSS_SELECTOR, "[data-lm-pos]")) == len(text)
    assert root.get_attribute("data-checkpoint") == "8000"
    assert severe(browser) == []


# ---- The built book: the page carries one checkpoint, a script in _static the others ----
# (_ext/lm_checkpoints.py). From file://, every step of the slider shows the Python model's
# numbers, also when the slider moves before that script has arrived.

CHAPTER = HTML / "book" / "12_language_model_on_real_text.html"
HOLD = "window.LessonsWidgets = {lmHold: true};"  # lm.js adds the script on lmRelease()


def built_root(browser, held: bool = False):
    """Chapter 12's built page from file:// with its widget ready; the widget's root."""
    if not CHAPTER.exists():
        pytest.skip("the book is not built: run `make book` (make test does)")
    hold = None
    if held:
        hold = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD})
    try:
        browser.get(CHAPTER.as_uri())
    finally:
        if hold:
            browser.execute_cdp_cmd(
                "Page.removeScriptToEvaluateOnNewDocument", {"identifier": hold["identifier"]}
            )
    WebDriverWait(browser, 60).until(
        lambda d: (
            d.find_element(By.CSS_SELECTOR, "[data-lm-widget]").get_attribute("data-ready")
            == "true"
        )
    )
    return browser.find_element(By.CSS_SELECTOR, "[data-lm-widget]")


def move_slider(browser, root, index: int) -> None:
    browser.execute_script(
        "const s = arguments[0].querySelector('[data-lm-step]'); s.value = arguments[1];"
        " s.dispatchEvent(new Event('input', {bubbles: true}));",
        root,
        index,
    )


def assert_shows(browser, root, step: int) -> None:
    """The view shows ``step``'s attention row and guesses, as ``lessons.lm`` computes them."""
    assert root.get_attribute("data-checkpoint") == str(step)
    assert root.find_element(By.CSS_SELECTOR, "[data-lm-step-label]").text == str(step)
    text = browser.execute_script(
        "return arguments[0].querySelector('[data-lm-text]').value;", root
    )
    i = int(root.get_attribute("data-position"))
    cells = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('[data-layer] td[data-cell]'),"
        " c => [Number(c.closest('[data-layer]').dataset.layer)].concat("
        " c.dataset.cell.split(',').map(Number), [Number(c.dataset.value)]));",
        root,
    )
    want = lm.forward(text, step)
    n_layers, n_heads = want["attention"].shape[:2]
    assert len(cells) == n_layers * n_heads * (i + 1)
    worst = max(abs(v - want["attention"][layer, head, i, j]) for layer, head, j, v in cells)
    assert worst < TOLERANCE, (step, worst)
    probs = np.exp(want["logits"][i] - want["logits"][i].max())
    probs /= probs.sum()
    top = root.find_elements(By.CSS_SELECTOR, "[data-lm-top] li")
    order = np.argsort(-probs, kind="stable")[:5]
    assert [li.get_attribute("data-guess") for li in top] == [lm.VOCAB[k] for k in order]
    for li, k in zip(top, order, strict=True):
        assert abs(float(li.get_attribute("data-probability")) - probs[k]) < 1e-3


def test_built_page_loads_the_other_steps_and_each_shows_the_python_models_numbers(browser):
    root = built_root(browser)
    data = json.loads(
        browser.execute_script(
            "return arguments[0].querySelector('script[data-lm-data]').textContent;", root
        )
    )
    assert "more" in data, "book/12's stored output predates lm.js's loader: execute it again"
    steps = data["more"]["steps"]
    assert steps == list(DEFAULT_STEPS)
    assert_shows(browser, root, steps[-1])  # the step the page carries inline
    WebDriverWait(browser, 30).until(lambda d: root.get_attribute("data-lm-loaded") == "true")
    for index in [0, 1, 2, 0]:
        move_slider(browser, root, index)
        assert root.get_attribute("data-lm-loading") is None
        assert_shows(browser, root, steps[index])
    for step in steps:  # the contract's forward, on every step, from the script's weights
        text = texts()[-1]
        got = browser.execute_script(
            "return arguments[0].forward(arguments[1], arguments[2]);", root, text, step
        )
        want = lm.forward(text, step)
        for key in ("attention", "logits"):
            diff = np.abs(np.asarray(got[key], dtype=np.float64) - want[key]).max()
            assert diff < TOLERANCE, (key, step)
    assert severe(browser) == []


def test_built_page_slider_moved_before_the_other_steps_arrive(browser):
    root = built_root(browser, held=True)
    time.sleep(1)  # the page is idle: lm.js has asked for the script, which is held
    assert root.get_attribute("data-lm-loaded") == "false"
    loads = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name);"
    )
    assert not [name for name in loads if "lm-checkpoints-" in name]
    message = root.find_element(By.CSS_SELECTOR, "[data-lm-message]")
    assert message.get_attribute("role") == "alert"
    move_slider(browser, root, 0)
    step = DEFAULT_STEPS[0]
    assert root.get_attribute("data-lm-loading") == str(step)
    assert message.text == f"Loading step {step}\u2026"
    assert root.find_element(By.CSS_SELECTOR, "[data-lm-step-label]").text == str(step)
    assert root.find_element(By.CSS_SELECTOR, "[data-lm-view]").get_attribute("aria-busy")
    assert root.get_attribute("data-checkpoint") == str(DEFAULT_STEPS[-1])  # drawn: the last
    error = browser.execute_script(
        "try { arguments[0].forward('ab', arguments[1]); return null; }"
        " catch (e) { return e.message; }",
        root,
        step,
    )
    assert "still loading" in error
    move_slider(browser, root, 1)  # a second move while waiting: the last one wins
    browser.execute_script("window.LessonsWidgets.lmRelease();")
    WebDriverWait(browser, 30).until(lambda d: root.get_attribute("data-lm-loading") is None)
    assert root.get_attribute("data-lm-loaded") == "true"
    assert message.text == ""
    assert root.find_element(By.CSS_SELECTOR, "[data-lm-view]").get_attribute("aria-busy") is None
    assert_shows(browser, root, DEFAULT_STEPS[1])
    move_slider(browser, root, 0)
    assert_shows(browser, root, step)
    assert severe(browser) == []


def test_the_books_build_splits_a_payload_once_and_only_for_a_script_that_loads_the_rest(
    tmp_path, monkeypatch
):
    monkeypatch.syspath_prepend(str(EXTENSIONS))
    import lm_checkpoints

    widget = lessons.lm_widget(steps=[1500, 8000])
    page = tmp_path / "book" / "page.html"
    page.parent.mkdir()
    page.write_text(f"<html><body>{widget._repr_html_()}</body></html>", encoding="utf-8")
    (written,) = lm_checkpoints.split_book(tmp_path)
    data = json.loads(
        re.search(r"data-lm-data=\"\">(.*?)</script>", page.read_text("utf-8")).group(1)
    )
    assert data["checkpoints"] == widget.payload["checkpoints"][1:]
    assert data["more"]["steps"] == [1500, 8000]
    assert data["more"]["src"] == f"../_static/lm-checkpoints-{data['more']['key']}.js"
    assert written == tmp_path / "_static" / f"lm-checkpoints-{data['more']['key']}.js"
    assert f'lmCheckpoints("{data["more"]["key"]}",' in written.read_text("utf-8")
    split = page.read_text("utf-8")
    assert lm_checkpoints.split_book(tmp_path) == [] and page.read_text("utf-8") == split
    # a page whose inlined lm.js cannot load the rest (an output stored before) stays whole
    old = widget._repr_html_().replace(lm_checkpoints.LOADER, "shared.other = function")
    page.write_text(old, encoding="utf-8")
    assert lm_checkpoints.split_book(tmp_path) == [] and page.read_text("utf-8") == old
    # one checkpoint: nothing to move
    one = lessons.lm_widget(steps=[8000])._repr_html_()
    page.write_text(one, encoding="utf-8")
    assert lm_checkpoints.split_book(tmp_path) == [] and page.read_text("utf-8") == one
