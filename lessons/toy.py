"""Toy data made in code: a tiny vocabulary of hand-set word vectors.

Chapter 1 (Why attention) uses it to show what averaging words cannot do and how
mixing words by similarity moves "bank" towards "river" or towards "loan".
Real embeddings are learned and have hundreds of dimensions; these have six,
each with a name, so a reader can see what every number means.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["FEATURES", "vocabulary", "word_vectors"]

#: The meaning of each of the six dimensions of a toy word vector.
FEATURES = ("nature", "money", "creature", "quality", "negation", "function")

# fmt: off
_VOCABULARY: dict[str, tuple[float, ...]] = {
    #                nature money creature quality negation function
    "the":          (0.0,   0.0,  0.0,     0.0,    0.0,     1.0),
    "a":            (0.0,   0.0,  0.0,     0.0,    0.0,     1.0),
    "of":           (0.0,   0.0,  0.0,     0.0,    0.0,     1.0),
    "from":         (0.0,   0.0,  0.0,     0.0,    0.0,     1.0),
    "was":          (0.0,   0.0,  0.0,     0.0,    0.0,     0.8),
    "but":          (0.0,   0.0,  0.0,     0.0,    0.3,     0.8),
    "not":          (0.0,   0.0,  0.0,     0.3,    1.0,     0.3),
    "good":         (0.0,   0.0,  0.0,     0.9,    0.0,     0.0),
    "amazing":      (0.0,   0.0,  0.0,     1.0,    0.0,     0.0),
    "movie":        (0.0,   0.0,  0.0,     0.2,    0.0,     0.0),
    "soundtrack":   (0.0,   0.0,  0.0,     0.2,    0.0,     0.0),
    "bank":         (0.7,   0.7,  0.0,     0.0,    0.0,     0.0),
    "river":        (1.0,   0.0,  0.0,     0.0,    0.0,     0.0),
    "water":        (0.9,   0.0,  0.0,     0.0,    0.0,     0.0),
    "loan":         (0.0,   1.0,  0.0,     0.0,    0.0,     0.0),
    "money":        (0.0,   0.9,  0.0,     0.0,    0.0,     0.0),
    "dog":          (0.0,   0.0,  1.0,     0.0,    0.0,     0.0),
    "man":          (0.0,   0.0,  0.9,     0.0,    0.0,     0.0),
    "bites":        (0.0,   0.0,  0.3,     0.0,    0.0,     0.0),
}
# fmt: on


def vocabulary() -> tuple[str, ...]:
    """The words that ``word_vectors`` knows, in a fixed order (chapter 1)."""
    return tuple(_VOCABULARY)


def word_vectors(words: str | Sequence[str]) -> np.ndarray:
    """Hand-set embeddings for ``words``, one row per word (chapter 1).

    ``words`` is a list of words or one string split on spaces (case ignored).
    Returns a float64 array ``[n, 6]``; column ``j`` means ``FEATURES[j]``.

    Raises:
        ValueError: naming any word that is not in the toy vocabulary, or if
            ``words`` is not a string or a list of strings.
    """
    if isinstance(words, str):
        tokens = words.lower().split()
    elif hasattr(words, "__iter__") and all(isinstance(w, str) for w in words):
        tokens = [w.lower() for w in words]
    else:
        raise ValueError(f"words must be a string or a list of strings; got {words!r}")
    if not tokens:
        raise ValueError("word_vectors needs at least one word")
    unknown = [w for w in tokens if w not in _VOCABULARY]
    if unknown:
        raise ValueError(
            f"not in the toy vocabulary: {unknown}; known words: {', '.join(_VOCABULARY)}"
        )
    return np.array([_VOCABULARY[w] for w in tokens], dtype=np.float64)  # [n, 6]
