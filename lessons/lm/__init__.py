"""Chapter 12's language model: two attention-only layers trained on real text (chapter 12).

``checkpoints()`` lists the stored training steps; ``load(step)`` gives the model
(``stored_weights(step)``, its float16 tensors as stored);
``forward(text, step)`` its attention ``[layer][head][n][n]`` and logits ``[n][vocab]``;
``encode`` / ``decode`` turn text into ids and back; ``lessons.lm.detectors`` holds the
head detectors as formulas, ``head_scores`` applies them to every head;
the in-page widget that runs the model with no kernel is page machinery:
``lessons.lm_widget`` (``lessons/book/widgets/lm_widget.py``). The weights ship in
``lessons/lm_weights/`` and were made by ``kit/train_lm.py``.
"""

from __future__ import annotations

from .checkpoints import checkpoints, load, manifest, stored_weights
from .circuits import copying_score, k_composition, random_k_compositions
from .detectors import (
    INDUCTION_THRESHOLD,
    current_token_score,
    detection_score,
    first_token_score,
    in_context_learning,
    induction_score,
    induction_text,
    offset_weights,
    previous_token_score,
)
from .heads import best_head, head_scores
from .model import CharLM, LMConfig
from .run import forward, head_attention, path_losses, text_loss, token_losses
from .text import VOCAB, decode, encode, eval_passages, stdlib_corpus

__all__ = [
    "INDUCTION_THRESHOLD",
    "VOCAB",
    "CharLM",
    "LMConfig",
    "best_head",
    "checkpoints",
    "copying_score",
    "current_token_score",
    "decode",
    "detection_score",
    "encode",
    "eval_passages",
    "first_token_score",
    "forward",
    "head_attention",
    "head_scores",
    "in_context_learning",
    "induction_score",
    "induction_text",
    "k_composition",
    "load",
    "manifest",
    "offset_weights",
    "path_losses",
    "previous_token_score",
    "random_k_compositions",
    "stdlib_corpus",
    "stored_weights",
    "text_loss",
    "token_losses",
]
