"""The grader (`make grade SUBMISSIONS=folder`, `kit/grading/`) on generated submissions.

Every submission is made here from `make assignments`' own machinery: chapter 2's student
notebook (a short chapter), its answers filled in from the chapter's solutions, or driven to
each named mistake of Exercise 2.1 that the checks' catalogue lists, laid out as students lay
them out (a scratch cell, a function in its own cell, a second checking cell, `print`,
`%%time`, a check imported by name), its check called as students call it (answers under
other names or inline, keywords, renamed or edited givens, a stale `answer`), or broken on
purpose (edited givens, a patched check, an endless loop). The whole grader runs on them,
except the kernels: what each kernel showed is replayed from stored transcripts
(`tests/kernel_transcripts.py`; a notebook without one runs in a kernel), so judging,
reporting and the gradebook are tested in seconds. The blank notebook is the student
notebook as handed out, whole; the others keep only its set-up, its imports and the
exercises. A few tests need no grading run (how a notebook is matched to its chapter, where
the grader's cells go, how givens are compared, how a call is matched to the chapter's).

One class graded in real kernels end to end, the gradebook and its exports are
tests/test_grade_class.py.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import csv
import io
import json
import pickle
import re
import subprocess
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest
from kernel_transcripts import Transcripts
from repo_paths import ROOT

import kit.grading
from kit import assignments
from kit.grading import cli, instrument, report, runs
from kit.grading.decode import Opaque, decode, same
from kit.grading.points import template_text
from kit.grading.rows import COLUMNS, FAULTS, VERDICTS, Row
from kit.grading.templates import Template, load_template, load_templates, match_chapter
from lessons.checks import catalogue, ch02  # noqa: E402

CHAPTER = "02_dot_products_and_softmax"
NUMBER = 2
SOURCE = ROOT / "book" / f"{CHAPTER}.ipynb"
# Exercise 2.1: the entry x of b = [3, x, -1] with a · b = 0 for a = [1, -2, 4].
A, B, K = [1, -2, 4], [3, 0, -1], 1
PERPENDICULAR = "check_perpendicular_entry"
KEY = "check_key_for_scores"
SOFTMAX = "check_softmax_function"
# Answers that give the catalogue's generic mistakes of Exercise 2.1.
GENERIC_ANSWERS = {
    "not_a_number": "'minus one half'",
    "wrong_shape": "[-0.5, -0.5]",
    "not_finite": "float('nan')",
    "other": "42.0",
}
COLUMN_SOFTMAX = (
    "def my_softmax(x):\n"
    "    e = np.exp(x - x.max())\n"
    "    return e / e.sum(axis=0, keepdims=True)  # down the columns"
)


def _mistake_answers() -> dict[str, str]:
    """Mistake name -> an answer of Exercise 2.1 that makes it (Python source)."""
    answers = {
        name: repr(float(candidate))
        for name, (candidate, _) in ch02.perpendicular_entry_mistakes(A, B, K).items()
    }
    return {**answers, **GENERIC_ANSWERS}


def _wanted_mistakes() -> list[str]:
    return list(catalogue()[NUMBER][PERPENDICULAR])


# --- generated submissions -----------------------------------------------------------------


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> nbformat.NotebookNode:
    out = tmp_path_factory.mktemp("assignments")
    assignments.write_all([SOURCE], out)
    return nbformat.read(out / "student" / SOURCE.name, as_version=4)


@pytest.fixture(scope="module")
def solutions() -> dict[str, str]:
    """Check name -> its exercise's solution, less its check call: what a student writes."""
    nb = nbformat.read(SOURCE, as_version=4)
    found = {}
    for exercise in assignments.find_exercises(nb, SOURCE.name):
        for reader, solution in zip(exercise.reader_cells, exercise.solution_cells, strict=False):
            name = re.search(r"\b(check_\w+)\(", nb.cells[reader].source).group(1)
            lines = nb.cells[solution].source.rstrip().splitlines()
            assert lines[-1].startswith(f"lessons.{name}("), "a solution ends with its check"
            found[name] = "\n".join(lines[:-1])
    assert set(found) == {PERPENDICULAR, KEY, SOFTMAX}
    return found


def _cell(nb: nbformat.NotebookNode, check: str) -> nbformat.NotebookNode:
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and f"{check}(" in c.source]
    return cell


def _fill(nb, check: str, code: str) -> None:
    """Put `code` in place of the placeholder line of `check`'s exercise cell."""
    cell = _cell(nb, check)
    placeholder = re.search(r"^(\w+) = (\.\.\.|None)[^\n]*$", cell.source, re.M)
    assert placeholder, f"no placeholder in the cell of {check}"
    cell.source = cell.source.replace(placeholder.group(0), code, 1)


def _answer(nb, check: str, value: str) -> None:
    """`answer = value` (source) in place of the placeholder of `check`'s exercise cell."""
    _fill(nb, check, f"answer = {value}")


