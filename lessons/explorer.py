"""An attention explorer that runs in the page: step through, toggle, click, no kernel.

Used where it teaches: chapter 4 (turn the scaling off), chapter 5 (the worked
example, stage by stage), chapter 6 (the causal mask), chapter 7 (one head at a
time) and the book's Explorer page. ``explorer(tokens, Q, K, V)`` returns an
``Explorer``; put it on the last line of a cell and the notebook shows a widget
made of plain HTML and JavaScript. Its data are embedded as JSON and its script
and styles are inlined from ``lessons/explorer_assets``, so it needs no kernel,
no network and no library: the same call works in Jupyter, in Colab and in the
built book, offline too. Without JavaScript (a notebook preview that strips
scripts) it shows the default stage, the weights, as a plain table.

The reader steps through the stages ``embeddings`` (only when built from
embeddings) → ``qkv`` → ``scores`` ``S = Q Kᵀ`` → ``scaled`` ``Z = S / (√d_k·T)``
→ ``masked`` → ``weights`` ``A = softmax(Z)`` → ``output`` ``O = A V``, toggles
the scaling and the causal mask, moves a temperature slider, picks a head, and
clicks a query token to follow its row. The browser computes every stage from
the embedded ``Q``, ``K`` and ``V``; the payload also carries
``lessons.attention``'s weights for the default settings, which the tests and
the script itself compare against.

The DOM contract (stable; tests drive the widget through it):

- the root element carries ``data-explorer``; once its script has run it also
  carries ``data-explorer-ready="true"`` and ``data-current-stage="<stage>"``;
- controls carry ``data-control``: ``scale`` and ``causal`` (checkboxes),
  ``temperature`` (a range input: set ``value``, dispatch ``input``), ``stage``
  (a group of buttons, one ``button[data-stage=<stage>]`` per stage; the left
  and right arrow keys move between them), ``head`` (a ``select``, present only
  with several heads), and ``reset``;
- every cell of the weights matrix carries ``data-weight="i,j"`` and its value
  at full precision in ``data-value`` (the weights matrix is shown at the
  ``weights`` stage, the default, and in the static table without JavaScript);
  masked cells also carry ``data-masked="true"`` and hold exactly 0; each row's
  sum is in ``data-row-sum="i"`` (also with ``data-value``); the other stages'
  cells carry ``data-cell="i,j"`` and ``data-value``;
- query tokens are ``button[data-token="i"]``; clicking one selects its row:
  the rows of that token get the class ``is-selected``, its buttons get
  ``aria-pressed="true"``, the root gets ``data-selected="i"``, and the
  ``[data-detail]`` panel shows the row sum and the output as a weighted sum of
  the value rows. Clicking it again clears the selection.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .attention import attention
from .masks import causal_mask
from .projections import qkv

__all__ = ["STAGES", "Explorer", "explorer", "explorer_from_embeddings"]

#: The stages in the order the reader steps through them.
STAGES = ("embeddings", "qkv", "scores", "scaled", "masked", "weights", "output")

#: The temperature slider's range and step; a temperature must be one of its values.
TEMPERATURE_RANGE = (0.05, 5.0, 0.05)

#: Embedded numbers are rounded to this many decimals, so the page is the same everywhere.
DECIMALS = 10

_ASSETS = Path(__file__).resolve().parent / "explorer_assets"


class Explorer:
    """An attention explorer ready to display (make one with ``explorer``).

    Holds one or more heads of queries, keys and values, each ``[h, n, d_k]``
    (``V``: ``[h, n, d_v]``), rounded to ``DECIMALS`` decimals, the tokens that
    label the ``n`` rows, optional embeddings ``X [n, d_model]``, and the
    settings the widget starts with. In a notebook it displays itself
    (``_repr_html_``); ``compute`` gives ``lessons.attention``'s results for any
    settings, which is what the page must show.
    """

    def __init__(
        self,
        tokens: tuple[str, ...],
        Q: np.ndarray,
        K: np.ndarray,
        V: np.ndarray,
        *,
        X: np.ndarray | None,
        features: tuple[str, ...] | None,
        projected: bool,
        split: bool,
        scale: bool,
        causal: bool,
        temperature: float,
        stage: str,
        head: int,
        title: str,
    ) -> None:
        self.tokens = tokens
        self.Q, self.K, self.V = Q, K, V  # [h, n, d_k], [h, n, d_k], [h, n, d_v]
        self.X = X  # [n, d_model] or None
        self.features = features
        self.projected = projected
        self.split = split
        self.scale = scale
        self.causal = causal
        self.temperature = temperature
        self.stage = stage
        self.head = head
        self.title = title

    @property
    def num_heads(self) -> int:
        return int(self.Q.shape[0])

    def compute(
        self,
        *,
        scale: bool | None = None,
        causal: bool | None = None,
        temperature: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``lessons.attention``'s output ``[h, n, d_v]`` and weights ``[h, n, n]``.

        With the explorer's own settings unless given: ``scale`` divides the
        scores by ``√d_k``, ``temperature`` ``T`` divides them as well, and
        ``causal`` applies ``lessons.causal_mask(n)``. Dividing the scores by a
        number is the same as dividing the queries by it, which is how the
        temperature and a missing scaling are passed to ``lessons.attention``.
        """
        scale = self.scale if scale is None else scale
        causal = self.causal if causal is None else causal
        temperature = self.temperature if temperature is None else temperature
        d_k = self.Q.shape[-1]
        factor = 1 / temperature if scale else math.sqrt(d_k) / temperature
        mask = causal_mask(len(self.tokens)) if causal else None
        return attention(self.Q * factor, self.K, self.V, mask)  # [h, n, d_v], [h, n, n]

    def data(self) -> dict[str, Any]:
        """The payload the page embeds as JSON (numbers rounded to ``DECIMALS``)."""
        output, weights = self.compute()  # [h, n, d_v], [h, n, n]
        h, _, d_k = self.Q.shape
        heads = []
        d_v = self.V.shape[-1]
        for i in range(h):
            label = f"head {i}"
            if self.split:
                label += f" (columns {i * d_k}–{(i + 1) * d_k - 1} of Q"
                label += (
                    f" and K, {i * d_v}–{(i + 1) * d_v - 1} of V)" if d_v != d_k else ", K and V)"
                )
            heads.append(
                {
                    "label": label,
                    "Q": _rows(self.Q[i]),
                    "K": _rows(self.K[i]),
                    "V": _rows(self.V[i]),
                }
            )
        return {
            "version": 1,
            "title": self.title,
            "tokens": list(self.tokens),
            "X": None if self.X is None else _rows(self.X),
            "features": None if self.features is None else list(self.features),
            "projected": self.projected,
            "heads": heads,
            "defaults": {
                "stage": self.stage,
                "scale": self.scale,
                "causal": self.causal,
                "temperature": self.temperature,
                "head": self.head,
            },
            "temperature_range": list(TEMPERATURE_RANGE),
            "reference": {
                "weights": [_rows(w) for w in weights],
                "output": [_rows(o) for o in output],
            },
        }

    def _repr_html_(self) -> str:
        payload = json.dumps(self.data(), ensure_ascii=True, separators=(",", ":"))
        # Inside <script>, "</" would end the element; \u-escapes read back the same.
        for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
            payload = payload.replace(char, escaped)
        label = html.escape(f"{self.title}: attention explorer", quote=True)
        return (
            f'<div class="attn-explorer" data-explorer="attention" role="region" '
            f'aria-label="{label}">'
            f"<style>{_asset('explorer.css')}</style>"
            f"{self._static_html()}"
            f'<script type="application/json" data-explorer-data="">{payload}</script>'
            f"<script>{_asset('explorer.js')}</script>"
            "</div>"
        )

    def _static_html(self) -> str:
        """The default head's weights as a plain table, for readers without JavaScript."""
        _, weights = self.compute()  # [h, n, n]
        A = weights[self.head]  # [n, n]
        n = len(self.tokens)
        mask = causal_mask(n) if self.causal else np.ones((n, n), dtype=bool)
        esc = html.escape
        header = "".join(f'<th scope="col">{esc(t)}</th>' for t in self.tokens)
        rows = []
        for i, token in enumerate(self.tokens):
            cells = "".join(
                f'<td data-weight="{i},{j}" data-value="{_number(A[i, j])!r}"'
                + ("" if mask[i, j] else ' data-masked="true"')
                + f">{A[i, j]:.3f}</td>"
                for j in range(n)
            )
            total = _number(A[i].sum())
            rows.append(
                f'<tr data-row="{i}"><th scope="row">{esc(token)}</th>{cells}'
                f'<td data-row-sum="{i}" data-value="{total!r}">{total:.3f}</td></tr>'
            )
        heads = f", head {self.head} of {self.num_heads}" if self.num_heads > 1 else ""
        return (
            '<div class="ax-static">'
            f'<p class="ax-title"><strong>{esc(self.title)}</strong></p>'
            f'<p class="ax-formula"><code>{esc(self._formula())}</code></p>'
            '<div class="ax-scroll"><table class="ax-matrix" data-matrix="weights">'
            f"<caption>Attention weights A{heads}: rows are queries, columns are keys, "
            "and every row sums to 1.</caption>"
            f'<thead><tr><th scope="col">query \\ key</th>{header}'
            '<th scope="col">sum</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>"
            '<p class="ax-note">A static view: where JavaScript runs, this is an '
            "interactive explorer of every stage.</p>"
            "</div>"
        )

    def _formula(self) -> str:
        divisor = []
        if self.scale:
            divisor.append("√d_k")
        if self.temperature != 1:
            divisor.append(f"T={self.temperature:g}")
        scores = "Q Kᵀ"
        if divisor:
            scores += " / " + (divisor[0] if len(divisor) == 1 else f"({' · '.join(divisor)})")
        if self.causal:
            scores = f"causal_mask({scores})"
        n = len(self.tokens)
        return f"A = softmax({scores})   [n_q, n_k] = [{n}, {n}]"

    def __repr__(self) -> str:
        h, n, d_k = self.Q.shape
        return (
            f"Explorer(tokens={list(self.tokens)!r}, heads={h}, d_k={d_k}, "
            f"d_v={self.V.shape[-1]}, stage={self.stage!r}, scale={self.scale}, "
            f"causal={self.causal}, temperature={self.temperature!r})"
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
    scale: bool = True,
    causal: bool = False,
    temperature: float = 1.0,
    stage: str = "weights",
    head: int = 0,
    title: str = "Attention explorer",
) -> Explorer:
    """An in-page attention explorer for self-attention over ``tokens`` (chapters 4 to 7).

    Shapes, with ``n = len(tokens)``::

        Q, K  [n, d_k] and V [n, d_v]             one head
        Q, K  [h, n, d_k] and V [h, n, d_v]       h heads, one per leading index
        Q, K  [n, h * d_k] and V [n, h * d_v]     with heads=h: split by columns,
                                                  head i gets columns i*d_k ...,
                                                  as lessons.split_heads does
        X     [n, d_model], optional              shown as a first stage

    ``tokens`` is a list of strings (or one string, split on spaces), one per
    row. NumPy arrays, nested lists and torch tensors are accepted; values are
    rounded to ``DECIMALS`` decimals. The widget starts at ``stage`` with the
    scaling by ``√d_k`` on or off (``scale``), the causal mask (``causal``), a
    ``temperature`` ``T`` (the scaled scores are divided by ``T``; the slider
    runs over ``TEMPERATURE_RANGE``) and head ``head``. ``features`` names the
    columns of ``X``. To build ``Q, K, V`` from embeddings and projections, use
    ``explorer_from_embeddings``.

    Raises:
        ValueError: naming the shapes, when the tokens are not a flat list of
            strings, an input is not a rectangular 2-D or 3-D array of finite
            numbers, ``Q`` and ``K`` differ in ``d_k``, the row counts differ
            from the number of tokens, ``heads`` does not fit the inputs, or a
            setting is out of range.
    """
    return _build(
        tokens,
        Q,
        K,
        V,
        heads=heads,
        X=X,
        features=features,
        projected=False,
        scale=scale,
        causal=causal,
        temperature=temperature,
        stage=stage,
        head=head,
        title=title,
    )


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
    """An explorer whose first stage shows the embeddings ``X [n, d_model]`` (chapters 5 to 7).

    ``Q, K, V = lessons.qkv(X, W_Q, W_K, W_V)`` with ``W_Q, W_K [d_model, h * d_k]``
    and ``W_V [d_model, h * d_v]``; with ``heads=h`` the columns are split into
    ``h`` heads. ``features`` names the columns of ``X``; the other keywords are
    ``explorer``'s settings.

    Raises:
        ValueError: as ``lessons.qkv`` and ``explorer`` do.
    """
    X = _as_array("X", X, (2,))
    W_Q, W_K, W_V = (
        _as_array(name, w, (2,))
        for name, w in zip(("W_Q", "W_K", "W_V"), (W_Q, W_K, W_V), strict=True)
    )
    Q, K, V = qkv(X, W_Q, W_K, W_V)  # [n, h*d_k], [n, h*d_k], [n, h*d_v]
    return _build(tokens, Q, K, V, heads=heads, X=X, features=features, projected=True, **settings)


