"""Registry of connected JupyterLab pages and relaying of tool calls to them.

A page connects over the bridge websocket (``{base_url}molspace/bridge``), says
``hello`` and is registered here. Each relayed tool call goes to exactly one
page: the ``pageId`` the call names, else the most recently focused page (ties:
the most recently connected). Every call has a deadline; a page that
disconnects fails its pending calls at once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

from ..contract import BRIDGE_CLOSE_CODES
from ..errors import MolspaceError
from .read_mirror import ReadMirror
from .served_reads import ServedReads

log = logging.getLogger(__name__)


def _iso(ts: datetime) -> str:
    """ISO 8601 UTC with millisecond precision and a ``Z`` suffix."""
    return ts.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: Close code sent to a page connection replaced by a newer one of the same owner and id.
CLOSE_REPLACED = BRIDGE_CLOSE_CODES["replaced"]
#: Close code sent to a socket whose hello names a page id another owner holds.
CLOSE_PAGE_ID_TAKEN = BRIDGE_CLOSE_CODES["pageIdTaken"]


class PageIdTaken(Exception):
    """A ``hello`` named a page id that a page of another owner holds."""

    def __init__(self, page_id: str) -> None:
        super().__init__(
            f"pageId {page_id!r} belongs to a page of another user; choose a new pageId"
        )
        self.page_id = page_id


class PageConnection(Protocol):
    """What the registry needs from a page's transport (the bridge websocket)."""

    def send_json(self, message: dict[str, Any]) -> None:
        """Send one JSON frame to the page; may raise if the socket is closed."""

    def close_connection(self, code: int, reason: str) -> None:
        """Close the transport (used when a newer connection replaces it)."""


@dataclass(eq=False)
class Page:
    """One connected page.

    Attributes
    ----------
    page_id : str
        Id the page chose (stable across reconnects of the same tab).
    conn : PageConnection
        Its transport.
    owner : str
        The identity authenticated on its websocket; only the same owner may reconnect under this id.
    version : str
        molspace version the page runs.
    has_focus : bool
        Focus as last reported by the page.
    widgets : int
        molspace widgets live in the page (count, >= 0).
    connected_at, last_focus_at : datetime
        UTC times; ``last_focus_at`` is ``None`` until the page reports focus.
    """

    page_id: str
    conn: PageConnection
    owner: str
    version: str
    has_focus: bool
    widgets: int
    connected_at: datetime
    connect_seq: int
    last_focus_at: datetime | None = None
    focus_seq: int = 0
    pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    pending_tools: dict[str, str] = field(default_factory=dict)
    #: The answers the page pushed (``reads`` frames); empty until it pushes.
    mirror: ReadMirror = field(default_factory=lambda: ReadMirror(0))
    #: Reads answered from :attr:`mirror` not yet told to the page (``served`` frames).
    served: ServedReads | None = None

    def route_key(self) -> tuple[int, int]:
        """Ordering for default routing: most recent focus, then most recent connect."""
        return (self.focus_seq, self.connect_seq)

    def info(self, default: bool) -> dict[str, Any]:
        """The contract's ``PageInfo``.

        Parameters
        ----------
        default : bool
            Whether this page is the one calls are routed to by default
            (reported as ``focused``).

        Returns
        -------
        dict
            ``{pageId, focused, connectedAt, lastFocusAt, widgets}``; a page
            never focused reports ``lastFocusAt == connectedAt``.
        """
        return {
            "pageId": self.page_id,
            "focused": default,
            "connectedAt": _iso(self.connected_at),
            "lastFocusAt": _iso(self.last_focus_at or self.connected_at),
            "widgets": self.widgets,
        }


