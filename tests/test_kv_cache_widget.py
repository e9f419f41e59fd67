"""Chapter 13's KV-cache calculator widget: the page computes what `lessons.kv_cache_bytes` does.

The widget lives in the page machinery (`lessons/book/widgets/kv_cache.py`); where that
package is not there yet, these tests are skipped with the reason printed.
"""

from __future__ import annotations

import pytest

from lessons.kv_cache import PUBLISHED, CacheLayout, kv_cache_bytes

kv_widget = pytest.importorskip(
    "lessons.book.widgets.kv_cache", reason="lessons.book.widgets is not in this checkout"
)


def test_the_html_is_the_same_on_every_run_and_names_no_host():
    first, second = kv_widget.kv_cache_widget(), kv_widget.kv_cache_widget()
    html = first._repr_html_()
    assert html == second._repr_html_()
    assert "http" not in html and "data-kv-cache-widget" in html
    assert repr(first).startswith("KVCacheWidget(models=['Llama 3 8B'")


@pytest.fixture
def loaded(browser, standalone_page):
    widget = kv_widget.kv_cache_widget()._repr_html_()
    browser.get(standalone_page(widget + widget, "KV cache"))  # two widgets, independent
    return browser


def _result(root, name):
    node = root.find_element("css selector", f'[data-result="{name}"]')
    return int(node.get_attribute("data-bytes"))


def _choose(root, text):
    from selenium.webdriver.support.ui import Select

    Select(root.find_element("css selector", '[data-field="model"]')).select_by_visible_text(text)


@pytest.mark.parametrize("model", PUBLISHED, ids=lambda m: m.name)
def test_every_published_model_gives_the_calculators_bytes_in_the_page(loaded, model):
    roots = loaded.find_elements("css selector", "[data-kv-cache-widget]")
    assert [r.get_attribute("data-ready") for r in roots] == ["true", "true"]
    _choose(roots[0], model.name)
    assert _result(roots[0], "per_token") == kv_cache_bytes(model, 1)
    assert _result(roots[0], "total") == kv_cache_bytes(model, 131072)
    assert model.source.split(":")[0] in roots[0].text
    assert _result(roots[1], "per_token") == kv_cache_bytes(PUBLISHED[0], 1)  # untouched
    assert loaded.get_log("browser") == []


def test_a_reader_can_type_a_configuration_of_their_own(loaded):
    root = loaded.find_element("css selector", "[data-kv-cache-widget]")
    for name, value in {"layers": 10, "kv_heads": 4, "head_dim": 64, "window": 100,
                        "windowed_layers": 6, "latent": 0, "tokens": 5000}.items():  # fmt: skip
        box = root.find_element("css selector", f'[data-field="{name}"]')
        box.clear()
        box.send_keys(str(value))
    mine = CacheLayout("mine", layers=10, kv_heads=4, head_dim=64, window=100, windowed_layers=6)
    assert _result(root, "total") == kv_cache_bytes(mine, 5000)
    assert "your own" in root.text.lower()
