"""Which credential opened each MCP session, so that no other credential can use its id.

A session id (``Mcp-Session-Id``) is random and never logged, but an id that leaks (a proxy's log,
a shared terminal) would otherwise let any valid credential act in that session. The MCP endpoint
(:class:`~molspace.gateway.handlers.McpHandler`) names the caller's credential (its *principal*)
on every request, :meth:`SessionOwners.claim` records it when the SDK answers with a new session
id, and :meth:`SessionOwners.allows` refuses the id to every other principal
(docs/security.md, the MCP endpoint).
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass


def principal_of(agent_name: str | None, token: str | None, username: str) -> str:
    """The credential a request came with, as a key that holds no secret.

    Parameters
    ----------
    agent_name : str or None
        The agent token's name, when the request came with a molspace agent token.
    token : str or None
        The Jupyter token the request carried (``Authorization`` header or ``token`` query
        parameter), when it carried one.
    username : str
        Jupyter's user of the request (stable for a cookie login; a fresh one for each
        token-authenticated request under Jupyter's default identity provider, so used last).

    Returns
    -------
    str
        ``"agent:<name>"``, ``"token:<sha256 prefix>"`` or ``"user:<username>"``.
    """
    if agent_name is not None:
        return f"agent:{agent_name}"
    if token:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return f"user:{username}"


@dataclass
class _Session:
    principal: str
    used: float  # time.monotonic() of the last request's start or end
    in_flight: int


class SessionOwners:
    """Session id → the principal that opened it, with the requests in flight on it; bounded.

    Every live session was claimed here (the SDK gives out ids only in answers that pass
    through :class:`~molspace.gateway.handlers.McpHandler`), so an id not held here is either
    unknown or one the SDK has closed: it is refused, to everyone.

    Parameters
    ----------
    idle_seconds : float or None
        The session manager's idle timeout: a session with no request in flight and none for
        longer is dropped, as the SDK has closed it by then (``None``: kept until
        :attr:`capacity` pushes it out).
    capacity : int
        Most sessions held; beyond it the least recently used is dropped (its client then opens
        a new session).
    """

    def __init__(self, idle_seconds: float | None, capacity: int = 4096) -> None:
        self.idle_seconds = idle_seconds
        self.capacity = capacity
        self._sessions: OrderedDict[str, _Session] = OrderedDict()

    def claim(self, session_id: str, principal: str) -> None:
        """Record that ``principal`` opened ``session_id``, in the request now answering with it.

        That request counts as in flight on the session until :meth:`leave`.
        """
        self._sessions[session_id] = _Session(principal, time.monotonic(), 1)
        self._sessions.move_to_end(session_id)
        self._prune()

    def enter(self, session_id: str, principal: str) -> bool:
        """Start a request of ``principal`` on ``session_id``; ``False`` (nothing started) when
        the session is another principal's, or not held here."""
        self._prune()
        entry = self._sessions.get(session_id)
        if entry is None or entry.principal != principal:
            return False
        entry.used = time.monotonic()
        entry.in_flight += 1
        self._sessions.move_to_end(session_id)
        return True

    def leave(self, session_id: str) -> None:
        """End a request started by :meth:`enter` or :meth:`claim`."""
        entry = self._sessions.get(session_id)
        if entry is not None:
            entry.used = time.monotonic()
            entry.in_flight = max(0, entry.in_flight - 1)

    def release(self, session_id: str) -> None:
        """Forget ``session_id`` (the session was ended with DELETE)."""
        self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._sessions)

    def _prune(self) -> None:
        while len(self._sessions) > self.capacity:
            self._sessions.popitem(last=False)
        if self.idle_seconds is None:
            return
        oldest_kept = time.monotonic() - self.idle_seconds
        idle = [
            sid
            for sid, entry in self._sessions.items()
            if not entry.in_flight and entry.used < oldest_kept
        ]
        for sid in idle:
            del self._sessions[sid]
