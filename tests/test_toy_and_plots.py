"""lessons.toy (chapter 1's hand-set word vectors) and lessons.plots.heatmap."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # tests draw off-screen; notebooks never call this
import matplotlib.pyplot as plt
import numpy as np
import pytest

from lessons import heatmap, word_vectors
from lessons.toy import FEATURES, vocabulary


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
