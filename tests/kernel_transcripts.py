"""Kernel transcripts: what a graded notebook's kernel showed, stored, to test judging without kernels.

The grader is build (the graded copy) -> execute (a kernel) -> collect, judge and report.
Only `execute` needs a kernel, and what it leaves is small: each cell's errors and the
capture records the grader cells show, and how the run went (`Run`). `Transcripts`
stands in for `execute`: for a graded notebook it has seen, it puts back the outputs the
kernel gave; for one it has not, it runs the kernel and keeps the transcript. A notebook
is known by its graded cells' sources (the run's token written `TOKEN`) and by the code the
kernel runs to judge (`kit/grading/kernel_side.py` is in every graded copy; the
`lessons.checks` sources are added), so a changed submission, grader cell or check is run
afresh, never replayed stale.

`tests/fixtures/kernel_transcripts.json.gz` holds the transcripts of tests/test_grade.py's
submissions; a test that needs one that is not stored runs its kernel (correct, slower) and
says so at the end of the session. To store them again after changing the grader's kernel
side, a check, or those submissions:

    rm tests/fixtures/kernel_transcripts.json.gz
    LESSONS_WRITE_TRANSCRIPTS=1 .venv/bin/python -m pytest -n 0 tests/test_grade.py \
        tests/test_grade_class.py -k "not class and not sandbox"

(each test adds what it used to what is stored; removing the file first drops stale ones).
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import os
import random
import re
import threading
import time
from dataclasses import asdict
from pathlib import Path

import nbformat
from repo_paths import ROOT

from kit.grading import reference, run
from kit.grading.instrument import MIME

STORE = ROOT / "tests" / "fixtures" / "kernel_transcripts.json.gz"
TOKEN = re.compile(r"_lessons_grader_([0-9a-f]+)")


def _salt() -> str:
    """The sources the kernel judges with (beyond the graded cells): the checks."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "lessons" / "checks").glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _token(graded: nbformat.NotebookNode) -> str:
    return TOKEN.search(graded.cells[0].source).group(1)


def key_of(graded: nbformat.NotebookNode, timeout: float, salt: str) -> str:
    token = _token(graded)
    digest = hashlib.sha256(salt.encode() + f"\0{timeout:g}\0".encode())
    for cell in graded.cells:
        digest.update(cell.source.replace(token, "TOKEN").encode() + b"\0")
    return digest.hexdigest()


def _kept(output: dict, token: str) -> dict | None:
    """An output `collect` reads (an error, a capture record), the token written `TOKEN`."""
    if output.get("output_type") == "error":
        return {k: output.get(k) for k in ("output_type", "ename", "evalue")} | {"traceback": []}
    data = output.get("data", {})
    if MIME in data and isinstance(data[MIME], dict) and data[MIME].get("token") == token:
        record = copy.deepcopy(data[MIME])
        record["token"] = "TOKEN"
        return {"output_type": "display_data", "data": {MIME: record}, "metadata": {}}
    return None


class Transcripts:
    """`execute` from stored transcripts where they match, from a kernel where they do not."""

    def __init__(self, path: Path = STORE, jitter: float = 0.0):
        self.path, self.jitter = path, jitter  # jitter: a replay waits up to that many s
        self.salt = _salt()
        self.stored = json.loads(gzip.decompress(path.read_bytes())) if path.is_file() else {}
        self.used: dict[str, dict] = {}
        self.ran: list[str] = []  # notebooks that needed a kernel
        self.lock = threading.Lock()

    def execute(self, graded, timeout: float, notebook_timeout: float) -> run.Run:
        key = key_of(graded, timeout, self.salt)
        token = _token(graded)
        with self.lock:
            entry = self.stored.get(key)
        if entry is None:
            result = run.execute(graded, timeout, notebook_timeout)
            outputs = [
                [kept for o in cell.get("outputs", []) if (kept := _kept(o, token))]
                for cell in graded.cells
            ]
            entry = {"outputs": outputs, "run": asdict(result)}
            with self.lock:
                self.ran.append(graded.cells[-1].source[:60])
        with self.lock:
            self.used[key] = entry
        for cell, outputs in zip(graded.cells, entry["outputs"], strict=True):
            shown = json.loads(json.dumps(outputs).replace('"TOKEN"', json.dumps(token)))
            cell.outputs = [nbformat.from_dict(o) for o in shown]
        if self.jitter:  # replays finish out of order, as kernels do
            time.sleep(random.Random(key).random() * self.jitter)
        return run.Run(**entry["run"])

    def install(self, monkeypatch) -> None:
        """Grade through these transcripts (the batch's and the chapter's own runs)."""
        from kit.grading import batch

        monkeypatch.setattr(batch, "execute", self.execute)
        monkeypatch.setattr(reference, "execute", self.execute)
        monkeypatch.setattr(reference, "_references", {})  # the chapter's run replayed too

    def finish(self) -> str:
        """Store the transcripts used (when asked); a note on what needed a kernel."""
        if os.environ.get("LESSONS_WRITE_TRANSCRIPTS") == "1":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            on_disk = (
                json.loads(gzip.decompress(self.path.read_bytes())) if self.path.is_file() else {}
            )
            text = json.dumps(on_disk | self.used, sort_keys=True, separators=(",", ":"))
            self.path.write_bytes(gzip.compress(text.encode(), mtime=0))
            return (
                f"stored {len(self.used)} kernel transcripts in {self.path} (with the others there)"
            )
        if self.ran:
            return (
                f"{len(self.ran)} graded notebooks had no stored kernel transcript and ran in a "
                "kernel; store them with LESSONS_WRITE_TRANSCRIPTS=1 (tests/kernel_transcripts.py)"
            )
        return ""
