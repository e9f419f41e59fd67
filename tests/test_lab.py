"""`make lab` serves the chapters: JupyterLab starts, shows a chapter and runs it with `lessons`.

The server is started with the very command `make lab` runs (read from `make -n lab`), headless
on a free port of localhost, and always stopped at the end.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
import websocket
from repo_paths import ROOT

pytestmark = pytest.mark.kernel  # JupyterLab serves the chapters and starts a kernel

CHAPTER = "book/01_why_attention.ipynb"
READER_CHAPTER = "_build/notebooks/01_why_attention.ipynb"  # `make lab` writes it first
TOKEN = uuid.uuid4().hex
START_TIMEOUT_S = 60


def _lab_command() -> list[str]:
    """The command `make lab` runs, with this test's environment as the venv."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    dry_run = subprocess.run(
        ["make", "-n", "--no-print-directory", "lab", f"VENV={sys.prefix}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.replace("\\\n", " ")
    lines = [line for line in dry_run.splitlines() if " lab " in f"{line} " and "jupyter" in line]
    assert len(lines) == 1, dry_run
    return shlex.split(lines[0])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(url: str, method: str = "GET", body: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"token {TOKEN}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Base URL of a JupyterLab started as `make lab` starts it; stopped afterwards."""
    port = _free_port()
    command = _lab_command() + [
        "--no-browser",
        "--ServerApp.ip=localhost",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={TOKEN}",
    ]
    home = tmp_path_factory.mktemp("jupyter")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"))
    env["JUPYTER_RUNTIME_DIR"] = str(home / "runtime")
    # `make lab` writes the reader notebooks first (its `notebooks` prerequisite).
    subprocess.run([sys.executable, "-m", "kit", "notebooks"], cwd=ROOT, check=True)
    log = (home / "lab.log").open("wb")
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://localhost:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert server.poll() is None, (home / "lab.log").read_text(errors="replace")
            try:
                if _request(f"{base}/api/status")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"JupyterLab not ready in {START_TIMEOUT_S} s"
            time.sleep(0.25)
        yield base
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        log.close()


def test_make_lab_serves_the_lab_page_opened_on_the_chapters(lab):
    status, page = _request(f"{lab}/lab")
    assert status == 200
    assert b"JupyterLab" in page
    assert b'"preferredPath": "_build/notebooks"' in page  # it opens on the reader notebooks


@pytest.mark.parametrize("path", [CHAPTER, READER_CHAPTER])
def test_a_chapter_is_served_through_the_rest_api(lab, path):
    status, body = _request(f"{lab}/api/contents/{path}")
    assert status == 200
    model = json.loads(body)
    assert model["type"] == "notebook"
    assert model["content"]["metadata"]["kernelspec"]["name"] == "python3"


def _execute(channels: websocket.WebSocket, code: str) -> tuple[str, str, list[dict]]:
    """Run code in the kernel: the reply's status, what it printed, and any error outputs."""
    msg_id = uuid.uuid4().hex
    channels.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "username": "test",
                    "session": uuid.uuid4().hex,
                    "version": "5.3",
                    "date": "",
                },
                "parent_header": {},
                "metadata": {},
                "content": {"code": code, "silent": False, "allow_stdin": False},
                "channel": "shell",
                "buffers": [],
            }
        )
    )
    status, printed, errors, idle = None, "", [], False
    deadline = time.monotonic() + START_TIMEOUT_S
    while status is None or not idle:
        assert time.monotonic() < deadline, "the kernel did not finish the cell"
        message = json.loads(channels.recv())
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = message["msg_type"], message["content"]
        if kind == "execute_reply":
            status = content["status"]
        elif kind == "stream":
            printed += content["text"]
        elif kind == "error":
            errors.append(content)
        elif kind == "status":
            idle = content["execution_state"] == "idle"
    return status, printed, errors


def test_a_kernel_from_the_lab_runs_the_chapters_first_cell_with_lessons(lab):
    status, body = _request(f"{lab}/api/kernels", "POST", {"name": "python3", "path": "book"})
    assert status == 201, body
    kernel = json.loads(body)["id"]
    ws_url = f"ws://localhost:{lab.rsplit(':', 1)[1]}/api/kernels/{kernel}/channels"
    channels = websocket.create_connection(
        ws_url, header=[f"Authorization: token {TOKEN}"], timeout=START_TIMEOUT_S
    )
    try:
        notebook = json.loads(_request(f"{lab}/api/contents/{CHAPTER}")[1])["content"]
        first = next(cell for cell in notebook["cells"] if cell["cell_type"] == "code")
        assert "lessons.setup()" in first["source"]
        assert _execute(channels, first["source"])[::2] == ("ok", [])

        reply, printed, errors = _execute(
            channels, "import sys, lessons\nprint(sys.prefix)\nprint(lessons.__file__)"
        )
        assert (reply, errors) == ("ok", []), errors
        prefix, module = printed.split()
        assert Path(prefix).resolve() == Path(sys.prefix).resolve()  # the course's environment
        assert Path(module).resolve().is_relative_to(ROOT)  # this checkout's lessons
    finally:
        channels.close()
        assert _request(f"{lab}/api/kernels/{kernel}", "DELETE")[0] == 204