def _short(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student notebook less the chapter's own code: set-up, imports, exercises (faster)."""
    nb = copy.deepcopy(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    keep = {id(c) for c in code[:2]} | {
        id(_cell(nb, check)) for check in (PERPENDICULAR, KEY, SOFTMAX)
    }
    nb.cells = [c for c in nb.cells if c.cell_type == "markdown" or id(c) in keep]
    return nb


SCRATCH_ANSWER = "x = (1 * 3 + 4 * -1) / 2  # a . b = 0 for b = [3, x, -1]\nanswer = x"
LAYOUTS = {
    # The answer computed in a scratch cell above; the exercise cell keeps only the check.
    "scratch_cell_above": (PERPENDICULAR, "scratch"),
    # The function in a cell of its own above; the exercise cell sets nothing.
    "function_in_own_cell": (SOFTMAX, "function_above"),
    # The answer in the exercise cell, the check in a second cell below.
    "check_in_cell_below": (KEY, "check_below"),
    "print_of_the_check": (KEY, "print"),
    "cell_magic_time": (KEY, "time"),
    "check_imported_by_name": (KEY, "import"),
    "rechecked_twice": (PERPENDICULAR, "recheck"),
    # `%reset -f` first, as some learners start a notebook: the grader's own cell survives it.
    "reset_at_the_top": (PERPENDICULAR, "reset"),
}


def _layout(nb, check: str, how: str, solutions) -> None:
    """Lay out a right answer of `check`'s exercise as a student might."""
    cell = _cell(nb, check)
    index = nb.cells.index(cell)
    call = cell.source.strip().splitlines()[-1]
    if how == "scratch":
        nb.cells.insert(index, nbformat.v4.new_code_cell(SCRATCH_ANSWER))
        cell.source = call  # the placeholder line deleted
    elif how == "function_above":
        nb.cells.insert(index, nbformat.v4.new_code_cell(solutions[check]))
        cell.source = call
    elif how == "check_below":
        _fill(nb, check, solutions[check])
        cell.source = cell.source.replace(call, "")
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(call))
    elif how == "print":
        _fill(nb, check, solutions[check])
        cell.source = cell.source.replace(call, f"print({call})")
    elif how == "time":
        _fill(nb, check, solutions[check])
        cell.source = "%%time\n" + cell.source
    elif how == "import":
        _fill(nb, check, solutions[check])
        bare = call.replace("lessons.", "", 1)
        cell.source = cell.source.replace(call, f"from lessons import {check}\n\n{bare}")
    elif how == "reset":
        _fill(nb, check, solutions[check])
        first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
        nb.cells.insert(first, nbformat.v4.new_code_cell("%reset -f"))
    elif how == "recheck":
        _fill(nb, check, solutions[check])
        nb.cells.append(nbformat.v4.new_code_cell(f"# checking again\n{call}"))


def _class(student, solutions) -> dict[str, nbformat.NotebookNode]:
    """Student -> submitted notebook, one for each scenario of the main batch."""
    right = _short(student)
    for check, code in solutions.items():
        _fill(right, check, code)
    mistakes = _mistake_answers()
    wanted = _wanted_mistakes()
    missing = [m for m in wanted if m not in mistakes]
    assert missing == [], f"no answer of Exercise 2.1 drives the mistakes {missing}"
    short = _short(student)
    submitted = {"all_right": right, "all_blank": copy.deepcopy(student)}  # blank: as handed out
    for n, name in enumerate(wanted):
        nb = copy.deepcopy(short)
        _answer(nb, PERPENDICULAR, mistakes[name])
        submitted[f"mistake_{n:02d}_{name}"] = nb
    for name, (check, how) in LAYOUTS.items():
        nb = _short(student)
        _layout(nb, check, how, solutions)
        submitted[f"layout_{name}"] = nb
    first, second, third = (submitted[f"mistake_{n:02d}_{wanted[n]}"] for n in range(3))
    # An exception in Exercise 2.2; Exercise 2.3 after it is still graded (right).
    _answer(first, KEY, "1 / 0")
    _fill(first, SOFTMAX, solutions[SOFTMAX])
    # The check call replaced by a print (the answer right all the same); a check redefined
    # to fake a verdict; no chapter id in the metadata (matched by content).
    _fill(second, KEY, solutions[KEY])
    cell = _cell(second, KEY)
    cell.source = cell.source.replace(
        "lessons.check_key_for_scores(answer, Q_ex, wanted)", 'print("all good")'
    )
    assert "all good" in cell.source
    _cell(second, SOFTMAX).source = (
        "lessons.check_softmax_function = lambda fn: '✔ Correct.'\n" + _cell(second, SOFTMAX).source
    )
    del second.metadata["lessons"]
    # The cell of Exercise 2.2 deleted; Exercise 2.3 down the columns; an error before both.
    third.cells.remove(_cell(third, KEY))
    _fill(third, SOFTMAX, COLUMN_SOFTMAX)
    broken = nbformat.v4.new_code_cell('raise RuntimeError("a cell the student broke")')
    third.cells.insert(third.cells.index(_cell(third, PERPENDICULAR)), broken)
    # Edited givens: the scores to reach changed, the answer built on them.
    edited = _short(student)
    _fill(edited, KEY, "wanted = Q_ex @ np.array([1.0, 1.0])\nanswer = np.array([1.0, 1.0])")
    _answer(edited, PERPENDICULAR, "-0.5")
    submitted["edited_given"] = edited
    # A given made float32 and a tensor: the same values, not an edit.
    recast = _short(student)
    _fill(recast, KEY, "Q_ex = torch.tensor(Q_ex, dtype=torch.float32)\n" + solutions[KEY])
    submitted["recast_given"] = recast
    # Patching the checks' comparison inside the kernel: wrong answers stay wrong.
    patched = _short(student)
    _answer(patched, PERPENDICULAR, "7.0")
    _cell(patched, PERPENDICULAR).source = (
        "import lessons.checks.verdict as v\nv.close = lambda *args, **kwargs: True\n"
        + _cell(patched, PERPENDICULAR).source
    )
    _fill(patched, SOFTMAX, COLUMN_SOFTMAX)
    submitted["patched_close"] = patched
    submitted.update(_calls_as_students_write_them(student, solutions))
    return submitted


KEY_SOLUTION = "np.linalg.solve(Q_ex, wanted)"  # the key k with Q_ex @ k = wanted
SOFTMAX_SOURCE = (
    "def soft(x):\n    e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
    "    return e / e.sum(axis=-1, keepdims=True)"
)
#: Student -> {exercise: (verdict, mistakes)}: check calls as students write them (issue 42).
CALLS = {
    # Answers under other names, `answer` still holding 2.1's number when 2.2 is checked.
    "calls_other_names": {"2.1": ("right", ""), "2.2": ("right", ""), "2.3": ("right", "")},
    # Answers passed inline, `answer` never set.
    "calls_inline": {"2.1": ("right", ""), "2.2": ("right", ""), "2.3": ("right", "")},
    # Keywords, in another order than the chapter's.
    "calls_keywords": {"2.2": ("right", "")},
    # The givens renamed (the old names deleted) and passed under the new names.
    "calls_renamed_givens": {"2.2": ("right", "")},
    # Renamed and edited: caught by value, named by the chapter's name.
    "calls_renamed_and_edited": {"2.2": ("wrong", "given_edited")},
    # A constant of the call edited: judged with the chapter's, flagged.
    "calls_edited_constant": {"2.1": ("wrong", "given_edited")},
    # 2.2's check never called, `answer` left from 2.1: not judged as 2.2's.
    "calls_never_called_stale": {"2.1": ("right", ""), "2.2": ("unanswered", "")},
    # A check called twice in one cell, a slip then the right answer: its best.
    "calls_twice_in_a_cell": {"2.1": ("right", "")},
    # The check called from a helper function defined in the exercise's cell.
    "calls_through_a_helper": {"2.2": ("right", "")},
    # The check imported under another name in a cell above, called by that name.
    "calls_aliased_import": {"2.2": ("right", "")},
}


def _calls_as_students_write_them(student, solutions) -> dict[str, nbformat.NotebookNode]:
    out = {}

    def cell(nb, check, source):
        _cell(nb, check).source = source

    nb = _short(student)
    _answer(nb, PERPENDICULAR, "-0.5")
    _fill(nb, KEY, f"key = {KEY_SOLUTION}")
    _cell(nb, KEY).source = _cell(nb, KEY).source.replace("(answer, Q_ex", "(key, Q_ex")
    cell(nb, SOFTMAX, SOFTMAX_SOURCE + "\n\n\nlessons.check_softmax_function(soft)")
    out["calls_other_names"] = nb
    nb = _short(student)
    cell(nb, PERPENDICULAR, "lessons.check_perpendicular_entry(-1 / 2, [1, -2, 4], [3, 0, -1], 1)")
    source = _cell(nb, KEY).source.replace("answer = ...  # your key, a vector of 2 numbers\n", "")
    cell(nb, KEY, source.replace("(answer, Q_ex", f"({KEY_SOLUTION}, Q_ex"))
    cell(nb, SOFTMAX, "lessons.check_softmax_function(lambda x: lessons.softmax(x, axis=-1))")
    out["calls_inline"] = nb
    nb = _short(student)
    _fill(nb, KEY, f"key = {KEY_SOLUTION}")
    source = _cell(nb, KEY).source
    cell(nb, KEY, source.replace("(answer, Q_ex, wanted)", "(scores=wanted, answer=key, Q=Q_ex)"))
    out["calls_keywords"] = nb
    nb = _short(student)
    _fill(nb, KEY, "Q, s = Q_ex, wanted\ndel Q_ex, wanted\nanswer = np.linalg.solve(Q, s)")
    cell(nb, KEY, _cell(nb, KEY).source.replace("(answer, Q_ex, wanted)", "(answer, Q, s)"))
    out["calls_renamed_givens"] = nb
    nb = _short(student)
    _fill(nb, KEY, "Q, s = Q_ex, Q_ex @ np.array([1.0, 1.0])\nanswer = np.array([1.0, 1.0])")
    cell(nb, KEY, _cell(nb, KEY).source.replace("(answer, Q_ex, wanted)", "(answer, Q, s)"))
    out["calls_renamed_and_edited"] = nb
    nb = _short(student)
    _answer(nb, PERPENDICULAR, "-1.0")  # right for a = [1, -2, 5]
    source = _cell(nb, PERPENDICULAR).source
    cell(nb, PERPENDICULAR, source.replace("[1, -2, 4]", "[1, -2, 5]"))
    out["calls_edited_constant"] = nb
    nb = _short(student)
    _answer(nb, PERPENDICULAR, "-0.5")
    cell(nb, KEY, "# Exercise 2.2: I will come back to it")
    out["calls_never_called_stale"] = nb
    nb = _short(student)
    source = _cell(nb, PERPENDICULAR).source.replace("answer = ...", "answer = 0.5")
    cell(nb, PERPENDICULAR, source + "\nanswer = -0.5\n" + source.splitlines()[-1])
    out["calls_twice_in_a_cell"] = nb
    nb = _short(student)
    _fill(nb, KEY, "def try_key(k):\n    return lessons.check_key_for_scores(k, Q_ex, wanted)")
    cell(
        nb,
        KEY,
        _cell(nb, KEY).source.replace(
            "lessons.check_key_for_scores(answer, Q_ex, wanted)", f"try_key({KEY_SOLUTION})"
        ),
    )
    out["calls_through_a_helper"] = nb
    nb = _short(student)
    _fill(nb, KEY, f"answer = {KEY_SOLUTION}")
    cell(nb, KEY, _cell(nb, KEY).source.replace("lessons.check_key_for_scores(", "try_it("))
    index = nb.cells.index(_cell(nb, PERPENDICULAR))
    nb.cells.insert(index, nbformat.v4.new_code_cell(f"from lessons import {KEY} as try_it"))
    out["calls_aliased_import"] = nb
    return out


def _latest(folder) -> Path:
    return folder / "grading" / (folder / "grading" / "LATEST").read_text().strip()


def _run(folder, *args) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert cli.main([str(folder), *args]) == 0
    return printed.getvalue()


@pytest.fixture(scope="module")
def transcripts():
    """The kernels' transcripts of this module's notebooks, replayed (tests/kernel_transcripts.py)."""
    store = Transcripts()
    with pytest.MonkeyPatch.context() as patch:
        store.install(patch)
        yield store
    note = store.finish()
    if note:
        warnings.warn(note, stacklevel=1)


@pytest.fixture(scope="module")
def batch(tmp_path_factory, student, solutions, transcripts):
    """The main batch, graded once: (rows by (student, exercise), JSON rows, summary, printed)."""
    folder = tmp_path_factory.mktemp("submissions")
    for name, nb in _class(student, solutions).items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    (folder / "not_json.ipynb").write_text("print('this is no notebook')\n", encoding="utf-8")
    (folder / "json_not_notebook.ipynb").write_text('{"cells": 3}', encoding="utf-8")
    unknown = nbformat.v4.new_notebook()
    unknown.cells = [nbformat.v4.new_code_cell("print('hello')")]
    nbformat.write(unknown, folder / "no_chapter.ipynb")
    (folder / "notes.txt").write_text("not a submission", encoding="utf-8")
    printed = _run(folder, "--jobs", "2")
    run = _latest(folder)
    with (run / "grades.csv").open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == COLUMNS
        rows = list(reader)
    by = {(r["student"], r["exercise"]): r for r in rows}
    assert len(by) == len(rows), "one row per student and exercise"
    data = json.loads((run / "grades.json").read_text(encoding="utf-8"))
    summary = (run / "summary.md").read_text(encoding="utf-8")
    return by, data, summary, printed


def _message(data, student, exercise) -> str:
    (message,) = [
        r["message"] for r in data if (r["student"], r["exercise"]) == (student, exercise)
    ]
    return message


# --- the main batch ---------------------------------------------------------------------------


def test_every_file_gets_rows_and_only_ipynb_files_are_submissions(batch):
    by, data, _, _ = batch
    students = {s for s, _ in by}
    assert "notes" not in students
    assert {"all_right", "all_blank", "not_json", "json_not_notebook", "no_chapter"} <= students
    assert all(r["verdict"] in VERDICTS for r in by.values())
    assert [{k: r[k] for k in COLUMNS} for r in data] == list(by.values())
    assert all(r["message"] for r in data if r["verdict"] != "right")


def test_right_answers_from_the_solutions_are_right(batch):
    by, *_ = batch
    for exercise in ("2.1", "2.2", "2.3"):
        row = by[("all_right", exercise)]
        assert (row["verdict"], row["mistake"], row["notebook"]) == ("right", "", CHAPTER)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_right_answer_in_any_layout_a_fresh_kernel_runs_is_right_with_no_flag(batch, layout):
    by, *_ = batch
    check, _ = LAYOUTS[layout]
    exercise = {PERPENDICULAR: "2.1", KEY: "2.2", SOFTMAX: "2.3"}[check]
    row = by[(f"layout_{layout}", exercise)]
    assert (row["verdict"], row["mistake"]) == ("right", ""), row
    others = [by[(f"layout_{layout}", e)] for e in ("2.1", "2.2", "2.3") if e != exercise]
    assert [r["verdict"] for r in others] == ["unanswered", "unanswered"]


def test_the_blank_student_notebook_is_unanswered(batch):
    by, *_ = batch
    assert [by[("all_blank", e)]["verdict"] for e in ("2.1", "2.2", "2.3")] == ["unanswered"] * 3


def test_each_named_mistake_of_exercise_2_1_is_in_the_csv_and_said_in_words(batch):
    by, _, summary, printed = batch
    wanted = _wanted_mistakes()
    described = catalogue()[NUMBER][PERPENDICULAR]
    students = len({s for s, _ in by if s not in ("not_json", "json_not_notebook", "no_chapter")})
    assert f"({students} students)" in summary
    for n, name in enumerate(wanted):
        row = by[(f"mistake_{n:02d}_{name}", "2.1")]
        assert row["verdict"] == "wrong"
        assert row["mistake"] == name
        count = sum(1 for (s, e), r in by.items() if e == "2.1" and name in r["mistake"].split(";"))
        words = f"{count} of {students} students {described[name]} ({PERPENDICULAR}, Exercise 2.1)"
        assert words in summary, words
    assert printed.startswith(summary.strip()[:40]) and summary.strip() in printed


def test_an_exception_gives_an_error_row_and_the_later_exercises_are_still_graded(batch):
    by, data, *_ = batch
    student = f"mistake_00_{_wanted_mistakes()[0]}"
    row = by[(student, "2.2")]
    assert (row["verdict"], row["mistake"]) == ("error", "ZeroDivisionError")
    assert "ZeroDivisionError" in _message(data, student, "2.2")
    assert by[(student, "2.3")]["verdict"] == "right"


def test_a_check_call_replaced_by_a_print_is_still_graded_and_a_redefined_check_fakes_nothing(
    batch,
):
    by, *_ = batch
    student = f"mistake_01_{_wanted_mistakes()[1]}"
    assert by[(student, "2.2")]["notebook"] == CHAPTER  # no id in its metadata: by content
    assert (by[(student, "2.2")]["verdict"], by[(student, "2.2")]["mistake"]) == ("right", "")
    # A redefined lessons.check_* fakes nothing: the answer is still None, so unanswered.
    assert by[(student, "2.3")]["verdict"] == "unanswered"


def test_a_deleted_check_cell_is_an_error_and_a_broken_cell_is_noted(batch):
    by, data, summary, _ = batch
    student = f"mistake_02_{_wanted_mistakes()[2]}"
    assert (by[(student, "2.2")]["verdict"], by[(student, "2.2")]["mistake"]) == (
        "error",
        "check_deleted",
    )
    column = by[(student, "2.3")]
    assert column["verdict"] == "wrong"
    assert column["mistake"] in catalogue()[NUMBER][SOFTMAX], column
    assert "RuntimeError: a cell the student broke" in _message(data, student, "2.1")
    assert by[(student, "2.1")]["verdict"] == "wrong"  # the exercise itself still graded
    assert f"students {FAULTS['check_deleted']} ({KEY}, Exercise 2.2)" in summary


def test_an_answer_built_on_edited_givens_is_wrong_and_says_which_given(batch):
    by, data, summary, _ = batch
    row = by[("edited_given", "2.2")]
    assert row["verdict"] == "wrong" and "given_edited" in row["mistake"].split(";"), row
    assert "`wanted` differs from the chapter's" in _message(data, "edited_given", "2.2")
    assert by[("edited_given", "2.1")]["verdict"] == "right"
    assert f"students {FAULTS['given_edited']} ({KEY}, Exercise 2.2)" in summary


def test_a_given_recast_to_another_type_with_the_same_values_is_not_an_edit(batch):
    by, *_ = batch
    assert (by[("recast_given", "2.2")]["verdict"], by[("recast_given", "2.2")]["mistake"]) == (
        "right",
        "",
    )


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_grader_judges_what_the_students_check_call_received(batch, name):
    """Answers under any name or inline are right with no flag; renamed givens are known by
    their values, edited ones caught; a stale `answer` is never judged for another exercise."""
    by, data, *_ = batch
    for exercise, (verdict, mistake) in CALLS[name].items():
        row = by[(name, exercise)]
        assert row["verdict"] == verdict, row
        if mistake:  # the check's own mistake name comes first
            assert row["mistake"].split(";")[-1] == mistake, row
        else:  # no flag at all
            assert row["mistake"] == "", row
        assert "NameError" not in _message(data, name, exercise)
    assert "`wanted` differs from the chapter's" in _message(
        data, "calls_renamed_and_edited", "2.2"
    )
    assert "`[1, -2, 4]` differs from the chapter's" in _message(
        data, "calls_edited_constant", "2.1"
    )
    stale = _message(data, "calls_never_called_stale", "2.2")
    assert "was not called under Exercise 2.2" in stale and "outside Exercise 2.2" in stale


def test_patching_the_checks_in_the_kernel_fakes_no_verdict_and_is_reported(batch):
    by, data, *_ = batch
    judged_outside = by[("patched_close", "2.1")]
    assert judged_outside["verdict"] == "wrong"
    assert "tampered" in judged_outside["mistake"].split(";")
    assert "lessons.checks.verdict.close" in _message(data, "patched_close", "2.1")
    judged_inside = by[("patched_close", "2.3")]  # a function: checked in the kernel
    assert (judged_inside["verdict"], judged_inside["mistake"].split(";")[-1]) == (
        "error",
        "tampered",
    )


def test_files_that_are_no_notebook_or_no_chapter_get_one_error_row(batch):
    by, _, summary, _ = batch
    for student, mistake in (
        ("not_json", "not_a_notebook"),
        ("json_not_notebook", "not_a_notebook"),
        ("no_chapter", "unknown_chapter"),
    ):
        row = by[(student, "")]
        assert (row["verdict"], row["mistake"], row["notebook"]) == ("error", mistake, "")
        assert f"- {student}: {FAULTS[mistake]}" in summary


def test_the_summary_counts_every_verdict_of_each_exercise(batch):
    by, _, summary, _ = batch
    for exercise, check in (("2.1", PERPENDICULAR), ("2.2", KEY), ("2.3", SOFTMAX)):
        counts = [
            sum(1 for (s, e), r in by.items() if e == exercise and r["verdict"] == v)
            for v in VERDICTS
        ]
        line = f"| {exercise} | {check} | " + " | ".join(map(str, counts)) + " |"
        assert line in summary


# --- the time limit -------------------------------------------------------------------------


def test_an_endless_loop_costs_its_own_exercise_and_a_dying_kernel_is_an_error(
    tmp_path, student, solutions, transcripts
):
    looping = _short(student)
    _fill(looping, PERPENDICULAR, solutions[PERPENDICULAR])
    _answer(looping, KEY, "0\nwhile True:\n    pass")
    _fill(looping, SOFTMAX, solutions[SOFTMAX])
    nbformat.write(looping, tmp_path / "loop.ipynb")
    dying = _short(student)
    _fill(dying, PERPENDICULAR, "import os\n\nos._exit(3)")
    nbformat.write(dying, tmp_path / "dies.ipynb")
    (tmp_path / "broken.ipynb").write_text("{", encoding="utf-8")
    _run(tmp_path, "--timeout", "6", "--jobs", "2")
    data = json.loads((_latest(tmp_path) / "grades.json").read_text(encoding="utf-8"))
    by = {(r["student"], r["exercise"]): r for r in data}
    assert by[("loop", "2.1")]["verdict"] == "right"  # graded before the loop
    assert (by[("loop", "2.2")]["verdict"], by[("loop", "2.2")]["mistake"]) == (
        "timeout",
        "timed_out",
    )
    assert "ran past 6 s" in by[("loop", "2.2")]["message"]
    assert by[("loop", "2.3")]["verdict"] == "right"  # after the loop, still graded
    summary = (_latest(tmp_path) / "summary.md").read_text(encoding="utf-8")
    assert "students ran past the time limit" in summary  # listed among the faults
    assert by[("broken", "")]["mistake"] == "not_a_notebook"
    for exercise in ("2.1", "2.2", "2.3"):
        assert (by[("dies", exercise)]["verdict"], by[("dies", exercise)]["mistake"]) == (
            "error",
            "kernel_died",
        )
    assert "the kernel died in cell" in by[("dies", "2.3")]["message"]


# --- no kernel --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template() -> Template:
    return load_template(SOURCE)


def test_the_template_lists_the_checked_exercises_by_their_headings(template):
    assert [(c.exercise, c.name) for c in template.checks] == [
        ("2.1", PERPENDICULAR),
        ("2.2", KEY),
        ("2.3", SOFTMAX),
    ]
    assert template.number == NUMBER and template.title


def test_a_notebook_is_matched_by_its_metadata_then_by_its_content(student):
    templates = load_templates()
    assert student.metadata["lessons"]["chapter"] == CHAPTER
    assert match_chapter(student, templates).chapter == CHAPTER
    bare = copy.deepcopy(student)
    bare.metadata = {}
    assert match_chapter(bare, templates).chapter == CHAPTER
    other = copy.deepcopy(student)
    other.metadata["lessons"] = {"chapter": "05_hand_worked_example"}
    assert match_chapter(other, templates).chapter == "05_hand_worked_example"
    nothing = nbformat.v4.new_notebook()
    nothing.cells = [nbformat.v4.new_code_cell("x = 1")]
    assert match_chapter(nothing, templates) is None


def test_the_template_knows_answers_givens_constants_and_inputs_to_choose(template):
    roles = {c.exercise: [(a.source, a.role) for a in c.arguments] for c in template.checks}
    assert roles["2.1"] == [
        ("answer", "answer"),
        ("[1, -2, 4]", "constant"),
        ("[3, 0, -1]", "constant"),
        ("1", "constant"),
    ]
    assert roles["2.2"] == [("answer", "answer"), ("Q_ex", "given"), ("wanted", "given")]
    assert roles["2.3"] == [("my_softmax", "answer")]
    lm = load_template(ROOT / "book" / "12_language_model_on_real_text.ipynb")
    (copy_ratio,) = [c for c in lm.checks if c.exercise == "12.3"]
    assert [a.role for a in copy_ratio.arguments] == ["answer", "chosen", "given", "given"]
    assert copy_ratio.template == "lessons.check_copy_ratio(__a0, __a1, __a2, __a3)"


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.replace("answer = ...", "answer = -0.5"),
        lambda s: (
            s.replace(
                "lessons.check_perpendicular_entry(", "print(lessons.check_perpendicular_entry("
            )
            + ")"
        ),
        lambda s: "%%time\n" + s,
        lambda s: s + "\nlessons.check_perpendicular_entry(answer, [1, -2, 4], [3, 0, -1], 1)",
        lambda s: (
            "from lessons import check_perpendicular_entry\n"
            + s.replace("lessons.check_", "check_")
        ),
    ],
)
def test_the_grader_runs_every_submitted_cell_as_written_and_captures_after_each_check(
    student, template, change
):
    nb = copy.deepcopy(student)
    cell = _cell(nb, PERPENDICULAR)
    cell.source = change(cell.source)
    graded, slots, origin, deleted = instrument.build(nb, template, "token")
    assert deleted == set()
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert [graded.cells[i].source for i in sorted(origin)] == code  # nothing rewritten
    (slot,) = [s for s in slots if s.exercise == "2.1" and not s.tail]
    assert graded.cells[slot.after].source == cell.source
    assert slot.index == slot.after + 1
    capture = graded.cells[slot.index].source
    assert "modules['_lessons_grader_token'].capture(" in capture and "'2.1'" in capture
    assert "lessons.check_perpendicular_entry(__a0, [1, -2, 4], [3, 0, -1], 1)" in capture


