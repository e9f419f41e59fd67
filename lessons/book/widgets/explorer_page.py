"""The explorer's page: the HTML, the embedded data and the static fallback (chapters 4 to 7).

``lessons.explorer`` builds an ``Explorer`` (the numbers and settings); this module
writes what a notebook or the book shows for it. The script and styles are read from
``lessons/book/widgets/assets`` and inlined, so the widget needs no network and no kernel.
The page contract that the tests and the script share is written once, in
``lessons/book/widgets/assets/README.md``.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Protocol

import numpy as np

from lessons.masks import causal_mask, combine_masks, padding_mask

from .explorer_inputs import DECIMALS, number, rows
from .widget import asset, data_script, embed_json


class Explorer(Protocol):
    """What the page reads of an explorer (``explorer.py`` builds it; this module only writes it)."""

    tokens: tuple[str, ...]
    settings: Any  # explorer.ExplorerSettings

    @property
    def num_heads(self) -> int: ...

    def compute(self) -> tuple[np.ndarray, np.ndarray]: ...  # [h, n, d_v], [h, n, n]

    def data(self) -> dict[str, Any]: ...


__all__ = [
    "DECIMALS",
    "asset",
    "formula",
    "head_label",
    "explorer_mask",
    "number",
    "page_html",
    "rows",
    "static_html",
]


def explorer_mask(n: int, causal: bool, length: int | None, pad_queries: bool) -> np.ndarray:
    """The explorer's keep-mask ``[n, n]`` (``True`` = may attend; chapter 6).

    The causal mask (if ``causal``) combined with the padding mask of one
    sequence of ``length`` real tokens (``None``: no padding) over the keys; with
    ``pad_queries`` the rows of the padded queries are blocked too, so
    ``lessons.attention`` gives them all-zero weights.
    """
    keep = causal_mask(n) if causal else np.ones((n, n), dtype=bool)  # [n, n]
    if length is None:
        return keep
    keys = padding_mask([length], n)[0]  # [1, n]
    keep = combine_masks(keep, keys)  # [n, n]
    if pad_queries:
        keep = combine_masks(keep, keys.T)  # [n, n]
    return keep


def head_label(i: int, d_k: int, d_v: int, split: bool) -> str:
    """The name of head ``i`` in the page; split heads say which columns they came from."""
    label = f"head {i}"
    if split:
        label += f" (columns {i * d_k}–{(i + 1) * d_k - 1} of Q"
        label += f" and K, {i * d_v}–{(i + 1) * d_v - 1} of V)" if d_v != d_k else ", K and V)"
    return label


#: The attribute ``explorer.js`` sets to "true" on the explorer's root once it has started.
READY = "data-explorer-ready"
#: What selects an explorer's root.
ROOT_SELECTOR = "[data-explorer]"
DATA_ATTRIBUTE = "data-explorer-data"
_SCRIPT_AFTER_DATA = re.compile(rf'({DATA_ATTRIBUTE}="">.*?</script>)<script>', re.S)


def read_data(page: str) -> list[dict[str, Any]]:
    """The data of every explorer in ``page`` (HTML ``page_html`` wrote), in order."""
    return [json.loads(m.group(2)) for m in data_script(DATA_ATTRIBUTE).finditer(page)]


def without_scripts(page: str) -> tuple[str, int]:
    """``page`` with each explorer's script kept as text, not run (``type="text/plain"``),
    and how many: on paper the static table ``page_html`` writes is what shows."""
    return _SCRIPT_AFTER_DATA.subn(r'\1<script type="text/plain">', page)


def page_html(ex: Explorer) -> str:
    """The whole widget: styles, static table, data as JSON, and the script."""
    payload = embed_json(ex.data())  # floats rounded, "</" escaped
    label = html.escape(f"{ex.settings.title}: attention explorer", quote=True)
    return (
        f'<div class="attn-explorer" data-explorer="attention" role="region" '
        f'aria-label="{label}">'
        f"<style>{asset('explorer.css')}</style>"
        f"{static_html(ex)}"
        f'<script type="application/json" {DATA_ATTRIBUTE}="">{payload}</script>'
        f"<script>{asset('explorer.js')}</script>"
        "</div>"
    )


def static_html(ex: Explorer) -> str:
    """The starting head's weights as a plain table, for readers without JavaScript.

    Every string the reader gave (tokens, title) is HTML-escaped and isolated in a
    ``<bdi>``, so no token can change the direction of the text around it.
    """
    settings = ex.settings
    _, weights = ex.compute()  # [h, n, n]
    A = weights[settings.head]  # [n, n]
    n = len(ex.tokens)
    mask = explorer_mask(n, settings.causal, settings.length, settings.pad_queries)  # [n, n]
    esc = html.escape
    header = "".join(f'<th scope="col"><bdi>{esc(t)}</bdi></th>' for t in ex.tokens)
    body = []
    for i, token in enumerate(ex.tokens):
        cells = "".join(
            f'<td data-weight="{i},{j}" data-value="{number(A[i, j])!r}"'
            + ("" if mask[i, j] else ' data-masked="true"')
            + f">{A[i, j]:.3f}</td>"
            for j in range(n)
        )
        total = number(A[i].sum())
        note = "" if mask[i].any() else " (nothing left to attend to)"
        body.append(
            f'<tr data-row="{i}"><th scope="row"><bdi>{esc(token)}</bdi></th>{cells}'
            f'<td data-row-sum="{i}" data-value="{total!r}">{total:.3f}{note}</td></tr>'
        )
    blocked = " (a padded query that may attend to nothing: 0)" if settings.pad_queries else ""
    heads = f", head {settings.head} of {ex.num_heads}" if ex.num_heads > 1 else ""
    return (
        '<div class="ax-static">'
        f'<p class="ax-title"><strong><bdi>{esc(settings.title)}</bdi></strong></p>'
        f'<p class="ax-formula"><code>{esc(formula(ex))}</code></p>'
        '<div class="ax-scroll"><table class="ax-matrix" data-matrix="weights">'
        f"<caption>Attention weights A{heads}: rows are queries, columns are keys, "
        f"and every row sums to 1{blocked}.</caption>"
        f'<thead><tr><th scope="col">query \\ key</th>{header}'
        '<th scope="col">sum</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        '<p class="ax-note">A static view: where JavaScript runs, this is an '
        "interactive explorer of every stage.</p>"
        "</div>"
    )


def formula(ex: Explorer) -> str:
    """The weights' formula for the starting settings, with the shape: ``A = softmax(...)``."""
    settings = ex.settings
    divisor = []
    if settings.scale:
        divisor.append("√d_k")
    if settings.temperature != 1:
        divisor.append(f"T={settings.temperature:g}")
    scores = "Q Kᵀ"
    if divisor:
        scores += " / " + (divisor[0] if len(divisor) == 1 else f"({' · '.join(divisor)})")
    if settings.causal:
        scores = f"causal_mask({scores})"
    n = len(ex.tokens)
    if settings.length is not None:
        rows = ", padded queries too" if settings.pad_queries else ""
        scores = f"padding_mask({scores}; length {settings.length} of {n}{rows})"
    return f"A = softmax({scores})   [n_q, n_k] = [{n}, {n}]"
