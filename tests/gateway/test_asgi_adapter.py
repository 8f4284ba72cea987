"""The tornado → ASGI adapter on its own: a real tornado server on a real port, tiny ASGI apps."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port
from tornado.web import Application, RequestHandler

from molspace.gateway.asgi_adapter import ASGIHandlerMixin


class Probe:
    """Shared state between a test and the ASGI apps it serves."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.disconnected = asyncio.Event()
        self.app_finished = asyncio.Event()
        self.scope: dict[str, Any] | None = None


async def echo_app(scope: Any, receive: Any, send: Any) -> None:
    msg = await receive()
    body = json.dumps(
        {
            "method": scope["method"],
            "path": scope["path"],
            "query": scope["query_string"].decode(),
            "body": msg["body"].decode(),
            "more_body": msg["more_body"],
            "x-test": dict(scope["headers"]).get(b"x-test", b"").decode(),
            "scheme": scope["scheme"],
            "type": scope["type"],
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 201,
            "headers": [
                (b"content-type", b"application/json"),
                (b"set-cookie", b"a=1"),
                (b"set-cookie", b"b=2"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def stream_app(probe: Probe) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": b"data: one\n\n", "more_body": True})
        await probe.release.wait()  # the client must have seen chunk one by now
        await send({"type": "http.response.body", "body": b"data: two\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def endless_app(probe: Probe) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": b"data: hi\n\n", "more_body": True})
        msg = await receive()  # blocks until the client goes away
        assert msg["type"] == "http.disconnect"
        probe.disconnected.set()
        # Sends after a disconnect are dropped without raising (as uvicorn does).
        await send({"type": "http.response.body", "body": b"data: late\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        probe.app_finished.set()

    return app


async def failing_app(scope: Any, receive: Any, send: Any) -> None:
    raise RuntimeError("boom before the response")


async def silent_app(scope: Any, receive: Any, send: Any) -> None:
    await receive()


class AsgiHandler(ASGIHandlerMixin, RequestHandler):
    def initialize(self, app: Any) -> None:
        self.app = app

    def check_xsrf_cookie(self) -> None:
        pass

    async def get(self) -> None:
        await self.run_asgi(self.app)

    async def post(self) -> None:
        await self.run_asgi(self.app)


@pytest.fixture
def served(jp_asyncio_loop: asyncio.AbstractEventLoop) -> Iterator[tuple[str, Probe]]:
    probe = Probe()
    app = Application(
        [
            (r"/echo/.*", AsgiHandler, {"app": echo_app}),
            (r"/stream", AsgiHandler, {"app": stream_app(probe)}),
            (r"/endless", AsgiHandler, {"app": endless_app(probe)}),
            (r"/fail", AsgiHandler, {"app": failing_app}),
            (r"/silent", AsgiHandler, {"app": silent_app}),
        ]
    )
    sock, port = bind_unused_port()
    server = HTTPServer(app)
    server.add_sockets([sock])
    yield f"http://127.0.0.1:{port}", probe
    server.stop()
    jp_asyncio_loop.run_until_complete(server.close_all_connections())


async def test_request_and_response_are_translated(served: tuple[str, Probe]) -> None:
    base, _ = served
    async with httpx2.AsyncClient(timeout=10) as client:
        r = await client.post(
            f"{base}/echo/a%20b?x=1&y=2", content=b"payload", headers={"X-Test": "yes"}
        )
    assert r.status_code == 201
    assert r.headers["content-type"] == "application/json"
    assert r.headers.get_list("set-cookie") == ["a=1", "b=2"]
    got = r.json()
    assert got == {
        "method": "POST",
        "path": "/echo/a b",
        "query": "x=1&y=2",
        "body": "payload",
        "more_body": False,
        "x-test": "yes",
        "scheme": "http",
        "type": "http",
    }


async def test_response_chunks_are_streamed(served: tuple[str, Probe]) -> None:
    base, probe = served
    async with httpx2.AsyncClient(timeout=10) as client:
        async with client.stream("GET", f"{base}/stream") as r:
            assert r.headers["content-type"] == "text/event-stream"
            chunks = r.aiter_raw()
            first = await asyncio.wait_for(chunks.__anext__(), 10)
            # The app is still blocked before its second chunk: the first was flushed.
            assert first == b"data: one\n\n"
            probe.release.set()
            rest = b"".join([c async for c in chunks])
    assert rest == b"data: two\n\n"


async def test_client_disconnect_reaches_the_app(served: tuple[str, Probe]) -> None:
    base, probe = served
    async with httpx2.AsyncClient(timeout=10) as client:
        async with client.stream("GET", f"{base}/endless") as r:
            first = await asyncio.wait_for(r.aiter_raw().__anext__(), 10)
            assert first == b"data: hi\n\n"
    # Leaving the block closed the connection.
    await asyncio.wait_for(probe.disconnected.wait(), 10)
    await asyncio.wait_for(probe.app_finished.wait(), 10)


async def test_app_errors_become_500(served: tuple[str, Probe]) -> None:
    base, _ = served
    async with httpx2.AsyncClient(timeout=10) as client:
        failed = await client.get(f"{base}/fail")
        silent = await client.get(f"{base}/silent")
    assert failed.status_code == 500
    assert silent.status_code == 500
    assert "without a response" in silent.text
