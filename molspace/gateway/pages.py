"""Connected JupyterLab pages and relaying of tool calls to them: :class:`ConnectedPages`.

A page connects over the bridge websocket (``{base_url}molspace/bridge``), says
``hello`` and is registered here. Each relayed tool call goes to exactly one
page: the ``pageId`` the call names, else the most recently focused page (ties:
the most recently connected). Every call has a deadline; a page that
disconnects fails its pending calls at once.

:class:`ConnectedPages` is one object made of one part a job, each in a module of its own:

page
    :class:`Page`, one connected page (its pending calls, its read mirror).
page_registry
    Pages by id and owner, focus and widget counts, routing.
mirrored_reads
    Reads answered from a page's read mirror, and the ``served`` notes that tell the page.
relayed_calls
    Calls relayed to a page with deadlines, and the reading of its result.
"""

from __future__ import annotations

from typing import Any

from .mirrored_reads import MirroredReads
from .page import CLOSE_PAGE_ID_TAKEN, CLOSE_REPLACED, Page, PageConnection, PageIdTaken
from .relayed_calls import RelayedCalls

__all__ = [
    "CLOSE_PAGE_ID_TAKEN",
    "CLOSE_REPLACED",
    "ConnectedPages",
    "Page",
    "PageConnection",
    "PageIdTaken",
]


class ConnectedPages(MirroredReads, RelayedCalls):
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

    def __init__(
        self,
        call_timeout: float = 30.0,
        mirrored: dict[str, dict[str, Any]] | None = None,
        read_budget: int = 8192,
        served_batch_ms: int = 100,
        served_limit: int = 500,
    ) -> None:
        super().__init__(read_budget, served_batch_ms, served_limit)
        self.call_timeout = float(call_timeout)
        self.mirrored = dict(mirrored or {})
