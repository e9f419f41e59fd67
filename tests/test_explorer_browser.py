"""The attention explorer in a real browser: headless Chromium driven by Selenium, offline.

One browser serves the whole session (the `browser` fixture in tests/conftest.py, shared
with the other browser tests). The first tests load a page written here, with
two widgets on it, and drive the first through its DOM contract (lessons/book/widgets/explorer.py):
for every combination of scaling, causal mask and three temperatures the weights the
page shows must equal lessons.attention's to 1e-6. The last test loads the pages of the
built book that hold explorers (`make book` writes them before `make test` runs them).

Without chromium, chromedriver or selenium these tests are skipped with the reason
printed; with REQUIRE_BROWSER_TESTS=1 in the environment (CI) they fail instead.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from repo_paths import HTML, ROOT

import lessons
from lessons.book.widgets.explorer import explorer

try:  # without selenium, the `browser` fixture skips these tests (or fails them in CI)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ModuleNotFoundError:
    pass

BUILT = HTML / "book"

# Four tokens, d_k = 3: scores large enough that scaling and temperature change the weights.
TOKENS = ["the", "cat", "sat", "down"]
Q = np.array([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [1.5, -0.5, 0.5], [-1.0, 1.0, 2.0]])  # [4, 3]
K = np.array([[0.5, 1.0, 0.0], [1.0, -1.0, 1.5], [0.0, 0.5, 2.0], [2.0, 0.0, -0.5]])  # [4, 3]
V = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [0.5, 3.0]])  # [4, 2]
TEMPERATURES = (0.5, 1.0, 2.0)

READ_WEIGHTS = """
const root = arguments[0];
return Array.from(root.querySelectorAll('[data-weight]')).map(cell => [
  cell.getAttribute('data-weight'), cell.getAttribute('data-value'),
  cell.getAttribute('data-masked') === 'true']);