def _build(
    tokens: Any,
    Q: Any,
    K: Any,
    V: Any,
    *,
    heads: int | None,
    X: Any,
    features: Sequence[str] | None,
    projected: bool,
    scale: bool = True,
    causal: bool = False,
    temperature: float = 1.0,
    stage: str = "weights",
    head: int = 0,
    title: str = "Attention explorer",
) -> Explorer:
    token_list = _as_tokens(tokens)
    n = len(token_list)
    arrays = {name: _as_array(name, a, (2, 3)) for name, a in (("Q", Q), ("K", K), ("V", V))}
    shapes = ", ".join(f"{name} {tuple(a.shape)}" for name, a in arrays.items())
    ndims = {a.ndim for a in arrays.values()}
    if len(ndims) != 1:
        raise ValueError(f"Q, K and V must all be 2-D or all 3-D; got {shapes}")
    Q, K, V = arrays["Q"], arrays["K"], arrays["V"]
    split = False
    if heads is not None:
        if not isinstance(heads, int) or isinstance(heads, bool) or heads < 1:
            raise ValueError(f"heads must be a positive integer or None; got {heads!r}")
        if Q.ndim == 2:
            for name, a in arrays.items():
                if a.shape[-1] % heads:
                    raise ValueError(
                        f"heads={heads} must divide the width of {name} to split it "
                        f"into heads; got {shapes}"
                    )
            Q, K, V = (_split(a, heads) for a in (Q, K, V))  # [h, n, d]
            split = heads > 1
        elif Q.shape[0] != heads:
            raise ValueError(f"heads={heads} but the inputs hold {Q.shape[0]} heads: {shapes}")
    if Q.ndim == 2:
        Q, K, V = Q[None], K[None], V[None]  # [1, n, d]
    if not Q.shape[0] == K.shape[0] == V.shape[0]:
        raise ValueError(f"Q, K and V must hold the same number of heads; got {shapes}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"Q and K must have the same d_k (last dimension) to be compared; got {shapes}"
        )
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.shape[1] != n:
            raise ValueError(
                f"one row per token: there are {n} tokens, but {name} has "
                f"{a.shape[1]} rows ({shapes})"
            )
    X_array = None
    if X is not None:
        X_array = _as_array("X", X, (2,))
        if X_array.shape[0] != n:
            raise ValueError(
                f"one row of X per token: there are {n} tokens, but X has shape "
                f"{tuple(X_array.shape)}"
            )
        X_array = _rounded(X_array)
    feature_names = None
    if features is not None:
        if X_array is None:
            raise ValueError("features name the columns of X; give X too")
        feature_names = tuple(str(f) for f in features)
        if len(feature_names) != X_array.shape[1]:
            raise ValueError(
                f"features must name each of X's {X_array.shape[1]} columns; "
                f"got {len(feature_names)} names for X of shape {tuple(X_array.shape)}"
            )
    low, high, step = TEMPERATURE_RANGE
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        raise ValueError(f"temperature must be a number; got {temperature!r}")
    temperature = float(temperature)
    steps = temperature / step
    if not (low <= temperature <= high and abs(steps - round(steps)) < 1e-9):
        raise ValueError(
            f"temperature must lie between {low} and {high} in steps of {step} "
            f"(the slider's values); got {temperature}"
        )
    temperature = round(round(steps) * step, 2)
    stages = STAGES if X_array is not None else STAGES[1:]
    if stage not in stages:
        raise ValueError(f"stage must be one of {list(stages)}; got {stage!r}")
    if not isinstance(head, int) or isinstance(head, bool) or not 0 <= head < Q.shape[0]:
        raise ValueError(f"head must be an index from 0 to {Q.shape[0] - 1}; got {head!r}")
    return Explorer(
        token_list,
        _rounded(Q),
        _rounded(K),
        _rounded(V),
        X=X_array,
        features=feature_names,
        projected=projected,
        split=split,
        scale=bool(scale),
        causal=bool(causal),
        temperature=temperature,
        stage=stage,
        head=head,
        title=str(title),
    )


