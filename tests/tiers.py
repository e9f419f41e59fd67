"""The tiers of tests (CONTRIBUTING.md, "Tests, in two tiers"): what puts a test in which.

`tests/conftest.py` marks tests with these rules and fails an unmarked test that starts
what only a tier may start; `tests/test_test_tiers.py` tests the rules. A module of its own,
so that tests import it (no test imports conftest).
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: The tests running now, innermost last (`tests/conftest.py` keeps it).
RUNNING: list = []
#: What an unmarked test started that its tier does not allow (kept on the test's item).
UNMARKED = pytest.StashKey[list]()
#: The markers that keep a test out of `make check` (the Makefile's FAST_TESTS says the same).
TIERS = ("kernel", "browser", "built_book", "slow")
#: Fixtures whose use puts a test in a tier.
FIXTURE_TIERS = {"browser": "browser", "browser_session": "browser"}
#: The kit's verbs that run notebooks in kernels.
KERNEL_VERBS = {"execute", "grade", "bench-grade", "compat"}
#: `make` targets (run, not dry-run with -n) by the tier they need.
MAKE_TIERS = {
    "test": "kernel", "nbval": "kernel", "execute": "kernel", "grade": "kernel",
    "grade-sandboxed": "kernel", "lab": "kernel", "compat": "kernel", "colab-check": "kernel",
    "book": "built_book", "pdf": "built_book", "serve": "built_book", "slides": "browser",
}  # fmt: skip
BROWSERS = {"chromium", "chromedriver", "chromium-browser", "google-chrome"}


def tier_of_command(argv) -> str | None:
    """The tier a test needs to run ``argv`` in a subprocess, or None for the fast tier."""
    words = [str(a) for a in (argv if isinstance(argv, (list, tuple)) else str(argv).split())]
    names = [Path(w).name for w in words]
    program = names[0] if names else ""
    if program in BROWSERS:
        return "browser"
    if {"ipykernel_launcher", "ipykernel", "grade_sandbox.sh"} & set(names) or "--nbval" in words:
        return "kernel"
    if "kit" in words and KERNEL_VERBS & set(words[words.index("kit") + 1 :][:1]):
        return "kernel"
    if program == "jupyter-book":
        return "built_book"
    if program in {"jupyter", "jupyter-lab", "jupyter-server"} and not {
        "--version",
        "kernelspec",
    } & set(words):
        return "kernel"  # a Jupyter server starts kernels; nbconvert --execute runs one
    if program == "make" and not {"-n", "--dry-run", "--just-print"} & set(words):
        targets = [MAKE_TIERS[w] for w in words[1:] if w in MAKE_TIERS]
        return targets[0] if targets else None
    if ("-m" in words and {"venv", "pip"} & set(words)) or program == "pip":
        return "slow"
    return None


#: A global name whose use puts a test in a tier: `repo_paths.HTML` is the built book.
NAME_TIERS = {"HTML": "built_book"}


def names_used(function, module_globals: dict, seen: set | None = None) -> set[str]:
    """The global and attribute names ``function`` reads, and those of the module's
    functions it calls, followed through nested functions and lambdas."""
    seen = set() if seen is None else seen
    code = getattr(function, "__code__", None)
    if code is None or code in seen:
        return set()
    seen.add(code)
    names: set[str] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack += [c for c in current.co_consts if hasattr(c, "co_names")]
    for name in list(names):
        helper = module_globals.get(name)
        if callable(helper) and getattr(helper, "__module__", None) == module_globals["__name__"]:
            names |= names_used(helper, module_globals, seen)
    return names


class TierError(RuntimeError):
    """An unmarked test started what only a slower tier may start."""
