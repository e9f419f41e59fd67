"""lessons.book.diagrams: the chapters' diagrams draw what their docstrings promise."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # tests draw off-screen; notebooks never call this
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.colors import to_rgb
from matplotlib.patches import Circle, FancyBboxPatch, Rectangle

from lessons import split_heads
from lessons.book.diagrams import (
    broadcast_diagram,
    clear_frame,
    heads_and_layers,
    mask_grids,
    norm_placement,
    number_grid,
    split_heads_diagram,
    vector_pairs,
)
from lessons.book.figures import OKABE_ITO


def suptitle(fig) -> str:
    """The figure's title (``Figure.get_suptitle`` is matplotlib 3.8+; lessons supports 3.7)."""
    return fig._suptitle.get_text() if fig._suptitle is not None else ""


def _texts(ax) -> list[str]:
    """The words written on ``ax`` (arrows are texts too, with none)."""
    return [t.get_text() for t in ax.texts if t.get_text()]


def test_vector_pairs_title_each_panel_with_the_dot_product_and_the_angle():
    fig = vector_pairs([2.0, 1.0], [[3.0, 1.5], [-1.0, 2.0], [-2.0, -1.0]], title="Turned")
    assert suptitle(fig) == "Turned" and len(fig.axes) == 4
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == [
        "a · b = 7.5, θ = 0°",
        "a · b = 0.0, θ = 90°",
        "a · b = -5.0, θ = 180°",
    ]
    assert all(ax.get_xlabel() and ax.get_ylabel() for ax in visible)
    assert sorted(_texts(visible[0])) == ["a", "b"]
    plt.close(fig)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(0.5, 3), min_size=2, max_size=2), st.floats(0, 2 * np.pi))
def test_vector_pairs_angle_matches_the_turn_between_the_vectors(a, turn):
    a = np.array(a)  # [2]
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    b = rotation @ a  # [2], a turned by `turn`
    fig = vector_pairs(a, b[None], title="t")
    angle = float(fig.axes[0].get_title().split("θ = ")[1].rstrip("°"))
    expected = np.degrees(min(turn, 2 * np.pi - turn))
    assert abs(angle - expected) <= 0.5 + 1e-6
    plt.close(fig)


@pytest.mark.parametrize(
    ("a", "bs", "message"),
    [
        ([1.0, 2.0, 3.0], [[1.0, 0.0]], r"a must have shape \[2\]; got shape \[3\]"),
        ([1.0, 2.0], [1.0, 0.0], r"bs must have shape \[n_pairs, 2\]; got shape \[2\]"),
        ([1.0, 2.0], [[0.0, 0.0]], "non-zero"),
    ],
)
def test_vector_pairs_reject_bad_vectors(a, bs, message):
    with pytest.raises(ValueError, match=message):
        vector_pairs(a, bs, title="t")


SHAPES = {
    "weights A": (2, 3, 5, 5),
    "padding mask": (2, 1, 1, 5),
    "causal mask": (5, 5),
}


def test_broadcast_diagram_draws_one_box_per_axis_and_says_how_it_stretches():
    ax = broadcast_diagram(SHAPES, ["B", "h", "n_q", "n_k"], title="Stretch")
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    assert len(boxes) == 3 * 4
    assert _texts(ax) == ["2", "3", "5", "5", "2", "1 → 3", "1 → 5", "5"] + [
        "none → 2",
        "none → 3",
        "5",
        "5",
    ]
    dashed = [b for b in boxes if b.get_linestyle() != "-"]
    assert len(dashed) == 2  # the causal mask has no B or h axis
    assert ax.get_title() == "Stretch" and ax.get_xlabel() and ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["B", "h", "n_q", "n_k"]
    plt.close(ax.figure)


@pytest.mark.parametrize(
    ("shapes", "names", "message"),
    [
        ({}, [], "at least the target"),
        (SHAPES, ["B", "n"], r"name the 4 axes of the target \[2, 3, 5, 5\]"),
        ({"A": (2, 5), "bad": (3, 5)}, ["B", "n"], r"shapes\['bad'\] \[3, 5\] does not broadcast"),
    ],
)
def test_broadcast_diagram_rejects_shapes_it_cannot_line_up(shapes, names, message):
    with pytest.raises(ValueError, match=message):
        broadcast_diagram(shapes, names, title="t")


def test_number_grid_draws_one_coloured_cell_and_one_number_per_entry():
    _, ax = plt.subplots()
    values = np.arange(6).reshape(2, 3)  # [2, 3]
    colours = [[OKABE_ITO[0]] * 3, [OKABE_ITO[1]] * 3]
    number_grid(ax, values, (1.0, 0.0), colours, "X")
    cells = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(cells) == 6 and cells[0].get_xy() == (1.0, -1.0)
    assert _texts(ax) == ["0", "1", "2", "3", "4", "5", "X"]
    clear_frame(ax, "Grid")
    assert ax.get_title() == "Grid" and not any(s.get_visible() for s in ax.spines.values())
    with pytest.raises(ValueError, match=r"one colour per cell of values \[2, 3\]"):
        number_grid(ax, values, (0, 0), colours[:1], "X")
    with pytest.raises(ValueError, match=r"values must have shape \[rows, cols\]; got shape \[6\]"):
        number_grid(ax, np.arange(6), (0, 0), colours, "X")
    plt.close(ax.figure)


