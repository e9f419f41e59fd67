"""The KV cache of today's models: its mask, a cache for decoding, and its size (chapter 13).

Chapter 10 kept the keys and values of the tokens already seen, so that a new token
costs one row of work. Chapter 13 makes that cache do what real models need:

- ``window_mask(q_positions, k_positions, window)``: the boolean mask ``[n_q, n_k]`` built
  from *positions*, not from row and column numbers, so it stays right once a cache
  exists (the new rows' mask is ``[n_new, n_cached + n_new]``) and when a sliding window
  drops old keys (each query sees its last ``window`` keys, itself included).
- ``KVCache``: one layer's cache. ``append`` returns everything the new tokens attend to
  and keeps only what a later token can still need (the last ``window - 1`` tokens for a
  sliding-window layer: a rolling cache).
- ``CacheLayout`` and ``kv_cache_bytes``: the cache's size from a model's configuration,
  ``layers x 2 x KV heads x head size x bytes`` per token, a window capping the tokens a
  layer keeps, and multi-head latent attention caching ``latent`` numbers per token once
  per layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ._validate import as_numpy, check_budget, positive_int

__all__ = [
    "PUBLISHED",
    "CacheLayout",
    "KVCache",
    "kv_cache_bytes",
    "new_positions",
    "window_mask",
]


def window_mask(q_positions: object, k_positions: object, window: int | None = None) -> np.ndarray:
    """Which keys each query may see, from their positions: boolean ``[n_q, n_k]`` (chapter 13).

    Query at position ``i`` sees key at position ``j`` when ``j <= i`` (causal: never a later
    token) and, with a ``window`` ``w``, ``i - j < w``: the last ``w`` keys, itself included
    (Mistral's and ``transformers``' convention). With ``window=None`` it is chapter 6's
    causal mask, shifted to wherever the positions are.

    Shapes::

        q_positions  [n_q]   the positions of the queries (the new tokens)
        k_positions  [n_k]   the positions of the keys (cached ones, then the new ones)
        returns      [n_q, n_k], True = "may attend"

    Raises:
        ValueError: if a positions argument is not 1-D whole numbers, or ``window`` is not
            a positive integer (or None).
    """
    positive_int("window", window, allow_none=True)
    q, k = (
        _positions(name, p)
        for name, p in (("q_positions", q_positions), ("k_positions", k_positions))
    )
    check_budget("q_positions and k_positions are", q.size * k.size)
    offset = q[:, None] - k[None, :]  # [n_q, n_k]: i - j
    keep = offset >= 0  # [n_q, n_k]: causal
    if window is not None:
        keep &= offset < window  # [n_q, n_k]: the last `window` keys
    return keep


def _positions(name: str, positions: object) -> np.ndarray:
    p = as_numpy(positions)
    if p.ndim != 1 or p.size == 0 or not np.issubdtype(p.dtype, np.integer):
        raise ValueError(
            f"{name} must be a 1-D array of whole positions; got {p.dtype} {list(p.shape)}"
        )
    return p.astype(np.int64)


class KVCache:
    """One layer's cache of keys and values (or of any per-token tensors) (chapter 13).

    Each stored tensor is ``[B, heads, n_cached, width]`` (the token axis is ``-2``), and
    ``positions [n_cached]`` says which token each row belongs to. With a ``window`` ``w``
    the cache is *rolling*: after each ``append`` it keeps the last ``w - 1`` tokens, all
    that the next query still sees besides itself. Then the number of cached tokens is not
    the next token's position: ``next_position`` is. It counts every token appended, so it
    stays right even with ``window=1``, where the cache keeps no token at all.
    """

    def __init__(self, window: int | None = None) -> None:
        self.window = positive_int("window", window, allow_none=True)
        self.tensors: tuple[torch.Tensor, ...] = ()
        self.positions = np.zeros(0, dtype=np.int64)  # [n_cached]
        self._seen = 0  # tokens appended so far, kept or dropped

    @property
    def next_position(self) -> int:
        """The position of the next token: the number of tokens appended so far (0 at first)."""
        return self._seen

    def append(
        self, *new: torch.Tensor, positions: object
    ) -> tuple[tuple[torch.Tensor, ...], np.ndarray]:
        """Add the new tokens' tensors; return what the new queries attend to.

        ``new`` are ``[B, heads, n_new, width]`` tensors (keys and values, or a latent and a
        RoPE key), ``positions [n_new]`` their tokens' positions. Returns the cached and new
        rows together, ``[B, heads, n_cached + n_new, width]`` each, and their positions
        ``[n_cached + n_new]``; the cache then keeps only what a later token can need.

        Raises:
            ValueError: if the count of tensors changes, a tensor does not have one row per
                position, or the new positions do not follow the cached ones.
        """
        pos = _positions("positions", positions)
        if any(t.ndim != 4 or t.shape[-2] != pos.size for t in new):
            shapes = [list(t.shape) for t in new]
            raise ValueError(f"each new tensor must be [B, heads, {pos.size}, width]; got {shapes}")
        if self.tensors and len(new) != len(self.tensors):
            raise ValueError(f"this cache holds {len(self.tensors)} tensors; got {len(new)}")
        if pos[0] != self.next_position or np.any(np.diff(pos) != 1):
            raise ValueError(
                f"positions must run on from {self.next_position} one by one; got {pos.tolist()}"
            )
        if self.tensors:
            new = tuple(
                torch.cat([old, t], dim=-2) for old, t in zip(self.tensors, new, strict=True)
            )
        everything = np.concatenate([self.positions, pos])  # [n_cached + n_new]
        first = 0 if self.window is None else max(0, everything.size - (self.window - 1))
        self.tensors = tuple(t[..., first:, :] for t in new)  # [B, heads, kept, width] each
        self.positions = everything[first:]  # [kept]
        self._seen = int(pos[-1]) + 1
        return tuple(new), everything


def new_positions(n: int, cache: KVCache | None, positions: object = None) -> np.ndarray:
    """The positions ``[n]`` of ``n`` new tokens (chapter 13): given, or right after the cache.

    With no cache the text starts at 0; after a prefill the next token sits at
    ``cache.next_position``, not at 0 and not at the cache's length (a rolling cache drops
    tokens but positions keep counting).
    """
    if positions is not None:
        return np.asarray(positions)
    start = cache.next_position if cache is not None else 0
    return np.arange(start, start + n)  # [n]


@dataclass(frozen=True)
class CacheLayout:
    """What one model caches per token, from its configuration (chapter 13).

    ``layers`` attention layers, each caching keys and values of ``kv_heads`` heads of
    ``head_dim`` numbers; ``windowed_layers`` of them see only the last ``window`` tokens
    and so keep at most ``window``. A multi-head latent attention model sets ``latent``
    (latent rank plus the shared RoPE key's width) instead: one vector per token per layer,
    no factor 2. ``heads`` records the query heads where the source gives them (0 where
    not recorded): the cache does not depend on them. ``source`` says where the numbers come
    from.
    """

    name: str
    layers: int
    kv_heads: int = 0
    head_dim: int = 0
    window: int | None = None
    windowed_layers: int = 0
    latent: int = 0
    heads: int = 0
    source: str = ""

    def __post_init__(self) -> None:
        positive_int("layers", self.layers)
        positive_int("window", self.window, allow_none=True)
        if self.latent == 0:
            positive_int("kv_heads", self.kv_heads)
            positive_int("head_dim", self.head_dim)
        if not 0 <= self.windowed_layers <= self.layers or (
            self.windowed_layers and not self.window
        ):
            raise ValueError(
                f"windowed_layers must be 0..layers ({self.layers}) and needs a window; "
                f"got {self.windowed_layers} with window {self.window}"
            )

    @property
    def numbers_per_token_per_layer(self) -> int:
        """``2 x kv_heads x head_dim`` (keys and values), or ``latent`` for latent attention."""
        return self.latent or 2 * self.kv_heads * self.head_dim


def kv_cache_bytes(layout: CacheLayout, tokens: int, bytes_per_number: int = 2) -> int:
    """Bytes of one sequence's KV cache after ``tokens`` tokens (chapter 13).

    ``bytes_per_number x numbers_per_token_per_layer x (full layers x tokens + windowed
    layers x min(tokens, window))``. With ``tokens=1`` it is the cache per token; 2 bytes
    per number is bfloat16.

    Raises:
        ValueError: if ``tokens`` or ``bytes_per_number`` is not a positive integer.
    """
    positive_int("tokens", tokens)
    positive_int("bytes_per_number", bytes_per_number)
    full = layout.layers - layout.windowed_layers
    kept = min(tokens, layout.window) if layout.window else tokens
    rows = full * tokens + layout.windowed_layers * kept  # token rows over all layers
    return bytes_per_number * layout.numbers_per_token_per_layer * rows


#: Published configurations (chapter 13), each with where its numbers come from. Gemma 3's
#: global layers are every sixth (5 local : 1 global), so 10 of 62 are global; gpt-oss
#: windows every other layer; Mistral 7B windows all of them.
PUBLISHED: tuple[CacheLayout, ...] = (
    CacheLayout(
        "Llama 3 8B",
        layers=32,
        kv_heads=8,
        head_dim=128,
        heads=32,
        source="dubey2024llama: 32 layers, 32 heads, 8 KV heads, d_model 4096",
    ),
    CacheLayout(
        "Qwen3-8B",
        layers=36,
        kv_heads=8,
        head_dim=128,
        heads=32,
        source="yang2025qwen3: 36 layers, 32 query and 8 KV heads, head size 128",
    ),
    CacheLayout(
        "Mistral 7B",
        layers=32,
        kv_heads=8,
        head_dim=128,
        window=4096,
        windowed_layers=32,
        source="jiang2023mistral: 32 layers, 8 KV heads, head size 128, window 4096",
    ),
    CacheLayout(
        "Gemma 3 27B",
        layers=62,
        kv_heads=16,
        head_dim=128,
        window=1024,
        windowed_layers=52,
        source="gemmateam2025gemma3: 62 layers, 16 KV heads, head size 128, "
        "5 local (window 1024) : 1 global",
    ),
    CacheLayout(
        "gpt-oss-120b",
        layers=36,
        kv_heads=8,
        head_dim=64,
        window=128,
        windowed_layers=18,
        heads=64,
        source="openai2025gptoss: 36 layers, 64 query and 8 KV heads, head size 64, "
        "banded window 128 on every other layer",
    ),
    CacheLayout(
        "DeepSeek-V3",
        layers=61,
        latent=512 + 64,
        heads=128,
        source="deepseek2024v3: 61 layers, 128 heads, KV latent 512, decoupled RoPE key 64",
    ),
)
