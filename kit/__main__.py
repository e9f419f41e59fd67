"""``python -m kit VERB [ARGS]``: one entry point for every tool, as the Makefile calls them."""

from __future__ import annotations

import importlib
import sys

# verb -> (module, what it does). Each module has `main(argv)`.
VERBS: dict[str, tuple[str, str]] = {
    "execute": ("kit.execute_notebooks", "re-run every notebook in a fresh kernel, store outputs"),
    "figure-text": ("kit.figure_text", "measure the text size of every stored figure"),
    "notebooks": ("kit.reader_notebooks", "write the reader notebooks into _build/notebooks"),
    "assignments": ("kit.assignments", "write student and solution notebooks"),
    "grade": ("kit.grading.cli", "grade a folder of submitted notebooks"),
    "gradebook": ("kit.grading.points", "print a points-file template"),
    "slides": ("kit.slides", "write one reveal.js deck per chapter"),
    "guide": ("kit.instructor_guide", "rewrite the generated part of the instructor's guide"),
    "intro": (
        "kit.chapter_lists",
        "rewrite the intro's chapter lists; check the cheat sheet and notation",
    ),
    "pdf": ("kit.build_pdf", "print the single-page book to a PDF"),
    "compat": ("kit.compat", "run lessons' tests at pyproject.toml's lower bounds"),
    "repository": ("kit.set_repository", "point the book at another repository"),
    "weights": ("kit.train_lm", "retrain chapter 12's language model"),
    "bench-pages": ("kit.bench_pages", "time chapter 12 and the explorer in chromium"),
    "bench-grade": ("kit.bench_grade", "time the grader on a class of 30 notebooks"),
}


def usage() -> str:
    rows = "\n".join(f"  {verb:<12} {what}" for verb, (_, what) in VERBS.items())
    return f"usage: python -m kit VERB [ARGS]\n\nverbs:\n{rows}\n"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(usage(), end="")
        return 0 if argv else 2
    verb, rest = argv[0], argv[1:]
    if verb not in VERBS:
        print(f"python -m kit: no verb {verb!r}\n\n{usage()}", end="", file=sys.stderr)
        return 2
    module = importlib.import_module(VERBS[verb][0])
    sys.argv[0] = f"python -m kit {verb}"  # what argparse shows in each tool's usage line
    return module.main(rest) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
