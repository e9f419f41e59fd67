"""How long a chapter takes to read, from its words alone (the instructor's guide shows it).

The words of a notebook's Markdown cells, markup left out (`_strip_markup`), at
`WORDS_PER_MINUTE`, rounded to `ROUND_TO` minutes. No kernel runs and nothing is timed.
"""

from __future__ import annotations

import re

import nbformat

WORDS_PER_MINUTE = 200
ROUND_TO = 5  # minutes


def _strip_markup(text: str) -> str:
    """Prose only: no directive fences or options, no HTML comments, math as one word."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " formula ", text, flags=re.S)
    text = re.sub(r"\$[^$\n]+\$", " formula ", text)
    text = re.sub(r"^\s*(`{3,}|:{3,}).*$", " ", text, flags=re.M)  # fences
    text = re.sub(r"^:\w[\w-]*:.*$", " ", text, flags=re.M)  # directive options
    text = re.sub(r"\{glue(?::\w+)?\}`[^`]*`", " value ", text)  # a glued number
    text = re.sub(r"\{[\w:-]+\}`([^`<]*)(?:<[^`]*>)?`", r" \1 ", text)  # {term}`x <y>`
    return text


def word_count(nb: nbformat.NotebookNode) -> int:
    """The words of a notebook's Markdown cells (`_strip_markup`)."""
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return len(re.findall(r"[^\W_]+(?:['’.-][^\W_]+)*", _strip_markup(text)))


def minutes_to_read(words: int) -> int:
    """`words` at `WORDS_PER_MINUTE`, rounded to `ROUND_TO` minutes (at least `ROUND_TO`)."""
    return max(ROUND_TO, ROUND_TO * int(words / WORDS_PER_MINUTE / ROUND_TO + 0.5))
