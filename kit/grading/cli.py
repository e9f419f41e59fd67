"""`python -m kit grade SUBMISSIONS ...`: the command line of the grader."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import kit.grading
from kit.grading.batch import grade
from kit.grading.run import default_jobs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=kit.grading.__doc__.split("\n\n")[0])
    parser.add_argument("submissions", type=Path, help="the folder of submitted notebooks")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per cell (default 60)")
    parser.add_argument(
        "--notebook-timeout", type=float, default=600, help="seconds per notebook (default 600)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help=f"notebooks run at once, each in its own kernel (default: the CPUs, {default_jobs()})",
    )
    parser.add_argument(
        "--points", type=Path, help="points per exercise (TOML; kit/grading/points.py)"
    )
    parser.add_argument("--student", help="regrade this student only, into a new run")
    parser.add_argument("--out", type=Path, help="write the run here (default: a new folder)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        print(f"grade: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    if args.timeout <= 0 or args.notebook_timeout <= 0:
        print("grade: --timeout and --notebook-timeout must be > 0", file=sys.stderr)
        return 2
    if args.jobs is not None and args.jobs < 1:
        print("grade: --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        rows, text, run = grade(
            args.submissions,
            args.timeout,
            args.jobs,
            notebook_timeout=args.notebook_timeout,
            points=args.points,
            student=args.student,
            out=args.out,
        )
    except ValueError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 2
    print(text)
    print(f"wrote the grades, the gradebook and the feedback into {run}")
    return 0
