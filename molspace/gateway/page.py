"""One connected JupyterLab page, as the gateway holds it.

A page connects over the bridge websocket (``{base_url}molspace/bridge``) and says ``hello``;
:class:`~molspace.gateway.page_registry.PageRegistry` then holds a :class:`Page` for it: its
transport, owner, focus, widget count, the calls pending on it and its read mirror.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

from ..contract import BRIDGE_CLOSE_CODES
from ..errors import MolspaceError
from .read_mirror import ReadMirror
from .served_reads import ServedReads

#: Fix of a NO_PAGE error raised where the request's connect sentence is not known.
RETRY_FIX = (
    "Retry the call; if it fails with NO_PAGE again, call `status` for how to connect a page."
)


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

    def fail_pending(self, message: str) -> None:
        """Fail every call pending on this page with ``NO_PAGE`` (``message`` says why) at once."""
        for call_id, fut in list(self.pending.items()):
            if fut.done():
                continue
            tool = self.pending_tools.get(call_id, "?")
            fut.set_result(
                MolspaceError(  # type: ignore[arg-type]
                    "NO_PAGE",
                    f"{message} (`{tool}`).",
                    self.page_id,
                    RETRY_FIX,
                    {"pageId": self.page_id, "tool": tool},
                )
            )
        self.pending.clear()
        self.pending_tools.clear()
