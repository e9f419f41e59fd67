"""Where things are, for every test: defined here once.

Test modules import these names (`from repo_paths import ROOT`); pytest puts this
folder on `sys.path` (rootdir-relative "prepend" import mode), as it does for conftest.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
BOOK = ROOT / "book"  # the chapters and reference pages
HTML = ROOT / "_build" / "html"  # the built book (`make book`)
EXTENSIONS = ROOT / "_ext"  # the book's own Sphinx extensions