def test_split_heads_diagram_shows_every_number_once_in_x_and_once_in_a_head():
    X = torch.arange(24).reshape(1, 3, 8)  # [B, n, d_model]
    heads = split_heads(X, 2)  # [B, h, n, d_k]
    ax = split_heads_diagram(X[0], heads[0], title="Split")
    numbers = [t for t in _texts(ax) if t.isdigit()]
    assert sorted(numbers, key=int) == [str(v) for v in range(24) for _ in range(2)]
    assert "head 1: [3, 4]" in _texts(ax) and "stacked: [h, n, d_k] = [2, 3, 4]" in _texts(ax)
    assert ax.get_title() == "Split"
    with pytest.raises(ValueError, match=r"heads must have shape \[h, n, d_model / h\]"):
        split_heads_diagram(X[0], heads[0, :, :2], title="t")
    plt.close(ax.figure)


def test_norm_placement_puts_the_norms_on_the_main_path_or_on_the_branches():
    fig = norm_placement(title="Norms")
    post, pre = fig.axes
    assert suptitle(fig) == "Norms"
    assert "post-norm" in post.get_title() and "pre-norm" in pre.get_title()

    def norm_xs(ax):
        return [t.get_position()[0] for t in ax.texts if t.get_text() == "LayerNorm"]

    assert norm_xs(post) == [0, 0]  # on the main path
    assert len(norm_xs(pre)) == 2 and min(norm_xs(pre)) > 1  # on the side branches
    for ax in (post, pre):
        assert _texts(ax).count("+") == 2 and {"attention", "feed-forward"} <= set(_texts(ax))
    plt.close(fig)


# Chapter 6: keep-masks side by side.


def test_mask_grids_draws_one_panel_per_mask_with_a_number_per_cell():
    fig = mask_grids(
        {"encoder": np.ones((4, 4), dtype=bool), "decoder": np.tril(np.ones((4, 4), dtype=bool))},
        list("abcd"),
        title="Who may attend to whom",
    )
    try:
        axes = [ax for ax in fig.axes if ax.get_title()]
        assert [ax.get_title() for ax in axes] == ["encoder", "decoder"]
        decoder_cells = [t.get_text() for t in axes[1].texts]
        assert decoder_cells.count("1") == 10 and decoder_cells.count("0") == 6
        assert fig._suptitle.get_text() == "Who may attend to whom"
        assert axes[0].get_xlabel() == "key" and axes[0].get_ylabel() == "query"
    finally:
        plt.close(fig)


@pytest.mark.parametrize(
    ("panels", "labels", "message"),
    [
        ({}, ["a"], "at least one"),
        ({"m": np.ones((2, 2))}, ["a", "b"], "boolean"),
        ({"m": np.ones((2, 3), dtype=bool)}, ["a", "b"], r"shape \[n, n\]"),
        ({"m": np.ones((2, 2), dtype=bool)}, ["a", "b", "c"], r"\[3, 3\]"),
    ],
)
def test_mask_grids_rejects_what_is_not_a_square_boolean_mask(panels, labels, message):
    with pytest.raises(ValueError, match=message):
        mask_grids(panels, labels, title="t")


# Chapter 7: heads as width, layers as depth.


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts if t.get_text()]


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6), st.integers(1, 8))
def test_every_layer_holds_every_head_once_and_adds_back_into_the_stream(layers, heads):
    fig = heads_and_layers(layers, heads, title="t")
    (ax,) = fig.axes
    texts = _texts(ax)
    for g in range(heads):
        assert texts.count(f"head {g}") == layers
    assert [t for t in texts if t.startswith("layer ")] == [
        f"layer {k}" for k in range(1, layers + 1)
    ]
    assert texts.count("+") == layers  # one residual addition per layer
    assert sum(isinstance(p, Circle) for p in ax.patches) == layers
    assert f"width: h = {heads} heads, side by side" in texts
    assert any(t.startswith(f"depth: L = {layers} layers") for t in texts)
    plt.close(fig)


def test_head_g_has_the_colour_of_head_g_in_split_heads_diagram():
    fig = heads_and_layers(2, 3, title="Heads and layers")
    (ax,) = fig.axes
    assert ax.get_title() == "Heads and layers"
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch) and p.get_alpha() == 0.55]
    assert len(boxes) == 2 * 3
    colours = [tuple(round(c, 3) for c in b.get_facecolor()[:3]) for b in boxes]
    wanted = [tuple(round(c, 3) for c in to_rgb(OKABE_ITO[g])) for g in range(3)] * 2
    assert colours == wanted
    plt.close(fig)


@pytest.mark.parametrize(
    ("layers", "heads", "named"),
    [
        (0, 4, "num_layers"),
        (3, 0, "num_heads"),
        (7, 4, "num_layers"),
        (3, 9, "num_heads"),
        (2.0, 4, "num_layers"),
    ],
)
def test_sizes_that_do_not_fit_are_a_value_error_naming_the_argument(layers, heads, named):
    with pytest.raises(ValueError, match=named):
        heads_and_layers(layers, heads, title="t")
