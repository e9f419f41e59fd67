"""`make bench-grade`: how long `make grade` takes on a class of 30 notebooks of one chapter.

Writes a class of 30 submissions of chapter 7 (multi-head attention: a chapter that imports
torch, draws figures and builds layers, one of the heavier ones a teacher sets), each the
whole student notebook of `make assignments` (`kit/assignments.py`) answered the ways
`CLASS` lists: right in many layouts and with other tools, each named mistake of both
exercises, an edited given, a syntax error, a name error, a blank notebook and one endless
loop. It grades them once with the grader (`kit/grading/`) (`--jobs`, default one per CPU; `--timeout`,
default 60 s as `make grade`) and prints:

- wall: the run's wall-clock time, from the first kernel to the last file written;
- cpu: the CPU time (user + system) of the grader and of every kernel it ran (the process's
  own `getrusage` plus its finished children's), the whole work of the run;
- load: the machine's 1-minute load average before, during (mean and highest, sampled
  every 2 s) and after the run: on a shared machine, wall time grows with it;
- longest: the slowest single file (wall clock, as loaded as the run was);
- idle estimate: max(cpu / cores, longest), what the same run needs on `--cores` idle
  cores (default 2): the work spread over the cores, but never less than the slowest file.

Then it checks every row against `CLASS` and exits 1 if one is false, so a faster grader
cannot pass with other verdicts. A benchmark, not a test: the numbers vary with the machine
and its load. `tests/test_grade_class.py` grades a few of these students with `--jobs 1` and
`--jobs 2` and requires byte-identical files.

Usage: python -m kit bench-grade [--jobs N] [--cores N] [--timeout S] [--keep DIR]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import io
import re
import resource
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from kit import assignments
from kit.grading import batch, students
from kit.grading.run import default_jobs
from kit.grading.templates import load_templates

CHAPTER = "07_multi_head_attention"
SPLIT, COUNT = "check_split_heads", "check_head_width_parameter_count"
SPLIT_CALL = "lessons.check_split_heads(answer, X_ex, 3)"
RIGHT = ("right", set())
SOLUTION_SPLIT = "answer = X_ex.view(2, 4, 3, 2).transpose(1, 2)  # [B, h, n, d_k]"
SOLUTION_COUNT = "answer = 4 * 1024 * 32 * 128"


@dataclass(frozen=True)
class Way:
    """How a student answers one exercise: `code` in place of the placeholder line (None:
    left blank); a cell of its own `before` the exercise's cell and one `after` it; a
    `prefix` of the exercise's cell (a cell magic); whether the cell keeps the chapter's
    check call (`check`); and what the row must read: (verdict, the mistakes it must hold,
    by the checks' own names)."""

    code: str | None
    expected: tuple[str, set[str]] = RIGHT
    before: str = ""
    after: str = ""
    prefix: str = ""
    check: bool = True


def _wrong(*mistakes: str) -> tuple[str, set[str]]:
    return ("wrong", set(mistakes))


SPLITS = {
    "solution": Way(SOLUTION_SPLIT),
    "reshape_permute": Way("answer = X_ex.reshape(2, 4, 3, 2).permute(0, 2, 1, 3)"),
    "numpy": Way("answer = np.transpose(X_ex.numpy().reshape(2, 4, 3, 2), (0, 2, 1, 3))"),
    "stacked_slices": Way(
        "answer = torch.stack([X_ex[..., 2 * i : 2 * i + 2] for i in range(3)], dim=1)"
    ),
    "unflatten": Way("answer = X_ex.unflatten(-1, (3, 2)).transpose(1, 2)"),
    "einsum": Way("answer = torch.einsum('bnhd->bhnd', X_ex.view(2, 4, 3, 2))"),
    "float32_list": Way("answer = X_ex.float().view(2, 4, 3, 2).transpose(1, 2).tolist()"),
    "library": Way("answer = lessons.split_heads(X_ex, 3)"),
    "helper_cell": Way(
        "answer = split(X_ex, 3)",
        before="def split(x, h):\n"
        "    B, n, d = x.shape  # [B, n, d_model]\n"
        "    return x.view(B, n, h, d // h).transpose(1, 2)  # [B, h, n, d_k]",
    ),
    "check_below": Way(SOLUTION_SPLIT + "\nprint(answer[0, 1])", after=SPLIT_CALL, check=False),
    "time_magic": Way(SOLUTION_SPLIT, prefix="%%time\n"),
    "printed": Way(SOLUTION_SPLIT + f"\nprint({SPLIT_CALL})", check=False),
    "imported": Way(
        SOLUTION_SPLIT + "\nfrom lessons import check_split_heads\n"
        "check_split_heads(answer, X_ex, 3)",
        check=False,
    ),
    "view_without_transpose": Way(
        "answer = X_ex.reshape(2, 3, 4, 2)", _wrong("view_without_transpose")
    ),
    "heads_after_tokens": Way("answer = X_ex.view(2, 4, 3, 2)", _wrong("heads_after_tokens")),
    "strided_heads": Way(
        "answer = X_ex.view(2, 4, 2, 3).permute(0, 3, 1, 2)  # every third column",
        _wrong("other"),
    ),
    "one_sequence": Way("answer = X_ex.view(2, 4, 3, 2).transpose(1, 2)[0]", _wrong("wrong_shape")),
    "zeroed_given": Way(
        "X_ex = torch.zeros(2, 4, 6, dtype=torch.float64)  # to see the shapes\n" + SOLUTION_SPLIT,
        _wrong("given_edited"),
    ),
    "syntax_error": Way(
        "answer = X_ex.view(2, 4, 3, 2).transpose(1, 2", ("error", {"SyntaxError"})
    ),
    "name_error": Way("answer = x_ex.view(2, 4, 3, 2).transpose(1, 2)", ("error", {"NameError"})),
    "blank": Way(None, ("unanswered", set())),
}
COUNTS = {
    "solution": Way(SOLUTION_COUNT),
    "expanded": Way("answer = 3 * 1024 * 4096 + 4096 * 1024"),
    "literal": Way("answer = 16777216"),
    "numpy_int": Way("answer = np.int64(4) * 1024 * 4096"),
    "float": Way("answer = 4.0 * 1024 * 4096"),
    "layers": Way(
        "with torch.device('meta'):\n"
        "    layers = [nn.Linear(1024, 4096, bias=False) for _ in range(3)]\n"
        "    layers.append(nn.Linear(4096, 1024, bias=False))\n"
        "answer = sum(p.numel() for layer in layers for p in layer.parameters())"
    ),
    "scratch_cell": Way(
        "# worked out in the cell above",
        before="width = 32 * 128  # h d_k\nanswer = 4 * 1024 * width\nprint(f'{answer:,}')",
    ),
    "d_model_squared": Way("answer = 4 * 1024**2", _wrong("d_k_is_d_model_over_h")),
    "square_output": Way(
        "answer = 3 * 1024 * 4096 + 1024 * 1024", _wrong("square_output_projection")
    ),
    "one_head": Way("answer = 4 * 1024 * 128", _wrong("one_head")),
    "all_square": Way("answer = 4 * 4096 * 4096", _wrong("all_square_in_head_width")),
    "biases": Way("answer = 4 * 1024 * 4096 + 3 * 4096 + 1024", _wrong("biases_counted")),
    "words": Way("answer = 'sixteen million'", _wrong("not_a_whole_number")),
    "guess": Way("answer = 12345", _wrong("other")),
    "endless_loop": Way(
        SOLUTION_COUNT,
        ("timeout", {"timed_out"}),
        before="n = 0\nwhile n >= 0:  # meant to stop at 4096\n    n += 1",
    ),
    "blank": Way(None, ("unanswered", set())),
}
#: The class: (file name, how 7.1 is answered, how 7.2 is answered). Names as a plain
#: folder, Canvas's bulk download and Moodle's give them.
CLASS = [
    ("adams.ipynb", "solution", "solution"),
    ("baker.ipynb", "reshape_permute", "expanded"),
    ("chen.ipynb", "numpy", "literal"),
    ("diaz.ipynb", "stacked_slices", "numpy_int"),
    ("evans.ipynb", "unflatten", "float"),
    ("fischer.ipynb", "einsum", "layers"),
    ("garcia.ipynb", "float32_list", "solution"),
    ("hall.ipynb", "library", "d_model_squared"),
    ("ito.ipynb", "helper_cell", "one_head"),
    ("jones.ipynb", "check_below", "scratch_cell"),
    ("kim.ipynb", "time_magic", "all_square"),
    ("lopez.ipynb", "printed", "biases"),
    ("mensah.ipynb", "imported", "words"),
    ("nguyen.ipynb", "view_without_transpose", "solution"),
    ("okafor.ipynb", "heads_after_tokens", "expanded"),
    ("patel.ipynb", "strided_heads", "guess"),
    ("quinn.ipynb", "one_sequence", "literal"),
    ("rossi.ipynb", "zeroed_given", "solution"),
    ("silva.ipynb", "syntax_error", "solution"),
    ("tanaka.ipynb", "name_error", "d_model_squared"),
    ("usman.ipynb", "blank", "blank"),
    ("vega.ipynb", "solution", "endless_loop"),
    ("walshanna_2101_6101_07_multi_head_attention.ipynb", "solution", "one_head"),
    ("xuming_LATE_2102_6102_07_multi_head_attention.ipynb", "heads_after_tokens", "solution"),
    ("yilmazderya_2103_6103_07_multi_head_attention-1.ipynb", "reshape_permute", "layers"),
    ("Zoe Adler_3101_assignsubmission_file_07_multi_head_attention.ipynb", "solution", "solution"),
    ("Amir Haddad_3102_assignsubmission_file_/ch7.ipynb", "numpy", "square_output"),
    ("Beatriz Costa_3103_assignsubmission_file_ch07.ipynb", "view_without_transpose", "guess"),
    ("Chidi Obi_3104_assignsubmission_file_ch07.ipynb", "helper_cell", "biases"),
    ("Dana Levi_3105_assignsubmission_file_ch07.ipynb", "time_magic", "literal"),
]


def _cell(nb: nbformat.NotebookNode, check: str) -> nbformat.NotebookNode:
    return [c for c in nb.cells if c.cell_type == "code" and f"{check}(" in c.source][-1]


def answer(nb: nbformat.NotebookNode, check: str, way: Way) -> None:
    """Answer `check`'s exercise in `nb` the `way` says."""
    cell = _cell(nb, check)
    if way.code is not None:
        placeholder = re.search(r"^(\w+) = (\.\.\.|None)[^\n]*$", cell.source, re.M)
        if placeholder is None:
            raise ValueError(f"{CHAPTER}: no placeholder line in the cell of {check}")
        cell.source = cell.source.replace(placeholder.group(0), way.code, 1)
    if not way.check:  # the chapter's call gone: the cell ends where its last statement starts
        last = ast.parse(cell.source).body[-1]
        cell.source = "\n".join(cell.source.splitlines()[: last.lineno - 1])
    cell.source = way.prefix + cell.source
    index = nb.cells.index(cell)
    if way.after:
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(way.after))
    if way.before:
        nb.cells.insert(index, nbformat.v4.new_code_cell(way.before))


