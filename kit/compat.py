"""Prove `lessons` at the oldest versions it claims (behind `make compat`; slow, not in make test).

`pyproject.toml` gives `lessons` loose lower bounds (`numpy>=1.24`, ...) so that it installs
over Colab's packages. This makes a fresh virtual environment holding exactly those lower
bounds (wheels only), installs `lessons` there from a copy of this checkout, runs every
test of `lessons` in it, then runs every notebook top to bottom in a kernel of it. Outputs
may differ from the stored ones (older libraries round differently); errors may not.

Usage: python -m kit compat [--venv _build/venv-compat] [--reuse] [--skip-notebooks] [--list-tests]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
# What the tests and the notebooks need beside lessons' own dependencies; the newest
# releases that pip finds compatible with the lower bounds.
TEST_TOOLS = ("pytest", "hypothesis", "ipykernel", "seaborn")
# Test modules that drive a browser, read the notebooks or the workflows need the book's
# toolchain, not lessons' dependencies: they run in `make test` only.
NEEDS_TOOLCHAIN = re.compile(r"^\s*(import|from)\s+(selenium|nbformat|nbclient|yaml)\b", re.M)
USES_LESSONS = re.compile(r"^\s*(import|from)\s+lessons\b", re.M)


def lower_bounds(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """`name==version` for each `name>=version` dependency of lessons."""
    spec = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    pins = []
    for requirement in spec["project"]["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", requirement)
        if match is None:
            raise ValueError(f"pyproject.toml: {requirement!r} is not a plain lower bound")
        pins.append(f"{match[1]}=={match[2]}")
    return pins


def lessons_tests(tests: Path = ROOT / "tests") -> list[Path]:
    """The test modules of `lessons` that need nothing but its dependencies and pytest.

    Sub-folders count (`tests/checks/`: the self-checks' tests), but not `tests/fixtures/`.
    """
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        if "fixtures" in path.relative_to(tests).parts:
            continue
        source = path.read_text(encoding="utf-8")
        if USES_LESSONS.search(source) and not NEEDS_TOOLCHAIN.search(source):
            found.append(path)
    return found


def _run(command: list[str], **kwargs) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def release(version: str) -> tuple[int, ...]:
    """`2.1.0+cpu` -> (2, 1): the release numbers, local label and trailing zeros dropped."""
    numbers = [int(part) for part in re.findall(r"\d+", version.split("+")[0])]
    while numbers and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def make_venv(venv: Path, reuse: bool = False) -> Path:
    """A fresh venv at the lower bounds with lessons installed; returns its python."""
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    if not (reuse and python.exists()):
        shutil.rmtree(venv, ignore_errors=True)
        _run([sys.executable, "-m", "venv", str(venv)])
        _run([*pip, "--only-binary=:all:", *lower_bounds(), *TEST_TOOLS])
    with tempfile.TemporaryDirectory() as tmp:  # a copy, so the build leaves no trace here
        source = Path(tmp)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, source / name)
        shutil.copytree(
            ROOT / "lessons", source / "lessons", ignore=shutil.ignore_patterns("__pycache__")
        )
        _run([*pip, str(source)])
    # The versions that matter must be exactly the lower bounds, whatever else pip chose.
    versions = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installed = dict(line.lower().split("==", 1) for line in versions.splitlines() if "==" in line)
    for pin in lower_bounds():
        name, wanted = pin.lower().split("==")
        got = installed.get(name, "missing")
        if release(got) != release(wanted):  # torch may be 2.1.0+cpu
            raise SystemExit(f"asked for {pin}, the venv has {name} {got}")
        print(f"  {name}=={got}")
    return python


def run_tests(python: Path) -> None:
    tests = [str(p.relative_to(ROOT)) for p in lessons_tests()]
    where = subprocess.run(
        [str(python), "-c", "import lessons; print(lessons.__file__)"],
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(f"lessons is imported from {where}")
    if Path(where).resolve().is_relative_to(ROOT / "lessons"):
        raise SystemExit("the compat venv imports this checkout, not the installed package")
    # `-P`: do not put the working directory on sys.path, so `import lessons` finds the
    # installed package, as a reader's would.
    _run([str(python), "-P", "-m", "pytest", "-q", *tests], cwd=ROOT)


def run_notebooks(python: Path, venv: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    _run(
        [str(python), "-m", "ipykernel", "install", "--prefix", str(venv), "--name", "compat"],
        stdout=subprocess.DEVNULL,
    )
    os.environ["JUPYTER_PATH"] = str(venv / "share" / "jupyter")
    os.environ.pop("MPLBACKEND", None)
    failures = []
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            client = NotebookClient(
                nb, kernel_name="compat", timeout=300, resources={"metadata": {"path": tmp}}
            )
            try:
                client.execute()
                status = "ok"
            except Exception as error:  # a cell raised: report it, go on with the rest
                status = f"FAILED: {str(error).strip().splitlines()[-1]}"
                failures.append(path.name)
        print(f"  {path.name}: {status} ({time.perf_counter() - start:.1f} s)", flush=True)
    if failures:
        raise SystemExit(f"{len(failures)} notebook(s) fail at the lower bounds: {failures}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / "_build" / "venv-compat")
    parser.add_argument("--skip-notebooks", action="store_true")
    parser.add_argument(
        "--reuse", action="store_true", help="keep an existing venv instead of making it afresh"
    )
    parser.add_argument(
        "--list-tests", action="store_true", help="print the test modules of lessons and stop"
    )
    args = parser.parse_args(argv)
    if args.list_tests:  # CI's OS matrix runs these at the pinned versions
        print(" ".join(p.relative_to(ROOT).as_posix() for p in lessons_tests()))
        return 0
    start = time.perf_counter()
    python = make_venv(args.venv.resolve(), reuse=args.reuse)
    print(f"venv ready in {time.perf_counter() - start:.0f} s", flush=True)
    run_tests(python)
    if not args.skip_notebooks:
        run_notebooks(python, args.venv.resolve())
    print(f"lessons works at {', '.join(lower_bounds())} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
