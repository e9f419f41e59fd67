"""Shared test set-up: the tiers' markers, hypothesis settings, and the one browser.

Tiers (CONTRIBUTING.md, "Tests, in two tiers"): `make check` runs the tests without the
markers `kernel`, `browser`, `built_book` and `slow` (pyproject.toml registers them). A test
that asks for the `browser` fixture is marked `browser` here, and nbval's notebook cells
`kernel`, and one that reads `repo_paths.HTML` (itself, through a fixture or a helper of its
module) `built_book`. Every other mark is written in the test file, and checked while the tests run:
a test that starts a Jupyter kernel, chromium, a notebook run, the book's build, a venv, pip
or another pytest without its marker fails, naming the marker it needs (`guard_tiers`).

The browser is Debian's chromium, driven through selenium and chromedriver (nothing is
downloaded), started once per test session with the flags of `kit/chromium.py`: headless, and every host
but localhost unreachable, so a page that works here works offline. Where chromium,
chromedriver or selenium is missing, the tests that ask for `browser` are skipped with the
reason printed (pytest's `-rs`, in pyproject.toml's addopts); with REQUIRE_BROWSER_TESTS=1 in the environment (CI) they fail.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

# Deterministic example generation: the same examples on every run and machine.
settings.register_profile("course", derandomize=True, deadline=None, max_examples=60)
settings.load_profile("course")

# The browser's discovery and flags are `kit/chromium.py`'s, shared with `make pdf`.
import tiers  # noqa: E402
from repo_paths import HTML, ROOT  # noqa: E402
from tiers import FIXTURE_TIERS, NAME_TIERS, TierError, names_used, tier_of_command  # noqa: E402

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


# --- the tiers ---------------------------------------------------------------------------


_FUNCTION_TIERS: dict = {}


def _tiers_of_function(function) -> frozenset[str]:
    """The tiers of what ``function`` reads (`NAME_TIERS`), worked out once per function."""
    if function not in _FUNCTION_TIERS:
        module = getattr(function, "__globals__", None)
        found: set[str] = set()
        if module is not None and "__name__" in module:
            used = names_used(function, module)
            found = {tier for name, tier in NAME_TIERS.items() if name in used}
            # a module's own path into the built book (`BUILT = HTML / "book"`) counts as HTML
            if any(
                isinstance(module.get(n), Path) and module[n].is_relative_to(HTML) for n in used
            ):
                found.add("built_book")
        _FUNCTION_TIERS[function] = frozenset(found)
    return _FUNCTION_TIERS[function]


def _tiers_by_use(item) -> set[str]:
    """The tiers of what a test's function and fixtures read."""
    functions = [getattr(item, "obj", None)]
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info else ():
        functions += [d.func for d in defs]
    return set().union(*(_tiers_of_function(f) for f in functions if f is not None))


def pytest_collection_modifyitems(config, items):
    for item in items:
        tiers = {t for f, t in FIXTURE_TIERS.items() if f in getattr(item, "fixturenames", ())}
        if type(item).__module__.startswith("nbval"):
            tiers.add("kernel")
        tiers |= _tiers_by_use(item)
        for tier in sorted(tiers):
            item.add_marker(tier)


_popen_init = subprocess.Popen.__init__


def _guarded_popen_init(self, args, *rest, **kwargs):
    tier = tier_of_command(args)
    # Storing the grader's kernel transcripts runs kernels on purpose (tests/kernel_transcripts.py).
    storing = os.environ.get("LESSONS_WRITE_TRANSCRIPTS") == "1"
    if (
        tiers.RUNNING
        and tier is not None
        and not storing
        and tiers.RUNNING[-1].get_closest_marker(tier) is None
    ):
        item = tiers.RUNNING[-1]
        message = (
            f"{item.nodeid} runs {str(args)[:120]!r}, which only a test marked "
            f"`{tier}` may (CONTRIBUTING.md, 'Tests, in two tiers'): add "
            f"@pytest.mark.{tier} to it, or `pytestmark = pytest.mark.{tier}` to its file"
            + (
                " (a grader test replays stored kernel transcripts: after changing a check or "
                "the grader's kernel side, store them again as tests/kernel_transcripts.py says)"
                if tier == "kernel" and "test_grade" in item.nodeid
                else ""
            )
        )
        item.stash.setdefault(tiers.UNMARKED, []).append(
            message
        )  # failed even if the error is caught
        raise TierError(message)
    _popen_init(self, args, *rest, **kwargs)


subprocess.Popen.__init__ = _guarded_popen_init


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """While ``item`` runs (its fixtures included), its subprocesses are held to its tier."""
    tiers.RUNNING.append(item)
    try:
        yield
    finally:
        tiers.RUNNING.pop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that started what its tier forbids fails, even where its code caught the error."""
    outcome = yield
    report = outcome.get_result()
    unmarked = item.stash.get(tiers.UNMARKED, [])
    if unmarked and report.passed and call.when != "teardown":
        report.outcome = "failed"
        report.longrepr = "\n".join(unmarked)