def test_an_exercise_whose_check_call_is_gone_is_captured_after_its_last_cell(student, template):
    nb = copy.deepcopy(student)
    _cell(nb, KEY).source = "answer = np.array([2.0, 1.0])"
    graded, slots, origin, deleted = instrument.build(nb, template, "token")
    (slot,) = [s for s in slots if s.exercise == "2.2" and not s.tail]
    assert graded.cells[slot.after].source == "answer = np.array([2.0, 1.0])"
    nb.cells.remove(_cell(nb, SOFTMAX))
    assert instrument.build(nb, template, "token")[3] == {"2.3"}


def _plain(value) -> dict:
    """A value as the kernel side encodes it (kit/grading/kernel_side.py, run here)."""
    namespace: dict = {}
    source = instrument.KERNEL_CODE.read_text(encoding="utf-8")
    exec(compile(source.split("# --- from here on")[0], "kernel", "exec"), namespace)
    return namespace["_encode"](value)


@pytest.mark.parametrize(
    ("student_value", "chapter_value", "equal"),
    [
        (np.array([[1, 2], [0, -1]], dtype=np.float32), np.array([[1, 2], [0, -1]]), True),
        ([[1, 2], [0, -1]], np.array([[1, 2], [0, -1]]), True),
        ("tensor", np.array([4.0, -1.0]), True),
        (np.zeros((3, 2)), np.ones((3, 2)), False),
        (np.ones((2, 3)), np.ones((3, 2)), False),
        ("text", "text", True),
        ({(0, 1)}, {(0, 1)}, True),
        ({(0, 1)}, {(1, 1)}, False),
        (30, 30, True),
        (31, 30, False),
    ],
)
def test_givens_are_compared_by_value_whatever_their_type(student_value, chapter_value, equal):
    import torch

    if isinstance(student_value, str) and student_value == "tensor":
        student_value = torch.tensor([4.0, -1.0], dtype=torch.float32)
    assert same(_plain(student_value), _plain(chapter_value)) is equal


