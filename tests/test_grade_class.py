"""A class of 34 submissions, written as students write them, graded once; and its gradebook.

The class covers chapters 1, 5, 6, 8 and 9 (the hidden class of issue 34 covered 3, 4, 7, 10
and 12): whole student notebooks from `make assignments`' machinery, answered with other
tools than the solutions (torch, einsum, `np.tril`, a helper function), in other layouts
(a scratch cell, `%%time`, `print(...)`), with wrong answers of many kinds, edited givens, a
syntax error, an endless loop, a dying kernel, a faked verdict, files that are no notebook,
and names from Canvas's and Moodle's bulk downloads. `CLASS` says what each row must read;
`test_every_row_of_the_class_is_true` holds the grader to all of them at once.

The same run's gradebook is then checked: points with partial credit from a points file,
the one-row-per-student CSV, Canvas's and Moodle's import files against their documented
columns, one feedback page per student opened in chromium, a regrade of one student into a
new run that keeps the earlier one. The sandbox recipe (`kit/grade_sandbox.sh`) is run on
a hostile notebook where bwrap exists. Last, a few notebooks of `make bench-grade`'s class
(chapter 7, `kit/bench_grade.py`; timed there, not here) are graded one and two at a time,
and both runs must write the same bytes.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import json
import os
import re
import shutil
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from kernel_transcripts import Transcripts
from repo_paths import ROOT

from kit import assignments, bench_grade, course
from kit.grading import batch, cli, run, students
from kit.grading.points import Points, template_text
from kit.grading.templates import load_templates

# The class runs in real kernels, end to end (tests/test_grade.py judges stored transcripts).
pytestmark = pytest.mark.kernel

#: The chapters this class answers, by number; their stems come from the course model.
CHAPTERS = {n: course.load().chapter(n).stem for n in (1, 5, 6, 8, 9)}
LOOKUP, SPLIT = "check_soft_lookup", "check_split_query"
WEIGHTS, ATTENTION = "check_attention_weights", "check_attention"
CAUSAL, PADDING = "check_causal_mask", "check_padding_mask"
SINUSOID, BLOCK = "check_sinusoidal_encoding", "check_block_output"
RIGHT = ("right", set())

SOLUTION = {
    LOOKUP: "answer = lessons.softmax(ex_keys @ ex_query) @ ex_values",
    SPLIT: "answer = keys[east] + keys[south]",
    WEIGHTS: "answer = lessons.softmax(Q_ex @ K_ex.T / np.sqrt(2))",
    ATTENTION: "answer = lessons.softmax(Q_ex @ K_ex.T / np.sqrt(2)) @ V_ex",
    CAUSAL: "answer = lessons.causal_mask(6) | (np.arange(6) < 3)[None, :]",
    PADDING: "answer = (np.arange(4)[None, :] < np.array([2, 4, 1])[:, None])[:, None, :]",
    SINUSOID: "answer = lessons.sinusoidal_encoding(n_positions, d_model_ex)",
    BLOCK: (
        "with torch.no_grad():\n"
        "    u = x_ex + block_ex.attention(block_ex.norm1(x_ex))[0]\n"
        "    answer = u + block_ex.feed_forward(block_ex.norm2(u))"
    ),
}
TORCH_SINUSOID = """import torch

pos = torch.arange(n_positions, dtype=torch.float64)[:, None]  # [n, 1]
freq = 10000 ** (-torch.arange(0, d_model_ex, 2, dtype=torch.float64) / d_model_ex)  # [d/2]
pe = torch.zeros(n_positions, d_model_ex, dtype=torch.float64)  # [n, d]
pe[:, 0::2] = torch.sin(pos * freq)
pe[:, 1::2] = torch.cos(pos * freq)
answer = pe"""


def _cell(nb, check: str):
    cells = [c for c in nb.cells if c.cell_type == "code" and f"{check}(" in c.source]
    return cells[-1]


def answer(nb, check: str, code: str) -> None:
    """Put `code` in place of the placeholder line of `check`'s exercise cell."""
    cell = _cell(nb, check)
    placeholder = re.search(r"^(\w+) = (\.\.\.|None)[^\n]*$", cell.source, re.M)
    assert placeholder, check
    cell.source = cell.source.replace(placeholder.group(0), code, 1)


def insert_before(nb, check: str, code: str) -> None:
    cell = _cell(nb, check)
    nb.cells.insert(nb.cells.index(cell), nbformat.v4.new_code_cell(code))