"""
SET_TEMPERATURE = """
const slider = arguments[0].querySelector('[data-control="temperature"]');
slider.value = String(arguments[1]);
slider.dispatchEvent(new Event('input', {bubbles: true}));
return slider.value;
"""


def reference(scale: bool, causal: bool, temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """lessons.attention on the same inputs: T (and no scaling) divide the queries."""
    factor = (1 if scale else math.sqrt(Q.shape[-1])) / temperature
    mask = lessons.causal_mask(len(TOKENS)) if causal else None
    return lessons.attention(Q * factor, K, V, mask)  # [4, 2], [4, 4]


def shown_weights(browser, root) -> tuple[np.ndarray, np.ndarray]:
    """The weights matrix the page shows, and where it marks cells as masked."""
    found = browser.execute_script(READ_WEIGHTS, root)
    n = math.isqrt(len(found))
    assert n * n == len(found) and n > 0, f"expected a square of weight cells, got {len(found)}"
    values, masked = np.full((n, n), np.nan), np.zeros((n, n), dtype=bool)
    for where, value, is_masked in found:
        i, j = (int(k) for k in where.split(","))
        values[i, j], masked[i, j] = float(value), is_masked
    return values, masked


def severe(browser) -> list[dict]:
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def wait_until_ready(browser, count: int | None = None) -> list:
    def ready(d):
        roots = d.find_elements(By.CSS_SELECTOR, "[data-explorer]")
        done = [r for r in roots if r.get_attribute("data-explorer-ready") == "true"]
        return roots if roots and len(done) == len(roots) else False

    roots = WebDriverWait(browser, 10).until(ready)
    if count is not None:
        assert len(roots) == count
    return roots


@pytest.fixture(scope="module")
def page(standalone_page) -> str:
    """A standalone page with the example and, below it, a second widget with two heads."""
    rng = np.random.default_rng(0)
    second = explorer(
        "one two three",
        rng.normal(size=(3, 4)),
        rng.normal(size=(3, 4)),
        rng.normal(size=(3, 4)),
        heads=2,
        causal=True,
        title="Second widget",
    )
    body = explorer(TOKENS, Q, K, V)._repr_html_() + second._repr_html_()
    return standalone_page(body, "Explorer test")


@pytest.fixture
def widgets(browser, page):
    browser.get(page)
    roots = wait_until_ready(browser, count=2)
    yield roots
    errors = severe(browser)
    assert not errors, f"the page logged errors: {errors}"


def test_every_setting_shows_lessons_attentions_weights(browser, widgets):
    root, other = widgets
    other_before = shown_weights(browser, other)[0]
    n = len(TOKENS)
    for scale, causal, temperature in itertools.product((True, False), (False, True), TEMPERATURES):
        for name, wanted in (("scale", scale), ("causal", causal)):
            box = root.find_element(By.CSS_SELECTOR, f'[data-control="{name}"]')
            if box.is_selected() != wanted:
                box.click()
        assert browser.execute_script(SET_TEMPERATURE, root, temperature) == f"{temperature:g}"
        values, masked = shown_weights(browser, root)
        _, weights = reference(scale, causal, temperature)
        settings = f"scale={scale}, causal={causal}, T={temperature}"
        np.testing.assert_allclose(values, weights, atol=1e-6, rtol=0, err_msg=settings)
        np.testing.assert_allclose(values.sum(axis=1), np.ones(n), atol=1e-12, err_msg=settings)
        blocked = ~lessons.causal_mask(n) if causal else np.zeros((n, n), dtype=bool)
        assert (masked == blocked).all(), settings
        assert (values[blocked] == 0.0).all(), settings
        assert (values[~blocked] > 0).all(), settings
    np.testing.assert_array_equal(shown_weights(browser, other)[0], other_before)


def test_the_default_stage_equals_lessons_attention_and_reset_returns_to_it(browser, widgets):
    root = widgets[0]
    assert root.get_attribute("data-current-stage") == "weights"
    np.testing.assert_allclose(shown_weights(browser, root)[0], reference(True, False, 1)[1])
    root.find_element(By.CSS_SELECTOR, '[data-control="causal"]').click()
    browser.execute_script(SET_TEMPERATURE, root, 3.0)
    root.find_element(By.CSS_SELECTOR, '[data-control="reset"]').click()
    np.testing.assert_allclose(
        shown_weights(browser, root)[0], reference(True, False, 1)[1], atol=1e-12
    )


def test_clicking_a_query_token_highlights_its_row_and_writes_its_output(browser, widgets):
    root = widgets[0]
    root.find_element(By.CSS_SELECTOR, '[data-control="causal"]').click()
    root.find_element(By.CSS_SELECTOR, 'button[data-token="2"]').click()
    assert root.get_attribute("data-selected") == "2"
    rows = root.find_elements(By.CSS_SELECTOR, '[data-matrix="weights"] tr.is-selected')
    assert [r.get_attribute("data-row") for r in rows] == ["2"]
    token = root.find_element(By.CSS_SELECTOR, 'button[data-token="2"]')
    assert token.get_attribute("aria-pressed") == "true"
    assert browser.switch_to.active_element == token, "focus stays on the clicked token"
    output, weights = reference(True, True, 1.0)
    row_sum = root.find_element(By.CSS_SELECTOR, '[data-detail="row-sum"]')
    assert float(row_sum.get_attribute("data-value")) == pytest.approx(1.0, abs=1e-12)
    assert "sums to 1.000" in row_sum.text
    text = root.find_element(By.CSS_SELECTOR, '[data-detail="output"]').text
    terms = " + ".join(f"{weights[2, j]:.3f}·v_{j}" for j in range(3))  # key 3 is masked
    vector = ", ".join(f"{x:.3f}" for x in output[2])
    assert text == f"out_2 = {terms} = ({vector})"
    root.find_element(By.CSS_SELECTOR, 'button[data-token="2"]').click()
    assert root.get_attribute("data-selected") is None
    assert not root.find_elements(By.CSS_SELECTOR, "tr.is-selected")


def test_the_selected_rows_softmax_names_the_masked_row_when_a_mask_is_on(browser, widgets):
    root = widgets[0]
    root.find_element(By.CSS_SELECTOR, 'button[data-token="2"]').click()
    stage = root.find_element(By.CSS_SELECTOR, '[data-detail="stage"]')
    assert "a_2 = softmax(z_2) = " in stage.text, stage.text
    root.find_element(By.CSS_SELECTOR, '[data-control="causal"]').click()
    stage = root.find_element(By.CSS_SELECTOR, '[data-detail="stage"]')
    assert "a_2 = softmax(row 2 of Z_masked) = " in stage.text, stage.text
    formula = root.find_element(By.CLASS_NAME, "ax-formula").text
    assert "softmax(Z_masked)" in formula


def test_the_stages_step_with_buttons_and_arrow_keys(browser, widgets):
    root = widgets[0]
    stages = [
        b.get_attribute("data-stage")
        for b in root.find_elements(By.CSS_SELECTOR, '[data-control="stage"] button')
    ]
    assert stages == ["qkv", "scores", "scaled", "masked", "weights", "output"]
    root.find_element(By.CSS_SELECTOR, '[data-stage="qkv"]').click()
    assert root.get_attribute("data-current-stage") == "qkv"
    for expected in stages[1:]:
        browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
        assert root.get_attribute("data-current-stage") == expected
    assert "O = A V   [n_q, d_v] = [4, 2]" in root.find_element(By.CLASS_NAME, "ax-formula").text
    browser.switch_to.active_element.send_keys(Keys.HOME)
    assert root.get_attribute("data-current-stage") == "qkv"
    root.find_element(By.CSS_SELECTOR, '[data-stage="scores"]').click()
    formula = root.find_element(By.CLASS_NAME, "ax-formula").text
    assert formula == "S = Q Kᵀ   [n_q, n_k] = [4, 4]"
    cells = root.find_elements(By.CSS_SELECTOR, '[data-matrix="S"] [data-cell]')
    scores = Q @ K.T  # [4, 4]
    for cell in cells:
        i, j = (int(k) for k in cell.get_attribute("data-cell").split(","))
        assert float(cell.get_attribute("data-value")) == pytest.approx(scores[i, j])
    root.find_element(By.CSS_SELECTOR, '[data-step="1"]').click()
    assert root.get_attribute("data-current-stage") == "scaled"


def test_the_head_selector_switches_heads(browser, widgets):
    from selenium.webdriver.support.ui import Select

    second = widgets[1]
    select = Select(second.find_element(By.CSS_SELECTOR, '[data-control="head"]'))
    assert len(select.options) == 2
    first_head = shown_weights(browser, second)[0]
    select.select_by_value("1")
    other_head = shown_weights(browser, second)[0]
    assert not np.allclose(first_head, other_head)
    np.testing.assert_allclose(other_head.sum(axis=1), 1.0, atol=1e-12)


def _built_pages() -> list[Path]:
    if not BUILT.is_dir():
        return []
    return sorted(p for p in BUILT.glob("*.html") if "data-explorer" in p.read_text("utf-8"))


@pytest.mark.parametrize("name", sorted({"explorer.html"} | {p.name for p in _built_pages()}))
def test_the_built_books_explorers_render_weights_without_errors(browser, name):
    path = BUILT / name
    if not path.exists():
        pytest.skip(f"{path.relative_to(ROOT)} is not built: run `make book` first")
    browser.get(path.as_uri())
    roots = wait_until_ready(browser)
    for root in roots:
        if not root.find_elements(By.CSS_SELECTOR, "[data-weight]"):
            root.find_element(By.CSS_SELECTOR, '[data-stage="weights"]').click()
        values, _ = shown_weights(browser, root)
        np.testing.assert_allclose(values.sum(axis=1), 1.0, atol=1e-9)
    errors = severe(browser)
    assert not errors, f"{name} logged errors: {errors}"


# ---------------------------------------------------------------- padding mode (issue 17)

PAD_TOKENS = ["we", "sat", "down", "<pad>", "<pad>"]
PAD_Q = np.array([[1, 0, 1], [0, 2, -1], [1, 1, 0.5], [2, 0, 1], [0, -1, 1]])  # [5, 3]
PAD_K = np.array([[1, 1, 0], [1, 0, 2], [0, 1, -1], [-1, 2, 0], [3, 1, 1]])  # [5, 3]
PAD_V = np.array([[2, 0], [0, 2], [1, 1], [5, 5], [-3, 4]], dtype=float)  # [5, 2]
SET_LENGTH = """
const slider = arguments[0].querySelector('[data-control="length"]');
slider.value = String(arguments[1]);
slider.dispatchEvent(new Event('input', {bubbles: true}));
return slider.value;
"""
READ_SUMS = """
return Array.from(arguments[0].querySelectorAll('[data-row-sum]')).map(cell => [
  cell.getAttribute('data-value'), cell.getAttribute('data-blocked') === 'true', cell.textContent]);
