"""Characters as tokens, and the texts the chapter's model reads (chapter 12).

The vocabulary is fixed: the newline and the 95 printable ASCII characters, 96
tokens, id = position in ``VOCAB``. ``encode`` refuses any other character with a
``ValueError`` that names it and where it is (a tab, an accented letter, an emoji):
the model has never seen them, and silently swapping them for something else would
make its predictions lie.

Training text (``stdlib_corpus``): the top-level ``.py`` files of the running
interpreter's standard library (``Lib/*.py``: no download, real code with real
docstrings and comments), keeping only the files written entirely in ``VOCAB``,
sorted by name; every tenth file is held out. The files differ between Python
versions, so the corpus records its SHA-256 and the training tool writes it into
the manifest.

Evaluation text (``eval_passages``): passages of English and Python that this
course wrote itself, stored in ``lessons/lm_weights/eval.txt``, so every machine
measures on the same characters.
"""

from __future__ import annotations

import hashlib
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["VOCAB", "Corpus", "decode", "encode", "eval_passages", "stdlib_corpus"]

VOCAB = "\n" + "".join(chr(c) for c in range(32, 127))  # 96 characters
_ID_OF_CODE = np.full(128, -1, dtype=np.int64)  # [128]: code point -> id, -1 if not in VOCAB
_ID_OF_CODE[[ord(ch) for ch in VOCAB]] = np.arange(len(VOCAB))


def encode(text: str) -> np.ndarray:
    """The ids ``[n]`` (int64) of the characters of ``text`` (chapter 12).

    Raises:
        ValueError: if ``text`` is not a non-empty string, or holds a character
            outside ``VOCAB`` (the message names it, its code point and its index).
    """
    if not isinstance(text, str) or not text:
        raise ValueError(f"text must be a non-empty string; got {text!r:.60}")
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")  # [n] code points
    ids = _ID_OF_CODE[np.minimum(codes, 127)]  # [n]; -1 for 127 (DEL) and beyond VOCAB
    outside = np.flatnonzero(ids < 0)
    if outside.size:
        i = int(outside[0])
        ch = text[i]
        raise ValueError(
            f"text holds {ch!r} (U+{ord(ch):04X}) at index {i}, which is not in the "
            "model's vocabulary (the newline and printable ASCII); remove or replace it"
        )
    return ids


def decode(ids: Sequence[int] | np.ndarray) -> str:
    """The text of the ids ``[n]`` (chapter 12).

    Raises:
        ValueError: if an id is not an integer in ``0 .. len(VOCAB) - 1``.
    """
    array = np.asarray(ids)
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"ids must be a 1-D sequence of integers; got {array.dtype} {array.shape}")
    if array.size and (array.min() < 0 or array.max() >= len(VOCAB)):
        raise ValueError(
            f"ids must lie in 0 .. {len(VOCAB) - 1}; got {array.min()} .. {array.max()}"
        )
    return "".join(VOCAB[i] for i in array)


@dataclass(frozen=True)
class Corpus:
    """The training text and its held-out part, with where they came from."""

    train: str
    heldout: str
    train_files: tuple[str, ...]
    heldout_files: tuple[str, ...]
    skipped_files: tuple[str, ...]
    source: str

    @property
    def sha256(self) -> str:
        """SHA-256 of the training text then the held-out text (UTF-8), as hex."""
        return hashlib.sha256((self.train + self.heldout).encode("utf-8")).hexdigest()


def stdlib_corpus(root: str | Path | None = None) -> Corpus:
    """The standard library's top-level ``.py`` files as one training text (chapter 12).

    Files are read in name order; a file with any character outside ``VOCAB`` (a
    tab, non-ASCII) is skipped whole, never altered. Every tenth kept file (index
    9, 19, ...) goes to ``heldout``.
    """
    folder = Path(root) if root is not None else Path(sysconfig.get_paths()["stdlib"])
    allowed = set(VOCAB)
    train, heldout, train_files, heldout_files, skipped = [], [], [], [], []
    kept = 0
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if not set(text) <= allowed:
            skipped.append(path.name)
            continue
        held = kept % 10 == 9
        (heldout if held else train).append(text)
        (heldout_files if held else train_files).append(path.name)
        kept += 1
    if not train or not heldout:
        raise ValueError(f"root {folder} holds too few usable .py files ({kept})")
    return Corpus(
        train="".join(train),
        heldout="".join(heldout),
        train_files=tuple(train_files),
        heldout_files=tuple(heldout_files),
        skipped_files=tuple(skipped),
        source=str(folder),
    )


def eval_passages() -> dict[str, str]:
    """The course's own evaluation passages, by name (chapter 12).

    ``lessons/lm_weights/eval.txt`` holds them, each introduced by a line
    ``=== name ===``; the line break before the next header belongs to no passage.
    """
    raw = resources.files("lessons").joinpath("lm_weights", "eval.txt").read_text("utf-8")
    passages: dict[str, str] = {}
    name = None
    for line in raw.split("\n"):
        if line.startswith("=== ") and line.endswith(" ==="):
            name = line[4:-4]
            passages[name] = ""
        elif name is not None:
            passages[name] += line + "\n"
    return {k: v.rstrip("\n") + "\n" for k, v in passages.items()}
