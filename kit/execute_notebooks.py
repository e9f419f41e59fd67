"""Re-run notebooks top to bottom in a fresh kernel and store their outputs (`make execute`).

Usage: python -m kit execute [--refresh-volatile] [NOTEBOOK ...]
       (default: every notebook of _toc.yml, in its order)

This is the one way authors refresh stored outputs. It records no timings and
keeps no machine-specific metadata, so running it twice leaves `git diff` empty.
Cells that start with `# NBVAL_IGNORE_OUTPUT` print measurements that change on
every run (timings); they run, but keep their stored outputs unless
`--refresh-volatile` is given (`make execute REFRESH_VOLATILE=1`). Each notebook
runs with the book/ folder as its working directory, as in the book build and
under nbval. Consecutive pieces of one stream are joined into one output: a busy
machine can deliver a cell's print in several pieces, which the book would show with
gaps and which would change the stored outputs for nothing.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from kit import course

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


VOLATILE_MARKER = "# NBVAL_IGNORE_OUTPUT"


def coalesce_streams(outputs: list) -> list:
    """Join consecutive stream outputs of the same stream (stdout, stderr) into one."""
    joined: list = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (
            last is not None
            and output.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and output.get("name") == last.get("name")
        ):
            last["text"] = "".join(last["text"]) + "".join(output["text"])
        else:
            joined.append(output)
    return joined


def execute(path: Path, refresh_volatile: bool = False) -> float:
    """Execute one notebook in place; return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    kept = {
        cell.id: cell.outputs
        for cell in nb.cells
        if cell.cell_type == "code" and cell.source.startswith(VOLATILE_MARKER) and cell.outputs
    }
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["language_info"] = LANGUAGE_INFO  # without the Python version: no churn
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
        if not refresh_volatile and cell.get("id") in kept:
            cell.outputs = kept[cell.id]  # a fresh timing would only churn the diff
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str]) -> int:
    os.environ.pop("MPLBACKEND", None)  # a non-inline backend drops every figure
    refresh = "--refresh-volatile" in argv
    paths = [Path(p) for p in argv if p != "--refresh-volatile"]
    for path in paths or course.load().notebooks:
        seconds = execute(path, refresh_volatile=refresh)
        print(
            f"{path.relative_to(ROOT) if path.is_absolute() else path}: {seconds:.1f} s", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
