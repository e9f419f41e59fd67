"""Helpers for the course *Self-Attention, Step by Step*.

One module per idea, each naming the chapter that teaches it:

- ``book``: ``setup`` (seeds, print options, plot style) and ``glue`` (numbers into prose)
- ``softmax``: ``softmax`` (chapter 2)
- ``attention``: ``attention``, scaled dot-product attention (chapter 4)
- ``projections``: ``project``, ``qkv``, ``split_qkv`` (chapter 3)
- ``masks``: ``causal_mask``, ``padding_mask``, ``combine_masks``, ``additive_mask`` (chapter 6)
- ``plots``: the book's style and ``heatmap``
- ``toy``: hand-set word vectors (chapter 1)
- ``checks``: self-checks for the exercises
"""

from .attention import attention
from .book import glue, setup
from .checks import (
    Verdict,
    check_attention,
    check_attention_weights,
    check_causal_mask,
    check_dot_product,
    check_padding_mask,
    check_pair_count,
    check_projection,
    check_score_matrix,
    check_soft_lookup,
    check_softmax_function,
)
from .masks import additive_mask, causal_mask, combine_masks, padding_mask
from .plots import heatmap
from .projections import project, qkv, split_qkv
from .softmax import softmax
from .toy import word_vectors

__version__ = "0.1.0"

__all__ = [
    "Verdict",
    "additive_mask",
    "attention",
    "causal_mask",
    "check_attention",
    "check_attention_weights",
    "check_causal_mask",
    "check_dot_product",
    "check_padding_mask",
    "check_projection",
    "check_pair_count",
    "check_score_matrix",
    "check_soft_lookup",
    "check_softmax_function",
    "combine_masks",
    "glue",
    "heatmap",
    "padding_mask",
    "project",
    "qkv",
    "setup",
    "softmax",
    "split_qkv",
    "word_vectors",
]
