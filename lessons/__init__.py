"""Helpers for the course *Self-Attention, Step by Step*.

One module per idea, each naming the chapter that teaches it:

- ``book``: ``setup`` (seeds, print options, plot style) and ``glue`` (numbers into prose)
- ``softmax``: ``softmax`` (chapter 2)
- ``attention``: ``attention``, scaled dot-product attention (chapter 4)
- ``projections``: ``project``, ``qkv``, ``split_qkv`` (chapter 3)
- ``masks``: ``causal_mask``, ``padding_mask``, ``combine_masks``, ``additive_mask`` (chapter 6)
- ``conventions``: ``keep_mask``, ``diagnose_mask``, masks as other libraries write them (the page *Masks in other libraries*)
- ``multihead``: ``MultiHeadAttention``, ``split_heads``, ``merge_heads`` (chapter 7)
- ``positions``: ``sinusoidal_encoding``, ``offset_matrix``, ``rope``, ``alibi_bias`` (chapter 8)
- ``block``: ``TransformerBlock`` (chapter 9)
- ``induction``: a two-layer induction circuit set by hand, ``run_induction`` and its figure (chapter 9)
- ``tiled``: ``tiled_attention``, attention by blocks with an online softmax (chapter 10)
- ``tasks``: synthetic tasks with known answers; ``training``: a tiny model and its training loop (chapter 11)
- ``explorer``: ``explorer``, an interactive attention widget in plain HTML and JavaScript (chapters 4-7, Explorer page)
- ``questions``: ``question``, predict-then-check questions graded in the page; ``lab``:
  chapter 11's lab, block keys of a trained model in the page (``widgets``: what both are made of)
- ``plots``: the book's style, ``heatmap`` and the seaborn plots (chapters 4, 11)
- ``inline``: ``figure_png``, how a notebook shows the book's figures (every chapter)
- ``diagrams``: the chapters' diagrams, one module per kind of picture (chapters 2, 6, 7, 9)
- ``toy``: hand-set word vectors (chapter 1)
- ``checks``: self-checks for the exercises, one module per chapter (``checks.ch01`` ...)

Bad input gets one answer everywhere (the rules are in ``_validate``; the table is in
CONTRIBUTING.md): a ``ValueError`` or ``TypeError`` that names the argument.
``MEMORY_BUDGET`` is the most bytes one array built by ``lessons`` may take.
"""

from types import ModuleType as _ModuleType

from . import diagrams as diagrams  # lessons.diagrams.*: the chapters' diagrams
from ._validate import MEMORY_BUDGET
from .attention import attention
from .block import TransformerBlock
from .book import glue, setup
from .checks import *  # noqa: F403  (every check_*, one module per chapter, and Verdict)
from .conventions import diagnose_mask, keep_mask
from .explorer import Explorer, explorer, explorer_from_embeddings
from .induction import (
    induction_circuit,
    plot_induction,
    repeat_accuracy,
    repeated_sequences,
    run_induction,
)
from .kv_cache import CacheLayout, KVCache, kv_cache_bytes, window_mask
from .lab import Lab, lab
from .latent import LatentAttention, LatentConfig
from .lm.page import widget as lm_widget
from .masks import additive_mask, causal_mask, combine_masks, padding_mask
from .modern import (
    AttentionConfig,
    ModernAttention,
    RMSNorm,
    repeat_kv,
    rope_halves,
    sink_softmax,
    soft_cap,
)
from .multihead import MultiHeadAttention, merge_heads, split_heads
from .plots import heatmap
from .positions import alibi_bias, alibi_slopes, offset_matrix, rope, sinusoidal_encoding
from .projections import project, qkv, split_qkv
from .questions import Question, question
from .softmax import softmax
from .tasks import cls_token, position_labels, position_task, reversal_task
from .tiled import tiled_attention
from .toy import word_vectors
from .training import AttentionModel, accuracy, hand_built_position_model, train

__version__ = "0.1.0"

#: The public names: exactly those imported above (written once, in the imports).
__all__ = sorted(
    name
    for name, value in globals().items()
    if not name.startswith("_") and not isinstance(value, _ModuleType)
)
