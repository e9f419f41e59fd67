"""The chapters' diagrams: pictures of an idea, drawn in code so a reader need not scroll past it.

One module per kind of picture; every name is also reachable as ``lessons.book.diagrams.<name>``:

- ``vectors``: ``vector_pairs``, two vectors at an angle and their dot product (chapter 2)
- ``shapes``: ``broadcast_diagram``, masks stretched to the weights' shape (chapter 6);
  ``number_grid`` and ``split_heads_diagram``, a sequence cut into heads (chapter 7)
- ``masks``: ``mask_grids``, keep-masks side by side (chapter 6)
- ``depth``: ``heads_and_layers``, heads as width and layers as depth (chapter 7)
- ``blocks``: ``norm_placement``, post-norm and pre-norm blocks (chapter 9)
- ``induction``: ``plot_induction``, the induction circuit's two layers of weights (chapter 9)
- ``parts``: the arrows, boxes, "+" signs and bare frames they are drawn with

Colours come from ``lessons.book.figures.OKABE_ITO``.
"""

from .blocks import norm_placement
from .depth import heads_and_layers
from .induction import plot_induction
from .masks import mask_grids
from .parts import clear_frame
from .shapes import broadcast_diagram, number_grid, split_heads_diagram
from .vectors import vector_pairs

__all__ = [
    "broadcast_diagram",
    "clear_frame",
    "heads_and_layers",
    "mask_grids",
    "norm_placement",
    "number_grid",
    "plot_induction",
    "split_heads_diagram",
    "vector_pairs",
]
