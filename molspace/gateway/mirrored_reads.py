"""Reads answered from a page's read mirror, and the ``served`` notes that tell the page.

A mirrored read (``mirrored`` in the manifest) is answered at the gateway from the routed page's
:class:`~molspace.gateway.read_mirror.ReadMirror` without a round trip; the page is told, batched,
which reads were answered for it (:class:`~molspace.gateway.served_reads.ServedReads`).
See docs/architecture.md, "Read mirror".
"""

from __future__ import annotations

from typing import Any

from .page import Page
from .page_registry import PageRegistry


class MirroredReads(PageRegistry):
    """The registry's pages' read mirrors: record ``reads`` frames, answer reads, note them served.

    Attributes
    ----------
    mirrored : dict
        Tools answered from a page's read mirror, each with its input defaults
        (``ToolSpec.defaults``); empty: every read is relayed.
    """

    mirrored: dict[str, dict[str, Any]]

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
