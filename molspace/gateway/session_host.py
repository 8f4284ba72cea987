"""Holds the MCP SDK's session manager open for as long as the Jupyter server serves.

``StreamableHTTPSessionManager.run()`` is an async context that must stay
entered while requests are served (it owns the task group of the sessions). A
dedicated task on the server's event loop enters it once and leaves it at
shutdown; requests that arrive before the server's start hook ran start it
lazily.
"""

from __future__ import annotations

import asyncio
import logging

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger(__name__)


class SessionManagerHost:
    """Runs one session manager's ``run()`` context in a task of its own.

    Parameters
    ----------
    manager : StreamableHTTPSessionManager
        The SDK's session manager (one server session and transport per MCP session).
    """

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The task holding ``run()`` open, once started."""
        return self._task

    async def started(self) -> StreamableHTTPSessionManager:
        """Enter the manager's ``run()`` context (once) and return the running manager.

        Raises
        ------
        RuntimeError
            If the manager failed to start or has been stopped.
        """
        if self._task is None:
            self._ready = asyncio.Event()
            self._stop = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(
                self._hold(), name="molspace-mcp-session-manager"
            )
        assert self._ready is not None
        await self._ready.wait()
        if self._error is not None or self._task.done():
            raise RuntimeError(f"the molspace MCP session manager is not running: {self._error!r}")
        return self.manager

    async def _hold(self) -> None:
        assert self._ready is not None and self._stop is not None
        try:
            async with self.manager.run():
                self._ready.set()
                await self._stop.wait()
        except BaseException as e:
            self._error = e
            if not isinstance(e, asyncio.CancelledError):
                log.exception("molspace MCP session manager stopped with an error")
            raise
        finally:
            self._ready.set()

    async def stop(self, grace: float = 5.0) -> None:
        """Leave ``run()`` (closing every session); cancel after ``grace`` seconds."""
        task = self._task
        if task is None or task.done():
            return
        assert self._stop is not None
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), grace)
        except asyncio.TimeoutError:
            task.cancel()
        except BaseException:  # noqa: BLE001 - already logged by _hold
            pass
