"""Fixtures of the fuzz tests: the gateway tests' real server and official SDK client.

The server comes from pytest-jupyter (``tests/conftest.py``), configured by
``tests/gateway/gateway_helpers.server_config``; the client is the official Python MCP SDK over
real TCP, as in ``tests/gateway/conftest.py``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

# gateway_helpers (the server config) lives beside the gateway tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gateway"))


@pytest.fixture
def mcp_client(
    jp_serverapp: Any, http_server: Any, jp_http_port: int, jp_base_url: str
) -> Callable[..., Any]:
    """Factory: ``async with mcp_client() as client``, the SDK client after ``tools/list``."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}molspace/mcp"
    token = jp_serverapp.identity_provider.token

    @asynccontextmanager
    async def factory() -> AsyncIterator[Any]:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"token {token}"}, timeout=httpx2.Timeout(30.0)
        )
        async with (
            http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            await client.list_tools()
            yield client

    return factory


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say how many generated inputs each boundary checked (docs/security.md quotes them)."""
    from fuzz_inputs import COUNTS

    if COUNTS:
        counts = ", ".join(f"{k} {v:,}" for k, v in sorted(COUNTS.items()))
        terminalreporter.write_line(f"fuzz inputs checked: {counts}")
