"""Helpers for the gateway tests: the fake page and condition waits (imported by conftest and tests)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from jupyter_server.auth.identity import IdentityProvider, User
from tornado.websocket import WebSocketClientConnection

#: ``c.MolspaceGateway.call_timeout`` used by default in these tests (seconds).
CALL_TIMEOUT = 10.0


def server_config(
    server: dict[str, Any] | None = None, gateway: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``jp_server_config`` with the molspace extension on, plus ServerApp and MolspaceGateway settings."""
    return {
        "ServerApp": {
            "jpserver_extensions": {"molspace": True},
            "reraise_server_extension_failures": True,
            **(server or {}),
        },
        "MolspaceGateway": {"call_timeout": CALL_TIMEOUT, **(gateway or {})},
    }


class FakePage:
    """A stand-in for the JupyterLab page: a real websocket client speaking the bridge protocol.

    ``handler(tool, args, context)`` returns the frame fields to answer with
    (``{"ok": True, "structuredContent": ..., "text": ...}``) or ``None`` to
    never answer.
    """

    def __init__(self, ws: WebSocketClientConnection, page_id: str) -> None:
        self.ws = ws
        self.page_id = page_id
        self.calls: list[dict[str, Any]] = []
        #: Every other frame the gateway sent after the welcome (e.g. ``served``), in order.
        self.frames: list[dict[str, Any]] = []
        self.call_seen = asyncio.Event()
        self.closed = asyncio.Event()
        self.handler: Callable[[str, dict[str, Any], dict[str, Any]], dict[str, Any] | None] = (
            default_page_handler(page_id)
        )
        self._reader: asyncio.Task[None] | None = None

    async def send(self, frame: dict[str, Any] | str) -> None:
        await self.ws.write_message(frame if isinstance(frame, str) else json.dumps(frame))

    async def hello(self, *, focused: bool = True, widgets: int = 1) -> dict[str, Any]:
        await self.send(
            {
                "type": "hello",
                "protocol": 1,
                "pageId": self.page_id,
                "version": "0.1.0",
                "focused": focused,
                "widgets": widgets,
            }
        )
        raw = await asyncio.wait_for(self.ws.read_message(), 10)
        assert raw is not None, "bridge closed instead of welcoming the page"
        welcome = json.loads(raw)
        assert {k: welcome[k] for k in ("type", "pageId")} == {
            "type": "welcome",
            "pageId": self.page_id,
        }
        self.welcome = welcome
        self._reader = asyncio.get_running_loop().create_task(self._serve())
        return welcome

    async def _serve(self) -> None:
        while True:
            raw = await self.ws.read_message()
            if raw is None:
                self.closed.set()
                return
            msg = json.loads(raw)
            if msg.get("type") != "call":
                self.frames.append(msg)
                continue
            self.calls.append(msg)
            self.call_seen.set()
            answer = self.handler(msg["tool"], msg["args"], msg["context"])
            if answer is not None:
                await self.send({"type": "result", "callId": msg["callId"], **answer})

    def close(self) -> None:
        self.ws.close()
        if self._reader is not None:
            self._reader.cancel()


def located_error(result: Any) -> dict[str, Any]:
    """The located error of an MCP tool result, read the way an agent reads it.

    Checks the error shape every official client hands over intact: ``isError``,
    no ``structuredContent`` (clients validate it against the success
    ``outputSchema``), one text content whose first line is a summary starting
    with the code and whose second line is the JSON ``{code, message, where, fix, details}``.
    """
    assert result.is_error is True, f"expected an error result, got {result!r}"
    assert result.structured_content is None, "error results must not carry structuredContent"
    assert len(result.content) == 1 and result.content[0].type == "text"
    summary, newline, body = result.content[0].text.partition("\n")
    assert newline, f"no JSON line after the summary: {result.content[0].text!r}"
    error = json.loads(body)
    assert set(error) == {"code", "message", "where", "fix", "details"}
    assert summary.startswith(error["code"]) and error["fix"] in summary
    return error


def http_refusal(response: Any) -> dict[str, Any]:
    """The located error of an MCP request the gateway refused over HTTP (403, 413).

    Checks the body is a JSON-RPC error (``id: null``, code -32600, the summary line as its
    ``message``, the located error as its ``data``): the shape the MCP SDKs hand their caller.
    """
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None, body
    error = body["error"]
    assert error["code"] == -32600, error
    located = error["data"]
    assert set(located) == {"code", "message", "where", "fix", "details"}, located
    assert error["message"].startswith(located["code"]) and located["fix"] in error["message"]
    return located


def observe_result(page_id: str, pages: list[dict[str, Any]]) -> dict[str, Any]:
    """A minimal ``observe`` structuredContent valid against the contract's outputSchema."""
    return {
        "pageId": page_id,
        "pages": pages,
        "widgets": [],
        "activeWidget": None,
        "lastAction": None,
        "total": 0,
        "nextCursor": None,
    }


def default_page_handler(
    page_id: str,
) -> Callable[[str, dict[str, Any], dict[str, Any]], dict[str, Any]]:
    def handler(tool: str, args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        if tool == "observe":
            return {
                "ok": True,
                "structuredContent": observe_result(page_id, context["pages"]),
                "text": f"page {page_id}: 0 widgets",
            }
        return {
            "ok": False,
            "error": {
                "code": "NOT_FOUND",
                "message": f"fake page has no {tool}",
                "where": "/target",
                "fix": "use observe",
                "details": {},
            },
        }

    return handler


async def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (without blocking the loop) until ``predicate()`` is true."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"condition not met within {timeout:.1f} s")
        await asyncio.sleep(0.01)


class TwoUserIdentityProvider(IdentityProvider):
    """Two users, each with a token of their own (``?token=`` or ``Authorization: token``), for ownership tests."""

    USERS = {"alice-secret": "alice", "bob-secret": "bob"}

    async def get_user(self, handler: Any) -> User | None:
        name = self.USERS.get(self.get_token(handler))
        return User(name) if name else None
