"""The inputs each exercise hands its self-check, read from the chapter's own exercise cell.

The mutation library (``tests/wrong_answers.py``) must judge wrong answers on the very
inputs a learner gets, or a change of a notebook's givens (back to coincident sizes, say)
would go unnoticed. Which cells are exercise cells, and which arguments of their check
call are the learner's answer and which the givens, is the grader's own reading
(``kit.grading.templates.exercise_checks``, also what ``make assignments`` finds): one
way, shared. This module runs those cells as written (the ``answer = ...`` placeholder and
the ``lessons.check_*`` call; never the solutions) with ``lessons`` replaced by a stand-in
that records each check's givens instead of judging. Names an exercise cell takes from
earlier in its chapter (the chapter's own word vectors, its trained model) come from a
short prelude written here, built the way the chapter builds them.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from functools import cache
from typing import Any

import nbformat
import numpy as np
import torch
from repo_paths import BOOK

import lessons
from kit.grading.templates import Check, exercise_checks


class _Recorder:
    """``lessons`` as an exercise cell sees it, except that ``check_*`` records its givens."""

    def __init__(self, calls: dict[str, list[tuple[tuple, dict]]]):
        self._calls = calls
        self.check: Check | None = None  # the exercise whose cell runs now

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("check_"):
            return getattr(lessons, name)
        check = self.check

        def record(*args: Any, **kwargs: Any) -> None:
            roles = [a.role for a in check.arguments] if check and check.name == name else []
            answer = {i for i, role in enumerate(roles) if role == "answer"} or {0}
            keywords = {
                a.parameter for a in (check.arguments if roles else []) if a.role == "answer"
            }
            given = tuple(a for i, a in enumerate(args) if i not in answer)
            self._calls.setdefault(name, []).append(
                (given, {k: v for k, v in kwargs.items() if k not in keywords})
            )

        return record


def _code_cells(notebook: str) -> list[dict]:
    cells = json.loads((BOOK / notebook).read_text(encoding="utf-8"))["cells"]
    return [cell for cell in cells if cell["cell_type"] == "code"]


@cache
def exercise_checks_of(notebook: str) -> tuple[Check, ...]:
    """``notebook``'s graded exercises, as the grader reads them."""
    return tuple(exercise_checks(nbformat.read(BOOK / notebook, as_version=4), notebook))


def exercise_cells(notebook: str) -> list[str]:
    """The sources of ``notebook``'s exercise cells, in order (placeholder and check call)."""
    return [check.source for check in exercise_checks_of(notebook)]


def _cell_with(notebook: str, marker: str) -> str:
    """The source of ``notebook``'s first code cell that holds ``marker``."""
    for cell in _code_cells(notebook):
        source = "".join(cell["source"])
        if marker in source:
            return source
    raise LookupError(f"no code cell of {notebook} holds {marker!r}")


def _run(source: str, namespace: dict) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "<exercise>", "exec"), namespace)  # noqa: S102 - our own notebooks


def _prelude(notebook: str) -> dict[str, Any]:
    """What ``notebook``'s exercise cells take from the chapter before them."""
    namespace: dict[str, Any] = {"np": np, "torch": torch, "f64": torch.float64}
    if notebook.startswith("01_"):
        # the compass table of section "A soft look-up": the cells that define it
        _run(_cell_with(notebook, "table = "), namespace)
        _run(_cell_with(notebook, "key_names = list(table)"), namespace)
    elif notebook.startswith("03_"):
        from lessons.toy import FEATURES, word_vectors

        namespace |= {"FEATURES": FEATURES, "word_vectors": word_vectors}
        _run(_cell_with(notebook, 'words = "the movie was not good"'), namespace)
    elif notebook.startswith("11_"):
        # the task's data and the studied seed's model, trained as the chapter trains it
        from lessons.tasks import cls_token, position_labels, position_task
        from lessons.training import AttentionModel, accuracy, train

        namespace |= {
            "cls_token": cls_token,
            "position_labels": position_labels,
            "position_task": position_task,
            "AttentionModel": AttentionModel,
            "accuracy": accuracy,
            "train": train,
        }
        _run(_cell_with(notebook, "n_tokens, vocab_size, target, value ="), namespace)
        seed = int(glued(notebook)["chosen_seed"])
        vocab_size, n = namespace["vocab_size"], namespace["n"]
        model = AttentionModel(vocab_size + 1, n, 2, d_model=16, seed=seed)
        train(
            model,
            namespace["train_x"],
            namespace["train_y"],
            steps=40,
            lr=0.02,
            batch_size=64,
            seed=seed,
        )
        namespace["model"] = model
    elif notebook.startswith("12_"):
        import lessons.lm as lm

        info = lm.manifest()
        prev_layer, prev_head = (int(k) for k in glued(notebook)["prev_head"].split("."))
        ind_layer, ind_head = (int(k) for k in glued(notebook)["ind_name"].split("."))
        assert prev_layer == 0  # exercise 12.1 reads layer 0
        snippet = re.search(r'given_snippet = (".*")', _cell_with(notebook, "given_snippet ="))
        namespace |= {
            "lm": lm,
            "config": lm.LMConfig(**info["config"]),
            "model_last": lm.load(lm.checkpoints()[-1]),
            "passages": lm.eval_passages(),
            "prev_head": prev_head,
            "ind_layer": ind_layer,
            "ind_head": ind_head,
            "given_snippet": json.loads(snippet.group(1)),
        }
    return namespace


def glued(notebook: str) -> dict[str, str]:
    """Every glued name of ``notebook`` with its stored text."""
    records = {}
    for cell in _code_cells(notebook):
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                records[name] = output["data"]["application/papermill.record/text/plain"]
    return records


@cache
def givens(notebook: str) -> dict[str, list[tuple[tuple, dict]]]:
    """``{check name: [(givens, keyword givens) of each call]}`` of ``notebook``'s exercises."""
    calls: dict[str, list[tuple[tuple, dict]]] = {}
    namespace = _prelude(notebook)
    recorder = _Recorder(calls)
    namespace["lessons"] = recorder
    for check in exercise_checks_of(notebook):
        recorder.check = check
        _run(check.source, namespace)
    return calls