"""


def padded_reference(length: int, causal: bool, pad_queries: bool) -> tuple[np.ndarray, ...]:
    """lessons.attention with the padding mask (and the causal mask), and that keep-mask."""
    n = len(PAD_TOKENS)
    keep = lessons.padding_mask([length], n)[0]  # [1, n]
    if pad_queries:
        keep = lessons.combine_masks(keep, keep.T)  # [n, n]
    if causal:
        keep = lessons.combine_masks(keep, lessons.causal_mask(n))  # [n, n]
    keep = np.broadcast_to(keep, (n, n))  # [n, n]
    _, weights = lessons.attention(PAD_Q, PAD_K, PAD_V, keep)  # [n, n]
    return weights, keep


@pytest.fixture
def padded(browser, tmp_path):
    """A page with one explorer in padding mode, started at length 3."""
    ex = explorer(PAD_TOKENS, PAD_Q, PAD_K, PAD_V, length=3, title="Padded")
    path = tmp_path / "padded.html"
    path.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Padding test</title></head><body>{ex._repr_html_()}</body></html>",
        encoding="utf-8",
    )
    browser.get(path.as_uri())
    (root,) = wait_until_ready(browser, count=1)
    yield root
    errors = severe(browser)
    assert not errors, f"the page logged errors: {errors}"


def test_padding_mode_shows_lessons_attention_with_the_padding_mask_at_every_length(
    browser, padded
):
    root = padded
    n = len(PAD_TOKENS)
    slider = root.find_element(By.CSS_SELECTOR, '[data-control="length"]')
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("1", str(n))
    assert slider.get_attribute("value") == "3"
    for length, causal, pad_queries in itertools.product(
        range(1, n + 1), (False, True), (False, True)
    ):
        for name, wanted in (("causal", causal), ("pad-queries", pad_queries)):
            box = root.find_element(By.CSS_SELECTOR, f'[data-control="{name}"]')
            if box.is_selected() != wanted:
                box.click()
        assert browser.execute_script(SET_LENGTH, root, length) == str(length)
        settings = f"length={length}, causal={causal}, pad_queries={pad_queries}"
        values, masked = shown_weights(browser, root)
        weights, keep = padded_reference(length, causal, pad_queries)
        np.testing.assert_allclose(values, weights, atol=1e-6, rtol=0, err_msg=settings)
        assert (masked == ~keep).all(), settings
        assert (values[~keep] == 0.0).all(), settings
        assert (values[:, length:] == 0.0).all() and masked[:, length:].all(), settings
        empty = ~keep.any(axis=1)  # [n]
        assert empty.any() == (pad_queries and length < n), settings
        sums = browser.execute_script(READ_SUMS, root)
        for i, (value, blocked, text) in enumerate(sums):
            assert float(value) == pytest.approx(0.0 if empty[i] else 1.0, abs=1e-12), settings
            assert blocked == empty[i], settings
            assert ("nothing to attend to" in text) == empty[i], settings
        formula = root.find_element(By.CLASS_NAME, "ax-formula").text
        assert ("padding from token" in formula) == (length < n), settings


def test_a_padded_querys_row_says_nothing_is_left_to_attend_to(browser, padded):
    root = padded
    root.find_element(By.CSS_SELECTOR, '[data-control="pad-queries"]').click()
    root.find_element(By.CSS_SELECTOR, 'button[data-token="4"]').click()
    row_sum = root.find_element(By.CSS_SELECTOR, '[data-detail="row-sum"]')
    assert float(row_sum.get_attribute("data-value")) == 0.0
    assert "nothing is left to attend" in row_sum.text
    assert root.find_element(By.CSS_SELECTOR, '[data-detail="output"]').text.startswith(
        "out_4 = 0 = (0.000, 0.000)"
    )
    stage = root.find_element(By.CSS_SELECTOR, '[data-detail="stage"]')
    assert "a_4 = softmax(row 4 of Z_masked)" in stage.text, stage.text
    root.find_element(By.CSS_SELECTOR, '[data-stage="masked"]').click()
    formula = root.find_element(By.CLASS_NAME, "ax-formula").text
    assert "key j ≥ 3 (padding) or query i ≥ 3" in formula
    cells = root.find_elements(By.CSS_SELECTOR, '[data-matrix="masked"] [data-masked="true"]')
    assert len(cells) == 25 - 9
    root.find_element(By.CSS_SELECTOR, '[data-control="reset"]').click()
    assert not root.find_element(By.CSS_SELECTOR, '[data-control="pad-queries"]').is_selected()
    values, _ = shown_weights(browser, root)
    np.testing.assert_allclose(values, padded_reference(3, False, False)[0], atol=1e-12)


def test_without_length_there_is_no_padding_control(browser, widgets):
    for root in widgets:
        assert not root.find_elements(By.CSS_SELECTOR, '[data-control="length"]')
        assert not root.find_elements(By.CSS_SELECTOR, '[data-control="pad-queries"]')
