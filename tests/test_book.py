"""lessons.setup and lessons.glue: reproducible chapters and numbers glued into prose."""

from __future__ import annotations

import random
import sys

import matplotlib as mpl
import numpy as np
import pytest
import torch

import lessons
from lessons.book.chapter import GluedText
from lessons.book.figures import OKABE_ITO


def _draws(seed):
    rng = lessons.setup(seed)
    return (random.random(), np.random.rand(), torch.rand(1).item(), rng.random())  # noqa: NPY002


def test_setup_makes_every_random_source_replay_the_same_draws():
    assert _draws(3) == _draws(3)
    assert _draws(3) != _draws(4)


def test_setup_returns_a_numpy_generator():
    assert isinstance(lessons.setup(), np.random.Generator)


def test_setup_prints_four_decimals_without_scientific_notation():
    lessons.setup()
    assert np.array2string(np.array([1 / 3, 1e-9])) == "[0.3333 0.    ]"
    assert "e-" not in str(torch.tensor([1 / 3, 1e-9]))
    assert "0.3333" in str(torch.tensor([1 / 3]))


def test_setup_sets_the_book_style_with_colour_blind_safe_colours():
    lessons.setup()
    assert mpl.rcParams["image.cmap"] == "viridis"
    assert tuple(mpl.rcParams["axes.prop_cycle"].by_key()["color"]) == OKABE_ITO


@pytest.mark.parametrize("seed", [-1, 1.5, True, "0"])
def test_setup_rejects_a_seed_that_is_not_a_non_negative_integer(seed):
    with pytest.raises(ValueError, match="seed"):
        lessons.setup(seed)


@pytest.fixture
def fake_myst_nb(monkeypatch):
    """myst_nb importable, and every glue record lessons writes, as (name, text, display)."""
    import IPython.display

    calls = []

    def show(bundle, raw, metadata):
        assert raw is True
        record = metadata["scrapbook"]
        text = bundle[record["mime_prefix"] + "text/plain"]
        calls.append((record["name"], text, record["mime_prefix"] == ""))

    monkeypatch.setitem(sys.modules, "myst_nb", object())
    monkeypatch.setattr(IPython.display, "display", show)
    return calls


def test_the_glue_record_is_the_one_myst_nb_reads():
    GLUE_PREFIX = pytest.importorskip("myst_nb.ext.glue").GLUE_PREFIX

    assert lessons.book.chapter.GLUE_PREFIX == GLUE_PREFIX


def test_glue_rounds_floats_and_hides_the_value(fake_myst_nb):
    assert lessons.glue("x", np.float64(0.123456789)) == 0.1235
    assert fake_myst_nb[-1] == ("x", "0.1235", False)


def test_glue_turns_numpy_integers_into_ints_and_keeps_booleans(fake_myst_nb):
    assert repr(lessons.glue("n", np.int64(7))) == "7"
    assert lessons.glue("flag", np.True_) is True


def test_glue_shows_strings_without_quotes(fake_myst_nb):
    value = lessons.glue("s", "(0.401, 0.198)")
    assert isinstance(value, GluedText) and repr(value) == "(0.401, 0.198)"
    assert value._repr_markdown_() == "(0.401, 0.198)"


def test_glue_works_where_myst_nb_is_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "myst_nb", None)  # import now raises ImportError
    assert lessons.glue("x", 2.0 / 3.0) == 0.6667


@pytest.mark.parametrize("value", [0.1235, 7, "text <eos>", True])
def test_the_glue_record_equals_what_myst_nb_writes(monkeypatch, value):
    import IPython.display

    myst_glue = pytest.importorskip("myst_nb.ext.glue")
    ours, theirs = [], []
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: ours.append((a, k)))
    monkeypatch.setattr(myst_glue, "ipy_display", lambda *a, **k: theirs.append((a, k)))
    glued = lessons.glue("v", value)
    myst_glue.glue("v", glued, display=False)
    assert ours == theirs and len(ours) == 1
