"""The tests start chromium in one place, with one skip-or-fail policy (tests/conftest.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from repo_paths import ROOT

TESTS = ROOT / "tests"
USES_BROWSER = "def test_uses_the_browser(browser):\n    assert browser is not None\n"


def test_only_conftest_starts_chromium_or_sets_its_flags():
    starts = re.compile(r"webdriver\.Chrome\(|ChromeOptions\(|--head[l]ess|host-resolver-rule[s]")
    sources = [*TESTS.glob("*.py"), *(ROOT / "kit").rglob("*.py")]
    found = sorted(p.name for p in sources if starts.search(p.read_text("utf-8")))
    assert found == ["chromium.py"]  # the flags and the start, for the tests and make pdf
    uses = re.compile(r"^from kit import chromium\b", re.M)
    assert sorted(p.name for p in sources if uses.search(p.read_text("utf-8"))) == [
        "bench_pages.py",
        "build_pdf.py",
        "conftest.py",
    ]


def test_no_test_imports_conftest():
    imports = re.compile(r"^\s*(from conftest import|import conftest)", re.MULTILINE)
    assert [p.name for p in TESTS.glob("*.py") if imports.search(p.read_text("utf-8"))] == []


def run_without_a_browser(tmp_path, require: bool) -> subprocess.CompletedProcess:
    """Run a test that asks for `browser`, with this conftest and nothing on PATH."""
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_it.py").write_text(USES_BROWSER, encoding="utf-8")
    (tmp_path / "empty").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "REQUIRE_BROWSER_TESTS"}
    env["PATH"] = str(tmp_path / "empty")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(TESTS)])  # for the copy
    if require:
        env["REQUIRE_BROWSER_TESTS"] = "1"
    command = [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist"]
    return subprocess.run(
        [*command, "test_it.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("require", [False, True], ids=["skips", "fails-when-required"])
def test_without_chromium_browser_tests_skip_with_the_reason_or_fail_when_required(
    tmp_path, require
):
    result = run_without_a_browser(tmp_path, require)
    reason = "browser tests need chromium, chromedriver"
    assert reason in result.stdout, result.stdout
    if require:
        assert result.returncode == 1 and "1 error" in result.stdout, result.stdout
        assert "REQUIRE_BROWSER_TESTS=1" in result.stdout
    else:
        assert result.returncode == 0 and "1 skipped" in result.stdout, result.stdout


def test_paths_are_defined_once_in_repo_paths():
    defines = re.compile(
        r"^(ROOT|BOOK|HTML)\s*=|Path\(__file__\)\.resolve\(\)\.parent\.parent", re.M
    )
    found = sorted(p.name for p in TESTS.glob("*.py") if defines.search(p.read_text("utf-8")))
    assert found == ["repo_paths.py"]
