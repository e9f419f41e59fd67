"""Every wrong verdict names its mistake, and the catalogue names exactly what the checks return.

The checks' mistake catalogue feeds the grader's class summary ("12 of 30 students took
the softmax down the columns ...") and the instructor's guide, so: each check refuses
to return a name its chapter's ``MISTAKES`` entry does not describe (``catalogued``);
every name the catalogue describes is returned by at least one input of the check tests
(run here, heard through the checks' audit event); and every description reads as the end of that
sentence.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from repo_paths import ROOT

import lessons
from lessons.checks import MODULES, catalogue
from lessons.checks.verdict import (
    GENERIC_MISTAKES,
    Verdict,
    catalogued,
    generic,
    judge,
    named_mistake,
    right,
    unanswered,
    wrong,
)

SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
ENTRIES = [
    (chapter, check, name, description)
    for chapter, checks in catalogue().items()
    for check, mistakes in checks.items()
    for name, description in mistakes.items()
]


# --- the verdict: a name for every wrong answer, and a record for the grader --------------------


@given(st.text(max_size=40), st.sampled_from(sorted(GENERIC_MISTAKES)))
def test_a_record_says_the_verdict_the_mistake_and_the_message(text, name):
    assert right(text).record() == {
        "verdict": "right",
        "mistake": None,
        "message": f"✔ Correct. {text}",
    }
    assert wrong(text, name).record() == {
        "verdict": "wrong",
        "mistake": name,
        "message": f"✘ Not yet. {text}",
    }
    assert unanswered(text).record() == {
        "verdict": "unanswered",
        "mistake": None,
        "message": f"✏ No answer yet: replace the ... or None with {text}.",
    }


@given(st.text(max_size=40))
def test_the_name_leaves_what_the_reader_sees_unchanged(text):
    """Truthiness, text and HTML are the stored notebooks' outputs: byte for byte as before."""
    for verdict_, ok, colour in (
        (right(text), True, "#009E73"),
        (wrong(text, "other"), False, "#D55E00"),
        (unanswered(text), False, "#0072B2"),
    ):
        assert bool(verdict_) is ok
        assert repr(verdict_) == verdict_.message
        assert verdict_._repr_html_() == (
            f'<div class="lessons-check" style="border-left: 4px solid {colour}; '
            'padding: 0.3em 0.7em; margin: 0.2em 0;">'
            f"{html.escape(verdict_.message)}</div>"
        )


@pytest.mark.parametrize("name", [None, "", "No_Scaling", "no-scaling", "_x", "x__y", "2x", 3])
def test_a_wrong_verdict_needs_a_snake_case_name(name):
    with pytest.raises(ValueError, match="snake_case"):
        wrong("x", name)


def test_only_a_wrong_answer_names_a_mistake():
    with pytest.raises(ValueError, match="only a wrong answer"):
        Verdict(True, "✔ Correct.", mistake="other")
    with pytest.raises(ValueError, match="only a wrong answer"):
        Verdict(False, "✏ No answer yet", answered=False, mistake="other")


def test_named_mistake_and_judge_report_the_dicts_names_in_snake_case():
    got = np.array([1.0, 2.0])  # [2]
    mistakes = {
        "never": (None, "never"),
        "no-scaling": (np.array([1.0, 2.0]), "first"),
        "second": (np.array([1.0, 2.0]), "second"),
    }
    found = named_mistake(got, mistakes)
    assert found.mistake == "no_scaling" and repr(found) == "✘ Not yet. first"
    assert named_mistake(got, {"no": (np.array([2.0, 1.0]), "no")}) is None
    common = {"what": "x", "praise": "y"}
    assert judge("x", got, **common).mistake == "not_a_number"
    assert judge([1.0, 2.0, 3.0], got, **common, shape_message="{got}").mistake == "wrong_shape"
    assert judge([1.0, 2.0], np.zeros(2), **common, mistakes=mistakes).mistake == "no_scaling"
    assert judge([3.0, 2.0], got, **common, mistakes=mistakes) is None


def test_generic_gives_the_shared_descriptions_and_refuses_unknown_names():
    assert generic("other", "wrong_shape") == {
        "other": GENERIC_MISTAKES["other"],
        "wrong_shape": GENERIC_MISTAKES["wrong_shape"],
    }
    with pytest.raises(ValueError, match="not generic"):
        generic("softmax_over_columns")


# --- catalogued: a check cannot return a name its entry lacks ------------------------------------

TOY = {"check_toy": {"squared": "squared x instead of doubling it", **generic("other")}}


@catalogued(TOY)
def check_toy(answer, name):
    """Doubles: says ``name`` whatever the answer."""
    return right("2x.") if answer == 2 else wrong("Not 2x.", name)


def test_a_check_that_names_an_uncatalogued_mistake_raises():
    assert check_toy(2, "other") and check_toy(3, "squared").mistake == "squared"
    with pytest.raises(ValueError, match="'cubed'.*does not describe"):
        check_toy(3, "cubed")
    with pytest.raises(ValueError, match="no entry"):
        catalogued(TOY)(lambda answer: right("x"))
    assert check_toy.__name__ == "check_toy" and "Doubles" in check_toy.__doc__


AUDIT_PROBE = """
import sys
heard = []
sys.addaudithook(lambda event, args: heard.append((args[0], args[1].mistake))
                 if event == "lessons.check" else None)
import lessons
lessons.check_perpendicular_entry(..., [1, 2], [3, 0], 1)
lessons.check_perpendicular_entry(1.5, [1, 2], [3, 0], 1)
print(heard)
"""


