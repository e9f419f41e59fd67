"""Shared test set-up: hypothesis settings, and the one browser every browser test drives.

The browser is Debian's chromium, driven through selenium and chromedriver (nothing is
downloaded), started once per test session with the flags of `kit/chromium.py`: headless, and every host
but localhost unreachable, so a page that works here works offline. Where chromium,
chromedriver or selenium is missing, the tests that ask for `browser` are skipped with the
reason printed (pytest's `-rs`, in pyproject.toml's addopts); with REQUIRE_BROWSER_TESTS=1 in the environment (CI) they fail.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# Deterministic example generation: the same examples on every run and machine.
settings.register_profile("course", derandomize=True, deadline=None, max_examples=60)
settings.load_profile("course")

# The browser's discovery and flags are `kit/chromium.py`'s, shared with `make pdf`.
from repo_paths import ROOT  # noqa: E402

from kit import chromium  # noqa: E402


@pytest.fixture(scope="session")
def browser_session():
    """One headless chromium for the whole session (per xdist worker); quit at the end."""
    binary, chromedriver, missing = chromium.find()
    if missing:
        reason = (
            f"browser tests need {', '.join(missing)} "
            "(apt-get install chromium chromium-driver; pip install selenium)"
        )
        if os.environ.get("REQUIRE_BROWSER_TESTS") == "1":
            pytest.fail(f"REQUIRE_BROWSER_TESTS=1, but {reason}", pytrace=False)
        pytest.skip(reason)
    driver = chromium.start(binary, chromedriver, window_size="1280,1000", console=True)
    yield driver
    driver.quit()


@pytest.fixture
def browser(browser_session):
    """The session's browser, its console log emptied so a test sees only its own messages."""
    browser_session.get_log("browser")
    return browser_session


@pytest.fixture(scope="session")
def standalone_page(tmp_path_factory):
    """``make(body, title)``: the ``file://`` address of a bare page holding ``body``."""

    def make(body: str, title: str) -> str:
        path = tmp_path_factory.mktemp("page") / "page.html"
        path.write_text(
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{title}</title></head><body><main>{body}</main></body></html>",
            encoding="utf-8",
        )
        return path.as_uri()

    return make


@pytest.fixture(scope="session")
def axe_script() -> str:
    """axe-core's script (`npm ci` installs it); missing, a skip or, in CI, a failure."""
    path = ROOT / "node_modules" / "axe-core" / "axe.min.js"
    if not path.exists():
        reason = "axe-core is not installed (npm ci installs it; make book runs npm ci)"
        if os.environ.get("REQUIRE_BROWSER_TESTS") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return path.read_text(encoding="utf-8")
