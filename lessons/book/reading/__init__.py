"""Chapter 13's notes on the code ``transformers`` runs, one module per model family.

The chapter's section *Reading a real model's attention code* shows functions of the
installed ``transformers`` with a note under each line that an anchor names. Each module's
``READING`` maps a function, named ``"module:qualified name"``, to pairs ``(anchor, note)`` in
the order of its source. An anchor is a piece of exactly one line of that function in the
release pinned in ``requirements.txt``; the note says which part of the course the line is.
``tests/test_reading_transformers.py`` checks every anchor against the installed source, so
a release that moves a line fails there (CONTRIBUTING, "Moving the transformers pin").

- ``qwen3``: Qwen3's model, block, RoPE, attention layer and attention function (Llama's and
  Mistral's, line for line), ``rotate_half`` and ``repeat_kv``;
- ``masks``: the mask builders (the causal rule, the window, the cache's offset);
- ``gpt_oss``: gpt-oss's attention sinks;
- ``gemma2``: Gemma 2's logit soft-capping;
- ``deepseek_v3``: DeepSeek-V3's latent attention and its YaRN scale.

``READING`` is all of them together, the one table the chapter reads.
"""

from __future__ import annotations

from . import deepseek_v3, gemma2, gpt_oss, masks, qwen3

#: The families, in the order the chapter reads them.
FAMILIES = (qwen3, masks, gpt_oss, gemma2, deepseek_v3)

READING: dict[str, tuple[tuple[str, str], ...]] = {
    name: notes for family in FAMILIES for name, notes in family.READING.items()
}
