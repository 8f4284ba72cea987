"""Tool calls relayed to a page, with deadlines, and the reading of the page's answer.

A relayed call is sent to the routed page as a ``call`` frame with a ``callId`` and a deadline;
the page's ``result`` frame resolves it. A result the gateway cannot read, a deadline passed, or
a page gone during the call each end it with a located error.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from ..errors import MolspaceError
from .page import Page
from .page_registry import PageRegistry


class RelayedCalls(PageRegistry):
    """Calls relayed to the registry's pages: send, wait with a deadline, read the result.

    Attributes
    ----------
    call_timeout : float
        Default deadline of a relayed call, in seconds (> 0).
    """

    call_timeout: float

    async def call(
        self,
        tool: str,
        args: dict[str, Any],
        *,
        how_to_connect: str,
        timeout: float | None = None,
        client: dict[str, str] | None = None,
        writes_html: bool = False,
        depictions: dict[str, str] | None = None,
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
        writes_html : bool
            The gateway writes this ``export`` to ``.html`` from the page's answer
            (``CallContext.writesHtml``: the page then answers the widget's App ``_meta``).
        depictions : dict, optional
            A ``render_panel`` grid's first page drawn by RDKit, SVG by SMILES
            (``CallContext.depictions``: the page shows them at once, Indigo draws the rest).

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
            "context": {
                "pageId": page.page_id,
                "pages": self.page_infos(),
                "client": client,
                **({"writesHtml": True} if writes_html else {}),
                **({"depictions": depictions} if depictions else {}),
            },
            "deadlineMs": max(1, int(limit * 1000)),
            # the page counts the deadline from here (its clock offset from `welcome`), so a page
            # that was frozen and reads the call after this gateway answered TIMEOUT does not apply it
            "sentAt": int(time.time() * 1000),
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