def test_every_checks_verdict_raises_the_audit_event_once():
    # An audit hook cannot be removed, so it listens in a process of its own.
    result = subprocess.run(
        [sys.executable, "-c", AUDIT_PROBE],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    heard = result.stdout.strip().splitlines()[-1]
    assert (
        heard == "[('check_perpendicular_entry', None), ('check_perpendicular_entry', 'sign_slip')]"
    ), heard


def test_every_check_of_every_chapter_is_catalogued():
    for module in MODULES.values():
        assert list(module.MISTAKES) == module.__all__, module.__name__
        for name in module.__all__:
            check = getattr(module, name)
            assert check.mistakes is module.MISTAKES[name], name
            assert getattr(lessons, name) is check


QA = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [n_q, d_k]
KA = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [n_k, d_k]
VA = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [n_k, d_v]
#: Checks with their exercise's inputs, for answers of any kind.
INPUTS = {
    lessons.check_pair_count: (5,),
    lessons.check_soft_lookup: (QA[0], KA, VA),
    lessons.check_split_query: (KA, (1, 2)),
    lessons.check_perpendicular_entry: (QA[2], KA[1], 0),
    lessons.check_projection: (QA, np.eye(2)),
    lessons.check_attention: (QA, KA, VA),
    lessons.check_attention_weights: (QA, KA),
    lessons.check_causal_mask: (3,),
    lessons.check_padding_mask: ([2, 3], 3),
    lessons.check_mha_parameter_count: (8,),
    lessons.check_head_width_parameter_count: (8, 2, 2),
    lessons.check_sinusoidal_encoding: (3, 2),
    lessons.check_weight_bytes: (2, 2, 3, 2),
    lessons.check_block_quadratic_share: (8, 4, 16),
}
ANSWERS = st.one_of(
    st.none(),
    st.text(max_size=5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**6), 10**6),
    st.lists(st.floats(-10, 10), max_size=4),
    st.lists(st.lists(st.floats(-10, 10), min_size=1, max_size=3), max_size=3),
    st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=3, max_size=3),
)


@pytest.mark.parametrize("check", INPUTS, ids=lambda check: check.__name__)
@given(answer=ANSWERS)
def test_any_answer_gets_a_verdict_whose_name_the_checks_entry_describes(check, answer):
    verdict_ = check(answer, *INPUTS[check])  # an uncatalogued name would raise here
    record = verdict_.record()
    assert record["verdict"] in ("right", "wrong", "unanswered")
    assert (record["mistake"] is None) == (record["verdict"] != "wrong")
    assert record["mistake"] is None or record["mistake"] in check.mistakes


# --- the catalogue: what the grader and the guide print -----------------------------------------


def test_the_catalogue_is_in_book_order_with_each_chapters_checks_in_order():
    book = catalogue()
    assert list(book) == sorted(book) == list(MODULES)
    for chapter, checks in book.items():
        assert list(checks) == MODULES[chapter].__all__
        assert all(checks.values()), f"chapter {chapter} has a check that names no mistake"


@pytest.mark.parametrize(("chapter", "check", "name", "description"), ENTRIES)
def test_every_description_ends_the_sentence_12_of_30_students(chapter, check, name, description):
    assert SNAKE.fullmatch(name), name
    assert description.strip() == description and len(description) > 10
    assert description[0].islower() and not description.endswith((".", "!", "?", ";", ":"))
    assert "  " not in description
    if name in GENERIC_MISTAKES:
        assert description == GENERIC_MISTAKES[name]


def test_each_checks_mistakes_are_told_apart():
    for chapter, checks in catalogue().items():
        for check, mistakes in checks.items():
            descriptions = list(mistakes.values())
            assert len(set(descriptions)) == len(descriptions), (chapter, check)


# --- every catalogued mistake is returned by some input of the check tests ----------------------

RECORDER = """
import json, os, sys

SEEN = set()

def _listen(event, args):
    if event == "lessons.check" and args[1].mistake is not None:
        SEEN.add((args[0], args[1].mistake))

def pytest_configure(config):
    sys.addaudithook(_listen)

def pytest_unconfigure(config):
    with open(os.environ["MISTAKES_SEEN"], "w") as f:
        json.dump(sorted(SEEN), f)
"""


@pytest.fixture(scope="module")
def produced(tmp_path_factory):
    """(check, mistake) pairs the check tests produce, run in a fresh process and watched."""
    folder = tmp_path_factory.mktemp("recorder")
    (folder / "record_mistakes.py").write_text(RECORDER)
    seen = folder / "seen.json"
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "checks").glob("test_*.py"))
    env = {
        **os.environ,
        "MISTAKES_SEEN": str(seen),
        "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]),
    }
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "record_mistakes", *tests],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {tuple(pair) for pair in json.loads(Path(seen).read_text())}


@pytest.mark.slow  # runs every check test again, watched
def test_every_catalogued_mistake_is_produced_by_a_check_test(produced):
    described = {(check, name) for _, check, name, _ in ENTRIES}
    assert not (produced - described), "named but not catalogued"
    missing = sorted(described - produced)
    assert not missing, (
        f"catalogued but no test input in tests/checks/test_*.py gives it: {missing}"
    )
