"""What every in-page widget is made of: its root, its embedded JSON, its inlined script.

The in-page questions (``lessons.book.widgets.question``) and chapter 11's lab (``lessons.lab``)
are plain HTML and JavaScript written by ``lessons``: they work in the built book, in
Jupyter and in Colab, with no kernel and no network. Their script and styles ship in
``lessons/book/widgets/assets`` and are inlined into every widget; ``core.js`` there holds
what all widgets share (finding the root, reading the JSON, drawing a matrix with its
colour scale, the keyboard), so each widget's own script is one idea.

The HTML holds no ids and no random numbers: it is byte-identical on every run, which
nbval needs, and each script finds its own root through ``document.currentScript``.
Every float a widget embeds goes through ``stable_floats`` (in ``embed_json``): rounded to
``SIGNIFICANT_DIGITS``, so the last bits of a sum, which differ from one processor to
another, never reach a stored output.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "ASSETS",
    "READY",
    "ROOT_SELECTOR",
    "SIGNIFICANT_DIGITS",
    "asset",
    "data_script",
    "embed_json",
    "stable_floats",
    "stored_digits",
    "widget_html",
]

#: Floats embedded in a page keep this many significant digits. Another processor's
#: BLAS changes about the 16th (``5.656854249492381`` here, ``5.65685424949238`` there);
#: 10 is far below that noise and far finer than any question's tolerance.
SIGNIFICANT_DIGITS = 10

#: The attribute ``core.js`` sets to "true" on a widget's root once its script has started.
READY = "data-ready"

#: What selects the root of every widget ``widget_html`` writes (the class every root has).
ROOT_SELECTOR = ".lw"

#: The folder of the widgets' scripts and styles, shipped as package data.
ASSETS = Path(__file__).resolve().parent / "assets"


def asset(name: str) -> str:
    """The text of one file of ``lessons/book/widgets/assets`` (``core.js``, ``question.js`` ...)."""
    return (ASSETS / name).read_text(encoding="utf-8")


def stable_floats(data: Any, digits: int = SIGNIFICANT_DIGITS) -> Any:
    """``data`` with every float rounded to ``digits`` significant digits.

    Walks dicts, lists and tuples (tuples become lists, as in JSON); NumPy floats and
    arrays become Python floats and nested lists. Integers, booleans and text are kept.
    ``5.656854249492381`` and ``5.65685424949238`` both become ``5.656854249``.
    """
    if isinstance(data, np.ndarray):
        data = data.tolist()
    if isinstance(data, float | np.floating):
        rounded = float(f"{float(data):.{digits}g}")
        return rounded if math.isfinite(rounded) else float(data)  # 1.79769313486e308 is inf
    if isinstance(data, np.integer | np.bool_):
        return data.item()
    if isinstance(data, Mapping):
        return {key: stable_floats(value, digits) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [stable_floats(value, digits) for value in data]
    return data


def stored_digits(value: Any, tolerance: float) -> int:
    """Significant digits that keep every entry of ``value`` within ``tolerance / 200``.

    At least ``SIGNIFICANT_DIGITS`` (10), the book's rule for every stored float; more
    only where the numbers are large for the tolerance: ``100000.546875`` with a
    tolerance of ``1e-4`` keeps 12, so a reply 0.75 tolerances away is still right.
    """
    biggest = float(np.max(np.abs(value), initial=0.0))
    if biggest == 0.0:
        return SIGNIFICANT_DIGITS
    exponent = math.floor(math.log10(biggest))
    # rounding to d digits moves x by at most 10^(exponent - d + 1) / 2 <= tolerance / 200
    return max(SIGNIFICANT_DIGITS, math.ceil(exponent + 3 - math.log10(tolerance) - 1e-9))


def embed_json(data: Any, digits: int = SIGNIFICANT_DIGITS) -> str:
    """``data`` as compact JSON that is safe inside a ``<script>`` element.

    Floats are rounded first (``stable_floats``, to ``digits`` significant digits), so
    the text is the same on every machine. ``<``, ``>`` and ``&`` become ``\\u`` escapes, which JSON reads back
    unchanged, so no text in the data can close the element early.
    """
    payload = json.dumps(
        stable_floats(data, digits), ensure_ascii=True, separators=(",", ":"), allow_nan=False
    )
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
    digits: int = SIGNIFICANT_DIGITS,
) -> str:
    """One widget: a root ``<div>`` with ``attributes``, its styles, ``body``, data and script.

    ``styles`` (files of ``assets/``, ``core.css`` first) are inlined in one ``<style>``;
    ``data`` is embedded in ``<script type="application/json" data_attribute>``;
    ``script`` (a file of ``assets/``) runs after ``core.js``, in the same element, so
    ``document.currentScript.parentElement`` is the root. ``label`` names the region
    for screen readers; ``digits`` is how many significant digits each float keeps.
    """
    attrs = "".join(
        f' {name}="{html.escape(value, quote=True)}"' for name, value in attributes.items()
    )

    return (
        f'<div{attrs} role="group" aria-label="{html.escape(label, quote=True)}">'
        f"<style>{''.join(asset(name) for name in styles)}</style>"
        f"{body}"
        f'<script type="application/json" {data_attribute}="">{embed_json(data, digits)}</script>'
        f"<script>{asset('core.js')}\n{asset(script)}</script>"
        "</div>"
    )


def data_script(data_attribute: str) -> re.Pattern[str]:
    """The data element ``widget_html`` writes, to read back or replace in a page's HTML.

    Matches ``<script type="application/json" data_attribute="">JSON</script>`` with three
    groups: the opening tag, the JSON, the closing tag (``json.loads`` reads the second).
    """
    return re.compile(
        rf'(<script type="application/json" {re.escape(data_attribute)}="">)(.*?)(</script>)',
        re.S,
    )