def _as_tokens(tokens: Any) -> tuple[str, ...]:
    if isinstance(tokens, str):
        tokens = tokens.split()
    try:
        items = list(tokens)
    except TypeError:
        raise ValueError(
            f"tokens must be a list of strings, one per row; got {type(tokens).__name__}"
        ) from None
    if not items:
        raise ValueError("tokens must hold at least one token")
    for i, item in enumerate(items):
        if not isinstance(item, str | int) or isinstance(item, bool):
            raise ValueError(
                f"tokens must be a flat list of strings (one per row of Q, K, V); "
                f"item {i} is {item!r}, a {type(item).__name__}"
            )
    return tuple(str(item) for item in items)


def _as_array(name: str, a: Any, ndims: tuple[int, ...]) -> np.ndarray:
    if hasattr(a, "detach"):  # a torch tensor
        a = a.detach().cpu().numpy()
    try:
        array = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a rectangular array of numbers; got a ragged or non-numeric "
            f"{type(a).__name__}"
        ) from None
    if array.ndim not in ndims:
        wanted = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {wanted}; got shape {tuple(array.shape)}")
    if 0 in array.shape:
        raise ValueError(f"{name} must not be empty; got shape {tuple(array.shape)}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} of shape {tuple(array.shape)} holds NaN or inf")
    return array


def _split(a: np.ndarray, heads: int) -> np.ndarray:
    """``[n, h * d]`` to ``[h, n, d]``: head i gets columns ``i*d`` to ``(i+1)*d - 1``."""
    n, width = a.shape
    return a.reshape(n, heads, width // heads).transpose(1, 0, 2)  # [h, n, d]


def _rounded(a: np.ndarray) -> np.ndarray:
    return np.vectorize(_number, otypes=[np.float64])(a)


def _rows(a: np.ndarray) -> list[list[float]]:
    return [[_number(x) for x in row] for row in np.asarray(a)]


def _number(x: Any) -> float:
    """A Python float rounded to ``DECIMALS`` decimals, without a sign on zero."""
    return round(float(x), DECIMALS) + 0.0


def _asset(name: str) -> str:
    return (_ASSETS / name).read_text(encoding="utf-8")
