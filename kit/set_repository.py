"""Move the book to another repository or branch (behind `make repository URL=... BRANCH=...`).

The repository's URL and branch are written in several places: `_config.yml` (launch
buttons, source links), every notebook's first cell and the chapter template (the Colab
bootstrap installs `lessons` from there), the landing page's clone command and
`pyproject.toml`. This rewrites every tracked text file that holds the current URL (read
from `_config.yml`), and the branch where the config and the bootstrap name it.
`tests/test_repository.py` checks that they all agree.

Usage: python -m kit repository https://github.com/OWNER/NAME [--branch BRANCH]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GITHUB_URL = re.compile(r"https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
BRANCH_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*")
CONFIG_BRANCH = re.compile(r"^(  branch: )(\S+)$", flags=re.MULTILINE)


def current(root: Path = ROOT) -> tuple[str, str]:
    """The repository URL and branch that `_config.yml` names now."""
    # Read without PyYAML, so a fork can run this before anything is installed.
    text = (root / "_config.yml").read_text(encoding="utf-8")
    block = re.search(r"^repository:\n((?:  .*\n)+)", text, flags=re.MULTILINE)
    if block is None:
        raise ValueError("_config.yml has no repository: section")
    fields = dict(re.findall(r"^  (url|branch): *(\S+)", block[1], flags=re.MULTILINE))
    return fields["url"], fields.get("branch", "main")


def tracked_text_files(root: Path = ROOT) -> list[Path]:
    """Files git tracks (or every file, outside a git checkout), text only."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout.decode()
        paths = [root / name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        paths = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    texts = []
    for path in paths:
        if path.suffix in {".png", ".svg", ".ico", ".pdf", ".woff", ".woff2"} or not path.exists():
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        texts.append(path)
    return texts


def rewrite(url: str, branch: str | None = None, root: Path = ROOT) -> list[Path]:
    """Point every place at `url` (and `branch`); return the files changed."""
    url = url.rstrip("/").removesuffix(".git")
    if not GITHUB_URL.fullmatch(url):
        raise ValueError(f"URL must look like https://github.com/OWNER/NAME, got {url!r}")
    if branch is not None and not BRANCH_NAME.fullmatch(branch):
        raise ValueError(f"BRANCH must be a git branch name, got {branch!r}")
    old_url, old_branch = current(root)
    old_name, new_name = old_url.rsplit("/", 1)[1], url.rsplit("/", 1)[1]
    changed = []
    for path in tracked_text_files(root):
        text = path.read_text(encoding="utf-8")
        new = text.replace(old_url, url)
        if new != text and old_name != new_name:
            # The clone command's folder: `cd NAME` after `git clone URL`.
            new = re.sub(rf"^cd {re.escape(old_name)}$", f"cd {new_name}", new, flags=re.M)
        if branch is not None and branch != old_branch:
            # The bootstrap cell: %pip install --quiet "git+{REPO}@<branch>" (quotes
            # escaped in JSON); only the current branch is replaced.
            bootstrap = rf'(git\+\{{REPO\}}@){re.escape(old_branch)}(\\?")'
            new = re.sub(bootstrap, rf"\g<1>{branch}\g<2>", new)
            if path.name == "_config.yml":
                new = CONFIG_BRANCH.sub(rf"\g<1>{branch}", new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="https://github.com/OWNER/NAME")
    parser.add_argument("--branch", default=None, help="the branch readers install from")
    args = parser.parse_args(argv)
    try:
        changed = rewrite(args.url, args.branch or None)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    for path in changed:
        print(f"rewrote {path.relative_to(ROOT)}")
    url, branch = current()
    print(f"The book now points at {url} (branch {branch}): {len(changed)} file(s) changed.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
