"""A JupyterLab served from a fresh environment, and the demo opened in it as a person would.

Shared by ``test_release.py`` (the built wheel in a fresh venv) and ``test_binder.py`` (what
Binder builds from ``binder/``): start ``jupyter lab`` under a non-root ``base_url``, list the MCP
tools with the official Python SDK, and run the demo notebook's cells in Debian's Chromium
(``ui-tests/open-demo.mjs``).
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerLog:
    """Reads a server's output on a thread; ``ready`` is set once it says it is running."""

    def __init__(self, proc: subprocess.Popen[str], where: str) -> None:
        self.lines: list[str] = []
        self.where = where
        self.ready = threading.Event()
        self.ended = threading.Event()
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.lines.append(line)
            if "is running at" in line:
                self.ready.set()
        self.ended.set()
        self.ready.set()  # wakes the waiter, which then sees the server ended

    def tail(self) -> str:
        """The last 3,000 characters the server wrote."""
        return "".join(self.lines)[-3000:]

    def wait_running(self, seconds: float) -> None:
        """Wait until the server says it is running; fail the test, with its log, otherwise."""
        if not self.ready.wait(seconds):
            pytest.fail(
                f"jupyter lab in {self.where} did not start in {seconds:.0f} s: {self.tail()}"
            )
        if self.ended.is_set():
            pytest.fail(f"jupyter lab in {self.where} exited: {self.tail()}")


def wait_answering(lab: str, token: str, log: ServerLog, seconds: float) -> None:
    """Wait until ``{lab}api/status`` answers; fail the test, with the server's log, otherwise.

    jupyter_server logs "is running at" before its event loop binds the port, so a request sent
    on that line alone can meet a refused connection.
    """
    deadline = time.monotonic() + seconds
    while True:
        if log.ended.is_set():
            pytest.fail(f"jupyter lab in {log.where} exited: {log.tail()}")
        try:
            httpx2.get(f"{lab}api/status", headers={"Authorization": f"token {token}"}, timeout=5)
            return
        except httpx2.TransportError as error:
            if time.monotonic() > deadline:
                pytest.fail(
                    f"jupyter lab in {log.where} logged that it runs but {lab} did not answer "
                    f"in {seconds:.0f} s ({error}): {log.tail()}"
                )
        if log.ended.wait(0.2):  # the next try, or at once if the server exits
            pytest.fail(f"jupyter lab in {log.where} exited: {log.tail()}")


@contextmanager
def served_lab(
    bin_dir: Path, root: Path, base_url: str, token: str, env: dict[str, str], where: str
) -> Iterator[tuple[str, ServerLog]]:
    """Run ``bin_dir/jupyter lab`` on a free port, serving ``root`` under ``base_url``.

    Yields the lab's URL (``http://127.0.0.1:<port><base_url>``) and its log; stops the server
    (SIGINT, then kill after 20 s) on exit.
    """
    port = free_port()
    server = subprocess.Popen(
        [
            str(bin_dir / "jupyter"), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
            f"--port={port}", "--ServerApp.port_retries=0", f"--ServerApp.base_url={base_url}",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        ],
        env=env, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    log = ServerLog(server, where)
    lab = f"http://127.0.0.1:{port}{base_url}"
    try:
        log.wait_running(90)
        wait_answering(lab, token, log, 30)
        yield lab, log
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()


async def _tool_names(url: str, token: str) -> list[str]:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"token {token}"}, timeout=httpx2.Timeout(20.0)
    )
    async with http, Client(streamable_http_client(url, http_client=http)) as mcp:
        return [t.name for t in (await mcp.list_tools()).tools]


def tool_names(lab: str, token: str) -> list[str]:
    """The tools ``tools/list`` gives at ``{lab}molspace/mcp`` (official Python SDK)."""
    return asyncio.run(_tool_names(f"{lab}molspace/mcp", token))


def open_demo(lab: str, token: str, out: Path, log: ServerLog, notebook: str) -> list[str]:
    """Run every cell of ``notebook`` (a path under the lab's root) in Debian's Chromium.

    Returns the cells' output texts; fails the test, with the page's outputs, a screenshot in
    ``out`` and the server's log, unless the Story drew and the cells printed the step applied.
    """
    shown = subprocess.run(
        ["node", str(ROOT / "ui-tests" / "open-demo.mjs"), lab, token, str(out), notebook],
        cwd=ROOT / "ui-tests", capture_output=True, text=True, timeout=420,
    )  # fmt: skip
    result = json.loads(shown.stdout.strip().splitlines()[-1]) if shown.stdout.strip() else {}
    if shown.returncode != 0 or not result.get("ok"):
        pytest.fail(
            f"the demo did not run in {log.where}: {json.dumps(result, indent=1)}\n"
            f"stderr: {shown.stderr[-2000:]}\nserver: {log.tail()}"
        )
    outputs: list[str] = result["outputs"]
    assert any("goto 'binding-site': done" in o for o in outputs), outputs
    return outputs
