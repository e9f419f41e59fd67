"""Chapter 13's KV-cache calculator in the page: change a model's settings, see its cache.

``kv_cache_widget()`` returns a ``KVCacheWidget``; its ``_repr_html_`` writes one ``<div>``
(through ``widget_html``) with a form, the published configurations of
``lessons.kv_cache.PUBLISHED`` as JSON, and ``assets/kv_cache.js``, which recomputes
``lessons.kv_cache_bytes`` in the reader's browser: no kernel, no network. The reader picks
a model or types its own layers, KV heads, head size, window, windowed layers, latent width
and bytes per number, and sees the cache per token and at the chosen context length.

Page contract (``tests/test_kv_cache_widget.py`` drives it): the root has
``data-kv-cache-widget`` and, once its script ran, ``data-ready="true"``; every input has
``data-field`` (``model``, ``layers``, ``kv_heads``, ``head_dim``, ``window``,
``windowed_layers``, ``latent``, ``bytes``, ``tokens``); ``[data-result="per_token"]`` and
``[data-result="total"]`` hold the bytes as integers in ``data-bytes``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from lessons.kv_cache import PUBLISHED, CacheLayout

from .widget import widget_html

__all__ = ["KVCacheWidget", "kv_cache_widget"]

#: The inputs, in the form's order: (field, label, what it means).
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("layers", "layers", "attention layers"),
    ("kv_heads", "KV heads", "key/value heads per layer (h_kv)"),
    ("head_dim", "head size", "d_k, numbers per key"),
    ("window", "window", "w, 0 for none"),
    ("windowed_layers", "window layers", "how many layers use the window"),
    ("latent", "latent width", "r + d_R for latent attention, 0 for keys and values"),
)


@dataclass(frozen=True)
class KVCacheWidget:
    """The calculator for ``models`` (chapter 13), opened at ``tokens`` tokens of context."""

    models: tuple[CacheLayout, ...] = field(default=PUBLISHED)
    tokens: int = 131072

    def payload(self) -> dict:
        """What the page's script reads: every model's settings and source."""
        keys = ("name", "layers", "kv_heads", "head_dim", "windowed_layers", "latent", "source")
        return {
            "models": [
                {**{k: getattr(m, k) for k in keys}, "window": m.window or 0} for m in self.models
            ],
            "tokens": self.tokens,
        }

    def _repr_html_(self) -> str:
        options = "".join(
            f'<option value="{i}">{html.escape(m.name)}</option>' for i, m in enumerate(self.models)
        )
        inputs = "".join(
            f'<label class="lkv-field" title="{html.escape(hint)}">{html.escape(label)} '
            f'<input type="number" min="0" step="1" data-field="{name}"></label>'
            for name, label, hint in FIELDS
        )
        body = (
            '<p data-static-note="">The calculator needs JavaScript: run the cell in a '
            "trusted notebook or read the book's page.</p>"
            '<div class="lkv-row"><label>model <select data-field="model">'
            f'{options}<option value="custom">your own</option></select></label>'
            '<label>numbers <select data-field="bytes"><option value="4">float32 (4 bytes)'
            '</option><option value="2" selected>bfloat16 (2 bytes)</option>'
            '<option value="1">8 bits (1 byte)</option></select></label>'
            '<label>context <input type="number" min="1" step="1" data-field="tokens">'
            " tokens</label></div>"
            f'<div class="lkv-row">{inputs}</div>'
            '<p class="lkv-out" aria-live="polite">per token: <strong data-result="per_token">'
            '</strong>; at this context: <strong data-result="total"></strong></p>'
            '<p class="lkv-formula" data-result="formula"></p>'
            '<p class="lkv-source" data-result="source"></p>'
        )
        return widget_html(
            {"class": "lw lkv", "data-kv-cache-widget": ""},
            body,
            self.payload(),
            data_attribute="data-kv-data",
            styles=("core.css", "kv_cache.css"),
            script="kv_cache.js",
            label="KV-cache calculator",
        )

    def __repr__(self) -> str:
        return f"KVCacheWidget(models={[m.name for m in self.models]}, tokens={self.tokens})"


def kv_cache_widget(
    models: tuple[CacheLayout, ...] = PUBLISHED, tokens: int = 131072
) -> KVCacheWidget:
    """The in-page KV-cache calculator (chapter 13): pick a model or type your own."""
    return KVCacheWidget(tuple(models), tokens)
