"""`kit/execute_notebooks.py` stores each printed stream as one output."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_output

from kit import course, execute_notebooks


def test_pieces_of_one_stream_are_joined_and_others_kept_apart():
    outputs = [
        new_output("stream", name="stdout", text="a\n"),
        new_output("stream", name="stdout", text="b\n"),
        new_output("stream", name="stderr", text="warn\n"),
        new_output("stream", name="stdout", text="c\n"),
        new_output("execute_result", data={"text/plain": "1"}, execution_count=1),
        new_output("stream", name="stdout", text="d\n"),
    ]
    joined = execute_notebooks.coalesce_streams(outputs)
    assert [o["output_type"] for o in joined] == [
        "stream",
        "stream",
        "stream",
        "execute_result",
        "stream",
    ]
    assert joined[0]["text"] == "a\nb\n"
    assert [o.get("name") for o in joined[:3]] == ["stdout", "stderr", "stdout"]


@pytest.mark.parametrize("path", course.load().notebooks, ids=lambda p: p.stem)
def test_no_stored_output_is_split_into_pieces(path):
    # A split print shows in the book as text with a gap in it.
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for a, b in zip(cell.outputs, cell.outputs[1:], strict=False):
            split = a.output_type == b.output_type == "stream" and a.get("name") == b.get("name")
            assert not split, f"{path.name}, cell {cell.id}: one print stored in pieces"


def test_refresh_volatile_is_a_flag_not_a_notebook(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(
        execute_notebooks,
        "execute",
        lambda path, refresh_volatile: calls.append((path, refresh_volatile)) or 0.0,
    )
    execute_notebooks.main(["--refresh-volatile", "book/01_why_attention.ipynb"])
    assert calls == [(execute_notebooks.Path("book/01_why_attention.ipynb"), True)]
    calls.clear()
    execute_notebooks.main([])
    assert len(calls) == len(course.load().notebooks)
    assert not any(refresh for _, refresh in calls)
