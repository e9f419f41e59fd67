"""The verdict of one check call, reached in the grader's process on what the call received."""

from __future__ import annotations

import ast
import base64
import inspect
import pickle
from dataclasses import dataclass, field

from kit.grading.decode import Opaque, decode, difference, same, same_value
from kit.grading.rows import VERDICTS
from kit.grading.templates import Check


@dataclass
class Reference:
    """The chapter's own run: each exercise's givens, plain (to compare) and pickled (to judge)."""

    values: dict[str, dict[str, dict]] = field(default_factory=dict)  # exercise -> index -> plain
    pickled: dict[str, dict[str, str]] = field(default_factory=dict)
    problem: str = ""  # why a chapter's own run failed, if it did


@dataclass
class Outcome:
    verdict: str
    mistakes: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def _names(check: Check, indices) -> str:
    return ", ".join(f"`{check.arguments[int(i)].source}`" for i in indices)


def indexed(call: dict, check: Check) -> tuple[dict, dict, dict]:
    """A call's values keyed as the chapter's call's arguments (`"0"`, `"1"`, ...).

    A recorded call names its values by the check's parameters; it is matched to the
    chapter's call by those (a student's `check(x, K=K2, Q=Q2)` binds as the chapter's
    `check(answer, Q_ex, K_ex)` does). Returns (values, pickled, the call's values of
    parameters the chapter's call does not pass). A call by names is keyed so already.
    """
    if call.get("from_names"):
        return call.get("values", {}), call.get("pickled", {}), {}
    where = {a.parameter: str(i) for i, a in enumerate(check.arguments) if a.parameter}
    values, pickled, extra = {}, {}, {}
    for parameter, plain in call.get("values", {}).items():
        if parameter in where:
            values[where[parameter]] = plain
            if parameter in call.get("pickled", {}):
                pickled[where[parameter]] = call["pickled"][parameter]
        else:
            extra[parameter] = plain
    return values, pickled, extra


def _differs_from_default(name: str, parameter: str, plain: dict) -> bool:
    """Whether a value the chapter's call leaves to its default is not that default."""
    import lessons

    try:
        default = inspect.signature(getattr(lessons, name)).parameters[parameter].default
    except (AttributeError, KeyError, TypeError, ValueError):
        return True
    if default is inspect.Parameter.empty:
        return True
    try:
        return not same_value(decode(plain), default)
    except Exception:  # a malformed record
        return True


def _literal(source: str):
    return ast.literal_eval(source)


def judge(
    call: dict, check: Check, reference: Reference, tampered: list[str] | tuple = ()
) -> Outcome:
    """One check call's verdict: the check, called here, on what the student's call received.

    The answer is the student's; a given equal to the chapter's (whatever the student named
    it) is the chapter's; a given or a constant that differs is replaced by the chapter's to
    judge, and flagged `given_edited`."""
    if "unbound" in call:
        return Outcome(
            "error",
            ["TypeError"],
            [f"{check.name} was called with arguments it does not take: {call['unbound']}"],
        )
    values, _, extra = indexed(call, check)
    roles = {str(i): a.role for i, a in enumerate(check.arguments)}
    missing = [str(i) for i, _ in call.get("missing", [])]
    if any(roles[i] == "answer" for i in missing):
        return Outcome("unanswered", [], [f"{_names(check, missing)} is not defined when checked"])
    if call.get("errors"):
        errors = call["errors"]
        text = "; ".join(f"{check.arguments[int(i)].source}: {e}" for i, e in errors.items())
        return Outcome("error", [next(iter(errors.values())).split(":")[0]], [text])
    names, edited = {}, []
    given = reference.values.get(check.exercise, {})
    pickles = reference.pickled.get(check.exercise, {})
    for index, argument in enumerate(check.arguments):
        key = str(index)
        plain = values.get(key)
        if argument.role == "constant":  # judged with the chapter's, written in the call
            if plain is not None and not _same_constant(plain, argument.source):
                edited.append((argument.source, ""))
            continue
        if argument.role == "given":
            if plain is not None and key in given and not same(plain, given[key]):
                edited.append((argument.source, difference(plain, given[key])))
            if key in pickles:  # the chapter's own
                names[f"__a{index}"] = pickle.loads(base64.b64decode(pickles[key]))
                continue
            if plain is None:  # not passed (a check not called, a name the student renamed)
                return Outcome(
                    "unanswered",
                    [],
                    [
                        f"`{argument.source}`, an input Exercise {check.exercise} gives, is not "
                        f"defined and {check.name} was not called: call it as the exercise does"
                    ],
                )
        if plain is None:
            return Outcome("unanswered", [], [f"`{argument.source}` was not passed to the check"])
        names[f"__a{index}"] = decode(plain)
    for parameter, plain in extra.items():
        if _differs_from_default(check.name, parameter, plain):
            edited.append((f"{parameter}=", "not the check's default"))
    values = names
    outcome = Outcome("error")
    inside = any(isinstance(v, Opaque) for v in values.values())
    if inside:
        verdict = call.get("verdict") or {
            "verdict": "error",
            "mistake": "no_verdict",
            "message": "the check gave no verdict in the kernel",
        }
    else:
        import lessons

        try:
            verdict = eval(
                compile(check.template, "<check>", "eval"), {"lessons": lessons, **values}
            )  # noqa: S307
            verdict = dict(verdict.record())
        except Exception as error:  # the check raised on this answer
            verdict = {
                "verdict": "error",
                "mistake": type(error).__name__,
                "message": f"the check raised {type(error).__name__}: {error}",
            }
    outcome.verdict = verdict.get("verdict") if verdict.get("verdict") in VERDICTS else "error"
    if verdict.get("mistake"):
        outcome.mistakes.append(str(verdict["mistake"]))
    outcome.messages.append(str(verdict.get("message", "")))
    if edited:
        changed = "; ".join(
            f"`{source}` differs from the chapter's" + (f" ({detail})" if detail else "")
            for source, detail in edited
        )
        if inside and outcome.verdict == "right":
            outcome.verdict = "wrong"
        if outcome.verdict != "right":
            outcome.mistakes.append("given_edited")
        outcome.messages.append(
            f"{changed}: "
            + ("the chapter's was used to judge" if not inside else "judged with yours, not right")
        )
    if call.get("from_names"):
        outcome.messages.append(
            f"{check.name} was not called: judged from "
            + ", ".join(f"`{name}`" for name in check.answers)
            + ", set under the exercise"
        )
    if tampered:
        outcome.mistakes.append("tampered")
        patched = ", ".join(list(tampered)[:5])
        outcome.messages.append(f"the notebook patched lessons' checking code ({patched})")
        if inside:
            outcome.verdict = "error"
    return outcome


def _same_constant(plain: dict, source: str) -> bool:
    try:
        return same_value(decode(plain), _literal(source))
    except Exception:  # a malformed record
        return False
