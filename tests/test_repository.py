"""Every place that names the book's repository names the same one, and `make repository` moves them all."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import tomllib
import yaml
from repo_paths import ROOT

from kit import set_repository

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
URL, BRANCH = CONFIG["repository"]["url"], CONFIG["repository"]["branch"]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb")) + [ROOT / "templates/chapter_template.ipynb"]
REPO_LINE = re.compile(r'^REPO = "([^"]+)"$', re.M)
PIP_LINE = re.compile(r'%pip install --quiet "git\+\{REPO\}@([^"]+)"')


def _bootstrap(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "".join(next(c for c in cells if c["cell_type"] == "code")["source"])


def _places(root: Path) -> dict[str, tuple[str, ...]]:
    """(url, branch) or (url,) as each place names them."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    places = {"_config.yml": (config["repository"]["url"], config["repository"]["branch"])}
    for path in NOTEBOOKS:
        source = _bootstrap(root / path.relative_to(ROOT))
        places[path.name] = (*REPO_LINE.findall(source), *PIP_LINE.findall(source))
    template = (root / "templates/chapter_template.py").read_text(encoding="utf-8")
    places["chapter_template.py"] = (*REPO_LINE.findall(template), *PIP_LINE.findall(template))
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    places["pyproject.toml"] = (pyproject["project"]["urls"]["Homepage"],)
    intro = (root / "book/intro.md").read_text(encoding="utf-8")
    places["intro.md"] = tuple(re.findall(r"^git clone (\S+)$", intro, flags=re.M))
    return places


def test_every_place_names_the_configs_repository_and_branch():
    for place, named in _places(ROOT).items():
        expected = (URL,) if len(named) == 1 else (URL, BRANCH)
        assert named == expected, f"{place} names {named}, _config.yml {expected}"


def test_the_landing_pages_clone_command_enters_the_cloned_folder():
    intro = (ROOT / "book/intro.md").read_text(encoding="utf-8")
    assert f"git clone {URL}\ncd {URL.rsplit('/', 1)[1]}\n" in intro


@pytest.fixture
def copy(tmp_path) -> Path:
    """The tracked text files of this checkout, copied (no git: the tool walks the folder)."""
    for path in set_repository.tracked_text_files(ROOT):
        target = tmp_path / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return tmp_path


def test_make_repository_moves_every_place_and_back(copy):
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    # Built from parts, so this file does not hold the fork's URL that the way back replaces.
    fork = "/".join(("https://github.com", "a-teacher", "attention-course"))
    changed = set_repository.rewrite(fork + ".git", "spring-2027", root=copy)
    assert {p.name for p in changed} >= {"_config.yml", "pyproject.toml", "intro.md"}
    for place, named in _places(copy).items():
        expected = (fork,) if len(named) == 1 else (fork, "spring-2027")
        assert named == expected, f"{place} still names {named}"
    assert not any(URL in p.read_text(encoding="utf-8") for p in changed)
    assert "cd attention-course\n" in (copy / "book/intro.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:  # still valid notebooks, outputs untouched
        json.loads((copy / path.relative_to(ROOT)).read_text(encoding="utf-8"))
    set_repository.rewrite(URL, BRANCH, root=copy)
    after = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert after == before, "moving there and back must restore every byte"


@pytest.mark.parametrize(
    ("url", "branch", "message"),
    [
        ("git@github.com:a/b.git", None, "URL must look like"),
        ("https://gitlab.com/a/b", None, "URL must look like"),
        ("https://github.com/a/b", "two words", "BRANCH must be"),
    ],
)
def test_make_repository_rejects_what_colab_and_binder_cannot_open(copy, url, branch, message):
    with pytest.raises(ValueError, match=message):
        set_repository.rewrite(url, branch, root=copy)
