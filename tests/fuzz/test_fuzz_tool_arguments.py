"""Generated MCP tool arguments (issue 23): from each tool's JSON Schema in the contract, valid and
near-valid (one field anywhere mutated: another type, an odd or huge string, a huge array, an
extreme number, deep nesting, a field dropped, an unknown one added, odd unicode in keys).

Property: the gateway's argument check accepts, or refuses with one located ``INVALID_INPUT``
of bounded size whose ``where`` is a short JSON pointer; a gateway tool given accepted arguments
answers within its output schema or with a located error; a tool name that is not the contract's
is a located ``NOT_FOUND``. Then a sample through the real server and the official Python MCP SDK
(no page connected): every answer is a result, never a protocol error or INTERNAL, and the server
answers ``status`` afterwards.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fuzz_inputs import (
    BATCH,
    COUNTS,
    SCALE,
    batches,
    contract_tools,
    depth_of,
    from_schema,
    fuzz_settings,
    odd_text,
    outcome,
)
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from molspace.gateway.manifest import Manifest
from molspace.gateway.pages import ConnectedPages
from molspace.gateway.tools import GATEWAY_TOOLS
from molspace.gateway.tools.context import GatewayToolContext

MANIFEST = Manifest.load()
TOOLS = contract_tools()
#: Inputs one CI run checks at the function level, and through the real server.
FUNCTION_INPUTS = 10_000
SERVER_INPUTS = 200


def _valid(tool: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A tool's arguments: one of its contract examples, or drawn from its input schema."""
    schema = tool["inputSchema"]
    drawn = from_schema(schema, schema)
    examples = [e for e in tool.get("examples") or [] if isinstance(e, dict)]
    return st.one_of(st.sampled_from(examples), drawn) if examples else drawn


#: One tool, and a batch of its arguments: one valid-shaped, the rest near-valid (:func:`batches`).
CALLS = st.one_of([st.tuples(st.just(t["name"]), batches(_valid(t))) for t in TOOLS])


def _check_call(name: str, arguments: Any) -> None:
    """One generated call as the gateway checks it (``server.on_call_tool`` up to the route)."""
    spec = MANIFEST.get(name)
    _, error = outcome(lambda: spec.check_arguments(arguments), "tools", codes=("INVALID_INPUT",))
    if error is not None:
        assert len(error["where"]) <= 200, error["where"][:300]
        assert len(error["details"]["errors"]) <= 20
        assert error["message"].startswith(f"Invalid arguments for `{name}`"), error["message"]
        return
    handler = GATEWAY_TOOLS.get(name)
    if handler is None:
        return
    context = GatewayToolContext(
        ConnectedPages(), MANIFEST.versions, "/molspace/mcp", "open a page", manifest=MANIFEST
    )

    def run() -> Any:
        answer = handler(dict(arguments), context)
        if asyncio.iscoroutine(answer):
            answer = asyncio.run(answer)
        spec.check_output(answer.structured, source="the gateway")
        return answer

    outcome(run, "tools")


