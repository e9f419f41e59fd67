"""The submissions folder: who sent which file, and the run folders under `grading/`."""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from pathlib import Path

from kit.grading.students import student_of


def submissions(folder: Path) -> list[tuple[Path, str]]:
    """(file, student) for each `*.ipynb` (see `students.student_of` for the names)."""
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts) or relative.parts[0] == "grading":
            continue  # .ipynb_checkpoints, earlier results
        found.append((path, student_of(relative).key))
    return found


def new_run_folder(folder: Path, now: datetime | None = None) -> Path:
    """`folder/grading/<UTC date-time>/`, never an existing one; `grading/latest` points at it."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H-%M-%SZ")
    base = folder / "grading"
    run = base / stamp
    n = 2
    while run.exists():
        run = base / f"{stamp}-{n}"
        n += 1
    run.mkdir(parents=True)
    latest = base / "latest"
    with contextlib.suppress(OSError):
        if latest.is_symlink() or latest.exists():
            latest.unlink()
        latest.symlink_to(run.name, target_is_directory=True)
    (base / "LATEST").write_text(run.name + "\n", encoding="utf-8")
    return run


def latest_run(folder: Path) -> Path | None:
    marker = folder / "grading" / "LATEST"
    if not marker.is_file():
        return None
    run = folder / "grading" / marker.read_text(encoding="utf-8").strip()
    return run if (run / "grades.json").is_file() else None
