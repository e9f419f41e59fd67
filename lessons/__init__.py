"""The code of the course *Self-Attention, Step by Step*.

The root of the package holds what the chapters teach, one module per idea, each
naming its chapter (the map, with where to start, is ``lessons/README.md``):

- ``softmax``: ``softmax`` (chapter 2)
- ``projections``: ``project``, ``qkv``, ``split_qkv`` (chapter 3)
- ``attention``: ``attention``, scaled dot-product attention (chapter 4)
- ``masks``: ``causal_mask``, ``padding_mask``, ``combine_masks``, ``additive_mask`` (chapter 6)
- ``masks_elsewhere``: ``keep_mask``, ``diagnose_mask``, masks as other libraries write them
  (the page *Masks in other libraries*)
- ``multihead``: ``MultiHeadAttention``, ``split_heads``, ``merge_heads`` (chapter 7)
- ``positions``: ``sinusoidal_encoding``, ``offset_matrix``, ``rope``, ``alibi_bias`` (chapter 8)
- ``block``: ``TransformerBlock`` (chapter 9)
- ``induction``: a two-layer induction circuit set by hand, ``run_induction`` (chapter 9)
- ``tiled``: ``tiled_attention``, attention by blocks with an online softmax (chapter 10)
- ``tasks``: synthetic tasks with known answers; ``training``: a tiny model and its training loop (chapter 11)
- ``lm``: chapter 12's language model, its checkpoints and its head detectors (chapter 12)
- ``modern``: ``ModernAttention``, today's attention layer (grouped KV heads, QK-norm, windows,
  sinks, soft-capping, the output gate); ``latent``: ``LatentAttention``, multi-head latent
  attention; ``kv_cache``: ``KVCache``, window masks and the cache calculator (chapter 13)
- ``toy``: hand-set word vectors (chapter 1)
- ``checks``: the exercises' self-checks, one module per chapter (``checks.ch01`` ...)

``lessons.book`` is the machinery that builds the pages (chapter set-up and glue,
figures, diagrams, the in-page widgets); a learner never needs to read it. Its
names that the chapters call are re-exported here: ``setup``, ``glue``, ``heatmap``,
``plot_induction``, ``question``, ``explorer``, ``lab``, ``lm_widget`` and ``kv_cache_widget``.

Bad input gets one answer everywhere (the rules are in ``_validate``; the table is in
CONTRIBUTING.md): a ``ValueError`` or ``TypeError`` that names the argument.
``MEMORY_BUDGET`` is the most bytes one array built by ``lessons`` may take.
"""

from types import ModuleType as _ModuleType

from ._validate import MEMORY_BUDGET
from .attention import attention
from .block import TransformerBlock
from .checks import *  # noqa: F403  (every check_*, one module per chapter, and Verdict)
from .induction import induction_circuit, repeat_accuracy, repeated_sequences, run_induction
from .kv_cache import CacheLayout, KVCache, kv_cache_bytes, window_mask
from .latent import LatentAttention, LatentConfig
from .masks import additive_mask, causal_mask, combine_masks, padding_mask
from .masks_elsewhere import diagnose_mask, keep_mask
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
from .positions import alibi_bias, alibi_slopes, offset_matrix, rope, sinusoidal_encoding
from .projections import project, qkv, split_qkv
from .softmax import softmax
from .tasks import cls_token, position_labels, position_task, reversal_task
from .tiled import tiled_attention
from .toy import word_vectors
from .training import AttentionModel, accuracy, hand_built_position_model, train

# The page machinery's names that the chapters call, so that `lessons.X` keeps working.
# The package's front door is the one root module that imports `lessons.book`.
from .book.chapter import glue, setup  # isort: skip
from .book.diagrams import plot_induction  # isort: skip
from .book.figures import heatmap  # isort: skip
from .book.widgets.explorer import Explorer, explorer, explorer_from_embeddings  # isort: skip
from .book.widgets.kv_cache import kv_cache_widget  # isort: skip
from .book.widgets.lab import Lab, lab  # isort: skip
from .book.widgets.lm_widget import widget as lm_widget  # isort: skip
from .book.widgets.question import Question, question  # isort: skip

__version__ = "0.1.0"

#: The public names: exactly those imported above (written once, in the imports).
__all__ = sorted(
    name
    for name, value in globals().items()
    if not name.startswith("_") and not isinstance(value, _ModuleType)
)