def _scenarios(students: dict[int, nbformat.NotebookNode]):
    """(file name, notebook or raw text, {exercise: (verdict, mistakes it must hold)})."""

    def nb(chapter: int):
        return copy.deepcopy(students[chapter])

    out = []

    def add(name, notebook, expected):
        out.append((name, notebook, expected))

    # --- chapter 1 --------------------------------------------------------------------------
    s = nb(1)  # torch for 1.1; 1.2 as the solution; a Canvas name
    answer(
        s,
        LOOKUP,
        "import torch\n\nw = torch.softmax(torch.from_numpy(ex_keys @ ex_query), dim=0)\nanswer = w @ torch.from_numpy(ex_values)",
    )
    answer(s, SPLIT, SOLUTION[SPLIT])
    add("adamsjane_1001_5001_01_why_attention.ipynb", s, {"1.1": RIGHT, "1.2": RIGHT})
    s = nb(1)
    answer(s, LOOKUP, "answer = ex_keys @ ex_query  # the scores")
    answer(s, SPLIT, "answer = np.zeros(2)")
    add(
        "c1_scores_and_zero_query.ipynb",
        s,
        {"1.1": ("wrong", set()), "1.2": ("wrong", {"zero_query"})},
    )
    s = nb(1)
    answer(s, LOOKUP, "answer = ex_values[np.argmax(ex_keys @ ex_query)]")
    answer(s, SPLIT, "answer = keys[east] + 0.2 * keys[south]")
    add("c1_hard_lookup.ipynb", s, {"1.1": ("wrong", {"hard_lookup"}), "1.2": ("wrong", set())})
    s = nb(1)  # the values zeroed, the answer built on them
    answer(s, LOOKUP, "ex_values = np.zeros((3, 2))\n" + SOLUTION[LOOKUP])
    add(
        "c1_zeroed_values.ipynb",
        s,
        {"1.1": ("wrong", {"given_edited"}), "1.2": ("unanswered", set())},
    )
    s = nb(1)  # a helper function in a cell of its own above the exercise
    insert_before(
        s, LOOKUP, "def look_up(q, K, V):\n    w = np.exp(K @ q)\n    return (w / w.sum()) @ V"
    )
    answer(s, LOOKUP, "answer = look_up(ex_query, ex_keys, ex_values)")
    add("c1_helper_function.ipynb", s, {"1.1": RIGHT, "1.2": ("unanswered", set())})
    s = nb(1)  # a syntax error in 1.1; 1.2 right after it
    answer(s, LOOKUP, "answer = lessons.softmax(ex_keys @ ex_query @ ex_values")
    answer(s, SPLIT, SOLUTION[SPLIT])
    add("c1_syntax_error.ipynb", s, {"1.1": ("error", {"SyntaxError"}), "1.2": RIGHT})
    add("c1_blank.ipynb", nb(1), {"1.1": ("unanswered", set()), "1.2": ("unanswered", set())})

    # --- chapter 5 --------------------------------------------------------------------------
    s = nb(5)  # einsum and PyTorch's fused kernel; a Moodle folder
    answer(
        s,
        WEIGHTS,
        "e = np.exp(np.einsum('qd,kd->qk', Q_ex, K_ex) / np.sqrt(Q_ex.shape[-1]))\nanswer = e / e.sum(axis=-1, keepdims=True)",
    )
    answer(
        s,
        ATTENTION,
        "import torch\nimport torch.nn.functional as F\n\nanswer = F.scaled_dot_product_attention(*(torch.from_numpy(m)[None] for m in (Q_ex, K_ex, V_ex)))[0]",
    )
    add(
        "Ana Lima_2001_assignsubmission_file_/05_hand_worked_example.ipynb",
        s,
        {"5.1": RIGHT, "5.2": RIGHT},
    )
    s = nb(5)  # a Moodle flat file, the scaling forgotten
    answer(s, WEIGHTS, "answer = lessons.softmax(Q_ex @ K_ex.T)")
    answer(s, ATTENTION, "answer = lessons.softmax(Q_ex @ K_ex.T) @ V_ex")
    add(
        "Bo Chen_2002_assignsubmission_file_05_hand_worked_example.ipynb",
        s,
        {"5.1": ("wrong", {"no_scaling"}), "5.2": ("wrong", set())},
    )
    s = nb(5)
    answer(
        s,
        WEIGHTS,
        "s = Q_ex @ K_ex.T / np.sqrt(2)\ne = np.exp(s)\nanswer = e / e.sum(axis=0, keepdims=True)",
    )
    add(
        "c5_columns.ipynb",
        s,
        {"5.1": ("wrong", {"softmax_over_columns"}), "5.2": ("unanswered", set())},
    )
    s = nb(5)  # the example: V_ex zeroed, zeros answered
    answer(s, WEIGHTS, SOLUTION[WEIGHTS])
    answer(s, ATTENTION, "V_ex = np.zeros_like(V_ex)\nanswer = np.zeros((2, 2))")
    add("c5_zeroed_V.ipynb", s, {"5.1": RIGHT, "5.2": ("wrong", {"given_edited"})})
    s = nb(5)  # float32 and a nested list of rounded numbers
    answer(
        s,
        WEIGHTS,
        SOLUTION[WEIGHTS].replace("answer =", "answer = np.float32(1) *") + ".astype(np.float32)",
    )
    answer(
        s,
        ATTENTION,
        SOLUTION[ATTENTION] + "\nanswer = [[round(float(x), 9) for x in row] for row in answer]",
    )
    add("c5_float32_and_lists.ipynb", s, {"5.1": RIGHT, "5.2": RIGHT})
    s = nb(5)  # %%time and print around the checks
    answer(s, WEIGHTS, SOLUTION[WEIGHTS])
    _cell(s, WEIGHTS).source = "%%time\n" + _cell(s, WEIGHTS).source
    answer(s, ATTENTION, "answer, _ = lessons.attention(Q_ex, K_ex, V_ex)")
    cell = _cell(s, ATTENTION)
    cell.source = cell.source.replace(
        "lessons.check_attention(answer, Q_ex, K_ex, V_ex)",
        "print(lessons.check_attention(answer, Q_ex, K_ex, V_ex))",
    )
    add("c5_time_and_print.ipynb", s, {"5.1": RIGHT, "5.2": RIGHT})
    s = nb(5)  # keys and queries swapped
    answer(s, WEIGHTS, "answer = lessons.softmax(K_ex @ Q_ex.T / np.sqrt(2))")
    add("c5_swapped_roles.ipynb", s, {"5.1": ("wrong", set()), "5.2": ("unanswered", set())})
    s = nb(5)  # an endless loop in a scratch cell before 5.2: 5.2 pays, 5.1 does not
    answer(s, WEIGHTS, SOLUTION[WEIGHTS])
    insert_before(s, ATTENTION, "# trying something\nwhile True:\n    pass")
    answer(s, ATTENTION, SOLUTION[ATTENTION])
    add("c5_endless_loop.ipynb", s, {"5.1": RIGHT, "5.2": ("timeout", {"timed_out"})})

    # --- chapter 6 --------------------------------------------------------------------------
    s = nb(6)  # np.tril and torch; a late Canvas submission
    answer(s, CAUSAL, "answer = np.tril(np.ones((6, 6), dtype=bool))\nanswer[:, :3] = True")
    answer(
        s,
        PADDING,
        "import torch\n\nanswer = (torch.arange(4)[None] < torch.tensor([2, 4, 1])[:, None]).unsqueeze(1)",
    )
    add("ortizluis_LATE_1003_5003_06_masking.ipynb", s, {"6.1": RIGHT, "6.2": RIGHT})
    s = nb(6)
    answer(s, CAUSAL, "answer = lessons.causal_mask(6) & (np.arange(6) < 3)[None, :]")
    answer(
        s, PADDING, "answer = ~(np.arange(4)[None, :] < np.array([2, 4, 1])[:, None])[:, None, :]"
    )
    add(
        "c6_and_and_inverted.ipynb",
        s,
        {"6.1": ("wrong", {"and_not_or"}), "6.2": ("wrong", {"true_means_padding"})},
    )
    s = nb(6)
    answer(s, CAUSAL, "answer = lessons.causal_mask(6)")
    answer(s, PADDING, "answer = np.arange(4)[None, :] < np.array([2, 4, 1])[:, None]")
    add("c6_plain_causal.ipynb", s, {"6.1": ("wrong", {"plain_causal"}), "6.2": ("wrong", set())})
    s = nb(6)
    answer(s, CAUSAL, "answer = np.tril(np.ones((6, 6)))\nanswer[:, :3] = 1")
    add(
        "c6_numbers.ipynb",
        s,
        {"6.1": ("wrong", {"numbers_not_booleans"}), "6.2": ("unanswered", set())},
    )
    s = nb(6)  # a verdict faked by hand: a capture record shown, the checks replaced
    answer(s, CAUSAL, "answer = lessons.causal_mask(6)")
    insert_before(
        s,
        CAUSAL,
        (
            "import IPython.display\n\n"
            "lessons.check_causal_mask = lambda *a, **k: '✔ Correct.'\n"
            "IPython.display.display({'application/vnd.lessons.capture+json': "
            "{'token': 'guess', 'exercise': '6.1', 'seq': 0, 'values': {}, 'verdict': 'right'}}, raw=True)"
        ),
    )
    add(
        "c6_faked_verdict.ipynb",
        s,
        {"6.1": ("wrong", {"plain_causal"}), "6.2": ("unanswered", set())},
    )

    # --- chapter 8 --------------------------------------------------------------------------
    s = nb(8)
    answer(s, SINUSOID, TORCH_SINUSOID)
    add("c8_torch.ipynb", s, {"8.1": RIGHT})
    s = nb(8)
    answer(
        s,
        SINUSOID,
        "pe = lessons.sinusoidal_encoding(n_positions, d_model_ex)\nanswer = pe.copy()\nanswer[:, 0::2], answer[:, 1::2] = pe[:, 1::2], pe[:, 0::2]",
    )
    add("c8_swapped.ipynb", s, {"8.1": ("wrong", {"sine_cosine_swapped"})})
    s = nb(8)
    answer(
        s,
        SINUSOID,
        "pe = lessons.sinusoidal_encoding(n_positions, d_model_ex)\nanswer = np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)",
    )
    add("c8_halves.ipynb", s, {"8.1": ("wrong", {"halves_layout"})})
    s = nb(8)  # more positions than given
    cell = _cell(s, SINUSOID)
    cell.source = cell.source.replace(
        "n_positions, d_model_ex = 10, 8", "n_positions, d_model_ex = 12, 8"
    )
    answer(s, SINUSOID, SOLUTION[SINUSOID])
    add("c8_more_positions.ipynb", s, {"8.1": ("wrong", {"given_edited"})})
    s = nb(8)
    answer(s, SINUSOID, "import os\n\nos.kill(os.getpid(), 9)")
    add("c8_kills_kernel.ipynb", s, {"8.1": ("error", {"kernel_died"})})
    s = nb(8)  # no chapter id left in the metadata: found by its content
    answer(s, SINUSOID, SOLUTION[SINUSOID])
    s.metadata = {}
    add("c8_no_metadata.ipynb", s, {"8.1": RIGHT})
    s = nb(8)  # the solution checked twice, the second time after the name was reused
    answer(s, SINUSOID, SOLUTION[SINUSOID])
    s.cells.append(
        nbformat.v4.new_code_cell(
            "answer = 0\nlessons.check_sinusoidal_encoding(answer, n_positions, d_model_ex)"
        )
    )
    add("c8_rechecked_later.ipynb", s, {"8.1": RIGHT})

    # --- chapter 9 --------------------------------------------------------------------------
    s = nb(9)
    answer(s, BLOCK, SOLUTION[BLOCK])
    add("c9_right.ipynb", s, {"9.1": RIGHT})
    s = nb(9)
    answer(
        s,
        BLOCK,
        "with torch.no_grad():\n    u = block_ex.norm1(x_ex + block_ex.attention(x_ex)[0])\n    answer = block_ex.norm2(u + block_ex.feed_forward(u))",
    )
    add("c9_post_norm.ipynb", s, {"9.1": ("wrong", {"post_norm"})})
    s = nb(9)  # a new block drawn: the given model differs, the answer built on it
    answer(
        s,
        BLOCK,
        "block_ex = lessons.TransformerBlock(8, 2, 16, norm_first=True).double()\n"
        + SOLUTION[BLOCK],
    )
    add("c9_new_block.ipynb", s, {"9.1": ("wrong", {"given_edited"})})

    # --- files that are no notebook ---------------------------------------------------------
    add(
        "c_renamed_script.ipynb",
        "import numpy as np\nprint('my answers')\n",
        {"": ("error", {"not_a_notebook"})},
    )
    add("c_empty_json.ipynb", "{}", {"": ("error", {"not_a_notebook"})})
    other = nbformat.v4.new_notebook()
    other.cells = [nbformat.v4.new_markdown_cell("# My notes"), nbformat.v4.new_code_cell("x = 1")]
    add("c_own_notebook.ipynb", other, {"": ("error", {"unknown_chapter"})})
    return out


