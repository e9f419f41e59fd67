"""The grader gives a kernel time to start on a busy machine (`kit/grading/run.py`)."""

from __future__ import annotations

import nbformat

from kit.grading import run


def test_a_slow_kernel_start_is_waited_for_longer_than_nbclients_60_seconds(monkeypatch):
    seen = {}

    class Recorder:
        def __init__(self, nb, **kwargs):
            seen.update(kwargs)

        def execute(self, **kwargs):
            return None

    monkeypatch.setattr(run, "_Client", Recorder)
    result = run.execute(nbformat.v4.new_notebook(), timeout=5, notebook_timeout=10)
    assert result.fault is None
    assert seen["startup_timeout"] == run.STARTUP_TIMEOUT >= 300