def test_generated_arguments_are_accepted_or_one_located_invalid_input() -> None:
    before = COUNTS["tools"]

    @fuzz_settings(FUNCTION_INPUTS // BATCH)
    @given(CALLS)
    def check(call: tuple[str, list[Any]]) -> None:
        name, batch = call
        for arguments in batch:
            _check_call(name, arguments)

    check()
    assert COUNTS["tools"] - before >= FUNCTION_INPUTS


def test_a_tool_name_not_in_the_contract_is_a_located_not_found() -> None:
    before = COUNTS["tools"]

    @fuzz_settings(500)
    @given(odd_text(40))
    def check(name: str) -> None:
        spec, error = outcome(lambda: MANIFEST.get(name), "tools", codes=("NOT_FOUND",))
        assert (error is None) == (name in MANIFEST.tools)

    check()
    assert COUNTS["tools"] - before >= 500


def _server_sample() -> list[tuple[str, Any]]:
    """:data:`SERVER_INPUTS` generated calls, drawn the same way (Hypothesis cannot drive an async test)."""
    drawn: list[tuple[str, Any]] = []

    @fuzz_settings(SERVER_INPUTS // 4)
    @given(CALLS)
    def collect(call: tuple[str, list[Any]]) -> None:
        # what an MCP client can send as arguments: an object
        drawn.extend((call[0], a) for a in call[1] if isinstance(a, dict))

    collect()
    return drawn[: SERVER_INPUTS * SCALE]


def _utf8(value: Any) -> bool:
    """Whether ``value``'s JSON is UTF-8 (no lone surrogate), as the Python SDK must send it."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _answer(result: Any, name: str, arguments: Any) -> str | None:
    """The error code of a tool result (None for success), after checking its located shape."""
    if not result["isError"]:
        return None
    summary, newline, text = result["content"][0]["text"].partition("\n")
    assert newline, summary
    error = json.loads(text)
    assert set(error) == {"code", "message", "where", "fix", "details"}, error
    assert summary.startswith(error["code"]) and "\n" not in summary, summary
    assert error["code"] != "INTERNAL", (name, str(arguments)[:300], error)
    return str(error["code"])


async def _raw_calls(mcp_url: str, token: str, calls: list[tuple[str, Any]]) -> list[str | None]:
    """Calls whose JSON holds a lone surrogate (as ``\\udXXX`` escapes, which JSON allows and a
    JavaScript client sends), posted raw: the Python SDK cannot encode them. The SDK's server
    transport refuses them before a tool runs (its JSON parser takes no lone surrogate: 400,
    JSON-RPC -32700), and the session goes on."""
    import httpx2

    headers = {
        "Authorization": f"token {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        },
    }
    codes: list[str | None] = []
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(mcp_url, headers=headers, json=init)
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = "2025-06-18"
        for i, (name, arguments) in enumerate(calls, 1):
            body = {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
            r = await http.post(mcp_url, headers=headers, content=json.dumps(body).encode())
            if r.status_code == 400:
                assert r.json()["error"]["code"] == -32700, r.text[:300]
                codes.append("parse error")
                continue
            assert r.status_code == 200, (r.status_code, r.text[:300])
            data = r.text
            if r.headers["content-type"].startswith("text/event-stream"):
                data = next(
                    line[5:]
                    for line in r.text.splitlines()
                    if line.startswith("data:") and '"id"' in line
                )
            reply = json.loads(data)
            assert "result" in reply, reply
            codes.append(_answer(reply["result"], name, arguments))
    return codes


async def test_generated_calls_through_the_server_answer_located_errors(
    mcp_client: Any, jp_serverapp: Any, jp_http_port: int, jp_base_url: str
) -> None:
    sample = _server_sample()
    assert len(sample) >= SERVER_INPUTS
    codes: list[str | None] = []
    async with mcp_client() as client:
        for name, arguments in sample:
            if not _utf8(arguments):
                continue
            COUNTS["tools-server"] += 1
            try:
                result = await asyncio.wait_for(client.call_tool(name, arguments), 30)
            except MCPError as e:
                if isinstance(e.data, dict) and "fix" in e.data:
                    # refused over HTTP (413 over max_request_bytes): the located error as JSON-RPC data
                    assert set(e.data) == {"code", "message", "where", "fix", "details"}, e.data
                    codes.append(str(e.data["code"]))
                    continue
                # The SDK's transport parses JSON to a depth of 200 (its own 400 Parse error).
                assert depth_of(arguments) > 190 and "Parse error" in str(e), e
                continue
            codes.append(_answer(result.model_dump(by_alias=True), name, arguments))
        raw = [(n, a) for n, a in sample if not _utf8(a)]
        COUNTS["tools-server"] += len(raw)
        url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}molspace/mcp"
        codes += await _raw_calls(url, jp_serverapp.identity_provider.token, raw)
        status = await client.call_tool("status", {})
        assert status.is_error is False
    assert raw, "no call held a lone surrogate"
    assert {"INVALID_INPUT", "NO_PAGE"} <= set(codes), set(codes)


@pytest.fixture
def jp_server_config() -> dict[str, Any]:
    from gateway_helpers import server_config

    return server_config()