def _student_notebooks(tmp) -> dict[int, nbformat.NotebookNode]:
    sources = [ROOT / "book" / f"{name}.ipynb" for name in CHAPTERS.values()]
    assignments.write_all(sources, tmp)
    return {
        n: nbformat.read(tmp / "student" / f"{name}.ipynb", as_version=4)
        for n, name in CHAPTERS.items()
    }


POINTS = """default = 1

[exercises]
"5.1" = { points = 4, partial = { no_scaling = 2, softmax_over_columns = 1 } }
"6.1" = 3
"""


def _key(name: str) -> str:
    return students.student_of(Path(name)).key


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class, written and graded once (two notebooks at a time): (folder, run, rows, took)."""
    students = _student_notebooks(tmp_path_factory.mktemp("assignments"))
    folder = tmp_path_factory.mktemp("class")
    scenarios = _scenarios(students)
    for name, notebook, _ in scenarios:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(notebook, str):
            path.write_text(notebook, encoding="utf-8")
        else:
            nbformat.write(notebook, path)
    points = folder.parent / "points.toml"
    points.write_text(POINTS, encoding="utf-8")
    printed = io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(printed):
        assert (
            cli.main([str(folder), "--jobs", "2", "--timeout", "20", "--points", str(points)]) == 0
        )
    took = time.monotonic() - start
    run = folder / "grading" / (folder / "grading" / "LATEST").read_text().strip()
    rows = json.loads((run / "grades.json").read_text(encoding="utf-8"))
    return folder, run, rows, scenarios, points, took


def test_the_class_has_at_least_30_submissions_over_chapters_the_hidden_class_did_not_use(graded):
    scenarios = graded[3]
    assert len(scenarios) >= 30
    chapters = {e.split(".")[0] for _, _, expected in scenarios for e in expected if e}
    assert chapters == {"1", "5", "6", "8", "9"}


def test_every_row_of_the_class_is_true(graded):
    _, _, rows, scenarios, _, _ = graded
    by = {(r["student"], r["exercise"]): r for r in rows}
    false = []
    for name, _, expected in scenarios:
        for exercise, (verdict, mistakes) in expected.items():
            row = by.get((_key(name), exercise))
            if row is None:
                false.append(f"{name} {exercise}: no row")
                continue
            got = set(m for m in row["mistake"].split(";") if m)
            flags = {"given_edited", "tampered", "check_deleted"}
            ok = row["verdict"] == verdict and mistakes <= got
            if verdict == "right":
                ok = ok and not got  # right, with no flag at all
            elif not (mistakes & flags):
                ok = ok and not (got & flags)  # no false fault
            if not ok:
                false.append(
                    f"{name} {exercise}: {row['verdict']} {sorted(got)} | {row['message'][:200]}"
                )
    assert false == [], "\n".join(false)
    students = {_key(name) for name, _, _ in scenarios}
    assert {r["student"] for r in rows} == students  # nothing else graded


def test_the_class_ran_in_a_bounded_time(graded):
    *_, took = graded
    # 34 notebooks of five chapters and their five reference runs, two at a time, on a loaded
    # 2-core machine; `make grade` on 30 notebooks of one chapter is timed in the guide.
    assert took < 900, took


# --- the gradebook ----------------------------------------------------------------------------


def _csv(path):
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_points_follow_the_points_file_with_partial_credit_for_named_mistakes(graded):
    _, run, rows, *_ = graded
    points = {(r["student"], r["exercise"]): r["points"] for r in rows}
    assert points[(_key("Ana Lima_2001_assignsubmission_file_/x"), "5.1")] == 4
    assert points[(_key("Bo Chen_2002_assignsubmission_file_x"), "5.1")] == 2  # no_scaling
    assert points[("c5_columns", "5.1")] == 1  # softmax_over_columns
    assert points[("c5_swapped_roles", "5.1")] == 0  # no credit listed for that mistake
    assert points[(_key("ortizluis_LATE_1003_5003_x"), "6.1")] == 3
    assert points[("c8_torch", "8.1")] == 1  # the default
    assert points[("c5_zeroed_V", "5.2")] == 0


def test_the_gradebook_has_one_row_per_student_with_totals(graded):
    _, run, rows, scenarios, *_ = graded
    table = _csv(run / "gradebook.csv")
    header, body = table[0], table[1:]
    assert header[:3] == ["student", "platform", "platform_id"]
    assert header[-3:] == ["total", "possible", "percent"]
    assert len(body) == len({_key(n) for n, _, _ in scenarios})
    assert len({r[0] for r in body}) == len(body)
    for line in body:
        values = [float(x) for x in line[3:-3]]
        assert float(line[-3]) == pytest.approx(sum(values))
        assert float(line[-1]) == pytest.approx(100 * float(line[-3]) / float(line[-2]), abs=0.06)
    (ana,) = [r for r in body if r[0] == "Ana Lima_2001"]
    assert ana[1:3] == ["moodle", "2001"]


def test_the_canvas_export_keeps_canvas_gradebook_import_columns(graded):
    """Canvas's Grades > Import (Canvas's guide "How do I import grades in the Gradebook?",
    book/instructor_guide.md): the columns of Canvas's own export, in its order, `Student`,
    `ID`, `SIS User ID`, `SIS Login ID`, `Section`, then one column per assignment; an
    optional `Points Possible` row; each row matched by `ID`, Canvas's numeric user id."""
    _, run, rows, *_ = graded
    raw = (run / "canvas.csv").read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")  # UTF-8, no byte-order mark
    table = _csv(run / "canvas.csv")
    assert table[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert len(set(table[0])) == len(table[0])  # an assignment column per chapter, once
    assignments_ = table[0][5:]
    assert assignments_ and all(re.fullmatch(r"Chapter \d+: .+", a) for a in assignments_)
    assert table[1][0] == "Points Possible" and all(table[1][i] == "" for i in range(1, 5))
    possible = [float(x) for x in table[1][5:]]
    ids = {}
    for line in table[2:]:
        assert len(line) == len(table[0])
        assert re.fullmatch(r"\d+", line[1]), line
        ids[line[1]] = line
        for value, most in zip(line[5:], possible, strict=True):
            assert value == "" or 0 <= float(value) <= most
    assert set(ids) == {"1001", "1003"}  # the two Canvas names, late or not
    column = assignments_.index("Chapter 6: Masking") + 5
    assert ids["1003"][column] == "4" and table[1][column] == "4"  # 3 + 1, both right
    text = (run / "exports.txt").read_text(encoding="utf-8")
    assert "canvas.csv leaves out c5_columns: no Canvas user id" in text


def test_the_moodle_export_is_an_offline_grading_worksheet_moodle_reads(graded):
    """Moodle's assignfeedback_offline importer (mod/assign/feedback/offline/
    importgradeslib.php) finds its columns by their English names: it refuses a file without
    `Identifier`, `Grade` and `Last modified (grade)`; it reads an Identifier as
    "Participant " and the participant id; a date with strtotime; a feedback column, here
    `Feedback comments`, only where it is not the first column; it skips a grade above the
    assignment's maximum."""
    _, run, *_ = graded
    raw = (run / "moodle_05_hand_worked_example.csv").read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")  # the first header must read `Identifier`
    table = _csv(run / "moodle_05_hand_worked_example.csv")
    assert table[0] == [
        "Identifier",
        "Full name",
        "Grade",
        "Maximum Grade",
        "Last modified (grade)",
        "Feedback comments",
    ]
    assert table[0].index("Feedback comments") > 0
    rows = {line[0]: dict(zip(table[0], line, strict=True)) for line in table[1:]}
    assert set(rows) == {"Participant 2001", "Participant 2002"}
    for identifier, row in rows.items():
        assert re.fullmatch(r"Participant \d+", identifier)
        assert identifier[len("Participant ") :] in {"2001", "2002"}  # the download's ids
        assert re.fullmatch(r"\d+(\.\d+)?", row["Grade"])  # a plain number, a decimal point
        assert 0 <= float(row["Grade"]) <= float(row["Maximum Grade"])
        when = datetime.strptime(row["Last modified (grade)"], "%Y-%m-%d %H:%M:%S UTC")
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        assert abs((now - when).days) <= 1  # the run's time, not a fixed date
        assert row["Feedback comments"].startswith("Exercise 5.1: ")
    assert rows["Participant 2001"]["Grade"] == "5" and rows["Participant 2002"]["Grade"] == "2"
    assert rows["Participant 2001"]["Full name"] == "Ana Lima"


def test_bulk_download_names_are_read_as_students():
    read = students.student_of
    assert read(Path("adamsjane_1001_5001_ch1.ipynb")) == students.Student(
        "adamsjane_1001", "adamsjane", "canvas", "1001"
    )
    assert read(Path("adamsjane_LATE_1001_5002_ch1-1.ipynb")).platform_id == "1001"
    assert read(Path("Ana Lima_2001_assignsubmission_file_/a_b.ipynb")) == students.Student(
        "Ana Lima_2001", "Ana Lima", "moodle", "2001"
    )
    assert read(Path("Bo Chen_2002_assignsubmission_file_x.ipynb")).platform == "moodle"
    assert read(Path("alice.ipynb")) == students.Student("alice", "alice")
    assert read(Path("bob/05.ipynb")) == students.Student("bob", "bob")


def test_each_student_gets_a_feedback_page_that_opens_in_chromium(graded, browser):
    _, run, rows, scenarios, *_ = graded
    pages = sorted((run / "feedback").glob("*.html"))
    assert len(pages) == len({_key(n) for n, _, _ in scenarios})
    page = run / "feedback" / "c5_zeroed_V.html"
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "http" not in text  # offline, nothing to fetch
    browser.get(page.as_uri())
    assert browser.title == "Feedback: c5_zeroed_V"
    cells = browser.execute_script(
        "return [...document.querySelectorAll('tbody tr')].map("
        "r => [...r.children].map(c => c.innerText))"
    )
    assert [c[0] for c in cells] == ["5.1", "5.2"]
    assert cells[0][1].endswith("right") and cells[1][1].endswith("wrong")
    assert cells[0][2] == "4 / 4" and cells[1][2] == "0 / 1"
    assert "`V_ex` differs from the chapter's" in cells[1][3]
    assert browser.get_log("browser") == []


def test_regrading_one_student_keeps_the_earlier_run_and_every_other_row(graded, tmp_path):
    folder, run, rows, scenarios, points, _ = graded
    target = folder / "c8_swapped.ipynb"
    fixed = nbformat.read(target, as_version=4)
    cell = _cell(fixed, SINUSOID)
    swap = "answer = pe.copy()\nanswer[:, 0::2], answer[:, 1::2] = pe[:, 1::2], pe[:, 0::2]"
    assert swap in cell.source
    cell.source = cell.source.replace(swap, "answer = pe")
    nbformat.write(fixed, target)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = cli.main([str(folder), "--student", "c8_swapped", "--points", str(points)])
    assert code == 0
    runs = sorted(p for p in (folder / "grading").iterdir() if p.is_dir() and not p.is_symlink())
    assert run in runs and len(runs) == 2  # the first run kept
    new = folder / "grading" / (folder / "grading" / "LATEST").read_text().strip()
    assert new != run
    again = json.loads((new / "grades.json").read_text(encoding="utf-8"))
    before = {(r["student"], r["exercise"]): r for r in rows}
    after = {(r["student"], r["exercise"]): r for r in again}
    assert before.keys() == after.keys()
    assert after[("c8_swapped", "8.1")]["verdict"] == "right"
    assert before[("c8_swapped", "8.1")]["verdict"] == "wrong"
    assert all(after[k] == v for k, v in before.items() if k[0] != "c8_swapped")
    assert json.loads((run / "grades.json").read_text(encoding="utf-8")) == rows  # untouched


def test_a_points_file_giving_more_partial_credit_than_points_is_refused(tmp_path):
    path = tmp_path / "points.toml"
    path.write_text('[exercises]\n"2.1" = { points = 1, partial = { sign_slip = 2 } }\n', "utf-8")
    with pytest.raises(ValueError, match="partial credit above its points"):
        Points.load(path)


def test_the_points_template_lists_every_graded_exercise_and_parses():
    import tomllib

    from lessons.checks import catalogue

    templates = load_templates()
    text = template_text(templates, catalogue())
    data = tomllib.loads(text)
    listed = set(data["exercises"])
    assert listed == {c.exercise for t in templates.values() for c in t.checks}
    assert "#   no_scaling: " in text


# --- the sandbox --------------------------------------------------------------------------------

ATTACK = """import os, socket
escaped = []
try:
    socket.create_connection(("1.1.1.1", 53), timeout=3)
    escaped.append("network")
except OSError:
    pass
try:
    print(open(SECRET).read())
    escaped.append("read a file outside the submissions")
except OSError:
    pass
for target in (os.path.join(ROOT, "LICENSE"), os.path.join(ROOT, "kit", "x.py")):
    try:
        open(target, "a").close()
        escaped.append("wrote " + target)
    except OSError:
        pass
if os.getuid() == 0:
    escaped.append("root")
"""


@pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bwrap is missing (apt-get install bubblewrap)"
)
def test_the_sandbox_recipe_grades_and_blocks_network_secrets_and_writes(tmp_path):
    import subprocess

    secret = tmp_path / "secret.txt"
    secret.write_text("the teacher's key", encoding="utf-8")
    folder = tmp_path / "class"
    folder.mkdir()
    students = _student_notebooks(tmp_path / "assignments")
    nb = copy.deepcopy(students[8])
    insert_before(nb, SINUSOID, f"SECRET, ROOT = {str(secret)!r}, {str(ROOT)!r}\n" + ATTACK)
    answer(nb, SINUSOID, SOLUTION[SINUSOID] + "\nanswer = answer if not escaped else answer + 1")
    nbformat.write(nb, folder / "attacker.ipynb")
    before = (ROOT / "LICENSE").stat().st_mtime_ns
    points = tmp_path / "points.toml"  # beside the folder: shown to the sandbox, read-only
    points.write_text('[exercises]\n"8.1" = 5\n', encoding="utf-8")
    done = subprocess.run(
        [
            str(ROOT / "kit" / "grade_sandbox.sh"),
            str(folder),
            "--timeout",
            "30",
            "--points",
            str(points),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    run = folder / "grading" / (folder / "grading" / "LATEST").read_text().strip()
    (row,) = json.loads((run / "grades.json").read_text(encoding="utf-8"))
    assert (row["verdict"], row["mistake"]) == ("right", ""), row  # nothing escaped
    assert row["points"] == 5
    assert (ROOT / "LICENSE").stat().st_mtime_ns == before
    assert not (ROOT / "kit" / "x.py").exists()


# --- many notebooks at once -------------------------------------------------------------------

#: A few students of `make bench-grade`'s chapter-7 class: right, a named mistake with a
#: right second exercise, an edited given, and two platform names.
FEW = [
    "adams.ipynb",
    "patel.ipynb",
    "rossi.ipynb",
    "walshanna_2101_6101_07_multi_head_attention.ipynb",
    "Beatriz Costa_3103_assignsubmission_file_ch07.ipynb",
]


def _short_chapter_7(nb):
    """The student notebook of chapter 7 less the chapter's own code (faster to run)."""
    nb = copy.deepcopy(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    keep = {id(c) for c in code[:2]} | {
        id(bench_grade._cell(nb, check)) for check in (bench_grade.SPLIT, bench_grade.COUNT)
    }
    nb.cells = [c for c in nb.cells if c.cell_type == "markdown" or id(c) in keep]
    return nb


def _files(run: Path) -> dict[str, bytes]:
    return {p.relative_to(run).as_posix(): p.read_bytes() for p in run.rglob("*") if p.is_file()}


def test_grading_two_notebooks_at_a_time_writes_the_same_bytes_as_one_at_a_time(
    tmp_path, monkeypatch
):
    """`--jobs` changes how long a run takes, never what it writes: same rows, same order,
    same gradebook, exports and feedback, byte for byte (the run's time given, as Moodle's
    `Last modified (grade)` carries it). The kernels' transcripts are replayed
    (tests/kernel_transcripts.py), each after a wait of its own, so that the notebooks
    finish in another order than they started."""
    transcripts = Transcripts(jitter=0.3)
    transcripts.install(monkeypatch)
    student = _short_chapter_7(bench_grade.student_notebook(tmp_path / "assignments"))
    folder = tmp_path / "class"
    expected = bench_grade.write_class(folder, student, FEW)
    now = datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc)
    runs = {}
    for jobs in (2, 1):  # two at a time first: the chapter's own run goes beside a student's
        with contextlib.redirect_stdout(io.StringIO()):
            rows, _, runs[jobs] = batch.grade(
                folder, 30, jobs, now=now, out=tmp_path / f"jobs{jobs}"
            )
        assert bench_grade.false_rows(rows, expected) == []
    one, two = _files(runs[1]), _files(runs[2])
    assert sorted(one) == sorted(two)
    written = {p for p in one if not p.startswith("feedback/")}
    assert written == {
        "grades.csv",
        "grades.json",
        "summary.md",
        "gradebook.csv",
        "canvas.csv",
        "moodle_07_multi_head_attention.csv",
        "exports.txt",
    }  # the files `make grade` has always written
    assert len([p for p in one if p.startswith("feedback/")]) == len(FEW)
    different = [p for p in one if one[p] != two[p]]
    assert different == []
    assert "2026-01-05 09:30:00 UTC" in one["moodle_07_multi_head_attention.csv"].decode()
    note = transcripts.finish()
    if note:
        warnings.warn(note, stacklevel=1)


def test_the_default_number_of_jobs_is_the_cpus_this_process_may_use():
    assert run.default_jobs() == len(os.sched_getaffinity(0))
    assert cli.main(["--jobs", "0", str(ROOT / "tests")]) == 2


def test_each_kernel_gets_one_thread_unless_the_teacher_chose(monkeypatch):
    for name in run.KERNEL_THREADS:
        monkeypatch.delenv(name, raising=False)
    assert {run.kernel_environment()[n] for n in run.KERNEL_THREADS} == {"1"}
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert run.kernel_environment()["OMP_NUM_THREADS"] == "3"


def test_the_benchmark_class_is_30_notebooks_of_one_chapter_using_every_way_of_answering():
    assert len(bench_grade.CLASS) == 30
    keys = [_key(name) for name, _, _ in bench_grade.CLASS]
    assert len(set(keys)) == 30  # one notebook per student
    assert {s for _, s, _ in bench_grade.CLASS} == set(bench_grade.SPLITS)
    assert {c for _, _, c in bench_grade.CLASS} == set(bench_grade.COUNTS)
    verdicts = {w.expected[0] for w in [*bench_grade.SPLITS.values(), *bench_grade.COUNTS.values()]}
    assert verdicts == {"right", "wrong", "unanswered", "error", "timeout"}
