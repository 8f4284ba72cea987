"""Fixtures for the molspace gateway tests: a real Jupyter server, a real MCP client, a fake page."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from gateway_helpers import CALL_TIMEOUT, FakePage, server_config
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect


@pytest.fixture
def call_timeout() -> float:
    """``c.MolspaceGateway.call_timeout`` for the test (seconds)."""
    return CALL_TIMEOUT


@pytest.fixture
def jp_server_config(call_timeout: float) -> dict[str, Any]:
    """Enable the molspace server extension (as jupyter-config/server-config/molspace.json does)."""
    return server_config(gateway={"call_timeout": call_timeout})


@pytest.fixture
def token(jp_serverapp: Any) -> str:
    return jp_serverapp.identity_provider.token


@pytest.fixture
def gateway(jp_serverapp: Any) -> Any:
    """The running MolspaceGateway extension app."""
    return jp_serverapp.web_app.settings["molspace"]


@pytest.fixture
def server_root(http_server: Any, jp_http_port: int, jp_base_url: str) -> str:
    """``http://127.0.0.1:<port>{base_url}`` of the listening server (base_url ends with '/')."""
    return f"http://127.0.0.1:{jp_http_port}{jp_base_url}"


@pytest.fixture
def mcp_url(server_root: str) -> str:
    return server_root + "molspace/mcp"


@pytest.fixture
def bridge_url(http_server: Any, jp_http_port: int, jp_base_url: str) -> str:
    return f"ws://127.0.0.1:{jp_http_port}{jp_base_url}molspace/bridge"


@pytest.fixture
def mcp_client(mcp_url: str, token: str) -> Callable[..., Any]:
    """Factory: ``async with mcp_client(mode=...) as client`` — the official SDK client.

    Connects over real TCP with ``Authorization: token <t>``. ``mode='legacy'``
    uses the initialize handshake (a stateful Streamable HTTP session with SSE),
    ``mode='auto'`` lets the SDK negotiate (2026-07-28 per-request path). ``extensions``:
    ``ClientExtension`` instances the client declares (e.g. MCP Apps).
    The client has called ``tools/list`` before it is handed over.
    """

    @asynccontextmanager
    async def factory(
        mode: str = "legacy",
        headers: dict[str, str] | None = None,
        extensions: list[Any] | None = None,
    ) -> AsyncIterator[Client]:
        hdrs = {"Authorization": f"token {token}"}
        hdrs.update(headers or {})
        http = httpx2.AsyncClient(headers=hdrs, timeout=httpx2.Timeout(20.0))
        async with http:
            async with Client(
                streamable_http_client(mcp_url, http_client=http),
                mode=mode,
                extensions=extensions,
            ) as client:
                # As every real agent does: list tools first (clients then check results against them).
                await client.list_tools()
                yield client

    return factory


@pytest.fixture
def connect_page(bridge_url: str, token: str) -> Callable[..., Awaitable[FakePage]]:
    """Factory: connect a FakePage (token in the query string), say hello, wait for welcome."""
    pages: list[FakePage] = []

    async def connect(
        page_id: str = "page-1", *, focused: bool = True, widgets: int = 1
    ) -> FakePage:
        ws = await websocket_connect(HTTPRequest(f"{bridge_url}?token={quote(token)}"))
        page = FakePage(ws, page_id)
        pages.append(page)
        await page.hello(focused=focused, widgets=widgets)
        return page

    yield connect
    for p in pages:
        p.close()
