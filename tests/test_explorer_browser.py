"""The attention explorer in a real browser: headless Chromium driven by Selenium, offline.

One browser serves the whole session. The first tests load a page written here, with
two widgets on it, and drive the first through its DOM contract (lessons/explorer.py):
for every combination of scaling, causal mask and three temperatures the weights the
page shows must equal lessons.attention's to 1e-6. The last test loads the pages of the
built book that hold explorers (`make book` writes them before `make test` runs them).

Without chromium, chromedriver or selenium the module is skipped with the reason
printed; with REQUIRE_BROWSER_TESTS=1 in the environment (CI) it fails instead.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import lessons
from lessons.explorer import explorer

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
    "--window-size=900,1200",
)
ROOT = Path(__file__).resolve().parent.parent
BUILT = ROOT / "_build" / "html" / "book"

_missing = [
    what
    for what, present in (
        (CHROMIUM, Path(CHROMIUM).exists() or shutil.which("chromium")),
        (CHROMEDRIVER, Path(CHROMEDRIVER).exists()),
        ("the selenium package", importlib.util.find_spec("selenium")),
    )
    if not present
]
if _missing:
    _reason = (
        f"browser tests skipped: {', '.join(_missing)} missing "
        "(apt-get install chromium chromium-driver; pip install selenium)"
    )
    if os.environ.get("REQUIRE_BROWSER_TESTS") == "1":
        raise RuntimeError(_reason.replace("skipped", "required, but"))
    print(_reason)
    pytest.skip(_reason, allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

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


def shown_weights(driver, root) -> tuple[np.ndarray, np.ndarray]:
    """The weights matrix the page shows, and where it marks cells as masked."""
    found = driver.execute_script(READ_WEIGHTS, root)
    n = math.isqrt(len(found))
    assert n * n == len(found) and n > 0, f"expected a square of weight cells, got {len(found)}"
    values, masked = np.full((n, n), np.nan), np.zeros((n, n), dtype=bool)
    for where, value, is_masked in found:
        i, j = (int(k) for k in where.split(","))
        values[i, j], masked[i, j] = float(value), is_masked
    return values, masked


def severe(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def wait_until_ready(driver, count: int | None = None) -> list:
    def ready(d):
        roots = d.find_elements(By.CSS_SELECTOR, "[data-explorer]")
        done = [r for r in roots if r.get_attribute("data-explorer-ready") == "true"]
        return roots if roots and len(done) == len(roots) else False

    roots = WebDriverWait(driver, 10).until(ready)
    if count is not None:
        assert len(roots) == count
    return roots


@pytest.fixture(scope="session")
def driver():
    options = Options()
    for flag in FLAGS:
        options.add_argument(flag)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield browser
    browser.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
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
    path = tmp_path_factory.mktemp("explorer") / "page.html"
    path.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Explorer test</title></head><body>{body}</body></html>",
        encoding="utf-8",
    )
    return path.as_uri()


@pytest.fixture
def widgets(driver, page):
    driver.get(page)
    roots = wait_until_ready(driver, count=2)
    yield roots
    errors = severe(driver)
    assert not errors, f"the page logged errors: {errors}"


def test_every_setting_shows_lessons_attentions_weights(driver, widgets):
    root, other = widgets
    other_before = shown_weights(driver, other)[0]
    n = len(TOKENS)
    for scale, causal, temperature in itertools.product((True, False), (False, True), TEMPERATURES):
        for name, wanted in (("scale", scale), ("causal", causal)):
            box = root.find_element(By.CSS_SELECTOR, f'[data-control="{name}"]')
            if box.is_selected() != wanted:
                box.click()
        assert driver.execute_script(SET_TEMPERATURE, root, temperature) == f"{temperature:g}"
        values, masked = shown_weights(driver, root)
        _, weights = reference(scale, causal, temperature)
        settings = f"scale={scale}, causal={causal}, T={temperature}"
        np.testing.assert_allclose(values, weights, atol=1e-6, rtol=0, err_msg=settings)
        np.testing.assert_allclose(values.sum(axis=1), np.ones(n), atol=1e-12, err_msg=settings)
        blocked = ~lessons.causal_mask(n) if causal else np.zeros((n, n), dtype=bool)
        assert (masked == blocked).all(), settings
        assert (values[blocked] == 0.0).all(), settings
        assert (values[~blocked] > 0).all(), settings
    np.testing.assert_array_equal(shown_weights(driver, other)[0], other_before)


def test_the_default_stage_equals_lessons_attention_and_reset_returns_to_it(driver, widgets):
    root = widgets[0]
    assert root.get_attribute("data-current-stage") == "weights"
    np.testing.assert_allclose(shown_weights(driver, root)[0], reference(True, False, 1)[1])
    root.find_element(By.CSS_SELECTOR, '[data-control="causal"]').click()
    driver.execute_script(SET_TEMPERATURE, root, 3.0)
    root.find_element(By.CSS_SELECTOR, '[data-control="reset"]').click()
    np.testing.assert_allclose(
        shown_weights(driver, root)[0], reference(True, False, 1)[1], atol=1e-12
    )


def test_clicking_a_query_token_highlights_its_row_and_writes_its_output(driver, widgets):
    root = widgets[0]
    root.find_element(By.CSS_SELECTOR, '[data-control="causal"]').click()
    root.find_element(By.CSS_SELECTOR, 'button[data-token="2"]').click()
    assert root.get_attribute("data-selected") == "2"
    rows = root.find_elements(By.CSS_SELECTOR, '[data-matrix="weights"] tr.is-selected')
    assert [r.get_attribute("data-row") for r in rows] == ["2"]
    token = root.find_element(By.CSS_SELECTOR, 'button[data-token="2"]')
    assert token.get_attribute("aria-pressed") == "true"
    assert driver.switch_to.active_element == token, "focus stays on the clicked token"
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


def test_the_stages_step_with_buttons_and_arrow_keys(driver, widgets):
    root = widgets[0]
    stages = [
        b.get_attribute("data-stage")
        for b in root.find_elements(By.CSS_SELECTOR, '[data-control="stage"] button')
    ]
    assert stages == ["qkv", "scores", "scaled", "masked", "weights", "output"]
    root.find_element(By.CSS_SELECTOR, '[data-stage="qkv"]').click()
    assert root.get_attribute("data-current-stage") == "qkv"
    for expected in stages[1:]:
        driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
        assert root.get_attribute("data-current-stage") == expected
    assert "O = A V   [n_q, d_v] = [4, 2]" in root.find_element(By.CLASS_NAME, "ax-formula").text
    driver.switch_to.active_element.send_keys(Keys.HOME)
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


def test_the_head_selector_switches_heads(driver, widgets):
    from selenium.webdriver.support.ui import Select

    second = widgets[1]
    select = Select(second.find_element(By.CSS_SELECTOR, '[data-control="head"]'))
    assert len(select.options) == 2
    first_head = shown_weights(driver, second)[0]
    select.select_by_value("1")
    other_head = shown_weights(driver, second)[0]
    assert not np.allclose(first_head, other_head)
    np.testing.assert_allclose(other_head.sum(axis=1), 1.0, atol=1e-12)


def _built_pages() -> list[Path]:
    if not BUILT.is_dir():
        return []
    return sorted(p for p in BUILT.glob("*.html") if "data-explorer" in p.read_text("utf-8"))


@pytest.mark.parametrize("name", sorted({"explorer.html"} | {p.name for p in _built_pages()}))
def test_the_built_books_explorers_render_weights_without_errors(driver, name):
    path = BUILT / name
    if not path.exists():
        pytest.skip(f"{path.relative_to(ROOT)} is not built: run `make book` first")
    driver.get(path.as_uri())
    roots = wait_until_ready(driver)
    for root in roots:
        if not root.find_elements(By.CSS_SELECTOR, "[data-weight]"):
            root.find_element(By.CSS_SELECTOR, '[data-stage="weights"]').click()
        values, _ = shown_weights(driver, root)
        np.testing.assert_allclose(values.sum(axis=1), 1.0, atol=1e-9)
    errors = severe(driver)
    assert not errors, f"{name} logged errors: {errors}"