def test_values_travel_out_of_the_kernel_without_pickle_and_come_back_equal():
    import torch

    values = [
        None, ..., True, 3, -0.5, float("nan"), "é", [1, [2.5]], (1, 2), {"a": 1},
        np.arange(6.0).reshape(2, 3), np.float32(1.5), torch.ones(2, 2, dtype=torch.float16),
    ]  # fmt: skip
    for value in values:
        plain = _plain(value)
        json.dumps(plain)  # plain JSON: nothing to unpickle
        back = decode(plain)
        assert type(back) is type(value) or isinstance(value, np.generic | torch.Tensor), value
    assert isinstance(decode(_plain(lambda x: x)), Opaque)
    assert decode(_plain(torch.ones(2, dtype=torch.float16))).dtype == torch.float16


def test_the_summary_counts_mistakes_most_common_first_and_faults_apart():
    def row(student, exercise, check, verdict, *mistakes):
        return Row(student, CHAPTER, exercise, verdict, list(mistakes), check=check)

    rows = [
        row("a", "2.1", PERPENDICULAR, "wrong", "dot_product"),
        row("b", "2.1", PERPENDICULAR, "wrong", "sign_slip"),
        row("c", "2.1", PERPENDICULAR, "wrong", "sign_slip"),
        row("c", "2.2", KEY, "wrong", "scores_as_key", "given_edited"),
        row("d", "2.1", PERPENDICULAR, "error", "NameError"),
    ]
    text = report.summary(rows, {CHAPTER: load_template(SOURCE)}, catalogue())
    described = catalogue()[NUMBER]
    mistakes, faults = text.split("Faults (read these notebooks):")
    expected = [
        f"- 2 of 4 students {described[PERPENDICULAR]['sign_slip']} ({PERPENDICULAR}, "
        "Exercise 2.1)",
        f"- 1 of 4 students {described[PERPENDICULAR]['dot_product']} ({PERPENDICULAR}, "
        "Exercise 2.1)",
        f"- 1 of 4 students {described[KEY]['scores_as_key']} ({KEY}, Exercise 2.2)",
    ]
    assert [line for line in mistakes.splitlines() if line.startswith("- ")] == expected
    assert f"- 1 of 4 students {FAULTS['given_edited']} ({KEY}, Exercise 2.2)" in faults
    assert f"- 1 of 4 students raised NameError ({PERPENDICULAR}, Exercise 2.1)" in faults
    assert f"| 2.1 | {PERPENDICULAR} | 0 | 3 | 0 | 1 | 0 |" in mistakes


