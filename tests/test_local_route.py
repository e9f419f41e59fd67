"""The README's route without `make` runs what the Makefile runs, and Linux gets CPU torch.

The Makefile's commands are read from `make -n -B` (a dry run that prints every recipe line
without running it), so a change to either the README or the Makefile that makes them part
ways fails here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from repo_paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TORCH_PIN = re.search(r"^torch==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make_dry_run(*args: str) -> list[str]:
    """The shell commands `make -n -B ARGS` prints, one logical line each."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    out = subprocess.run(
        ["make", "-n", "-B", "--no-print-directory", "VENV=.venv", "PYTEST_ARGS=", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.strip() for line in out.replace("\\\n", " ").splitlines() if line.strip()]


def _normalise(line: str) -> list[str]:
    """A command as tokens, spelled the POSIX way, without flags that change no result.

    Leading environment settings go too: the Makefile's thread counts (`NOTEBOOK_THREADS`)
    make two notebooks at once faster on 2 cores and change no output.
    """
    tokens = shlex.split(line.replace("\\", "/"), posix=True)
    while re.fullmatch(r"[A-Z_]+=\S*", tokens[0]):
        tokens.pop(0)
    tokens[0] = tokens[0].replace(".venv/Scripts/", ".venv/bin/")
    if tokens[0] == "python3":
        tokens[0] = "python"
    dropped = ("--disable-pip-version-check", "--allow-root", "--durations=25")
    return [t for t in tokens if t not in dropped]


def _readme_block(language: str) -> list[str]:
    section = README.split("## Without `make`", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(rf"```{language}\n(.*?)```", section, re.S)
    assert len(blocks) == 1, f"one {language} block under 'Without `make`'"
    return [line for line in blocks[0].splitlines() if line.strip()]


def _course_commands(lines: list[str]) -> list[list[str]]:
    """The venv, pip, pytest and jupyter commands among a Makefile's recipe lines."""
    wanted = re.compile(
        r"^([A-Z_]+=\S* )*"
        r"(\S*python3? -m (venv|pip|pytest)|\S*python3? -m kit notebooks|\S*jupyter lab)\b"
    )
    return [_normalise(line) for line in lines if wanted.match(line)]


def test_the_posix_commands_are_what_make_runs_for_install_test_and_lab():
    index = [] if sys.platform.startswith("linux") else [f"TORCH_INDEX={CPU_INDEX}"]
    made = _course_commands(_make_dry_run(*index, ".venv/.installed", "test", "lab"))
    assert [_normalise(line) for line in _readme_block("bash")] == made
    assert [c[2] for c in made[:4]] == ["venv", "pip", "pip", "pytest"]
    assert made[-1][:2] == [".venv/bin/jupyter", "lab"]


def test_the_powershell_commands_are_the_posix_ones_less_the_linux_torch_line():
    posix = [_normalise(line) for line in _readme_block("bash")]
    linux_only = [c for c in posix if "--index-url" in c]
    assert linux_only == [
        [".venv/bin/python", "-m", "pip", "install", "--no-deps"]
        + ["--index-url", CPU_INDEX, f"torch=={TORCH_PIN}+cpu"]
    ]
    powershell = _readme_block("powershell")
    assert all(line.startswith(("python ", ".venv\\Scripts\\")) for line in powershell)
    assert [_normalise(line) for line in powershell] == [c for c in posix if c not in linux_only]


def test_the_readme_says_what_root_must_add():
    assert "add `--allow-root`" in README


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the CPU index is Linux's default")
def test_linux_installs_the_pinned_torch_from_the_cpu_index_first_and_alone():
    lines = _make_dry_run(".venv/.installed")
    pips = [_normalise(line) for line in lines if " -m pip " in line]
    assert pips == [
        [".venv/bin/python", "-m", "pip", "install", "--no-deps"]
        + ["--index-url", CPU_INDEX, f"torch=={TORCH_PIN}+cpu"],
        [".venv/bin/python", "-m", "pip", "install", "-r", "requirements.txt"],
    ]


@pytest.mark.parametrize(
    ("setting", "torch"),
    [
        ("TORCH_INDEX=", None),  # PyPI's own wheel: the CUDA build on Linux
        ("TORCH_INDEX=https://download.pytorch.org/whl/cu126", f"torch=={TORCH_PIN}+cu126"),
        ("TORCH_INDEX=https://download.pytorch.org/whl/cu126/", f"torch=={TORCH_PIN}+cu126"),
    ],
)
def test_the_cuda_opt_in_installs_that_build_of_the_same_release(setting, torch):
    pips = [line for line in _make_dry_run(setting, ".venv/.installed") if " -m pip " in line]
    assert pips[-1].endswith("-r requirements.txt")
    assert [p.split()[-1] for p in pips[:-1]] == ([torch] if torch else [])


def test_the_landing_page_readme_and_contributing_all_say_make_lab():
    for name in ("book/intro.md", "README.md", "CONTRIBUTING.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert "make lab" in text, name
        assert "jupyter lab book/" not in text, f"{name}: say `make lab`, as the Makefile runs it"
