"""Replay of retried ``actionId`` calls, kept in the gateway so that it survives a page reload.

The page's Dispatcher replays a repeated ``actionId`` too, but its memory goes
with the page: an agent that retries after a reload (or after a TIMEOUT whose
call did apply) would apply the action twice. The gateway remembers each
successful mutating call by ``(tool, actionId)`` with a fingerprint of its
arguments:

- the same tool, ``actionId`` and arguments: the first result is returned again,
  marked ``replayed: true`` where the tool's output has that field;
- the same ``actionId`` with other arguments or another tool: ``INVALID_INPUT``
  at ``/actionId``;
- a call still running: the retry waits for it and gets its result;
- a failed call is forgotten, so it may be retried with the same ``actionId``; so is a
  result still waiting for the person (``status: "pending"``, e.g. ``request_persist``).

The record is bounded twice, oldest forgotten first: at most :data:`DEFAULT_CAPACITY` actionIds,
and at most ``LIMITS.replayRecordBytes`` of results, each kept as its compact JSON text (an
``act`` result carries the Viewer's whole view, a screenshot its image: kept as parsed objects,
1,000 of them held tens of MB, several times their JSON; docs/security.md, "Faults and soak").
A retry of a forgotten ``actionId`` is applied again.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from ..contract import LIMITS
from ..errors import MolspaceError

#: How many successful actionIds are remembered (oldest forgotten first).
DEFAULT_CAPACITY = 1000


def fingerprint(tool: str, args: dict[str, Any]) -> str:
    """Canonical JSON of the tool and its arguments (key order does not matter)."""
    return json.dumps([tool, args], sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Entry:
    """One ``actionId``: its call's future while it runs, then its result as JSON text."""

    __slots__ = ("tool", "print_", "fut", "text")

    def __init__(self, tool: str, print_: str, fut: asyncio.Future[dict[str, Any]]) -> None:
        self.tool = tool
        self.print_ = print_
        self.fut: asyncio.Future[dict[str, Any]] | None = fut
        self.text: str | None = None

    @property
    def size(self) -> int:
        """Bytes this entry counts against the budget (its result's JSON; 0 while it runs)."""
        return 0 if self.text is None else len(self.text.encode("utf-8"))


class ReplayRecord:
    """Results of mutating calls by ``actionId``.

    Parameters
    ----------
    capacity : int
        Successful calls remembered (default :data:`DEFAULT_CAPACITY`).
    max_bytes : int or None
        Most bytes of results (compact JSON) remembered; default ``LIMITS["replayRecordBytes"]``.
        The newest result is kept even when it alone is larger.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, max_bytes: int | None = None) -> None:
        self.capacity = capacity
        self.max_bytes = LIMITS["replayRecordBytes"] if max_bytes is None else max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """Bytes of the results remembered now (compact JSON, UTF-8)."""
        return self._bytes

    async def run(
        self,
        tool: str,
        args: dict[str, Any],
        call: Callable[[], Awaitable[dict[str, Any]]],
        *,
        replayed_field: bool,
    ) -> dict[str, Any]:
        """Run ``call`` once per ``actionId``; return the first result to retries.

        Parameters
        ----------
        tool : str
        args : dict
            Validated arguments; ``args["actionId"]`` is the key (calls without one run as they are).
        call : callable
            Runs the call; returns ``{"structuredContent", "text", ...}`` or raises MolspaceError.
        replayed_field : bool
            Whether the tool's output has a boolean ``replayed`` to set on a replay.

        Raises
        ------
        MolspaceError
            ``INVALID_INPUT`` at ``/actionId`` when the id was used with other arguments;
            whatever ``call`` raises.
        """
        action_id = args.get("actionId")
        if not isinstance(action_id, str):
            return await call()
        print_ = fingerprint(tool, args)
        earlier = self._entries.get(action_id)
        if earlier is not None:
            if earlier.print_ != print_:
                first_tool = earlier.tool
                raise MolspaceError(
                    "INVALID_INPUT",
                    f"actionId {action_id!r} was already used for another call "
                    f"({'`' + first_tool + '`' if first_tool != tool else 'other arguments'}).",
                    "/actionId",
                    "Use a new actionId for a new action; reuse an actionId only to retry the very same call.",
                    {"actionId": action_id, "firstTool": first_tool},
                )
            if earlier.text is not None:
                return _as_replay(json.loads(earlier.text), action_id, replayed_field)
            assert earlier.fut is not None
            result = await asyncio.shield(earlier.fut)
            return _as_replay(result, action_id, replayed_field)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        entry = _Entry(tool, print_, fut)
        self._entries[action_id] = entry
        self._prune()
        try:
            result = await call()
        except BaseException as e:
            self._forget(action_id, entry)
            fut.set_exception(e if isinstance(e, Exception) else asyncio.CancelledError())
            fut.exception()  # retrieved: waiting retries re-raise it themselves
            raise
        if _pending(result):
            self._forget(action_id, entry)  # still waiting for the person: a retry asks again
        elif self._entries.get(action_id) is entry:
            # Kept as text: parsed objects cost several times their JSON.
            entry.text = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
            entry.fut = None  # retries already waiting hold it; later ones read the text
            self._bytes += entry.size
            self._prune()
        fut.set_result(result)
        return result

    def _forget(self, action_id: str, entry: _Entry) -> None:
        if self._entries.get(action_id) is entry:
            del self._entries[action_id]
            self._bytes -= entry.size

    def _prune(self) -> None:
        """Forget the oldest entries beyond :attr:`capacity` or :attr:`max_bytes` (never the newest)."""
        while len(self._entries) > self.capacity or (
            self._bytes > self.max_bytes and len(self._entries) > 1
        ):
            _, oldest = self._entries.popitem(last=False)
            self._bytes -= oldest.size


def _pending(result: dict[str, Any]) -> bool:
    structured = result.get("structuredContent")
    return isinstance(structured, dict) and structured.get("status") == "pending"


def _as_replay(result: dict[str, Any], action_id: str, replayed_field: bool) -> dict[str, Any]:
    structured = dict(result["structuredContent"])
    if replayed_field:
        structured["replayed"] = True
    text = f"{result.get('text', '')} (replayed actionId {action_id}: not applied again)".strip()
    return {**result, "structuredContent": structured, "text": text}
