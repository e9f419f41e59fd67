"""Shared test set-up: hypothesis settings, and the one browser every browser test drives.

The browser is Debian's chromium, driven through selenium and chromedriver (nothing is
downloaded), started once per test session with the flags below: headless, and every host
but localhost unreachable, so a page that works here works offline. Where chromium,
chromedriver or selenium is missing, the tests that ask for `browser` are skipped with the
reason printed (pytest's `-rs`, in pyproject.toml's addopts); with REQUIRE_BROWSER_TESTS=1 in the environment (CI) they fail.
"""

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest
from hypothesis import settings

# Deterministic example generation: the same examples on every run and machine.
settings.register_profile("course", derandomize=True, deadline=None, max_examples=60)
settings.load_profile("course")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
BROWSER_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--window-size=1280,1000",
    # Every host but localhost is unreachable: nothing a page loads may come from elsewhere.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
)


def find_browser() -> tuple[str | None, str | None, list[str]]:
    """Chromium's and chromedriver's paths on PATH, and what is missing to drive them."""
    chromium = next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)
    chromedriver = shutil.which("chromedriver")
    missing = [
        what
        for what, present in (
            ("chromium", chromium),
            ("chromedriver", chromedriver),
            ("the selenium package", importlib.util.find_spec("selenium")),
        )
        if not present
    ]
    return chromium, chromedriver, missing


@pytest.fixture(scope="session")
def browser_session():
    """One headless chromium for the whole session (per xdist worker); quit at the end."""
    chromium, chromedriver, missing = find_browser()
    if missing:
        reason = (
            f"browser tests need {', '.join(missing)} "
            "(apt-get install chromium chromium-driver; pip install selenium)"
        )
        if os.environ.get("REQUIRE_BROWSER_TESTS") == "1":
            pytest.fail(f"REQUIRE_BROWSER_TESTS=1, but {reason}", pytrace=False)
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in BROWSER_FLAGS:
        options.add_argument(flag)
    # Lets tests read the page's console with driver.get_log("browser").
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def browser(browser_session):
    """The session's browser, its console log emptied so a test sees only its own messages."""
    browser_session.get_log("browser")
    return browser_session
