"""Self-checks for the exercises: right or wrong, and why.

Each ``check_*`` takes the reader's answer (and the exercise's inputs), works out the
right answer with ``lessons`` itself, and returns a ``Verdict`` that shows one line in
the notebook: correct, or what the answer looks like instead (a common mistake, named)
and how to fix it. Put the check on the last line of the cell.

One module per chapter, in the book's order: ``ch01`` holds chapter 1's checks, and so
on. ``verdict`` holds the building blocks every check is made of (``Verdict``,
``right``, ``wrong``, ``unanswered``, ``named_mistake`` ...); a new chapter's check is a
few lines built from them. Every check is also reachable as ``lessons.check_*``: a new
``chNN.py`` is imported here by name, like the others.

Every wrong verdict names its mistake, and each chapter module's ``MISTAKES`` describes
the mistakes each of its checks can name; ``catalogue()`` gathers them for the whole book.
"""

from __future__ import annotations

from types import ModuleType

from . import ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10, ch11, ch12, ch13
from .ch01 import check_pair_count, check_soft_lookup, check_split_query
from .ch02 import (
    check_key_for_scores,
    check_perpendicular_entry,
    check_softmax_function,
)
from .ch03 import check_fused_score, check_one_way_look, check_projection
from .ch04 import check_attention
from .ch05 import check_attention_weights
from .ch06 import check_causal_mask, check_padding_mask
from .ch07 import check_head_width_parameter_count, check_mha_parameter_count, check_split_heads
from .ch08 import check_sinusoidal_encoding
from .ch09 import check_block_output
from .ch10 import check_block_quadratic_share, check_online_update, check_weight_bytes
from .ch11 import check_blocked_accuracy, check_cls_row
from .ch12 import check_copy_ratio, check_induction_score, check_previous_token_score
from .ch13 import check_absorbed_scores, check_kv_heads, check_sink_weights, check_window_mask
from .verdict import Verdict

#: Chapter number -> its checks module, in book order (chapter N's live in ``chNN.py``;
#: ``tests/test_checks_names.py`` fails when a ``chNN.py`` is not imported above).
MODULES: dict[int, ModuleType] = {
    int(module.__name__.rsplit("ch", 1)[1]): module
    for module in (ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10, ch11, ch12, ch13)
}

#: Every chapter's checks, named once, in book order: the names of each chapter module's
#: ``__all__`` (``lessons`` re-exports these; ``catalogue`` stays ``lessons.checks.catalogue``).
#: ``tests/test_checks_names.py`` holds this list, the imports above and the modules present
#: against one another.
__all__ = [
    "Verdict",
    "check_pair_count",
    "check_soft_lookup",
    "check_split_query",
    "check_key_for_scores",
    "check_perpendicular_entry",
    "check_softmax_function",
    "check_fused_score",
    "check_one_way_look",
    "check_projection",
    "check_attention",
    "check_attention_weights",
    "check_causal_mask",
    "check_padding_mask",
    "check_head_width_parameter_count",
    "check_mha_parameter_count",
    "check_split_heads",
    "check_sinusoidal_encoding",
    "check_block_output",
    "check_block_quadratic_share",
    "check_online_update",
    "check_weight_bytes",
    "check_blocked_accuracy",
    "check_cls_row",
    "check_copy_ratio",
    "check_induction_score",
    "check_previous_token_score",
    "check_window_mask",
    "check_kv_heads",
    "check_sink_weights",
    "check_absorbed_scores",
]


def catalogue() -> dict[int, dict[str, dict[str, str]]]:
    """Chapter number -> check name -> {mistake name: what the learners did}.

    In book order, each chapter's checks in the order of its ``__all__``; built from
    the chapter modules' ``MISTAKES``, so it names exactly what the checks can return.
    Each description completes "12 of 30 students ...".
    """
    return {
        n: {name: dict(module.MISTAKES[name]) for name in module.__all__}
        for n, module in MODULES.items()
    }
