"""Self-checks of chapter 12 (Attention in a language model trained on real text).

Two detectors computed by hand from a head's attention ``A [n, n]`` (previous-token and
induction scores) and the second-copy / first-copy loss ratio of a repeated snippet with
heads blocked. Each mistake a check names is written once, in ``MISTAKES``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..lm.detectors import induction_score, previous_token_score
from ..lm.model import CharLM
from ..lm.run import token_losses
from .verdict import Verdict, as_float_array, catalogued, generic, judge, wrong

__all__ = ["check_copy_ratio", "check_induction_score", "check_previous_token_score"]

#: check -> {mistake name: what the learners who make it did}; see ``catalogue()``.
#: Each description completes "12 of 30 students ...".
MISTAKES: dict[str, dict[str, str]] = {
    "check_copy_ratio": {
        "inverted": "divided the first copy's loss by the second's",
        "difference": "subtracted the two losses instead of dividing",
        "not_blocked": "measured the model as trained, without blocking the heads",
        "shifted_copy": (
            "counted the prediction of the second copy's first character, which nothing announces"
        ),
        "first_includes_boundary": (
            "let the first copy's losses run to m, so that they include the guess of the "
            "second copy's first character"
        ),
        "both_shifted": (
            "split the losses one place off for both copies (losses[:m] and losses[m - 1:])"
        ),
        **generic("not_a_number", "other"),
    },
    "check_induction_score": {
        "same_token": "read the earlier copy of the same token (offset -L), not the token after it",
        "every_row": (
            "averaged the diagonal over every row it crosses, the first copy's rows included"
        ),
        "previous_token": "took the previous-token diagonal of the second copy",
        **generic("not_a_number", "other"),
    },
    "check_previous_token_score": {
        "main_diagonal": "took the main diagonal (the current-token score), not the one below it",
        "main_diagonal_all_rows": (
            "took the whole main diagonal, row 0 included (np.diagonal(A).mean()), not the "
            "one below it"
        ),
        "divided_by_n": "summed the diagonal below the main one and divided by n instead of n - 1",
        "diagonal_above": "took the diagonal above the main one, which the causal mask makes zero",
        "whole_lower_triangle": (
            "averaged every weight below the main diagonal, not only A[i, i - 1]"
        ),
        **generic("not_a_number", "other"),
    },
}


def _message(check: str, name: str, fix: str) -> str:
    """The message a reader sees: the catalogue's phrase for ``name``, then how to fix it."""
    return f"It looks as if you {MISTAKES[check][name]}. {fix}"


def _square(A: Any) -> np.ndarray:
    A = as_float_array(A)
    if A is None or A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] < 2:
        raise ValueError(f"A must be one head's attention [n, n] with n >= 2; got {np.shape(A)}")
    return A


def _mistakes(check: str, candidates: dict[str, tuple[Any, str]]) -> dict[str, tuple[Any, str]]:
    """The ``{name: (candidate, message)}`` ``judge`` takes, from ``{name: (candidate, fix)}``."""
    return {name: (value, _message(check, name, fix)) for name, (value, fix) in candidates.items()}


def previous_token_mistakes(A: Any) -> dict[str, tuple[float, str]]:
    """``{name: (what the mistake computes, how to fix it)}`` for the previous-token score of ``A [n, n]``."""
    A = _square(A)
    n = A.shape[0]
    below = np.diagonal(A, offset=-1)  # [n - 1]
    return {
        "main_diagonal": (float(np.diagonal(A)[1:].mean()), "Take A[i, i - 1], one step left."),
        "main_diagonal_all_rows": (
            float(np.diagonal(A).mean()),
            "Take A[i, i - 1] for i = 1 .. n - 1: one step left of the diagonal, from row 1.",
        ),
        "divided_by_n": (
            float(below.sum() / n),
            "Row 0 has no previous token: average n - 1 rows.",
        ),
        "diagonal_above": (float(np.diagonal(A, offset=1).mean()), "Go below the diagonal."),
        "whole_lower_triangle": (
            float(A[np.tril_indices(n, k=-1)].mean()),
            "Keep only the entry just left of the diagonal in each row.",
        ),
    }


@catalogued(MISTAKES)
def check_previous_token_score(answer: Any, A: Any) -> Verdict:
    """Check the mean of ``A[i, i - 1]`` over ``i = 1 .. n - 1`` for one head's ``A [n, n]`` (chapter 12)."""
    expected = previous_token_score(_square(A))
    check = "check_previous_token_score"
    verdict = judge(
        answer,
        np.asarray(expected),
        what="one number, the mean of A[i, i - 1]",
        praise=f"The previous-token score is {expected:.4f}.",
        mistakes=_mistakes(check, previous_token_mistakes(A)),
        kind="one number",
    )
    if verdict is not None:
        return verdict
    return wrong(
        "Not one of the slips we know. Which entry of row i holds the weight on the "
        "character just before i, and which rows have such a character? Average those "
        "entries over those rows.",
        "other",
    )


