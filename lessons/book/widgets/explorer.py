"""An attention explorer that runs in the page: step through, toggle, click, no kernel.

Used where it teaches: chapter 4 (turn the scaling off), chapter 5 (the worked
example, stage by stage), chapter 6 (the causal mask), chapter 7 (one head at a
time) and the book's Explorer page. ``explorer(tokens, Q, K, V)`` returns an
``Explorer``; put it on the last line of a cell and the notebook shows a widget
made of plain HTML and JavaScript (``lessons.book.widgets.explorer_page`` writes it), which
works in Jupyter, in Colab and in the built book, offline too.

The reader steps through the stages ``embeddings`` (only when built from
embeddings) → ``qkv`` → ``scores`` ``S = Q Kᵀ`` → ``scaled`` ``Z = S / (√d_k·T)``
→ ``masked`` → ``weights`` ``A = softmax(Z)`` → ``output`` ``O = A V``, toggles
the scaling and the causal mask, moves a temperature slider, picks a head, and
clicks a query token to follow its row; made with ``length=``, it also moves where
the padding starts and blocks the padded queries (chapter 6). The page contract (the ``data-*``
attributes the tests drive) is in ``lessons/book/widgets/assets/README.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lessons._validate import finite_number
from lessons.attention import attention
from lessons.projections import qkv

from .explorer_inputs import (
    embeddings,
    float_array,
    heads_from,
    padding_length,
    rows,
    slider_value,
    tokens_from,
)
from .explorer_page import explorer_mask, head_label, page_html

__all__ = [
    "STAGES",
    "TEMPERATURE_RANGE",
    "Explorer",
    "ExplorerSettings",
    "explorer",
    "explorer_from_embeddings",
]

#: The stages in the order the reader steps through them.
STAGES = ("embeddings", "qkv", "scores", "scaled", "masked", "weights", "output")

#: The temperature slider's range and step; a temperature must be one of its values.
TEMPERATURE_RANGE = (0.05, 5.0, 0.05)


@dataclass(frozen=True)
class ExplorerSettings:
    """What the widget starts with; the reader can change each in the page.

    ``scale`` divides the scores by ``√d_k``; ``causal`` applies
    ``lessons.causal_mask``; ``temperature`` ``T`` divides the scaled scores (one
    of the slider's values, ``TEMPERATURE_RANGE``); ``stage`` is one of ``STAGES``;
    ``head`` is the head shown first; ``title`` labels the widget. ``length``
    ``k`` marks tokens ``k..n-1`` as padding (``None``: no padding; chapter 6),
    and ``pad_queries`` blocks the padded queries' rows as well.
    """

    scale: bool = True
    causal: bool = False
    temperature: float = 1.0
    stage: str = "weights"
    head: int = 0
    title: str = "Attention explorer"
    length: int | None = None
    pad_queries: bool = False

    def checked(self, num_heads: int, has_embeddings: bool, n: int) -> ExplorerSettings:
        """These settings checked for ``num_heads`` heads and ``n`` tokens, temperature snapped.

        Raises:
            ValueError: naming the setting that is out of range.
        """
        stages = STAGES if has_embeddings else STAGES[1:]
        if self.stage not in stages:
            raise ValueError(f"stage must be one of {list(stages)}; got {self.stage!r}")
        head = self.head
        if not isinstance(head, int) or isinstance(head, bool) or not 0 <= head < num_heads:
            raise ValueError(f"head must be an index from 0 to {num_heads - 1}; got {head!r}")
        return dataclasses.replace(
            self,
            scale=bool(self.scale),
            causal=bool(self.causal),
            temperature=slider_value(self.temperature, TEMPERATURE_RANGE),
            title=str(self.title),
            length=padding_length(self.length, n),
            pad_queries=bool(self.pad_queries),
        )


@dataclass(frozen=True, eq=False, repr=False)
class Explorer:
    """An attention explorer ready to display (make one with ``explorer``).

    Holds one or more heads of queries, keys and values, ``Q, K [h, n, d_k]`` and
    ``V [h, n, d_v]``, rounded to ``DECIMALS`` decimals, the ``n`` tokens that label
    the rows, optional embeddings ``X [n, d_model]`` with ``features`` naming their
    columns, and the starting ``settings``. ``projected`` says the heads came from
    ``X`` through projections; ``split`` that they were split from wider columns.
    In a notebook it displays itself; ``compute`` gives ``lessons.attention``'s
    results for any settings, which is what the page must show.
    """

    tokens: tuple[str, ...]
    Q: np.ndarray  # [h, n, d_k]
    K: np.ndarray  # [h, n, d_k]
    V: np.ndarray  # [h, n, d_v]
    X: np.ndarray | None  # [n, d_model]
    features: tuple[str, ...] | None
    projected: bool
    split: bool
    settings: ExplorerSettings

    @property
    def num_heads(self) -> int:
        return int(self.Q.shape[0])

    def compute(
        self,
        *,
        scale: bool | None = None,
        causal: bool | None = None,
        temperature: float | None = None,
        length: int | None = None,
        pad_queries: bool | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``lessons.attention``'s output ``[h, n, d_v]`` and weights ``[h, n, n]``.

        With the starting settings unless given; the mask is ``explorer_page.explorer_mask``.
        Dividing the scores by a number is the same as dividing the queries by it, which
        is how the temperature and a missing scaling are passed to ``lessons.attention``.
        """
        s = self.settings
        scale = s.scale if scale is None else scale
        causal = s.causal if causal is None else causal
        temperature = s.temperature if temperature is None else temperature
        temperature = finite_number("temperature", temperature, positive=True)
        n = len(self.tokens)
        length = padding_length(s.length if length is None else length, n)
        pad_queries = s.pad_queries if pad_queries is None else bool(pad_queries)
        d_k = self.Q.shape[-1]
        factor = 1 / temperature if scale else math.sqrt(d_k) / temperature
        mask = explorer_mask(n, bool(causal), length, pad_queries)  # [n, n]
        return attention(self.Q * factor, self.K, self.V, mask)  # [h, n, d_v], [h, n, n]

    def data(self) -> dict[str, Any]:
        """The payload the page embeds as JSON (numbers rounded to ``DECIMALS``)."""
        output, weights = self.compute()  # [h, n, d_v], [h, n, n]
        d_k, d_v = self.Q.shape[-1], self.V.shape[-1]
        heads = [
            {
                "label": head_label(i, d_k, d_v, self.split),
                **{name: rows(a[i]) for name, a in (("Q", self.Q), ("K", self.K), ("V", self.V))},
            }
            for i in range(self.num_heads)
        ]
        s = self.settings
        padding = {} if s.length is None else {"length": s.length, "pad_queries": s.pad_queries}
        return {
            "version": 1,
            "title": s.title,
            "tokens": list(self.tokens),
            "X": None if self.X is None else rows(self.X),
            "features": None if self.features is None else list(self.features),
            "projected": self.projected,
            "heads": heads,
            "defaults": {
                "stage": s.stage,
                "scale": s.scale,
                "causal": s.causal,
                "temperature": s.temperature,
                "head": s.head,
                **padding,
            },
            "temperature_range": list(TEMPERATURE_RANGE),
            "reference": {
                "weights": [rows(w) for w in weights],
                "output": [rows(o) for o in output],
            },
        }

    def _repr_html_(self) -> str:
        return page_html(self)

    def __repr__(self) -> str:
        h, _, d_k = self.Q.shape
        s = self.settings
        return (
            f"Explorer(tokens={list(self.tokens)!r}, heads={h}, d_k={d_k}, "
            f"d_v={self.V.shape[-1]}, stage={s.stage!r}, scale={s.scale}, "
            f"causal={s.causal}, temperature={s.temperature!r})"
        )


def explorer(
    tokens: str | Sequence[str],
    Q: Any,
    K: Any,
    V: Any,
    *,
    heads: int | None = None,
    X: Any = None,
    features: Sequence[str] | None = None,
    **settings: Any,
) -> Explorer:
    """An in-page attention explorer for self-attention over ``tokens`` (chapters 4 to 7).

    Shapes, with ``n = len(tokens)``::

        Q, K  [n, d_k] and V [n, d_v]             one head
        Q, K  [h, n, d_k] and V [h, n, d_v]       h heads, one per leading index
        Q, K  [n, h * d_k] and V [n, h * d_v]     with heads=h: split by columns,
                                                  as lessons.split_heads does
        X     [n, d_model], optional              shown as a first stage

    ``tokens`` is a list of strings (or one string, split on spaces), one per
    row. NumPy arrays, nested lists and torch tensors are accepted. ``features``
    names the columns of ``X``. The keyword ``settings`` are the fields of
    ``ExplorerSettings`` (``scale``, ``causal``, ``temperature``, ``stage``,
    ``head``, ``title``, ``length``, ``pad_queries``), with its defaults. To build ``Q, K, V`` from embeddings
    and projections, use ``explorer_from_embeddings``.

    Raises:
        ValueError: naming the shapes, when the tokens are not a flat list of
            strings, an input is not a rectangular 2-D or 3-D array of finite
            numbers, ``Q`` and ``K`` differ in ``d_k``, the row counts differ
            from the number of tokens, ``heads`` does not fit the inputs, or a
            setting is unknown or out of range.
    """
    return _build(tokens, Q, K, V, heads=heads, X=X, features=features, projected=False, **settings)


def explorer_from_embeddings(
    tokens: str | Sequence[str],
    X: Any,
    W_Q: Any,
    W_K: Any,
    W_V: Any,
    *,
    heads: int | None = None,
    features: Sequence[str] | None = None,
    **settings: Any,
) -> Explorer:
    """An explorer whose first stage shows the embeddings ``X [n, d_model]`` (chapters 6 and 7).

    ``Q, K, V = lessons.qkv(X, W_Q, W_K, W_V)`` with ``W_Q, W_K [d_model, h * d_k]``
    and ``W_V [d_model, h * d_v]``; with ``heads=h`` the columns are split into
    ``h`` heads. ``features`` names the columns of ``X``; the other keywords are
    ``explorer``'s settings.

    Raises:
        ValueError: as ``lessons.qkv`` and ``explorer`` do.
    """
    X = float_array("X", X, (2,))  # [n, d_model]
    W_Q, W_K, W_V = (
        float_array(name, w, (2,)) for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V))
    )
    Q, K, V = qkv(X, W_Q, W_K, W_V)  # [n, h*d_k], [n, h*d_k], [n, h*d_v]
    return _build(tokens, Q, K, V, heads=heads, X=X, features=features, projected=True, **settings)


def _build(
    tokens: Any,
    Q: Any,
    K: Any,
    V: Any,
    *,
    heads: Any,
    X: Any,
    features: Any,
    projected: bool,
    **settings: Any,
) -> Explorer:
    """Check every input, arrange the heads as ``[h, n, d]``, and make the ``Explorer``."""
    names = [f.name for f in dataclasses.fields(ExplorerSettings)]
    unknown = sorted(set(settings) - set(names))
    if unknown:
        raise ValueError(f"unknown setting(s) {unknown}; the settings are {names}")
    token_list = tokens_from(tokens)
    Q, K, V, split = heads_from(Q, K, V, heads, len(token_list))  # [h, n, d]
    X_array, feature_names = embeddings(X, features, len(token_list))
    return Explorer(
        token_list,
        Q,
        K,
        V,
        X=X_array,
        features=feature_names,
        projected=projected,
        split=split,
        settings=ExplorerSettings(**settings).checked(
            Q.shape[0], X_array is not None, len(token_list)
        ),
    )
