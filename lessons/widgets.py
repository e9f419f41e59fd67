"""What every in-page widget is made of: its root, its embedded JSON, its inlined script.

The in-page questions (``lessons.questions``) and chapter 11's lab (``lessons.lab``)
are plain HTML and JavaScript written by ``lessons``: they work in the built book, in
Jupyter and in Colab, with no kernel and no network. Their script and styles ship in
``lessons/question_assets`` and are inlined into every widget; ``core.js`` there holds
what all widgets share (finding the root, reading the JSON, drawing a matrix with its
colour scale, the keyboard), so each widget's own script is one idea.

The HTML holds no ids and no random numbers: it is byte-identical on every run, which
nbval needs, and each script finds its own root through ``document.currentScript``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

__all__ = ["ASSETS", "asset", "embed_json", "widget_html"]

#: The folder of the widgets' scripts and styles, shipped as package data.
ASSETS = Path(__file__).resolve().parent / "question_assets"


def asset(name: str) -> str:
    """The text of one file of ``lessons/question_assets`` (``core.js``, ``question.js`` ...)."""
    return (ASSETS / name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """``data`` as compact JSON that is safe inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` become ``\\u`` escapes, which JSON reads back unchanged,
    so no text in the data can close the element early.
    """
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        payload = payload.replace(char, escaped)
    return payload


def widget_html(
    attributes: dict[str, str],
    body: str,
    data: Any,
    *,
    data_attribute: str,
    styles: tuple[str, ...],
    script: str,
    label: str,
) -> str:
    """One widget: a root ``<div>`` with ``attributes``, its styles, ``body``, data and script.

    ``styles`` are files of ``question_assets``, inlined in one ``<style>``;
    ``data`` is embedded in ``<script type="application/json" data_attribute>``;
    ``script`` (a file of ``question_assets``) runs after ``core.js``, in the same
    element, so ``document.currentScript.parentElement`` is the root. ``label``
    names the region for screen readers.
    """
    attrs = "".join(
        f' {name}="{html.escape(value, quote=True)}"' for name, value in attributes.items()
    )
    return (
        f'<div{attrs} role="group" aria-label="{html.escape(label, quote=True)}">'
        f"<style>{''.join(asset(name) for name in styles)}</style>"
        f"{body}"
        f'<script type="application/json" {data_attribute}="">{embed_json(data)}</script>'
        f"<script>{asset('core.js')}\n{asset(script)}</script>"
        "</div>"
    )
