"""Chapter 9's wrong answers (Encoder, decoder and the transformer block): the slips its checks must reject.

``tests/checks/library.py`` says what ``WRONG``, ``RIGHT`` and ``EXTRA`` hold.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from checks.library import (
    Givens,
    Right,
    Wrong,
)


def _block(fn):
    def make(block, x):
        x = torch.as_tensor(x).to(block.norm1.weight.dtype)
        with torch.no_grad():
            attn = lambda y: block.attention(y)[0]  # noqa: E731
            return fn(block, x, attn, block.feed_forward, block.norm1, block.norm2).numpy()

    return make


def _pre(block, x, attn, ff, n1, n2):
    u = x + attn(n1(x))
    return u + ff(n2(u))


def _post(block, x, attn, ff, n1, n2):
    u = n1(x + attn(x))
    return n2(u + ff(u))


BLOCK_OUTPUT = [
    Wrong("post-norm for a pre-norm block", _block(_post), "post_norm"),
    Wrong(
        "no residuals (pre-norm)",
        _block(lambda b, x, attn, ff, n1, n2: ff(n2(attn(n1(x))))),
        "no_residual",
    ),
    Wrong(
        "first residual only",
        _block(lambda b, x, attn, ff, n1, n2: ff(n2(x + attn(n1(x))))),
    ),
    Wrong(
        "second residual only",
        _block(lambda b, x, attn, ff, n1, n2: (u := attn(n1(x))) + ff(n2(u))),
    ),
    Wrong(
        "norm1 twice",
        _block(lambda b, x, attn, ff, n1, n2: (u := x + attn(n1(x))) + ff(n1(u))),
    ),
    Wrong(
        "no norms",
        _block(lambda b, x, attn, ff, n1, n2: (u := x + attn(x)) + ff(u)),
    ),
    Wrong(
        "a final norm added",
        _block(lambda b, x, attn, ff, n1, n2: n2(_pre(b, x, attn, ff, n1, n2))),
    ),
    Wrong(
        "feed-forward on the input",
        _block(lambda b, x, attn, ff, n1, n2: x + attn(n1(x)) + ff(n2(x))),
    ),
    Wrong("the attention weights", lambda block, x: block.attention(block.norm1(x))[1].detach()),
]


WRONG: dict[str, list[Wrong]] = {
    "check_block_output": BLOCK_OUTPUT,
}


#: Other inputs each check is judged on: random (seeded) and hostile ones.
EXTRA: dict[str, Callable[[], list[Givens]]] = {
    "check_block_output": lambda: [],
}


RIGHT: dict[str, list[Right]] = {
    "check_block_output": [
        Right("by hand", _block(_pre)),
        Right("the block itself", lambda block, x: block(x).detach()),
        Right("a list", lambda block, x: block(x).detach().tolist()),
    ],
}  # fmt: skip