def student_notebook(tmp: Path) -> nbformat.NotebookNode:
    """Chapter 7's student notebook, as `make assignments` writes it."""
    assignments.write_all([assignments.ROOT / "book" / f"{CHAPTER}.ipynb"], tmp)
    return nbformat.read(tmp / "student" / f"{CHAPTER}.ipynb", as_version=4)


def write_class(
    folder: Path, student: nbformat.NotebookNode, names: list[str] | None = None
) -> dict[str, dict[str, tuple[str, set[str]]]]:
    """Write the class (or the students `names` of it) into `folder`; return what each
    student's rows must read: {student key: {exercise: (verdict, mistakes)}}."""
    expected = {}
    for name, split, count in CLASS:
        if names is not None and name not in names:
            continue
        nb = copy.deepcopy(student)
        answer(nb, SPLIT, SPLITS[split])
        answer(nb, COUNT, COUNTS[count])
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        key = students.student_of(Path(name)).key
        expected[key] = {"7.1": SPLITS[split].expected, "7.2": COUNTS[count].expected}
    return expected


def false_rows(rows: list, expected: dict) -> list[str]:
    """The rows that do not read as `expected` says (a right row must carry no flag)."""
    by = {(r.student, r.exercise): r for r in rows}
    false = []
    for student, exercises in expected.items():
        for exercise, (verdict, mistakes) in exercises.items():
            row = by.get((student, exercise))
            if row is None:
                false.append(f"{student} {exercise}: no row")
                continue
            got = set(row.mistakes)
            ok = row.verdict == verdict and mistakes <= got
            if verdict == "right":
                ok = ok and not got
            elif "given_edited" not in mistakes:
                ok = ok and "given_edited" not in got
            if not ok:
                false.append(f"{student} {exercise}: {row.verdict} {sorted(got)} {row.message}")
    extra = {r.student for r in rows} - set(expected)
    false += [f"{s}: graded, but not in the class" for s in sorted(extra)]
    return false


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=None, help="as python -m kit grade's --jobs")
    parser.add_argument("--cores", type=int, default=2, help="idle cores to estimate for (2)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per cell (60)")
    parser.add_argument("--keep", type=Path, help="write the class and its run here, and keep it")
    args = parser.parse_args(argv)
    jobs = default_jobs() if args.jobs is None else args.jobs
    with contextlib.ExitStack() as stack:
        if args.keep:
            base = args.keep
            shutil.rmtree(base, ignore_errors=True)
            base.mkdir(parents=True)
        else:
            base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-grade-")))
        folder = base / "class"
        folder.mkdir()
        expected = write_class(folder, student_notebook(base / "assignments"))
        templates = load_templates()  # the grader's own start, not timed
        samples: list[float] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(2):
                samples.append(_load())

        before = _load()
        sampler = threading.Thread(target=sample, daemon=True)
        seconds: dict[str, float] = {}
        cpu, start = _cpu(), time.monotonic()
        sampler.start()
        with contextlib.redirect_stdout(io.StringIO()):
            rows, _, run = batch.grade(folder, args.timeout, jobs, templates, seconds=seconds)
        wall, cpu = time.monotonic() - start, _cpu() - cpu
        stop.set()
        sampler.join()
        after = _load()
        false = false_rows(rows, expected)
    longest = max(seconds, key=seconds.get)
    estimate = max(cpu / args.cores, seconds[longest])
    during = f"mean {sum(samples) / len(samples):.1f}, max {max(samples):.1f}" if samples else "-"
    print(
        f"bench-grade: {len(CLASS)} notebooks of {CHAPTER}, --jobs {jobs}, --timeout {args.timeout:g}"
    )
    print(f"  wall      {wall:6.1f} s")
    print(f"  cpu       {cpu:6.1f} s  (grader and kernels, user + system)")
    print(f"  load      before {before:.1f}, during {during}, after {after:.1f}")
    print(f"  longest   {seconds[longest]:6.1f} s  ({longest})")
    print(
        f"  idle estimate on {args.cores} cores: {estimate:.0f} s = max(cpu / {args.cores}, longest)"
    )
    print(f"  verdicts  {len(false)} false of {2 * len(CLASS)} rows")
    for line in false:
        print("   ", line)
    if args.keep:
        print(f"  the class and its run: {run}")
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
