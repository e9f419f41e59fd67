"""Chapter 11's lab: block keys of a trained model and watch its held-out accuracy, in the page.

``lab(model, tokens, labels)`` takes a trained ``AttentionModel`` (one head, a
``[CLS]`` read-out, as chapter 11 studies) and its held-out set, and returns a ``Lab``;
on the last line of a cell it shows one checkbox per key position, the held-out
accuracy and the mean ``[CLS]`` row split by label, all updated at once in the page
by a forward pass written in JavaScript (``lessons/book/widgets/assets/lab.js``). No
kernel, no network: the weights and the examples travel inside the page.

The weights are rounded to the fewest decimals with which the rounded model predicts
exactly what the model predicts, for every example and every set of blocked keys
(``lessons.book.widgets.lab_export``): the page then shows exactly ``lessons.accuracy``'s numbers,
which the browser tests check. The page contract is in
``lessons/book/widgets/assets/README.md``.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from lessons._validate import check_ndim
from lessons.training import AttentionModel, accuracy

from .lab_export import blocked_keep, export_decimals, rounded_model
from .widget import widget_html

__all__ = ["Lab", "lab"]


def _flat(t: torch.Tensor | None, size: int) -> list[float]:
    """A parameter as a flat list of floats (zeros when the layer has no bias)."""
    values = np.zeros(size) if t is None else t.detach().double().reshape(-1).numpy()
    return [float(x) + 0.0 for x in values]


def _bytes(a: torch.Tensor) -> tuple[str, int]:
    """Non-negative integers as base64 of 1 or 2 little-endian bytes each, and that width."""
    width = 1 if int(a.max()) < 256 else 2
    raw = a.numpy().astype("<u1" if width == 1 else "<u2").tobytes()
    return base64.b64encode(raw).decode("ascii"), width


@dataclass(frozen=True, eq=False, repr=False)
class Lab:
    """Chapter 11's lab ready to display (make one with ``lab``): the payload and its labels."""

    title: str
    payload: dict[str, Any]
    accuracy: float
    cls_rows: np.ndarray  # [n_classes, n]: mean [CLS] row per label, nothing blocked

    def data(self) -> dict[str, Any]:
        """The payload the page embeds as JSON."""
        return self.payload

    def _repr_html_(self) -> str:
        p = self.payload
        esc = html.escape
        boxes = "".join(
            f'<label class="ll-box"><input type="checkbox" data-block="{i}"> {esc(name)}</label>'
            for i, name in enumerate(p["positions"])
        )
        head = "".join(f'<th scope="col">{esc(name)}</th>' for name in p["positions"])
        rows = "".join(
            f'<tr><th scope="row">{esc(name)}</th>'
            + "".join(f"<td>{x:.2f}</td>" for x in row)
            + "</tr>"
            for name, row in zip(p["classes"], self.cls_rows, strict=True)
        )
        body = (
            f'<p class="ll-title"><strong>{esc(self.title)}</strong></p>'
            '<fieldset class="ll-blocks"><legend>Block keys: no query may attend to a '
            f"ticked position</legend>{boxes}"
            '<button type="button" data-action="reset">Unblock all</button></fieldset>'
            '<p class="ll-result" aria-live="polite">Held-out accuracy: '
            f'<strong data-accuracy="">{self.accuracy:.4f}</strong> '
            f'<span class="lw-note">on {p["count"]} examples</span></p>'
            '<div class="lw-scroll" data-rows="">'
            '<table class="ll-static"><caption>Mean attention of the [CLS] query, '
            f"by label (rows) and key position (columns)</caption><thead><tr><td></td>{head}"
            f"</tr></thead><tbody>{rows}</tbody></table></div>"
            '<p class="lw-note" data-static-note="">Blocking keys needs the script that runs in '
            "the book, in Colab and in a trusted notebook; shown here: nothing blocked.</p>"
        )
        return widget_html(
            {"class": "lw ll", "data-lab": "attention"},
            body,
            self.payload,
            data_attribute="data-lab-data",
            styles=("core.css", "lab.css"),
            script="lab.js",
            label=f"{self.title}: lab",
        )

    def __repr__(self) -> str:
        p = self.payload
        return (
            f"Lab(positions={len(p['positions'])}, examples={p['count']}, "
            f"accuracy={self.accuracy:.4f}, decimals={p['decimals']})"
        )


