"""Boolean keep-masks: which keys each query may look at.

Taught in chapter 6 (Masking). Convention everywhere in this course and in
``lessons.attention``: ``True`` means "may attend", ``False`` means "blocked",
the same as a boolean ``attn_mask`` in ``torch.nn.functional.scaled_dot_product_attention``
(and the opposite of ``torch.nn.MultiheadAttention``; chapter 6 shows both).
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np

__all__ = ["causal_mask", "padding_mask"]


def causal_mask(n: int) -> np.ndarray:
    """Causal (decoder, GPT-style) mask for ``n`` positions (chapter 6).

    Returns a boolean ``[n, n]`` array, ``True`` on and below the diagonal: query
    ``t`` (row) may attend to keys ``0..t`` (columns) and never to a later one.

    Raises:
        ValueError: if ``n`` is not a positive integer.
    """
    if not isinstance(n, Integral) or isinstance(n, bool) or n < 1:
        raise ValueError(f"causal_mask needs a positive integer length n; got {n!r}")
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(lengths: Sequence[int], n: int) -> np.ndarray:
    """Padding mask for a batch of sequences padded to length ``n`` (chapter 6).

    ``lengths[b]`` is how many real tokens sequence ``b`` has; positions from
    ``lengths[b]`` to ``n - 1`` are padding. Returns a boolean ``[B, 1, n]`` array,
    ``True`` at real tokens. The middle axis of size 1 broadcasts over the queries,
    so the mask fits weights of shape ``[B, n_q, n]``; add an axis (``[:, None]``,
    giving ``[B, 1, 1, n]``) for weights with heads, ``[B, h, n_q, n]``.

    Raises:
        ValueError: if ``lengths`` is not a flat list of integers between 0 and ``n``.
    """
    if not isinstance(n, Integral) or isinstance(n, bool) or n < 1:
        raise ValueError(f"padding_mask needs a positive integer length n; got {n!r}")
    lengths_array = np.asarray(lengths)
    if lengths_array.ndim != 1 or not np.issubdtype(lengths_array.dtype, np.integer):
        raise ValueError(
            f"lengths must be a flat list of integers, one per sequence; got {lengths!r}"
        )
    bad = [int(length) for length in lengths_array if not 0 <= length <= n]
    if bad:
        raise ValueError(f"every length must be between 0 and n={n}; got {bad}")
    positions = np.arange(n)  # [n]
    return (positions[None, :] < lengths_array[:, None])[:, None, :]  # [B, 1, n]
