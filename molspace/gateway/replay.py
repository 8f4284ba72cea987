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
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import MolspaceError

#: How many successful actionIds are remembered (oldest forgotten first).
DEFAULT_CAPACITY = 1000


def fingerprint(tool: str, args: dict[str, Any]) -> str:
    """Canonical JSON of the tool and its arguments (key order does not matter)."""
    return json.dumps([tool, args], sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ReplayRecord:
    """Results of mutating calls by ``actionId``.

    Parameters
    ----------
    capacity : int
        Successful calls remembered (default :data:`DEFAULT_CAPACITY`).
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, tuple[str, str, asyncio.Future[dict[str, Any]]]] = (
            OrderedDict()
        )

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
            first_tool, first_print, first_fut = earlier
            if first_print != print_:
                raise MolspaceError(
                    "INVALID_INPUT",
                    f"actionId {action_id!r} was already used for another call "
                    f"({'`' + first_tool + '`' if first_tool != tool else 'other arguments'}).",
                    "/actionId",
                    "Use a new actionId for a new action; reuse an actionId only to retry the very same call.",
                    {"actionId": action_id, "firstTool": first_tool},
                )
            result = await asyncio.shield(first_fut)
            return _as_replay(result, action_id, replayed_field)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._entries[action_id] = (tool, print_, fut)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)
        try:
            result = await call()
        except BaseException as e:
            if self._entries.get(action_id, (None, None, None))[2] is fut:
                del self._entries[action_id]
            fut.set_exception(e if isinstance(e, Exception) else asyncio.CancelledError())
            fut.exception()  # retrieved: waiting retries re-raise it themselves
            raise
        if _pending(result) and self._entries.get(action_id, (None, None, None))[2] is fut:
            del self._entries[action_id]  # still waiting for the person: a retry asks again
        fut.set_result(result)
        return result


def _pending(result: dict[str, Any]) -> bool:
    structured = result.get("structuredContent")
    return isinstance(structured, dict) and structured.get("status") == "pending"


def _as_replay(result: dict[str, Any], action_id: str, replayed_field: bool) -> dict[str, Any]:
    structured = dict(result["structuredContent"])
    if replayed_field:
        structured["replayed"] = True
    text = f"{result.get('text', '')} (replayed actionId {action_id}: not applied again)".strip()
    return {**result, "structuredContent": structured, "text": text}