def lab(
    model: AttentionModel,
    tokens: torch.Tensor,
    labels: torch.Tensor,
    *,
    title: str = "Block a key, watch the accuracy",
    positions: Sequence[str] | None = None,
    classes: Sequence[str] | None = None,
) -> Lab:
    """Chapter 11's lab: ``model``'s held-out accuracy as the reader blocks keys, in the page.

    ``model`` is a trained ``AttentionModel`` with one head and ``readout="cls"``;
    ``tokens [N, n]`` its held-out token ids and ``labels [N]`` their classes.
    ``positions`` names the ``n`` key positions (default ``0 [CLS]``, ``1`` ...),
    ``classes`` the labels (default ``label 0`` ...). With no key blocked the page
    shows ``lessons.accuracy(model, tokens, labels)``, and with the keys ``b``
    blocked ``accuracy(..., mask=blocked_keep(n, b))``, to 4 decimals.

    Raises:
        ValueError: naming the argument, if ``model`` has several heads or a
            per-token read-out, the shapes do not fit, or a token or label is out
            of the model's range.
    """
    if not isinstance(model, AttentionModel):
        raise ValueError(f"model must be a lessons.AttentionModel; got {type(model).__name__}")
    heads = model.attention.num_heads
    if heads != 1 or model.readout_from != "cls":
        raise ValueError(
            "model must have one head and readout='cls' (the model chapter 11 studies); "
            f"got num_heads={heads}, readout={model.readout_from!r}"
        )
    check_ndim("tokens", tokens, (2,), "[N, n]")
    check_ndim("labels", labels, (1,), "[N]")
    tokens, labels = torch.as_tensor(tokens).long(), torch.as_tensor(labels).long()
    N, n = tokens.shape
    vocab, n_classes = model.embed.num_embeddings, model.readout.out_features
    if labels.shape[0] != N or n > model.n_positions:
        raise ValueError(
            f"tokens must be [N, n] with n <= n_positions={model.n_positions} and labels [N]; "
            f"got {list(tokens.shape)} and {list(labels.shape)}"
        )
    if int(tokens.min()) < 0 or int(tokens.max()) >= vocab:
        raise ValueError(f"tokens must be ids from 0 to {vocab - 1}")
    if int(labels.min()) < 0 or int(labels.max()) >= n_classes:
        raise ValueError(f"labels must be classes from 0 to {n_classes - 1}")
    positions = tuple(positions or ["0 [CLS]", *(str(p) for p in range(1, n))])
    classes = tuple(classes or [f"label {c}" for c in range(n_classes)])
    if len(positions) != n or len(classes) != n_classes:
        raise ValueError(
            f"positions must name the {n} positions and classes the {n_classes} classes; "
            f"got {len(positions)} and {len(classes)}"
        )
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: extra threads only wait for each other
    try:
        return _build(model, tokens, labels, str(title), positions, classes)
    finally:
        torch.set_num_threads(threads)


def _build(
    model: AttentionModel,
    tokens: torch.Tensor,
    labels: torch.Tensor,
    title: str,
    positions: tuple[str, ...],
    classes: tuple[str, ...],
) -> Lab:
    """The checked inputs of ``lab`` exported: weights, examples, reference numbers."""
    N, n = tokens.shape
    vocab, n_classes = model.embed.num_embeddings, model.readout.out_features
    decimals = export_decimals(model, tokens)
    twin = rounded_model(model, decimals)  # what the page runs
    d = twin.attention.d_model
    att, read = twin.attention, twin.readout
    weights = {
        "embed": _flat(twin.embed.weight, vocab * d),
        "positions": _flat(twin.positions[:n], n * d),
        "w_in": _flat(att.in_proj.weight, 3 * d * d),
        "b_in": _flat(att.in_proj.bias, 3 * d),
        "w_out": _flat(att.out_proj.weight, d * d),
        "b_out": _flat(att.out_proj.bias, d),
        "w_read": _flat(read.weight, n_classes * d),
        "b_read": _flat(read.bias, n_classes),
    }
    reference = [accuracy(model, tokens, labels, mask=blocked_keep(n, (p,))) for p in range(n)]
    plain = accuracy(model, tokens, labels)
    with torch.no_grad():
        cls = model(tokens)[1][:, 0, 0].numpy()  # [N, n]: the [CLS] row of every example
    one_hot = np.eye(n_classes)[labels.numpy()]  # [N, n_classes]
    counts = np.maximum(one_hot.sum(axis=0), 1)  # [n_classes]; a label with no example: 0
    rows = one_hot.T @ cls / counts[:, None]  # [n_classes, n]: mean [CLS] row per label
    token_text, token_bytes = _bytes(tokens)
    label_text, label_bytes = _bytes(labels)
    payload = {
        "version": 1,
        "d_model": d,
        "n": n,
        "vocab": vocab,
        "classes": list(classes),
        "positions": list(positions),
        "count": N,
        "decimals": decimals,
        "weights": weights,
        "tokens": token_text,
        "token_bytes": token_bytes,
        "labels": label_text,
        "label_bytes": label_bytes,
        "reference": {"accuracy": plain, "blocked": reference},
    }
    return Lab(title, payload, plain, rows)
