"""Every notebook runs where only Colab's packages are installed (slow: `make colab-check`).

A fresh virtual environment gets only what Colab has (numpy, torch, matplotlib,
seaborn, ipykernel: no myst_nb, no jupyter-book, none of the test tools) at the
versions pinned in requirements.txt, then `pip install .` of this checkout, which is
what each chapter's first cell does from the repository URL. Every notebook must
then run top to bottom in a kernel of that environment. Skipped unless
COLAB_LIKE=1; `.ci/run` always runs it.

What runs is each notebook's reader copy, written into `_build/notebooks/` as
`make notebooks` does (`kit/reader_notebooks.py`): that is the file the Colab and
Binder buttons open. Its code cells are the book notebook's, cell for cell
(`tests/test_reader_notebooks.py` checks it), so this run covers both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from repo_paths import BOOK, ROOT

from kit import reader_notebooks

# Colab also ships transformers, which chapter 13 compares with (it installs it only when missing).
COLAB_PACKAGES = ("numpy", "torch", "matplotlib", "seaborn", "ipykernel", "transformers")
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("COLAB_LIKE") != "1",
        reason="slow: run with `make colab-check` (COLAB_LIKE=1)",
    ),
    pytest.mark.slow,  # a fresh venv with Colab's packages
    pytest.mark.kernel,  # every notebook run in it
]


def _pins() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    pins = [line for line in lines if line.split("==")[0].lower() in COLAB_PACKAGES]
    assert len(pins) == len(COLAB_PACKAGES), pins
    return pins


@pytest.fixture(scope="session")
def colab_kernel(tmp_path_factory) -> tuple[str, dict]:
    """A kernel named 'colab' in a fresh venv holding Colab's packages and `lessons`."""
    venv = tmp_path_factory.mktemp("colab") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *_pins()], check=True)
    source = tmp_path_factory.mktemp("source")  # a copy, so the build leaves no trace here
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "lessons", source / "lessons", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run([*pip, str(source)], check=True)  # a plain install, as on Colab
    check = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('myst_nb') is None)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert check.stdout.strip() == "True", "myst_nb must not be installed in the Colab-like venv"
    share = venv / "share" / "jupyter"
    subprocess.run(
        [str(python), "-m", "ipykernel", "install", "--prefix", str(venv), "--name", "colab"],
        check=True,
        capture_output=True,
    )
    env = {**os.environ, "JUPYTER_PATH": str(share)}
    env.pop("MPLBACKEND", None)
    return "colab", env


@pytest.fixture(scope="session")
def reader_copies() -> Path:
    """The reader notebooks, written where `make notebooks` writes them."""
    reader_notebooks.write_all(NOTEBOOKS, reader_notebooks.OUT, log=lambda _: None)
    return reader_notebooks.OUT


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_with_only_colabs_packages(
    path, colab_kernel, reader_copies, monkeypatch, tmp_path
):
    kernel, env = colab_kernel
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(reader_copies / path.name, as_version=4)
    client = NotebookClient(
        nb, kernel_name=kernel, timeout=300, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert errors == [], json.dumps(errors)[:500]


# A question and chapter 11's lab, built as a chapter would build them.
WIDGETS = """
import lessons
from lessons.checks.ch05 import attention_weight_mistakes
Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
K = [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
A = lessons.attention(Q, K, K)[1]
question = lessons.question("Predict A.", A, mistakes=attention_weight_mistakes(Q, K))
x, y = lessons.position_task(200, seed=3)
lab = lessons.lab(lessons.hand_built_position_model(), x, y)
"""


def test_questions_and_the_lab_show_the_same_html_with_only_colabs_packages(
    colab_kernel, monkeypatch, tmp_path
):
    kernel, env = colab_kernel
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(WIDGETS + "display(question)\ndisplay(lab)")]
    )
    client = NotebookClient(
        nb, kernel_name=kernel, timeout=300, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    shown = [
        o["data"]["text/html"] for o in nb.cells[0].outputs if "text/html" in o.get("data", {})
    ]
    here: dict = {}
    exec(WIDGETS, here)  # the same code with this checkout's lessons
    assert shown == [here["question"]._repr_html_(), here["lab"]._repr_html_()]
