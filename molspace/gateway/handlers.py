"""Tornado handlers: the MCP endpoint and the page bridge websocket.

``{base_url}molspace/mcp``
    Streamable HTTP MCP endpoint. Jupyter authenticates the request first
    (``Authorization: token <t>``, or cookie + XSRF for browser requests);
    missing or wrong credentials → 403. The gateway then checks ``Origin``
    (:mod:`molspace.gateway.origin`) and hands the request to the SDK's
    ``StreamableHTTPSessionManager`` through :mod:`molspace.gateway.asgi_adapter`.

``{base_url}molspace/bridge``
    Websocket the JupyterLab page connects out to (token query parameter or
    cookie, like Jupyter's kernel websockets); unauthenticated → 403. JSON text
    frames as in ``src/contract/bridge.ts``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import allow_unauthenticated, ws_authenticated
from jupyter_server.auth.identity import User
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from tornado import web
from tornado.websocket import WebSocketHandler

from ..errors import summary_line
from .agent_tokens import AgentToken, AgentTokenStore, token_from_authorization
from .asgi_adapter import ASGIHandlerMixin
from .bridge_frames import BridgeFrames, FrameRefused
from .origin import OriginPolicy
from .pages import CLOSE_PAGE_ID_TAKEN, ConnectedPages, Page, PageIdTaken
from .session_owners import SessionOwners, principal_of
from .static_fallback import FallbackRefused, FallbackStore

#: How often an open event stream of an agent token checks that the token is still valid, seconds.
REVOCATION_CHECK_SECONDS = 2.0

#: Authorization resource name used with Jupyter's ``Authorizer``.
AUTH_RESOURCE = "molspace"

#: Request headers of the Streamable HTTP transport a browser client must be allowed to send.
MCP_REQUEST_HEADERS = "mcp-session-id, mcp-protocol-version, last-event-id"
#: Response headers a browser client must be able to read.
MCP_EXPOSED_HEADERS = "mcp-session-id, mcp-protocol-version"


#: A request body over ``max_request_bytes`` but within this many bytes is read (and dropped) before
#: the 413, so that a client still sending reads the answer; a larger one is answered from its
#: ``Content-Length`` alone and the connection closed.
DRAIN_BYTES = 64 * 2**20

#: JSON-RPC's "Invalid Request" code: what an MCP request refused before it was read answers.
INVALID_REQUEST = -32600


def jsonrpc_error(code: int, located: dict[str, Any]) -> dict[str, Any]:
    """A refused HTTP request's body: a JSON-RPC error carrying the located error.

    ``{"jsonrpc": "2.0", "id": null, "error": {code, message: <summary line>, data: <located>}}``.
    The MCP SDKs hand a JSON-RPC error found in a non-2xx answer to their caller (with their own
    request's id: this one is not known, since the body was not parsed), so an agent reads what
    failed and the fix, not "Server returned an error response".
    """
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": code, "message": summary_line(located), "data": located},
    }


@web.stream_request_body
class McpHandler(ASGIHandlerMixin, APIHandler):
    """``GET|POST|DELETE {base_url}molspace/mcp`` — the MCP Streamable HTTP endpoint.

    The body is streamed (:meth:`data_received`): at most ``max_request_bytes`` of it is ever held in
    memory. A body over the limit is discarded as it arrives and answered 413 when it ends (up to
    :data:`DRAIN_BYTES`; a declared ``Content-Length`` beyond that is refused before any of the body
    is read), with the located TOO_LARGE as a JSON-RPC error (:func:`jsonrpc_error`).
    """

    auth_resource = AUTH_RESOURCE

    def initialize(
        self,
        origin_policy: OriginPolicy,
        session_manager: Callable[[], Awaitable[StreamableHTTPSessionManager]],
        agent_tokens: AgentTokenStore,
        max_request_bytes: int,
        session_owners: SessionOwners,
    ) -> None:
        """Tornado hook: receive the handler's collaborators (handler kwargs).

        Parameters
        ----------
        origin_policy : OriginPolicy
            Which browser origins may call the endpoint.
        session_manager : callable
            Awaitable factory of the running MCP session manager.
        agent_tokens : AgentTokenStore
            Agent tokens, which open this endpoint and nothing else.
        max_request_bytes : int
            Largest request body accepted, in bytes; a larger one gets 413 and a TOO_LARGE body.
        session_owners : SessionOwners
            Which credential opened each MCP session (a session id works only with it).
        """
        self.session_owners = session_owners
        self.max_request_bytes = max_request_bytes
        self._body_chunks: list[bytes] = []
        self._body_bytes = 0
        self.origin_policy = origin_policy
        self._session_manager = session_manager
        self.agent_tokens = agent_tokens
        self.agent: AgentToken | None = None

    def check_origin(self, origin_to_satisfy_tornado: str = "") -> bool:
        """Defer to :class:`~molspace.gateway.origin.OriginPolicy` (checked in :meth:`prepare`)."""
        return True

    async def prepare(self) -> None:  # type: ignore[override]
        """Authenticate (an agent token, else Jupyter), then refuse disallowed origins with 403 + JSON."""
        agent_token = token_from_authorization(self.request.headers.get("Authorization"))
        if agent_token is None:
            await super().prepare()
        elif not self._accept_agent(agent_token):
            return
        if self._finished:
            return
        origin = self.request.headers.get("Origin")
        host = self.request.headers.get("Host")
        policy = self.origin_policy
        if not policy.allows(origin, host):
            self.log.warning(
                "molspace: refusing MCP request from origin %s (Host: %s)", origin, host
            )
            self._refuse(403, policy.refusal(origin or "", self.request.path, host))
            return
        declared = self.request.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max(self.max_request_bytes, DRAIN_BYTES):
            self._refuse_too_large(int(declared))  # before a byte of the body is read
        # A smaller body over the limit is dropped as it arrives (data_received) and answered
        # in post(): a client still sending when the answer came would not read it.

    def data_received(self, chunk: bytes) -> None:
        """Tornado hook (streamed body): keep the body while it is within ``max_request_bytes``, else nothing."""
        self._body_bytes += len(chunk)
        if self._body_bytes <= self.max_request_bytes:
            self._body_chunks.append(chunk)
        else:
            self._body_chunks.clear()

    def _refuse_too_large(self, size: int) -> None:
        """Answer 413 for a request body of ``size`` bytes, with a located TOO_LARGE as a JSON-RPC error.

        The body is ``{"jsonrpc": "2.0", "id": null, "error": {code: -32600, message: <summary
        line>, data: <located error>}}``: the MCP SDKs hand a JSON-RPC error found in a non-2xx
        answer to their caller (the request's id is not known, as its body was not parsed).
        """
        located = {
            "code": "TOO_LARGE",
            "message": f"The MCP request body is {size} bytes; the limit is {self.max_request_bytes} bytes.",
            "where": "body",
            "fix": "Send less inline content (reference files under the Jupyter root by path), or ask "
            "an admin to raise c.MolspaceGateway.max_request_bytes.",
            "details": {"bytes": size, "limit": self.max_request_bytes},
        }
        self._refuse(413, located)

    def _refuse(self, status: int, located: dict[str, Any]) -> None:
        """Answer ``status`` with the located error as a JSON-RPC error (:func:`jsonrpc_error`)."""
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(jsonrpc_error(INVALID_REQUEST, located)))

    def _accept_agent(self, token: str) -> bool:
        """Authenticate an agent token: it opens this endpoint only (Jupyter's handlers do not know it)."""
        if not self.check_host():
            self._refuse(
                403,
                {
                    "code": "FORBIDDEN",
                    "message": f"An agent token was sent to the host {self.request.host!r}, which is not "
                    "one of this server's local names.",
                    "where": "Host",
                    "fix": "Connect to the URL `jupyter molspace connect` prints (the server's own name), "
                    "or let the server answer that name: ServerApp.local_hostnames, or "
                    "ServerApp.allow_remote_access.",
                    "details": {"host": self.request.host},
                },
            )
            return False
        record = self.agent_tokens.verify(token)
        if record is None:
            self.log.warning("molspace: refusing an unknown or revoked agent token")
            self._refuse(
                403,
                {
                    "code": "FORBIDDEN",
                    "message": "The molspace agent token is unknown or was revoked.",
                    "where": "Authorization",
                    "fix": "Ask the person running JupyterLab for a new one: `jupyter molspace token create "
                    "--name <agent>`.",
                    "details": {},
                },
            )
            return False
        self.agent = record
        self.current_user = self._jupyter_current_user = User(
            username=f"molspace-agent-{record.name}", name=record.name
        )
        self.set_cors_headers()
        return True

    def set_cors_headers(self) -> None:
        """Jupyter's CORS headers, plus the MCP session headers exposed to browser clients."""
        super().set_cors_headers()
        self.set_header("Access-Control-Expose-Headers", MCP_EXPOSED_HEADERS)

    @allow_unauthenticated
    def options(self, *args: Any, **kwargs: Any) -> None:
        """CORS preflight: Jupyter's answer, also allowing the MCP request headers."""
        super().options(*args, **kwargs)
        allowed = self._headers.get("Access-Control-Allow-Headers", "")
        self.set_header(
            "Access-Control-Allow-Headers", f"{allowed}, {MCP_REQUEST_HEADERS}".strip(", ")
        )
        self.set_header("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")

    async def _serve(self) -> None:
        # An agent token is itself the grant for this endpoint; Jupyter users go through its Authorizer.
        authorized = self.agent is not None or await ensure_async(
            self.authorizer.is_authorized(self, self.current_user, "execute", AUTH_RESOURCE)
        )
        if not authorized:
            raise web.HTTPError(403, "not authorized to use the molspace MCP endpoint")
        manager = await self._session_manager()
        # A session id works only with the credential that opened it (session_owners.py).
        principal = self._principal()
        session_id = self.request.headers.get("mcp-session-id")
        if session_id is not None and not self.session_owners.enter(session_id, principal):
            self._refuse(404, self._unknown_session())
            return
        in_session = session_id
        owners = self.session_owners

        async def claiming_new_sessions(scope: Any, receive: Any, send: Any) -> None:
            async def send_claiming(message: Any) -> None:
                nonlocal in_session
                if message["type"] == "http.response.start" and session_id is None:
                    for name, value in message.get("headers", []):
                        if name.lower() == b"mcp-session-id":
                            in_session = value.decode("latin-1")
                            owners.claim(in_session, principal)
                await send(message)

            await manager.handle_request(scope, receive, send_claiming)

        watcher = None
        if self.agent is not None and self.request.method == "GET":
            watcher = asyncio.get_running_loop().create_task(self._end_when_revoked())
        try:
            await self.run_asgi(claiming_new_sessions)
        finally:
            if watcher is not None:
                watcher.cancel()
            if in_session is not None:
                owners.leave(in_session)
                if self.request.method == "DELETE" and self.get_status() < 300:
                    owners.release(in_session)

    def _principal(self) -> str:
        """The credential of this request (:func:`~molspace.gateway.session_owners.principal_of`)."""
        header = self.request.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        token = value.strip() if scheme.lower() in {"token", "bearer"} else None
        token = token or self.get_query_argument("token", None)
        user = self.current_user
        username = getattr(user, "username", None) or str(user)
        return principal_of(self.agent.name if self.agent else None, token, username)

    def _unknown_session(self) -> dict[str, Any]:
        return {
            "code": "NOT_FOUND",
            "message": "No MCP session with this Mcp-Session-Id is open for this credential (it ended, "
            "or another credential opened it).",
            "where": "Mcp-Session-Id",
            "fix": "Open a new session (initialize) with this credential: a session id works only with "
            "the credential that opened it.",
            "details": {},
        }

    async def _end_when_revoked(self) -> None:
        """End this request's open event stream once its agent token is revoked (polls the token file)."""
        token = token_from_authorization(self.request.headers.get("Authorization")) or ""
        while True:
            await asyncio.sleep(REVOCATION_CHECK_SECONDS)
            if self.agent_tokens.verify(token) is None:
                name = self.agent.name if self.agent else "?"
                self.log.warning(
                    "molspace: agent token %r was revoked; ending its open event stream", name
                )
                self._asgi_event().set()  # the ASGI app sees http.disconnect; run_asgi ends the response
                return

    @web.authenticated
    async def get(self) -> None:
        """Open the standalone SSE stream of an MCP session."""
        await self._serve()

    @web.authenticated
    async def post(self) -> None:
        """Send one JSON-RPC message (answered as JSON or an SSE stream)."""
        if self._body_bytes > self.max_request_bytes:
            self._refuse_too_large(self._body_bytes)
            return
        self.request.body = b"".join(self._body_chunks)
        self._body_chunks.clear()
        await self._serve()

    @web.authenticated
    async def delete(self) -> None:
        """End an MCP session."""
        await self._serve()


def page_owner(handler: JupyterHandler) -> str:
    """The identity a page's websocket was authenticated as: who may reconnect under its page id.

    A request carrying the server's own shared token has no user of its own
    (Jupyter makes up an anonymous one per request), so every holder of that
    token is one owner; any other request is its user's ``username`` (a
    JupyterHub user, a cookie-identified browser).
    """
    token = handler.identity_provider.get_token(handler)
    server_token = getattr(handler, "token", None)
    if token and server_token and hmac.compare_digest(token, server_token):
        return "server-token"
    user = handler.current_user
    return f"user:{getattr(user, 'username', user)}"


class BridgeHandler(WebSocketMixin, WebSocketHandler, JupyterHandler):
    """``{base_url}molspace/bridge`` — one JupyterLab page's connection."""

    auth_resource = AUTH_RESOURCE

    def initialize(
        self, pages: ConnectedPages, frames: BridgeFrames, fallbacks: FallbackStore | None = None
    ) -> None:
        """Tornado hook: receive the handler's collaborators (handler kwargs).

        Parameters
        ----------
        pages : ConnectedPages
            Where this page registers and its results are delivered.
        frames : BridgeFrames
            Checks each frame against the contract's wire schema.
        fallbacks : FallbackStore, optional
            Where ``fallback`` frames are kept for the pre-save hook (none: they are ignored).
        """
        self.pages = pages
        self.frames = frames
        self.fallbacks = fallbacks
        self.page: Page | None = None

    @property
    def max_message_size(self) -> int:
        """Largest frame tornado reads: the contract's ``bridgeFrameBytes`` plus headroom.

        Tornado's default (10 MiB) is below the contract's limit, and a frame over
        it closes the socket, failing every pending call; frames up to the limit
        are read, and larger ones are refused by :class:`BridgeFrames` without
        closing the bridge.
        """
        return self.frames.max_bytes + 64 * 1024

    def set_default_headers(self) -> None:
        """No page headers (CSP etc.) on a websocket upgrade."""

    def get_compression_options(self) -> dict[str, Any] | None:
        """Use Jupyter's websocket compression setting."""
        return self.settings.get("websocket_compression_options", None)

    @ws_authenticated
    async def get(self, *args: Any, **kwargs: Any) -> None:
        """Authorize, then upgrade to a websocket."""
        authorized = await ensure_async(
            self.authorizer.is_authorized(self, self.current_user, "execute", AUTH_RESOURCE)
        )
        if not authorized:
            raise web.HTTPError(403)
        res = super().get(*args, **kwargs)
        if res is not None:
            await res

    # -- PageConnection protocol ---------------------------------------------
    def send_json(self, message: dict[str, Any]) -> None:
        """Send one JSON text frame.

        Raises
        ------
        tornado.websocket.WebSocketClosedError
            If the socket is closed.
        """
        fut = self.write_message(json.dumps(message))
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())

    def close_connection(self, code: int, reason: str) -> None:
        """Close because a newer connection with the same pageId replaced this one."""
        self.page = None
        self.close(code, reason)

    # -- websocket events ----------------------------------------------------
    def on_message(self, message: str | bytes) -> None:
        """Handle one frame; malformed frames are logged and ignored."""
        try:
            self._handle(message)
        except Exception:
            self.log.exception("molspace bridge: failed to handle a page frame; ignored")

    def _ignore(self, why: str, frame: Any) -> None:
        text = frame if isinstance(frame, str) else repr(frame)
        # both bounded: a page's invalid value (echoed in `why`) may be megabytes
        self.log.warning("molspace bridge: ignored frame (%.300s): %.200s", why, text)

    def _handle(self, raw: str | bytes) -> None:
        try:
            msg = self.frames.parse(raw)
        except FrameRefused as refused:
            if refused.close_code is not None:
                self.log.warning("molspace bridge: %.300s; closing", refused.reason)
                self.close(refused.close_code, refused.reason[:120])
                return None
            if self.page is not None and refused.call_id is not None:
                self.pages.fail_call(self.page, refused.call_id, refused.reason)
            return self._ignore(refused.reason, raw if isinstance(raw, str) else raw[:64])
        kind = msg["type"]
        if kind == "hello":
            if self.page is not None and self.page.page_id != msg["pageId"]:
                self.pages.unregister(self.page)
            try:
                page = self.pages.register(
                    msg["pageId"],
                    self,
                    owner=page_owner(self),
                    version=msg["version"],
                    focused=msg["focused"],
                    widgets=msg["widgets"],
                )
            except PageIdTaken as taken:
                self.log.warning("molspace bridge: %s; closing", taken)
                self.close(CLOSE_PAGE_ID_TAKEN, str(taken)[:120])
                return None
            self.page = page
            self.log.info(
                "molspace bridge: page %s connected (molspace %s)", msg["pageId"], msg["version"]
            )
            self.send_json(
                {
                    "type": "welcome",
                    "pageId": msg["pageId"],
                    "mirror": bool(self.pages.mirrored),
                    # the page's offset to this clock dates each call's deadline (relayed_calls.py)
                    "serverTime": int(time.time() * 1000),
                }
            )
            return None
        if self.page is None:
            return self._ignore(f"{kind!r} frame before hello", raw)
        if kind == "focus":
            self.pages.set_focus(self.page, msg["focused"])
        elif kind == "summary":
            self.pages.set_widgets(self.page, msg["widgets"])
        elif kind == "reads":
            self.pages.set_reads(self.page, msg)
        elif kind == "result" and not self.pages.resolve(self.page, msg):
            self._ignore("result for an unknown or finished callId", msg["callId"])
        elif kind == "fallback" and self.fallbacks is not None:
            try:
                self.fallbacks.put(msg)
            except FallbackRefused as refused:
                self._ignore(str(refused), msg["modelId"])
        return None

    def on_close(self) -> None:
        """The page went away: fail its pending calls at once."""
        if self.ping_callback is not None:
            self.ping_callback.stop()
        if self.page is not None:
            self.log.info("molspace bridge: page %s disconnected", self.page.page_id)
            self.pages.unregister(self.page)
            self.page = None


__all__ = ["BridgeHandler", "McpHandler"]
