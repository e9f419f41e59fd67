"""Debian's chromium driven through selenium, offline: one discovery, one set of flags.

Used by the tests' session browser (`tests/conftest.py`) and by `make pdf`
(`kit/build_pdf.py`). Nothing is downloaded: chromium and chromedriver come from apt
(`apt-get install chromium chromium-driver`); GitHub's Ubuntu runners ship Google Chrome
and name its driver's folder in `CHROMEWEBDRIVER`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    # Every host but localhost is unreachable: nothing a page loads may come from elsewhere.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
)


def find() -> tuple[str | None, str | None, list[str]]:
    """Chromium's and chromedriver's paths, and what is missing to drive them."""
    chromium = next((path for name in NAMES if (path := shutil.which(name))), None)
    driver = shutil.which("chromedriver")
    if driver is None and os.environ.get("CHROMEWEBDRIVER"):
        driver = shutil.which("chromedriver", path=os.environ["CHROMEWEBDRIVER"])
    missing = [
        what
        for what, present in (
            ("chromium", chromium),
            ("chromedriver", driver),
            ("the selenium package", importlib.util.find_spec("selenium")),
        )
        if not present
    ]
    return chromium, driver, missing


def start(
    chromium: str, driver: str, *, window_size: str | None = None, console: bool = False
) -> Any:
    """A headless chromium with `FLAGS`; with `console`, `get_log("browser")` reads its console."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS + ((f"--window-size={window_size}",) if window_size else ()):
        options.add_argument(flag)
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)