def induction_mistakes(A: Any, L: int) -> dict[str, tuple[float | None, str]]:
    """``{name: (what the mistake computes, how to fix it)}`` for the induction score of ``A [2L + 1, 2L + 1]``."""
    A = _square(A)
    rows = np.arange(L + 1, 2 * L + 1)  # [L]: the second copy
    return {
        "same_token": (
            float(A[rows, rows - L].mean()),
            "An induction head reads the token *after* the earlier copy: offset 1 - L.",
        ),
        "every_row": (
            float(np.diagonal(A, offset=1 - L).mean()),
            "Keep the rows of the second copy only, i = L + 1 .. 2L.",
        ),
        "previous_token": (float(A[rows, rows - 1].mean()), "Look back L - 1 positions, not 1."),
    }


@catalogued(MISTAKES)
def check_induction_score(answer: Any, A: Any, L: int) -> Verdict:
    """Check the mean of ``A[i, i - L + 1]`` over the second copy ``i = L + 1 .. 2L`` (chapter 12).

    ``A [2L + 1, 2L + 1]`` is one head's attention on ``lessons.lm.induction_text(L)``.
    """
    expected = induction_score(_square(A), L)
    check = "check_induction_score"
    verdict = judge(
        answer,
        np.asarray(expected),
        what="one number, the mean of A[i, i - L + 1] over the second copy",
        praise=f"The induction score is {expected:.4f}.",
        mistakes=_mistakes(check, induction_mistakes(A, L)),
        kind="one number",
    )
    if verdict is not None:
        return verdict
    return wrong(
        "Not one of the slips we know. For a query in the second copy, where in the first "
        "copy is the character that came next last time? Average that entry over the "
        "second copy's rows only.",
        "other",
    )


def _copy_losses(snippet: str, model: CharLM, blocked) -> tuple[np.ndarray, int]:
    if not isinstance(snippet, str) or len(snippet) < 2:
        raise ValueError(f"snippet must be text of at least 2 characters; got {snippet!r:.40}")
    return token_losses(snippet * 2, model, blocked=blocked), len(snippet)


def copy_ratio_mistakes(
    snippet: str, model: CharLM, blocked: set[tuple[int, int]]
) -> dict[str, tuple[float | None, str]]:
    """``{name: (what the mistake computes, how to fix it)}`` for the ratio of ``check_copy_ratio``."""
    losses, m = _copy_losses(snippet, model, blocked)  # [2m - 1]
    first, second = losses[: m - 1].mean(), losses[m:].mean()
    plain, _ = _copy_losses(snippet, model, None)
    return {
        "inverted": (float(first / second), "Put the second copy on top: second / first."),
        "difference": (float(second - first), "Divide the second copy's mean loss by the first's."),
        "not_blocked": (
            float(plain[m:].mean() / plain[: m - 1].mean()) if blocked else None,
            "Pass blocked=... to token_losses.",
        ),
        "shifted_copy": (
            float(losses[m - 1 :].mean() / first),
            "The second copy's losses are token_losses[m:], the same m - 1 characters as the first.",
        ),
        "first_includes_boundary": (
            float(second / losses[:m].mean()),
            "The first copy's losses are token_losses[: m - 1]; entry m - 1 already guesses "
            "the second copy.",
        ),
        "both_shifted": (
            float(losses[m - 1 :].mean() / losses[:m].mean()),
            "Use token_losses[: m - 1] and token_losses[m:]: both predict the same m - 1 "
            "characters.",
        ),
    }


@catalogued(MISTAKES)
def check_copy_ratio(
    answer: Any, snippet: str, model: CharLM, blocked: set[tuple[int, int]] | None = None
) -> Verdict:
    """Check the second-copy / first-copy mean loss of ``snippet * 2`` with ``blocked`` heads (chapter 12).

    The first copy's losses are ``token_losses[: m - 1]`` and the second's
    ``token_losses[m:]`` (``m = len(snippet)``): both predict the same ``m - 1`` characters.
    """
    blocked = set(blocked or ())
    losses, m = _copy_losses(snippet, model, blocked)  # [2m - 1]
    expected = losses[m:].mean() / losses[: m - 1].mean()
    check = "check_copy_ratio"
    verdict = judge(
        answer,
        np.asarray(expected),
        what="one number, the second copy's mean loss divided by the first's",
        praise=f"The ratio is {expected:.4f}.",
        mistakes=_mistakes(check, copy_ratio_mistakes(snippet, model, blocked)),
        kind="one number",
    )
    if verdict is not None:
        return verdict
    return wrong(
        "Not one of the slips we know. Measure the losses with the heads blocked, take the "
        "mean over each copy's m - 1 predicted characters (as the exercise slices them), "
        "and divide the second copy's by the first's.",
        "other",
    )
