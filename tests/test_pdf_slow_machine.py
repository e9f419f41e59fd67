"""`make pdf` on a slow or busy machine: no short fixed limit, progress printed, a clear
message when the browser dies (`kit/build_pdf.py`). A fake driver stands in for chromium,
so these run in a second and need no browser."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from kit import build_pdf


class FakeDriver:
    """Answers like selenium's driver; `fail_on` names the command that raises."""

    def __init__(self, fail_on: str | None = None, exited: int | None = None) -> None:
        self.command_executor = types.SimpleNamespace(
            client_config=types.SimpleNamespace(timeout=120)
        )
        self.timeouts: dict[str, float] = {}
        self.fail_on = fail_on
        self.service = types.SimpleNamespace(
            process=types.SimpleNamespace(poll=lambda: exited, pid=-1)
        )
        self.quit_called = False

    def _maybe_fail(self, name: str) -> None:
        if name == self.fail_on:
            raise ConnectionResetError("connection reset by peer")

    def set_script_timeout(self, seconds):
        self.timeouts["script"] = seconds

    def set_page_load_timeout(self, seconds):
        self.timeouts["page"] = seconds

    def get(self, url):
        self._maybe_fail("get")

    def execute_async_script(self, script, *args):
        return "typeset"

    def execute_script(self, script, *args):
        if script is build_pdf.QUESTIONS_JS:
            return [3, 1]
        if script is build_pdf.LAYOUT_JS:
            return ["Chapter 1"]
        return 0

    def execute_cdp_cmd(self, name, params):
        self._maybe_fail("print")
        return {"data": "UERG"}  # base64 of "PDF"

    def quit(self):
        self.quit_called = True


@pytest.fixture
def fake(monkeypatch):
    def make(**kwargs) -> FakeDriver:
        driver = FakeDriver(**kwargs)
        monkeypatch.setattr(build_pdf, "browser", lambda: driver)
        monkeypatch.setattr(build_pdf, "question_assets", lambda: ("", ""))
        return driver

    return make


def test_no_step_keeps_seleniums_120_second_limit(fake, tmp_path):
    driver = fake()
    data, chapters = build_pdf.print_pdf(tmp_path / "print.html", {"title": "T"}, timeout=900)
    assert data == b"PDF" and chapters == ["Chapter 1"]
    assert driver.command_executor.client_config.timeout == 900
    assert driver.timeouts == {"script": 900, "page": 900}
    assert build_pdf.TIMEOUT >= 900  # the default outlasts a print several times slower than ~100 s


def test_a_long_step_says_every_few_seconds_that_it_is_still_running(capsys):
    with build_pdf.still_running("printing", lambda: 12.0, every=0.02):
        import time

        time.sleep(0.11)
    lines = [line for line in capsys.readouterr().out.splitlines() if "still printing" in line]
    assert len(lines) >= 3
    assert "12 s of browser CPU" in lines[0]


@pytest.mark.parametrize("step", ["get", "print"])
def test_a_browser_that_dies_is_named_with_the_step_and_what_to_do(fake, tmp_path, step):
    driver = fake(fail_on=step, exited=-9)
    with pytest.raises(SystemExit) as raised:
        build_pdf.print_pdf(tmp_path / "print.html", {"title": "T"})
    message = str(raised.value)
    assert "exited with code -9" in message
    assert ("loading the page" if step == "get" else "printing") in message
    assert "run `make pdf` again" in message
    assert driver.quit_called


def test_the_timeout_is_an_option_of_make_pdf():
    usage = subprocess.run(
        [sys.executable, "-m", "kit", "pdf", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--timeout" in usage
