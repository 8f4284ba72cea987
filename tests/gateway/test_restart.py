"""An agent's client keeps working across a Jupyter server restart.

A real ``jupyter server`` process (the installed molspace extension) is stopped
and started again on the same port and token while the official TypeScript SDK
2.x client stays connected. With protocol negotiation ``auto`` it speaks the
2026-07-28 revision, which has no sessions, so the restart is invisible to it.
(Legacy-era clients, such as the TypeScript SDK 1.x, get HTTP 404 for their
old ``Mcp-Session-Id``, as the spec asks, and must reconnect:
``test_mcp.py::test_unknown_session_id_is_404`` keeps that.)
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "tests" / "clients"
TOKEN = "restart-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, root: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "server",
            "--no-browser",
            "--allow-root",
            f"--port={port}",
            "--ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.port_retries=0",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/status", headers={"Authorization": f"token {TOKEN}"}
            )
            with urllib.request.urlopen(req, timeout=2):
                return proc
        except OSError:
            assert proc.poll() is None, "jupyter server exited while starting"
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("jupyter server did not answer within 60 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def test_ts_client_survives_a_server_restart(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/molspace/mcp"
    server = start_server(port, tmp_path)
    client = subprocess.Popen(
        ["node", str(CLIENTS / "survive_restart.mjs"), url, TOKEN],
        cwd=CLIENTS,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        before = json.loads(client.stdout.readline())
        assert before == {"label": "before", "isError": False, "pageConnected": False}, before
        stop_server(server)
        server = start_server(port, tmp_path)
        out, err = client.communicate("go\n", timeout=60)
        after = json.loads(out.strip().splitlines()[-1])
        assert after == {"label": "after", "isError": False, "pageConnected": False}, (after, err)
    finally:
        if client.poll() is None:
            client.kill()
        stop_server(server)
