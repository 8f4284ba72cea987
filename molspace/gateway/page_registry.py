"""The registry of connected pages: by id and owner, focus and widget counts, routing.

Each relayed tool call goes to exactly one page: the ``pageId`` the call names, else the most
recently focused page (ties: the most recently connected). A page replaced by a newer connection,
or gone, fails its pending calls at once (:meth:`~molspace.gateway.page.Page.fail_pending`).
"""

from __future__ import annotations

import itertools
import logging
from datetime import datetime, timezone
from typing import Any

from ..errors import MolspaceError
from .page import CLOSE_REPLACED, RETRY_FIX, Page, PageConnection, PageIdTaken
from .read_mirror import ReadMirror
from .served_reads import ServedReads

log = logging.getLogger(__name__)


class PageRegistry:
    """Connected pages by id: register and replace, focus and widget counts, routing.

    Parameters
    ----------
    read_budget : int
        The pages' read budget, bytes (``limits.observeOutputBytes``), for each page's mirror.
    served_batch_ms, served_limit : int
        How often a page is told the reads answered from its mirror, ms, and the
        most reads one ``served`` frame lists (``limits.servedReadsBatchMs``,
        ``limits.activityEntries``).
    """

    #: Fix of a NO_PAGE error raised where the request's connect sentence is not known.
    RETRY_FIX = RETRY_FIX

    def __init__(
        self, read_budget: int = 8192, served_batch_ms: int = 100, served_limit: int = 500
    ) -> None:
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
            old.fail_pending(f"page {page_id} reconnected during the call")
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
        page.fail_pending(f"page {page.page_id} disconnected during the call")

    def set_focus(self, page: Page, focused: bool) -> None:
        """Record a ``focus`` frame; gaining focus makes the page the default route."""
        page.has_focus = focused
        if focused:
            page.last_focus_at = datetime.now(timezone.utc)
            page.focus_seq = next(self._seq)

    def set_widgets(self, page: Page, widgets: int) -> None:
        """Record a ``summary`` frame (widget count >= 0)."""
        page.widgets = widgets

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

    def close_all(self) -> None:
        """Fail every pending call and forget every page (server shutdown)."""
        for page in list(self._pages.values()):
            if page.served is not None:
                page.served.close()
            page.fail_pending(f"the server shut down while page {page.page_id} ran the call")
        self._pages.clear()
