"""First calls by the official Python MCP SDK (as issue 19's agent made them), timed.

Usage: python first_call_py.py URL TOKEN  -> prints one JSON object {name: ms, ...}.
With MOLSPACE_BENCH_PREIMPORT_JSONSCHEMA=1, jsonschema is imported (and timed) before the first call.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, token: str) -> None:
    rows: dict[str, float] = {}
    if os.environ.get("MOLSPACE_BENCH_PREIMPORT_JSONSCHEMA"):
        # The control: the SDK imports jsonschema lazily inside its first call_tool
        # (to check structuredContent against the tool's outputSchema).
        t = time.perf_counter()
        import jsonschema  # noqa: F401

        rows["py import jsonschema"] = (time.perf_counter() - t) * 1000

    async def timed(name: str, coro):
        t = time.perf_counter()
        r = await coro
        rows[name] = (time.perf_counter() - t) * 1000
        return r

    t_all = time.perf_counter()
    http = httpx2.AsyncClient(
        headers={"Authorization": f"token {token}"}, timeout=httpx2.Timeout(60.0)
    )
    async with http:
        t = time.perf_counter()
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as session:
            rows["py initialize"] = (time.perf_counter() - t) * 1000
            await timed("py tools/list first", session.list_tools())
            await timed("py tools/list second", session.list_tools())
            for n in ("first", "second"):
                await timed(f"py status {n}", session.call_tool("status", {}))
            for n in ("first", "second"):
                await timed(f"py observe {n}", session.call_tool("observe", {}))
    rows["py total"] = (time.perf_counter() - t_all) * 1000
    print(json.dumps(rows))


asyncio.run(main(sys.argv[1], sys.argv[2]))