def test_submissions_are_named_by_file_or_by_folder(tmp_path):
    for name in (
        "alice.ipynb",
        "bob/02.ipynb",
        "bob/05.ipynb",
        ".ipynb_checkpoints/x.ipynb",
        "grading/old/x.ipynb",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}", encoding="utf-8")
    (tmp_path / "grades.csv").write_text("", encoding="utf-8")
    found = [(p.relative_to(tmp_path).as_posix(), s) for p, s in runs.submissions(tmp_path)]
    assert found == [("alice.ipynb", "alice"), ("bob/02.ipynb", "bob"), ("bob/05.ipynb", "bob")]


def test_a_missing_folder_is_a_usage_error(tmp_path, capsys):
    assert cli.main([str(tmp_path / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_make_grade_runs_the_tool_and_the_readme_warns_about_untrusted_code():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^\.PHONY:.*\bgrade\b", makefile, re.M)
    assert re.search(r"^grade: \$\(STAMP\).*## ", makefile, re.M)
    assert '$(BIN)/python -m kit grade "$(SUBMISSIONS)"' in makefile
    dry = subprocess.run(
        ["make", "-n", "grade", "SUBMISSIONS=some folder", "TIMEOUT=5", "JOBS=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout  # -n: prints the commands, runs none (no install either)
    assert '-m kit grade "some folder" --timeout 5 --jobs 2' in dry
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make grade SUBMISSIONS=" in readme and "container" in readme
    assert "container" in kit.grading.__doc__


def test_the_mistake_answers_of_exercise_2_1_are_distinct():
    """Each mistake scenario gives another answer, so each row tests its own name."""
    values = list(_mistake_answers().values())
    assert len(set(values)) == len(values)
    assert not np.isclose(float(_mistake_answers()["other"]), -0.5)


def test_the_guide_says_what_to_do_with_every_fault_and_what_can_be_faked():
    guide = (ROOT / "book" / "instructor_guide.md").read_text(encoding="utf-8")
    table = guide.split("#### What to do with each fault row", 1)[1].split("####", 1)[0]
    for fault in FAULTS:
        assert f"`{fault}`" in table, fault
    faked = guide.split("#### What a determined student can fake", 1)[1].split("####", 1)[0]
    # A function answer (its placeholder is `name = None`) is checked inside the kernel.
    functions = set()
    for path in assignments.chapter_sources():
        nb = nbformat.read(path, as_version=4)
        for exercise in assignments.find_exercises(nb, path.name):
            for index in exercise.reader_cells:
                functions |= set(re.findall(r"^(\w+) = None\b", nb.cells[index].source, re.M))
    assert functions == {"my_softmax", "online_update"}
    for name in functions:
        assert f"`{name}`" in faked, name
    assert "{MEASURED}" not in guide


def test_a_check_a_chapter_borrows_from_another_is_described_from_its_own_chapter():
    """Exercise 5.2 calls chapter 4's check_attention: its mistakes are named, not faults."""
    five = load_template(ROOT / "book" / "05_hand_worked_example.ipynb")
    rows = [
        Row("a", five.chapter, "5.2", "wrong", ["no_scaling"], check="check_attention"),
        Row("b", five.chapter, "5.2", "right", [], check="check_attention"),
    ]
    text = report.summary(rows, {five.chapter: five}, catalogue())
    mistakes = text.split("Faults")[0]
    words = catalogue()[4]["check_attention"]["no_scaling"]
    assert f"- 1 of 2 students {words} (check_attention, Exercise 5.2)" in mistakes
    assert "Faults" not in text
    points = template_text({five.chapter: five}, catalogue())
    assert "#   no_scaling: " in points.split('"5.2"')[1]


# --- a call matched to the chapter's (no kernel) ----------------------------------------------


def _call(**values) -> dict:
    """A recorded call of a check, as kernel_side.py records it: values by parameter."""
    return {"name": KEY, "values": {k: _plain(v) for k, v in values.items()}, "pickled": {}}


def test_a_call_is_judged_on_its_values_matched_to_the_chapters_call_by_parameter(template):
    from kit.grading.judge import Reference, indexed, judge

    check = next(c for c in template.checks if c.exercise == "2.2")
    assert [a.parameter for a in check.arguments] == ["answer", "Q", "scores"]
    q, wanted = np.array([[1, 2], [-1, 1]]), np.array([4, -1])
    pickled = {k: base64.b64encode(pickle.dumps(v)).decode() for k, v in (("1", q), ("2", wanted))}
    chapter = Reference(
        values={"2.2": {"1": _plain(q), "2": _plain(wanted)}}, pickled={"2.2": pickled}
    )
    right = _call(scores=wanted.astype(float), Q=q, answer=np.array([2.0, 1.0]))
    assert set(indexed(right, check)[0]) == {"0", "1", "2"}
    outcome = judge(right, check, chapter)
    assert (outcome.verdict, outcome.mistakes) == ("right", [])
    edited = _call(answer=np.array([1.0, 1.0]), Q=q, scores=q @ np.array([1.0, 1.0]))
    outcome = judge(edited, check, chapter)
    assert (outcome.verdict, outcome.mistakes[-1]) == ("wrong", "given_edited")
    assert "`wanted` differs from the chapter's (by up to 1)" in " ".join(outcome.messages)
    unbound = {"name": KEY, "unbound": "TypeError: missing a required argument: 'scores'"}
    assert judge(unbound, check, chapter).verdict == "error"


def test_a_name_stands_for_the_answer_only_when_it_was_last_set_under_its_exercise(
    student, template
):
    nb = copy.deepcopy(student)
    _answer(nb, PERPENDICULAR, "-0.5")
    _, slots, _, _ = instrument.build(nb, template, "token")
    assert all(s.allow_names for s in slots if not s.tail), [s.why for s in slots]
    _cell(nb, KEY).source = "# later"  # 2.2's cell: no answer, no check
    _, slots, _, _ = instrument.build(nb, template, "token")
    (slot,) = [s for s in slots if s.exercise == "2.2" and not s.tail]
    assert not slot.allow_names and "outside Exercise 2.2" in slot.why


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("%%time\nanswer = 1", {"answer"}),
        ("with ctx() as c:\n    answer, (b, *d) = f()", {"c", "answer", "b", "d"}),
        ("for i in x:\n    total += i\n!ls", {"i", "total"}),
        ("def my_softmax(x):\n    inner = 1\nimport numpy as np", {"my_softmax", "np"}),
        ("answer = (", set()),
    ],
)
def test_the_names_a_cell_sets_are_read_from_its_code(source, names):
    assert instrument.binds(source) == names


def test_the_grader_is_split_by_stage_with_no_import_loop_and_no_module_over_400_lines():
    """kit/grading/: one module per stage; imports go one way (a lazy one counts too)."""
    from import_graph import cycles, package_graph

    graph = package_graph(ROOT / "kit")
    assert cycles(graph) == []
    modules = sorted((ROOT / "kit" / "grading").glob("*.py"))
    assert {p.stem for p in modules} >= {"templates", "instrument", "run", "judge", "report"}
    long = {p.name: n for p in modules if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}
    assert not (ROOT / "kit" / "grade.py").exists() and not (ROOT / "kit" / "gradebook.py").exists()
    from kit.__main__ import VERBS

    assert VERBS["grade"][0] == "kit.grading.cli" and VERBS["gradebook"][0] == "kit.grading.points"
