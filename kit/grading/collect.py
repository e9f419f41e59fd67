"""One row per exercise of a graded notebook, from its capture cells' outputs."""

from __future__ import annotations

import nbformat

from kit.grading.instrument import MIME, Slot
from kit.grading.judge import Outcome, Reference, judge
from kit.grading.rows import Row
from kit.grading.run import Run, cell_error
from kit.grading.templates import check_of


def records(graded: nbformat.NotebookNode, slot: Slot, token: str) -> dict | None:
    shown = [
        o["data"][MIME]
        for o in graded.cells[slot.index].get("outputs", [])
        if MIME in o.get("data", {})
        and isinstance(o["data"][MIME], dict)
        and o["data"][MIME].get("token") == token
        and o["data"][MIME].get("seq") == slot.seq
    ]
    return shown[0] if len(shown) == 1 else None


def calls_of(record: dict) -> list[dict]:
    """The check calls a capture shows (a list, possibly empty)."""
    calls = record.get("calls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def judged(record: dict, check, slot: Slot, reference: Reference, graded, origin) -> list[Outcome]:
    """The outcome of each call a capture shows; `unanswered` where the check was not called."""
    calls = calls_of(record)
    tampered = record.get("tampered") or []
    tampered = tampered if isinstance(tampered, list) else ["the record"]
    found = [judge(call, check, reference, tampered) for call in calls] or [
        Outcome(
            "unanswered",
            [],
            [
                f"{check.name} was not called under Exercise {check.exercise}, and "
                f"{slot.why or 'its answer could not be read'}: call it on your answer as "
                "the exercise's cell does"
            ],
        )
    ]
    raised = cell_error(graded.cells[slot.after])
    if raised and raised[0] != "KeyboardInterrupt":
        message = (
            f"the cell that checks it (cell {origin[slot.after] + 1}) raised "
            f"{raised[0]}: {raised[1]}"
        )
        found = [
            o if o.verdict == "right" else Outcome("error", [raised[0]], [message]) for o in found
        ]
    return found


def _describe(index: int | None, graded, slots: list[Slot], origin: dict[int, int]) -> str:
    """Which cell the graded notebook's cell `index` is, in the student's words."""
    for slot in slots:
        if index == slot.index:
            return f"the grader's check of Exercise {slot.exercise}"
    if index in origin:
        lines = [x.strip() for x in graded.cells[index].source.splitlines() if x.strip()]
        return f"cell {origin[index] + 1} (`{lines[0][:60] if lines else ''}`)"
    return "the grader's set-up (import lessons)"


def collect(
    graded, slots, origin, deleted, template, run: Run, token, reference, student, file, timeout
) -> list[Row]:
    """One row per check, from the capture cells' outputs."""
    setup = cell_error(graded.cells[0])
    outcomes: dict[str, list[Outcome]] = {}
    notes: dict[str, list[str]] = {}
    previous = 1
    for slot in slots:
        if slot.tail:  # calls made where no grader cell followed (an aliased check)
            record = records(graded, slot, token)
            if record is not None and calls_of(record):
                check = check_of(template, slot.exercise)
                found = judged(record, check, slot, reference, graded, origin)
                outcomes.setdefault(slot.exercise, []).extend(found)
            continue
        between = range(previous, slot.index)
        previous = slot.index + 1
        here = notes.setdefault(slot.exercise, [])
        for index in between:
            error = cell_error(graded.cells[index])
            if (
                error
                and index != slot.after
                and index in origin
                and error[0] != "KeyboardInterrupt"
            ):
                here.append(f"cell {origin[index] + 1} raised {error[0]}: {error[1]}")
        record = records(graded, slot, token)
        check = check_of(template, slot.exercise)
        if any(i in run.timed_out for i in between) or slot.index in run.timed_out:
            where = next(i for i in [*between, slot.index] if i in run.timed_out)
            outcome = Outcome(
                "timeout",
                ["timed_out"],
                [
                    f"{_describe(where, graded, slots, origin)} ran past {timeout:g} s and was stopped"
                ],
            )
        elif record is None:
            continue
        else:
            outcomes.setdefault(slot.exercise, []).extend(
                judged(record, check, slot, reference, graded, origin)
            )
            continue
        outcomes.setdefault(slot.exercise, []).append(outcome)
    rows = []
    for check in template.checks:
        row = Row(student, template.chapter, check.exercise, "error", check=check.name, file=file)
        found = outcomes.get(check.exercise, [])
        best = next((o for o in found if o.verdict == "right"), None)
        best = best or next((o for o in reversed(found) if o.verdict == "timeout"), None)
        best = best or (found[-1] if found else None)
        messages = []
        if setup is not None:
            row.mistakes = ["grader_setup"]
            messages.append(f"the grader could not start: {setup[0]}: {setup[1]}")
        elif check.exercise in deleted:
            row.mistakes.append("check_deleted")
            messages.append(
                f"no cell calls {check.name} and none is left under Exercise {check.exercise}"
            )
        elif best is not None:
            row.verdict, row.mistakes = best.verdict, list(best.mistakes)
            messages += best.messages
        elif run.fault == "timeout":
            row.verdict = "timeout"
            row.mistakes.append("timed_out")
            messages.append(
                f"not graded: the notebook was stopped in {_describe(run.where, graded, slots, origin)}"
                " (the kernel ignored the interrupt, or the notebook's time ran out)"
            )
        elif run.fault == "kernel_died":
            row.mistakes.append("kernel_died")
            messages.append(
                f"not graded: the kernel died in {_describe(run.where, graded, slots, origin)}"
            )
        elif run.fault is not None:
            row.mistakes.append(run.fault.split(":")[0])
            messages.append(f"not graded: {run.fault}")
        else:
            row.mistakes.append("no_verdict")
            messages.append("the grader's check showed nothing (was the kernel tampered with?)")
        if reference.problem:
            messages.append(f"the chapter's own run: {reference.problem}")
        if notes.get(check.exercise):
            messages.append("earlier, " + "; ".join(notes[check.exercise][:5]))
        row.message = " | ".join(m for m in messages if m)
        rows.append(row)
    return rows
