"""lessons.toy (chapter 1's hand-set word vectors) and lessons.book.figures: heatmap, score_distributions, seed_band."""

from __future__ import annotations

import base64
import io

import matplotlib

matplotlib.use("Agg")  # tests draw off-screen; notebooks never call this
import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons import heatmap, word_vectors
from lessons.book.figures import score_distributions, seed_band
from lessons.book.inline import figure_png
from lessons.toy import FEATURES, vocabulary


def suptitle(fig) -> str:
    """The figure's title (``Figure.get_suptitle`` is matplotlib 3.8+; lessons supports 3.7)."""
    return fig._suptitle.get_text() if fig._suptitle is not None else ""


def test_word_vectors_have_one_row_per_word_and_one_column_per_feature():
    X = word_vectors("The bank of the river")  # [5, 6]
    assert X.shape == (5, len(FEATURES)) and X.dtype == np.float64
    np.testing.assert_array_equal(X[0], X[3])  # "The" and "the" are one word


def test_an_average_of_word_vectors_cannot_see_word_order():
    forward = word_vectors("dog bites man").mean(axis=0)  # [6]
    backward = word_vectors("man bites dog").mean(axis=0)  # [6]
    np.testing.assert_array_equal(forward, backward)


def test_every_vocabulary_word_has_a_vector_and_the_ambiguous_bank_leans_both_ways():
    X = word_vectors(list(vocabulary()))
    assert np.isfinite(X).all() and (np.linalg.norm(X, axis=1) > 0).all()
    bank = word_vectors(["bank"])[0]
    assert bank[FEATURES.index("nature")] > 0 and bank[FEATURES.index("money")] > 0


def test_word_vectors_name_the_unknown_words():
    with pytest.raises(ValueError, match=r"not in the toy vocabulary: \['zebra'\]"):
        word_vectors("the zebra")
    with pytest.raises(ValueError, match="at least one word"):
        word_vectors([])


def test_heatmap_labels_rows_and_columns_and_writes_every_value():
    ax = heatmap(np.array([[0.25, 0.75], [1.0, 0.0]]), ["q0", "q1"], ["k0", "k1"], title="A")
    assert ax.get_title() == "A" and ax.get_xlabel() == "key" and ax.get_ylabel() == "query"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["k0", "k1"]
    assert sorted(t.get_text() for t in ax.texts) == ["0.00", "0.25", "0.75", "1.00"]
    plt.close(ax.figure)


@pytest.mark.parametrize(
    ("values", "rows", "cols", "message"),
    [
        (np.zeros(3), ["a"], ["b"], r"2-D table .* shape \(3,\)"),
        (np.zeros((2, 3)), ["a"], ["b", "c", "d"], r"shape \(2, 3\), got 1 row labels and 3"),
    ],
)
def test_heatmap_rejects_labels_that_do_not_fit(values, rows, cols, message):
    with pytest.raises(ValueError, match=message):
        heatmap(values, rows, cols, title="t")


def test_heatmap_writes_dark_cells_in_white_and_bright_cells_in_black():
    ax = heatmap(np.array([[0.0, 1.0]]), ["q"], ["dark", "bright"], title="A", vmin=0, vmax=1)
    colours = {t.get_text(): matplotlib.colors.to_rgb(t.get_color()) for t in ax.texts}
    assert sum(colours["0.00"]) > 2.5 and sum(colours["1.00"]) < 0.5
    plt.close(ax.figure)


def test_heatmaps_given_vmin_and_vmax_share_one_colour_scale():
    _, (left, right) = plt.subplots(1, 2)
    heatmap([[0.2, 0.3]], ["q"], ["a", "b"], title="L", ax=left, vmin=0, vmax=1)
    heatmap([[0.6, 0.9]], ["q"], ["a", "b"], title="R", ax=right, vmin=0, vmax=1)
    for ax in (left, right):
        norm = ax.collections[0].norm
        assert (norm.vmin, norm.vmax) == (0, 1)
    assert len(left.figure.axes) == 4  # two heatmaps, two colour bars
    plt.close(left.figure)


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda rows: st.tuples(
            st.lists(
                st.lists(st.floats(-9, 9), min_size=3, max_size=3), min_size=rows, max_size=rows
            ),
            st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=rows, max_size=rows),
        )
    )
)
def test_heatmap_writes_exactly_the_unmasked_cells(table):
    values, mask = (np.array(t) for t in table)  # [rows, 3] each
    ax = heatmap(
        values, [str(i) for i in range(len(values))], ["a", "b", "c"], title="t", mask=mask
    )
    written = sorted(t.get_text() for t in ax.texts)
    assert written == sorted(format(v, ".2f") for v in values[~mask])
    plt.close(ax.figure)


def test_heatmap_rejects_a_mask_of_another_shape():
    with pytest.raises(
        ValueError, match=r"mask must have the shape of values \(2, 2\); got shape \(2,\)"
    ):
        heatmap(np.eye(2), ["a", "b"], ["c", "d"], title="t", mask=[True, False])


