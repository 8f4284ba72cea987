"""A small generic tornado → ASGI adapter (HTTP only).

Tornado has no ASGI host, and the ``mcp`` SDK's Streamable HTTP transport is an
ASGI app, so this mixin runs an ASGI application *inside* a tornado
``RequestHandler`` — after Jupyter's own authentication has run in
``prepare()``.

- The request body is read by tornado (not streamed) and handed to the app as a
  single ``http.request`` message.
- Response body chunks are written and flushed one by one, so SSE
  (``text/event-stream``) and other streaming responses reach the client as
  they are produced (chunked transfer encoding when no Content-Length is set).
- When the client goes away, ``receive()`` returns ``http.disconnect`` and
  later ``send()`` calls are dropped silently (as uvicorn does; the SDK's SSE
  responses stop when ``receive()`` reports the disconnect).

Usage::

    class MyHandler(ASGIHandlerMixin, tornado.web.RequestHandler):
        async def get(self):
            await self.run_asgi(my_asgi_app)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote

from tornado.iostream import StreamClosedError

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class ASGIHandlerMixin:
    """Mixin for a tornado ``RequestHandler`` that serves a request with an ASGI app.

    Put it before ``RequestHandler`` (or a subclass) in the bases. Tornado
    calls :meth:`on_connection_close` when the client disconnects; the mixin
    turns that into ASGI ``http.disconnect``.
    """

    _asgi_closed: asyncio.Event | None = None
    _asgi_client_gone: bool = False

    def _asgi_event(self) -> asyncio.Event:
        if self._asgi_closed is None:
            self._asgi_closed = asyncio.Event()
        return self._asgi_closed

    def on_connection_close(self) -> None:
        """Tornado hook: the client closed the connection."""
        self._asgi_client_gone = True
        self._asgi_event().set()
        super().on_connection_close()  # type: ignore[misc]

    def asgi_scope(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """Build the ASGI ``http`` scope for the current tornado request.

        Parameters
        ----------
        extra : dict, optional
            Keys merged into the scope last (e.g. ``{"user": ...}``).

        Returns
        -------
        dict
            ASGI 3.0 HTTP connection scope (spec 2.3): ``path`` is the
            unquoted request path including any ``base_url``; ``root_path``
            is ``""``; header names are lower-cased bytes.
        """
        req = self.request  # type: ignore[attr-defined]
        raw_path = req.path.encode("latin-1")
        host, _, port = (req.host or "").rpartition(":")
        if not host or not port.isdigit():
            host, port = req.host or "", "443" if req.protocol == "https" else "80"
        client = None
        if req.remote_ip:
            client = (req.remote_ip, 0)
        scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": req.version.split("/")[-1] if req.version else "1.1",
            "method": req.method,
            "scheme": req.protocol,
            "path": unquote(req.path),
            "raw_path": raw_path,
            "query_string": req.query.encode("latin-1"),
            "root_path": "",
            "headers": [
                (name.lower().encode("latin-1"), value.encode("latin-1"))
                for name, value in req.headers.get_all()
            ],
            "client": client,
            "server": (host, int(port)),
            "state": {},
        }
        if extra:
            scope.update(extra)
        return scope

    async def run_asgi(self, app: ASGIApp, *, extra_scope: dict[str, Any] | None = None) -> None:
        """Serve the current request with ``app`` and finish the tornado response.

        Parameters
        ----------
        app : ASGI application
            ``async (scope, receive, send) -> None``.
        extra_scope : dict, optional
            Extra scope keys (see :meth:`asgi_scope`).

        Raises
        ------
        Exception
            Whatever ``app`` raises *before* starting a response (tornado then
            answers 500 through the handler's ``write_error``). After the
            response started, errors are logged and the response is ended.
        """
        handler: Any = self
        body: bytes = handler.request.body or b""
        closed = self._asgi_event()
        state = {"body_sent": False, "started": False, "complete": False}

        async def receive() -> Message:
            if not state["body_sent"]:
                state["body_sent"] = True
                return {"type": "http.request", "body": body, "more_body": False}
            await closed.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            kind = message["type"]
            if self._asgi_client_gone:
                return  # dropped: the client is gone (receive() says http.disconnect)
            if kind == "http.response.start":
                if state["started"]:
                    raise RuntimeError("ASGI app sent http.response.start twice")
                state["started"] = True
                status = int(message["status"])
                try:
                    handler.set_status(status)
                except ValueError:
                    handler.set_status(status, reason="Unknown")
                headers = [
                    (k.decode("latin-1"), v.decode("latin-1"))
                    for k, v in message.get("headers", [])
                ]
                # The app's headers replace tornado's defaults of the same name.
                handler.clear_header("Content-Type")
                for name in {k.lower() for k, _ in headers}:
                    handler.clear_header(name)
                for name, value in headers:
                    handler.add_header(name, value)
            elif kind == "http.response.body":
                if not state["started"]:
                    raise RuntimeError("ASGI app sent a body before http.response.start")
                if state["complete"]:
                    return
                chunk = bytes(message.get("body", b""))
                more = bool(message.get("more_body", False))
                if chunk and handler.request.method != "HEAD":
                    handler.write(chunk)
                try:
                    if more:
                        await handler.flush()
                    else:
                        state["complete"] = True
                        closed.set()
                        await handler.finish()
                except StreamClosedError:
                    self._asgi_client_gone = True
                    closed.set()
            else:
                raise RuntimeError(f"unsupported ASGI message type {kind!r}")

        try:
            await app(self.asgi_scope(extra_scope), receive, send)
        except Exception:
            if not state["started"]:
                raise
            log.exception("ASGI app failed after starting its response")
        finally:
            closed.set()
        if not state["started"] and not self._asgi_client_gone:
            handler.set_status(500)
            handler.set_header("Content-Type", "text/plain; charset=utf-8")
            handler.finish(
                f"{HTTPStatus.INTERNAL_SERVER_ERROR.phrase}: the ASGI app returned without a response"
            )
        elif not state["complete"] and not handler._finished:
            try:
                await handler.finish()
            except StreamClosedError:
                pass
