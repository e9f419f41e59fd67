"""`python -m kit VERB`: one entry point for the tools, and the Makefile calls only verbs it has."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

from repo_paths import ROOT

from kit.__main__ import VERBS


def test_every_verb_names_a_module_with_a_main():
    for verb, (module, _) in VERBS.items():
        assert callable(getattr(importlib.import_module(module), "main", None)), verb


def test_the_makefile_calls_only_verbs_the_kit_has():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    called = set(re.findall(r"-m kit ([a-z-]+)", makefile))
    assert called, "the Makefile calls no `python -m kit VERB`"
    assert called <= set(VERBS), f"verbs the kit does not have: {called - set(VERBS)}"
    assert "tools/" not in makefile


def test_an_unknown_verb_lists_the_verbs_and_fails():
    run = subprocess.run(
        [sys.executable, "-m", "kit", "no-such-verb"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 2
    assert "no verb 'no-such-verb'" in run.stderr and "grade" in run.stderr