def test_score_distributions_draw_raw_and_scaled_scores_with_one_colour_per_d_k():
    rng = np.random.default_rng(0)
    dots = {d: (rng.normal(size=(500, d)) * rng.normal(size=(500, d))).sum(1) for d in (4, 256)}
    fig = score_distributions(dots, title="Scores")
    raw, scaled = fig.axes
    assert suptitle(fig) == "Scores"
    assert raw.get_title() and scaled.get_title()
    assert raw.get_ylabel() == "density" and "sqrt" in scaled.get_xlabel()
    labels = [t.get_text() for t in scaled.get_legend().get_texts()]
    assert labels == ["$d_k$ = 4", "$d_k$ = 256"]
    # the raw scores of d_k = 256 reach far wider than the scaled ones
    assert np.ptp(raw.get_xlim()) > 5 * np.ptp(scaled.get_xlim())
    plt.close(fig)


@pytest.mark.parametrize(
    ("dots", "message"),
    [
        ({}, "at least one d_k"),
        ({0: np.zeros(3)}, "positive integers d_k; got 0"),
        ({4: np.zeros((2, 3))}, r"dots_by_dk\[4\] must have shape \[n_pairs\]; got shape \[2, 3\]"),
    ],
)
def test_score_distributions_reject_bad_input(dots, message):
    with pytest.raises(ValueError, match=message):
        score_distributions(dots)


def test_seed_band_draws_each_seed_their_median_and_a_band_from_lowest_to_highest():
    curves = {
        0: {"step": [0, 5, 10], "accuracy": [0.5, 0.7, 1.0]},
        1: {"step": [0, 5, 10], "accuracy": [0.4, 0.9, 1.0]},
        2: {"step": [0, 5, 10], "accuracy": [0.9, 0.8, 1.0]},
    }
    ax = seed_band(curves, "step", "accuracy", title="T", xlabel="step", ylabel="acc")
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("T", "step", "acc")
    lines = [line for line in ax.lines if len(line.get_xdata()) == 3]
    assert len(lines) == 4  # three seeds and their median
    median = next(line for line in lines if line.get_linewidth() == 2)
    np.testing.assert_allclose(median.get_ydata(), [0.5, 0.8, 1.0])  # the means: 0.6, 0.8, 1
    band = ax.collections[0].get_paths()[0].vertices  # [points, 2]
    assert band[:, 1].min() == pytest.approx(0.4) and band[:, 1].max() == pytest.approx(1.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["median of 3 seeds"]
    plt.close(ax.figure)


@pytest.mark.parametrize(
    ("curves", "message"),
    [
        ({}, "at least one seed"),
        ({0: {"step": [0, 1]}}, r"curves\[0\] must hold 'step' and 'loss'; got \['step'\]"),
        ({3: {"step": [0, 1], "loss": [1.0]}}, r"equally long; got shapes \[2\] and \[1\]"),
    ],
)
def test_seed_band_rejects_records_it_cannot_draw(curves, message):
    with pytest.raises(ValueError, match=message):
        seed_band(curves, "step", "loss", title="t", xlabel="x", ylabel="y")


def test_heatmap_keeps_long_labels_level_and_leaves_the_figure_drawable():
    fig, ax = plt.subplots(figsize=(2.0, 2.0))
    draws = []
    fig.canvas.mpl_connect("draw_event", draws.append)
    long = ["a rather long key label", "another long key label"]
    heatmap(np.eye(2), ["q0", "q1"], long, title="t", ax=ax)
    assert draws == []  # no full draw per heatmap: the figure is drawn once, when shown
    assert [t.get_rotation() for t in ax.get_xticklabels()] == [0.0, 0.0]
    assert "draw" not in vars(fig) and "draw" not in vars(fig.canvas)  # skipped draw undone
    fig.canvas.draw()  # and the figure still draws
    assert len(draws) == 1
    plt.close(fig)


def _png(fig) -> np.ndarray:
    from PIL import Image

    raw = base64.b64decode(figure_png(fig))
    return np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"))  # [H, W, 3]


def test_figure_png_trims_to_the_ink_and_keeps_a_tenth_of_an_inch():
    fig = plt.figure(figsize=(4, 3), dpi=100, layout="none")
    box = plt.Rectangle((0.4, 0.3), 0.2, 0.1, color="black", linewidth=0)  # 80 x 30 px
    fig.add_artist(box)
    picture = _png(fig)
    plt.close(fig)
    # the box plus 10 px (0.1 inch at 100 dpi) on every side, nothing of the empty canvas
    height, width = picture.shape[:2]
    assert abs(height - (30 + 20)) <= 1 and abs(width - (80 + 20)) <= 1
    ink = (picture < 250).any(axis=-1)  # [H, W]
    assert ink[11:-11, 11:-11].all() and not ink[:9].any() and not ink[:, -9:].any()


def test_figure_png_shows_a_cut_at_the_canvas_edge():
    # what is drawn outside the canvas is lost, and the ink then touches the edge:
    # tests/test_notebooks.py looks for exactly that in every stored figure
    fig = plt.figure(figsize=(4, 3), dpi=100, layout="none")
    fig.text(0.9, 0.5, "far too long to fit", fontsize=14)
    picture = _png(fig)
    plt.close(fig)
    assert (picture[:, -1] < 250).any()
