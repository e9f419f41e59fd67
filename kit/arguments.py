"""The command line every tool over the chapters takes: `[NOTEBOOK ...] [--out FOLDER]`."""

from __future__ import annotations

import argparse
from pathlib import Path


def chapter_arguments(
    doc: str, out: Path, argv: list[str] | None, every: str = "every chapter"
) -> argparse.Namespace:
    """`notebooks` (default: none given, meaning `every`) and `--out` (default `out`), parsed
    from `argv` with the tool's docstring's first paragraph as its description."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help=f"default: {every}")
    parser.add_argument(
        "--out", type=Path, default=out, help=f"default: {out.parent.name}/{out.name}"
    )
    return parser.parse_args(argv)
