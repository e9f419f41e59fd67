"""lessons.stack_diagram: the heads-and-layers figure of chapter 7 draws what it promises."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # tests draw off-screen; notebooks never call this
import matplotlib.pyplot as plt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.colors import to_rgb
from matplotlib.patches import Circle, FancyBboxPatch

from lessons.plots import OKABE_ITO
from lessons.stack_diagram import heads_and_layers


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
