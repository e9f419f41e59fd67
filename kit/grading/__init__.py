"""Grade a class's submitted notebooks: one row per student and exercise, each mistake named.

`make grade SUBMISSIONS=folder` runs this. SECURITY: a submission is code, and grading runs
it. Grade an untrusted class inside the sandbox (`make grade-sandboxed`, `kit/grade_sandbox.sh`:
no network, read-only system, nothing of yours visible but the submissions) or in a throw-away
container or VM that holds nothing else.

Input: every `*.ipynb` in the folder (not in `grading/`, where the results go). A file directly
in it is one student's notebook; a subfolder is one student with any number of chapters. Names
from a learning platform's bulk download are read as students (`students.py`): Canvas's
`name_userid_submissionid_file.ipynb` (also `name_LATE_...`) and Moodle's
`Full Name_participantid_assignsubmission_file_file.ipynb` (or that name as a folder), so the
exports can carry each student's platform id. Otherwise the student is the file's stem, or
the subfolder's name.

Which chapter a notebook is: the student notebooks of `make assignments` carry their
chapter's id in their metadata (`metadata.lessons.chapter`). Where an editor dropped it, the
chapter is found by content: among the chapters whose title (`# ...`) or one of whose checks
the notebook shows, the one sharing the most code lines with it. A notebook that matches none
gets one `error` row, mistake `unknown_chapter`; a file that is not a notebook one `error` row,
mistake `not_a_notebook`.

How a notebook is graded: as a fresh kernel reads it. The grader runs the submission's code
cells as they are, in order, in a fresh kernel (`python3`, a new temporary working folder).
Nothing of the student's is removed or rewritten: a check called through `print(...)`, under
`%%time`, imported by name (`from lessons import check_x`) or called twice is just code. The
grader's first cell wraps every `lessons.check_*` the kernel can reach (`kernel_side.py`):
each call records what it received, bound to the check's parameters. After every cell that
names an exercise's check (and, where none does, after the last code cell under the
exercise's heading), a grader cell shows the calls of that check made since its last one,
each value in a plain form (numbers, text, array bytes). A call is matched to the chapter's
check call (`lessons.check_attention(answer, Q_ex, K_ex, V_ex)`) by parameter, so an answer
under another name or written inline, givens renamed, or keywords in another order are all
the same call. Where the check was never called, the arguments of the chapter's call are
read by their names in the student's namespace, but only where every name holding the
answer was last set (statically: the cells' code) under that exercise's heading or in the
cell itself; otherwise the exercise is `unanswered`, its message saying where the name was
set. A value is never judged for an exercise it was not checked for.

The verdict is reached outside the kernel: the grader calls the check in its own process on
those values, so patching `lessons` inside the notebook fakes nothing. The givens (every
argument that is not the student's answer) are compared by value with the chapter's own, whatever the student named them: the grader
first runs the chapter itself (`book/NN_*.ipynb`, solutions included) the same way, once per
run, and keeps each exercise's givens. A given that differs (a zeroed `V_ex`) is replaced by
the chapter's for the verdict, so an answer built on it is `wrong`, with the fault
`given_edited` and a message naming it; an input the exercise invites the student to choose
(its line says "your own", as `snippet = given_snippet  # or a snippet of your own` in
Exercise 12.3) is the student's to change. Where an answer cannot leave the kernel (a
function, as `my_softmax` of Exercise 2.3), the check runs in the kernel with the checks
`lessons` held before the first submitted cell; a patched checking function is noticed
(fault `tampered`, verdict `error`), but a determined student who reads this file can still
fake those exercises' verdicts from inside the kernel: read the code of a surprising result
(book/instructor_guide.md, "What a determined student can fake").

An exercise checked several times gets its best verdict (`right` if any check of it is
right: each is the grader's own evaluation of the notebook's state), else its last.

Verdicts (`grades.csv` column `verdict`): `right`, `wrong`, `unanswered` (from the check);
`error`; `timeout`. Column `mistake`: the check's name for the mistake, and the faults, joined
by `;`:

- `given_edited`: a given differs from the chapter's (judged with the chapter's);
- `tampered`: the kernel's checking code was patched (named in the message);
- `check_deleted` (verdict `error`): no cell of the exercise is left to grade;
- an exception's type (verdict `error`), raised by the cell that checks the exercise, when
  its answer is not right; exceptions in other cells never stop the notebook and are noted
  in the next exercise's message;
- `timed_out` (verdict `timeout`): a cell ran past `--timeout` seconds (default 60); the
  kernel is interrupted and the next cell runs, so an endless loop costs the exercise whose
  check comes next, not the rest of the notebook. A kernel that ignores the interrupt, or a
  notebook past `--notebook-timeout` (default 600 s), is stopped: what is not graded by then
  gets `timeout`;
- `kernel_died`, `not_a_notebook`, `unknown_chapter`, `no_checks`.

Output: a new folder per run, `SUBMISSIONS/grading/<date-time>/` (earlier runs are kept;
`grading/latest` points at the newest): `grades.csv` (`student,notebook,exercise,verdict,
mistake`), `grades.json` (the same rows with `check`, `message`, `points` and the student's
platform ids), `summary.md` (also printed: per chapter, the verdicts per exercise, then every
named mistake counted in words from the checks' catalogue, the most common first, then the
faults), and the gradebook (`exports.py`, `points.py`, `feedback.py`): `gradebook.csv` (one row per student with
totals), `canvas.csv`, `moodle_<chapter>.csv` and `feedback/<student>.html`. Points come from
`--points FILE` (`python -m kit gradebook --points-template` writes one); without it every
exercise is worth one point.

`--jobs N` runs N notebooks at once (default: one per CPU this process may use), each in its
own fresh kernel with one thread (`OMP_NUM_THREADS=1` unless set); each chapter's own run
goes first, beside the first students' kernels. The rows and every file written are the same
whatever N is. `make bench-grade` (`kit/bench_grade.py`) times a class of 30.

`--student NAME` regrades that student's files only and copies everyone else's rows from the
latest run into a new run. One broken submission never stops the batch.

A dry run before a class: `make grade SUBMISSIONS=_build/assignments/solutions` (after
`make assignments`); every exercise of every chapter should come out `right`.

Usage: python -m kit grade SUBMISSIONS [--timeout S] [--notebook-timeout S] [--jobs N]
       [--points FILE] [--student NAME] [--out DIR]
"""
