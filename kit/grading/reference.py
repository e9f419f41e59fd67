"""The chapter's own run (solutions included), once per process: each exercise's givens."""

from __future__ import annotations

import secrets
import threading

import nbformat

from kit.grading.collect import calls_of, records
from kit.grading.instrument import build
from kit.grading.judge import Reference, indexed
from kit.grading.run import execute
from kit.grading.templates import Template, check_of

_references: dict[str, Reference] = {}
_reference_locks: dict[str, threading.Lock] = {}
_reference_lock = threading.Lock()  # guards _reference_locks


def reference_of(template: Template, timeout: float, notebook_timeout: float) -> Reference:
    """The chapter's givens, from one run of the chapter (solutions included) per process.

    One lock per chapter: a run of chapter 7 never waits for chapter 5's reference."""
    with _reference_lock:
        lock = _reference_locks.setdefault(template.chapter, threading.Lock())
    with lock:
        if template.chapter in _references:
            return _references[template.chapter]
        token = secrets.token_hex(8)
        nb = nbformat.read(template.path, as_version=4)
        graded, slots, _, _ = build(nb, template, token, reference=True)
        run = execute(graded, max(timeout, 120), max(notebook_timeout, 600))
        found = Reference()
        for slot in slots:  # the last capture of each exercise: after its solution
            record = records(graded, slot, token)
            calls = calls_of(record) if record is not None else []
            if not calls:
                continue
            check = check_of(template, slot.exercise)
            values, pickled, _ = indexed(calls[-1], check)
            keys = [str(i) for i, a in enumerate(check.arguments) if a.role == "given"]
            found.values[slot.exercise] = {k: values[k] for k in keys if k in values}
            found.pickled[slot.exercise] = {k: pickled[k] for k in keys if k in pickled}
        missing = [c.exercise for c in template.checks if c.exercise not in found.values]
        if run.fault or missing:
            found.problem = (
                f"{template.chapter} did not run to its checks ({run.fault or 'no capture'} for "
                f"{', '.join(missing) or 'none'}); givens not compared there"
            )
        _references[template.chapter] = found
        return found
