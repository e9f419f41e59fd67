"""The tiers of tests hold: every test file is run, and `make check` starts nothing slow.

`make check` is `make test` less the tests marked with a tier (CONTRIBUTING.md, "Tests, in two
tiers"). These tests hold the three places that say so to one list (`tests/conftest.py`'s
`TIERS`, from `tests/tiers.py`; pyproject.toml's markers, the Makefile's `FAST_TESTS`), hold every test file to a
place pytest collects, and show that the guard in `tests/conftest.py` fails an unmarked
test that would start a kernel, chromium, a book build or a venv, before anything starts.
"""

from __future__ import annotations

import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
import tiers
import tomllib
from repo_paths import ROOT

CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
OPTIONS = CONFIG["ini_options"]
SKIPPED = {".git", ".venv", "node_modules", "_build", ".hypothesis", "__pycache__"}


def test_the_tiers_are_one_list_in_conftest_pyproject_and_the_makefile():
    registered = [line.split(":")[0] for line in OPTIONS["markers"]]
    assert registered == list(tiers.TIERS)
    assert "--strict-markers" in OPTIONS["addopts"], "an unregistered marker would be no tier"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    fast = re.search(r"^FAST_TESTS := (.+)$", makefile, re.M).group(1)
    assert fast == f"not ({' or '.join(tiers.TIERS)})"
    assert re.search(r'^check: .*\n\t.* -m "\$\(FAST_TESTS\)"', makefile, re.M)
    assert re.search(r"^test: .*\n\t.*pytest .*--nbval.*\\\n.*--durations=25", makefile, re.M)


def test_every_test_file_is_where_pytest_collects_it():
    """A test module outside the test paths, in a skipped folder or misnamed is in no tier."""
    roots = [ROOT / p for p in OPTIONS["testpaths"]]
    skipped = set(OPTIONS["norecursedirs"])
    stray = []
    for path in ROOT.rglob("*.py"):
        if SKIPPED & set(path.relative_to(ROOT).parts):
            continue
        defines_tests = re.search(r"^def test_", path.read_text(encoding="utf-8"), re.M)
        if not defines_tests:
            continue
        collected = (
            path.name.startswith("test_")
            and any(path.is_relative_to(r) for r in roots)
            and not skipped & set(path.relative_to(ROOT).parts[:-1])
        )
        if not collected:
            stray.append(str(path.relative_to(ROOT)))
    assert not stray, (
        f"tests that pytest never collects (name them test_*.py under tests/): {stray}"
    )


@pytest.mark.parametrize(
    "argv, tier",
    [
        ([sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"], "kernel"),
        ([sys.executable, "-m", "kit", "grade", "class/"], "kernel"),
        ([sys.executable, "-m", "kit", "execute", "book/01_why_attention.ipynb"], "kernel"),
        ([sys.executable, "-m", "pytest", "--nbval", "book"], "kernel"),
        (["/usr/bin/chromedriver", "--port=4444"], "browser"),
        ([".venv/bin/jupyter-book", "build", "."], "built_book"),
        ([sys.executable, "-m", "venv", "/tmp/v"], "slow"),
        (["pip", "install", "lessons"], "slow"),
        (["bash", "kit/grade_sandbox.sh", "class/"], "kernel"),
        ([".venv/bin/jupyter", "lab", "--no-browser"], "kernel"),
        (["make", "lab"], "kernel"),
        (["make", "book"], "built_book"),
        ([sys.executable, "-m", "pytest", "-q", "tests/checks"], None),
        ([sys.executable, "-m", "kit", "notebooks"], None),
        (["make", "-n", "-B", "grade"], None),
        (["git", "ls-files"], None),
    ],
)
def test_each_command_is_given_the_tier_it_needs(argv, tier):
    assert tiers.tier_of_command(argv) == tier


def test_an_unmarked_test_that_starts_a_kernel_fails_before_it_starts(request):
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "/nonexistent/kernel.json"]
    with pytest.raises(tiers.TierError, match=r"marked `kernel`.*@pytest.mark.kernel"):
        subprocess.Popen(argv)
    # and it fails even where its code catches the error; this test forgives itself
    assert len(request.node.stash[tiers.UNMARKED]) == 1
    del request.node.stash[tiers.UNMARKED]


def test_a_marked_test_may_start_what_its_tier_allows(monkeypatch):
    marked = SimpleNamespace(
        nodeid="t", stash=pytest.Stash(), get_closest_marker=lambda name: name == "slow" or None
    )
    monkeypatch.setattr(tiers, "RUNNING", [marked])
    done = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    assert done.returncode == 0
    with pytest.raises(tiers.TierError, match="`browser`"):
        subprocess.Popen(["chromedriver", "--port=1"])


PLANTED = """
from repo_paths import HTML
def pages():
    return sorted((HTML / "book").glob("*.html"))
def test_reads_the_book_through_a_helper():
    assert [p for p in pages() if p.suffix == ".html"]
def test_reads_nothing_built():
    assert (lambda: 1)() == 1
"""


def test_a_test_reading_the_built_book_through_a_helper_is_found_and_no_other():
    namespace = {"__name__": "planted"}
    exec(PLANTED, namespace)
    assert "HTML" in tiers.names_used(namespace["test_reads_the_book_through_a_helper"], namespace)
    assert "HTML" not in tiers.names_used(namespace["test_reads_nothing_built"], namespace)


def test_every_phony_target_has_a_rule_and_make_help_and_the_readme_name_the_fast_loop():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    phony = {n for line in re.findall(r"^\.PHONY:(.*)$", makefile, re.M) for n in line.split()}
    rules = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))
    assert not phony - rules, f".PHONY names targets with no rule: {sorted(phony - rules)}"
    helped = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True)
    listed = re.findall(r"^  make (\S+)", helped.stdout, re.M)
    assert {"check", "lint", "test"} <= set(listed), helped.stdout
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`make check`" in readme.split("## For teachers")[0]
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "## Tests, in two tiers" in contributing and all(
        f"`{t}`" in contributing for t in tiers.TIERS
    )
