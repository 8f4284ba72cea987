"""The gateway's replay record (``molspace/gateway/replay.py``) stays within its byte budget.

The 10,000-call soak (docs/security.md, "Faults and soak") found the Jupyter server's memory
growing with every mutating call: the record kept each of its 1,000 results as parsed objects,
and an ``act`` result carries the Viewer's whole view (a screenshot result its image).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from molspace.contract import LIMITS
from molspace.gateway.replay import ReplayRecord


def _result(n: int, payload: int) -> dict[str, Any]:
    """A page's answer whose view is ``payload`` characters of colours."""
    return {
        "structuredContent": {
            "changed": True,
            "replayed": False,
            "view": {"colors": "c" * payload},
        },
        "text": f"applied {n}",
        "pageId": "tab",
    }


def _size(result: dict[str, Any]) -> int:
    return len(json.dumps(result, separators=(",", ":")).encode())


def _run(record: ReplayRecord, action_id: str, applied: list[str], payload: int) -> dict[str, Any]:
    async def call() -> dict[str, Any]:
        applied.append(action_id)
        return _result(len(applied), payload)

    args = {"target": "w1", "actions": [], "actionId": action_id}
    return asyncio.run(record.run("act", args, call, replayed_field=True))


def test_the_budget_is_the_contract_limit() -> None:
    assert ReplayRecord().max_bytes == LIMITS["replayRecordBytes"]


def test_results_beyond_the_byte_budget_are_forgotten_oldest_first() -> None:
    one = _size(_result(1, 4000))
    record = ReplayRecord(capacity=1000, max_bytes=int(one * 2.5))
    applied: list[str] = []
    for i in range(10):
        _run(record, f"a-{i}", applied, 4000)
        assert record.bytes <= record.max_bytes
    # two results fit: the newest two are replayed, an older one is applied again
    assert len(record) == 2 and record.bytes == _size(_result(9, 4000)) + _size(_result(10, 4000))
    again = _run(record, "a-9", applied, 4000)
    assert again["structuredContent"]["replayed"] is True
    assert again["text"].endswith("(replayed actionId a-9: not applied again)")
    assert applied.count("a-9") == 1
    _run(record, "a-0", applied, 4000)
    assert applied.count("a-0") == 2


def test_a_replay_is_the_first_answer_read_back() -> None:
    record = ReplayRecord()
    applied: list[str] = []
    first = _run(record, "a-1", applied, 100)
    again = _run(record, "a-1", applied, 100)
    assert applied == ["a-1"]
    assert again["structuredContent"] == {**first["structuredContent"], "replayed": True}
    assert again["pageId"] == "tab"
    assert record.bytes == _size(first)


def test_the_newest_result_is_kept_even_alone_over_the_budget() -> None:
    record = ReplayRecord(capacity=1000, max_bytes=1000)
    applied: list[str] = []
    _run(record, "small", applied, 10)
    _run(record, "big", applied, 5000)
    assert len(record) == 1
    assert _run(record, "big", applied, 5000)["structuredContent"]["replayed"] is True
    assert applied == ["small", "big"]


def test_a_failed_call_counts_nothing() -> None:
    record = ReplayRecord(capacity=1000, max_bytes=10_000)

    async def fail() -> dict[str, Any]:
        raise RuntimeError("page gone")

    async def go() -> None:
        try:
            await record.run("act", {"actionId": "x"}, fail, replayed_field=True)
        except RuntimeError:
            pass

    asyncio.run(go())
    assert len(record) == 0 and record.bytes == 0