class ConnectedPages:
    """The JupyterLab pages connected over the bridge: routing and call relay with deadlines.

    Parameters
    ----------
    call_timeout : float
        Default deadline of a relayed call, in seconds (> 0).
    mirrored : dict, optional
        Tools answered from a page's read mirror (``mirrored`` in the manifest), each with its
        input defaults (``ToolSpec.defaults``); empty: every read is relayed.
    read_budget : int
        The pages' read budget, bytes (``limits.observeOutputBytes``).
    served_batch_ms, served_limit : int
        How often a page is told the reads answered from its mirror, ms, and the
        most reads one ``served`` frame lists (``limits.servedReadsBatchMs``,
        ``limits.activityEntries``).
    """

    #: Fix of a NO_PAGE error raised where the request's connect sentence is not known.
    RETRY_FIX = (
        "Retry the call; if it fails with NO_PAGE again, call `status` for how to connect a page."
    )

    def __init__(
        self,
        call_timeout: float = 30.0,
        mirrored: dict[str, dict[str, Any]] | None = None,
        read_budget: int = 8192,
        served_batch_ms: int = 100,
        served_limit: int = 500,
    ) -> None:
        self.call_timeout = float(call_timeout)
        self.mirrored: dict[str, dict[str, Any]] = dict(mirrored or {})
        self.read_budget = int(read_budget)
        self.served_batch_ms = int(served_batch_ms)
        self.served_limit = int(served_limit)
        self._pages: dict[str, Page] = {}
        self._seq = itertools.count(1)

    # ------------------------------------------------------------------ pages
    @property
    def ordered(self) -> list[Page]:
        """Connected pages, default route first."""
        return sorted(self._pages.values(), key=Page.route_key, reverse=True)

    def default_page(self) -> Page | None:
        """The page a call without ``pageId`` goes to, or ``None``."""
        pages = self.ordered
        return pages[0] if pages else None

    def page_infos(self) -> list[dict[str, Any]]:
        """``PageInfo`` of every connected page, default route first."""
        default = self.default_page()
        return [p.info(p is default) for p in self.ordered]

    def total_widgets(self) -> int:
        """Sum of widget counts over connected pages."""
        return sum(p.widgets for p in self._pages.values())

    def register(
        self,
        page_id: str,
        conn: PageConnection,
        *,
        owner: str,
        version: str,
        focused: bool,
        widgets: int,
    ) -> Page:
        """Add a page after its ``hello``; replaces a connection of the same owner with the same id.

        The replaced connection's pending calls fail with ``NO_PAGE`` and its
        socket is closed (:data:`CLOSE_REPLACED`).

        Parameters
        ----------
        owner : str
            The identity authenticated on the page's websocket (see
            :func:`~molspace.gateway.handlers.page_owner`).

        Returns
        -------
        Page

        Raises
        ------
        PageIdTaken
            If a page of another owner is connected under ``page_id``: a socket
            cannot take over someone else's page.
        """
        current = self._pages.get(page_id)
        if current is not None and current.owner != owner:
            raise PageIdTaken(page_id)
        old = self._pages.pop(page_id, None)
        if old is not None and old.conn is not conn:
            log.info("molspace page %s reconnected; replacing the old connection", page_id)
            self._fail_pending(old, f"page {page_id} reconnected during the call")
            try:
                old.conn.close_connection(
                    CLOSE_REPLACED, "replaced by a newer connection with the same pageId"
                )
            except Exception:
                log.debug("closing replaced page connection failed", exc_info=True)
        now = datetime.now(timezone.utc)
        page = Page(
            page_id=page_id,
            conn=conn,
            owner=owner,
            version=version,
            has_focus=focused,
            widgets=widgets,
            connected_at=now,
            connect_seq=next(self._seq),
            mirror=ReadMirror(self.read_budget),
        )
        page.served = ServedReads(conn.send_json, self.served_batch_ms, self.served_limit)
        if focused:
            page.last_focus_at = now
            page.focus_seq = next(self._seq)
        self._pages[page_id] = page
        return page

    def unregister(self, page: Page) -> None:
        """Remove a page whose connection closed; fail its pending calls at once."""
        if self._pages.get(page.page_id) is page:
            del self._pages[page.page_id]
        if page.served is not None:
            page.served.close()
        self._fail_pending(page, f"page {page.page_id} disconnected during the call")

    def set_focus(self, page: Page, focused: bool) -> None:
        """Record a ``focus`` frame; gaining focus makes the page the default route."""
        page.has_focus = focused
        if focused:
            page.last_focus_at = datetime.now(timezone.utc)
            page.focus_seq = next(self._seq)

    def set_widgets(self, page: Page, widgets: int) -> None:
        """Record a ``summary`` frame (widget count >= 0)."""
        page.widgets = widgets

    def set_reads(self, page: Page, frame: dict[str, Any]) -> None:
        """Record a ``reads`` frame in the page's read mirror (ignored when mirroring is off)."""
        if self.mirrored:
            page.mirror.apply(frame, self.mirrored.get)

    def read(
        self, tool: str, args: dict[str, Any], *, how_to_connect: str
    ) -> dict[str, Any] | None:
        """Answer a mirrored read from the routed page's read mirror, or ``None`` to relay it.

        Routing (and its ``NO_PAGE`` / ``NOT_FOUND``) is :meth:`route`'s, as for a relayed call.

        Returns
        -------
        dict or None
            ``{"structuredContent", "text", "pageId"}`` as :meth:`call` returns them.
        """
        defaults = self.mirrored.get(tool)
        if defaults is None:
            return None
        page_id = args.get("pageId")
        page = self.route(
            page_id if isinstance(page_id, str) else None, how_to_connect=how_to_connect
        )
        answer = page.mirror.answer(tool, args, defaults, self.page_infos())
        if answer is None:
            return None
        return {**answer, "pageId": page.page_id}

    def note_served(
        self,
        page_id: str,
        tool: str,
        args: dict[str, Any],
        client: dict[str, str] | None,
        started_at_ms: float,
        duration_ms: float,
    ) -> None:
        """Tell page ``page_id`` (soon, batched) that the gateway answered this read from its mirror.

        Call after the answer has been returned; a page gone meanwhile is skipped.
        See :class:`~molspace.gateway.served_reads.ServedReads` for the parameters.
        """
        page = self._pages.get(page_id)
        if page is not None and page.served is not None:
            page.served.note(tool, args, client, started_at_ms, duration_ms)

    # ---------------------------------------------------------------- routing
    def route(self, page_id: str | None, *, how_to_connect: str) -> Page:
        """Choose the page for one call.

        Parameters
        ----------
        page_id : str or None
            Explicit ``pageId`` argument, if any.
        how_to_connect : str
            Fix text for ``NO_PAGE`` (the request's connect sentence).

        Returns
        -------
        Page

        Raises
        ------
        MolspaceError
            ``NO_PAGE`` if no page is connected; ``NOT_FOUND`` at ``/pageId``
            if the named page is not connected (listing the known ones).
        """
        if not self._pages:
            raise MolspaceError(
                "NO_PAGE",
                "No JupyterLab page is connected to molspace.",
                "/pageId" if page_id else "",
                how_to_connect,
                {"pages": []},
            )
        if page_id is None:
            page = self.default_page()
            assert page is not None
            return page
        page = self._pages.get(page_id)
        if page is None:
            known = [p.page_id for p in self.ordered]
            raise MolspaceError(
                "NOT_FOUND",
                f"No connected page has pageId {page_id!r}.",
                "/pageId",
                f"Use one of the connected pageIds ({', '.join(known)}) or omit pageId "
                "to use the most recently focused page.",
                {"pageId": page_id, "known": known},
            )
        return page

    # ------------------------------------------------------------------ calls
    async def call(
        self,
        tool: str,
        args: dict[str, Any],
        *,
        how_to_connect: str,
        timeout: float | None = None,
        client: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Relay one tool call to a page and wait for its answer.

        Parameters
        ----------
        tool : str
            Tool name (already known to be a ``runs: 'page'`` tool).
        args : dict
            Validated arguments; ``args.get('pageId')`` selects the page.
        timeout : float, optional
            Deadline in seconds; defaults to :attr:`call_timeout`.
        how_to_connect : str
            Fix text for ``NO_PAGE`` errors (the request's connect sentence).
        client : dict, optional
            ``{name, version}`` of the MCP client (its ``clientInfo``), shown in the page's activity.

        Returns
        -------
        dict
            ``{"structuredContent": dict, "text": str, "pageId": str}`` from an ok result.

        Raises
        ------
        MolspaceError
            ``NO_PAGE`` / ``NOT_FOUND`` from :meth:`route`; ``TIMEOUT`` when the
            deadline passes; ``NO_PAGE`` when the page disconnects during the
            call; the page's own error for ``ok: false``; ``INTERNAL`` for a
            malformed result.
        """
        limit = self.call_timeout if timeout is None else float(timeout)
        page_id = args.get("pageId")
        page = self.route(
            page_id if isinstance(page_id, str) else None, how_to_connect=how_to_connect
        )
        call_id = uuid.uuid4().hex
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        page.pending[call_id] = fut
        page.pending_tools[call_id] = tool
        frame = {
            "type": "call",
            "callId": call_id,
            "tool": tool,
            "args": args,
            "context": {"pageId": page.page_id, "pages": self.page_infos(), "client": client},
            "deadlineMs": max(1, int(limit * 1000)),
        }
        try:
            try:
                page.conn.send_json(frame)
            except Exception as e:
                self.unregister(page)
                raise MolspaceError(
                    "NO_PAGE",
                    f"page {page.page_id} disconnected before the call could be sent.",
                    page.page_id,
                    how_to_connect,
                    {"pageId": page.page_id, "tool": tool, "reason": str(e)},
                ) from e
            try:
                message = await asyncio.wait_for(asyncio.shield(fut), limit)
            except asyncio.TimeoutError:
                raise MolspaceError(
                    "TIMEOUT",
                    f"`{tool}` got no answer from page {page.page_id} within {limit:g} s.",
                    page.page_id,
                    "Check that the JupyterLab tab is open and responsive, then retry; an admin "
                    "can raise c.MolspaceGateway.call_timeout.",
                    {"tool": tool, "pageId": page.page_id, "timeoutSeconds": limit},
                ) from None
        finally:
            page.pending.pop(call_id, None)
            page.pending_tools.pop(call_id, None)
            if not fut.done():
                fut.cancel()
        return self._interpret(tool, page, message)

    def resolve(self, page: Page, message: dict[str, Any]) -> bool:
        """Deliver a ``result`` frame to its waiting call.

        Returns
        -------
        bool
            ``False`` if no call with that ``callId`` is pending (late or
            unknown result, ignored by the caller).
        """
        fut = page.pending.get(message.get("callId"))  # type: ignore[arg-type]
        if fut is None or fut.done():
            return False
        fut.set_result(message)
        return True

    def fail_call(self, page: Page, call_id: str, reason: str) -> bool:
        """Fail a pending call whose ``result`` frame the gateway could not read.

        Returns
        -------
        bool
            ``False`` if no call with that ``callId`` is pending.
        """
        fut = page.pending.get(call_id)
        if fut is None or fut.done():
            return False
        tool = page.pending_tools.get(call_id, "?")
        error = self._malformed(
            tool, page, f"with a result frame the gateway cannot read ({reason})"
        )
        fut.set_result(error)  # type: ignore[arg-type]
        return True

    def _interpret(self, tool: str, page: Page, message: dict[str, Any]) -> dict[str, Any]:
        if isinstance(message, MolspaceError):  # failed by _fail_pending
            raise message
        if message.get("ok") is True:
            sc = message.get("structuredContent")
            text = message.get("text")
            if not isinstance(sc, dict):
                raise self._malformed(tool, page, "without an object structuredContent")
            answer = {
                "structuredContent": sc,
                "text": text if isinstance(text, str) else "",
                "pageId": page.page_id,
            }
            images = message.get("images")
            if isinstance(images, list) and images:
                answer["images"] = images  # checked against the wire schema with the frame
            return answer
        if message.get("ok") is False:
            raise MolspaceError.from_dict(message.get("error"), where_default=page.page_id)
        raise self._malformed(tool, page, "with a result frame lacking a boolean `ok`")

    @staticmethod
    def _malformed(tool: str, page: Page, what: str) -> MolspaceError:
        """A page answer the gateway cannot read: most likely a page of another molspace version."""
        return MolspaceError(
            "INTERNAL",
            f"Page {page.page_id} answered `{tool}` {what}.",
            page.page_id,
            "Reload the JupyterLab page so it runs the same molspace version as the server.",
            {"tool": tool, "pageId": page.page_id},
        )

    def _fail_pending(self, page: Page, message: str) -> None:
        for call_id, fut in list(page.pending.items()):
            if fut.done():
                continue
            tool = page.pending_tools.get(call_id, "?")
            fut.set_result(
                MolspaceError(  # type: ignore[arg-type]
                    "NO_PAGE",
                    f"{message} (`{tool}`).",
                    page.page_id,
                    self.RETRY_FIX,
                    {"pageId": page.page_id, "tool": tool},
                )
            )
        page.pending.clear()
        page.pending_tools.clear()

    def close_all(self) -> None:
        """Fail every pending call and forget every page (server shutdown)."""
        for page in list(self._pages.values()):
            if page.served is not None:
                page.served.close()
            self._fail_pending(page, f"the server shut down while page {page.page_id} ran the call")
        self._pages.clear()
