"""Reads the gateway answered from a page's read mirror, told to that page for its activity panel.

A mirrored read never reaches the page's Dispatcher (``docs/architecture.md``,
"Read mirror"), yet the person sharing the page should see it. After the
answer has gone to the agent, the read is noted here; at most every
``servedReadsBatchMs`` the page gets one ``served`` frame (``GatewayServed`` in
``src/contract/bridge.ts``) with the reads since the last one, oldest first.
Agents may read 100+ times a second: a frame holds at most ``activityEntries``
reads (the page's log keeps no more), older ones are counted in ``dropped``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class ServedReads:
    """The mirrored reads of one page not yet told to it.

    Parameters
    ----------
    send : callable
        ``frame -> None``: sends one JSON frame to the page (may raise if its socket closed).
    batch_ms : int
        Longest wait before the reads noted are sent, ms (> 0; ``limits.servedReadsBatchMs``).
    limit : int
        Most reads one frame lists (``limits.activityEntries``).
    """

    def __init__(self, send: Callable[[dict[str, Any]], None], batch_ms: int, limit: int) -> None:
        self._send = send
        self._batch_s = batch_ms / 1000.0
        self._reads: deque[dict[str, Any]] = deque(maxlen=limit)
        self._dropped = 0
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._reads)

    def note(
        self,
        tool: str,
        args: dict[str, Any],
        client: dict[str, str] | None,
        started_at_ms: float,
        duration_ms: float,
    ) -> None:
        """Keep one answered read and make sure a frame goes out within ``batch_ms``.

        Cheap (an append and, for the first read of a batch, one timer), and
        nothing is sent here: the caller has already answered the agent.

        Parameters
        ----------
        tool : str
            The mirrored read tool.
        args : dict
            Its arguments as the agent sent them (already checked against the tool's input schema).
        client : dict or None
            ``{name, version}`` of the MCP client.
        started_at_ms : float
            When the call arrived, ms since the epoch.
        duration_ms : float
            How long the gateway took to answer it, ms (>= 0).
        """
        if len(self._reads) == self._reads.maxlen:
            self._dropped += 1
        self._reads.append(
            {
                "tool": tool,
                "args": args,
                "client": client,
                "startedAt": started_at_ms,
                "durationMs": max(0.0, duration_ms),
            }
        )
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._batch_s, self.flush)

    def flush(self) -> None:
        """Send the reads noted as one ``served`` frame (nothing when there are none)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._reads:
            return
        frame = {"type": "served", "reads": list(self._reads), "dropped": self._dropped}
        self._reads.clear()
        self._dropped = 0
        try:
            self._send(frame)
        except Exception:
            log.debug("molspace bridge: served reads not sent (page gone)", exc_info=True)

    def close(self) -> None:
        """Forget what was not sent (the page's connection closed)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._reads.clear()
        self._dropped = 0
