"""What every agent pays for on every connection: ``tools/list``, and ``describe`` for the rest.

``tools/list`` is measured on the wire (the JSON-RPC result as a client receives it, in
compact JSON) and bounded; every valid call in the contract fixtures and every example
is still accepted by the listed (brief) schema, so no client that checks arguments
before sending refuses a good call; ``describe`` returns the full schema, guide and
examples of each tool and each part within the read budget, and refuses unknown names
located. All through the official Python SDK client or raw HTTP against the real gateway.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gateway_helpers import located_error
from jsonschema import Draft202012Validator

from molspace.gateway.manifest import DEFAULT_MANIFEST_PATH

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = json.loads(DEFAULT_MANIFEST_PATH.read_text(encoding="utf-8"))
TOOLS = {t["name"]: t for t in MANIFEST["tools"]}
CASES = json.loads((ROOT / "tests" / "fixtures" / "contract" / "tool-inputs.json").read_text())[
    "cases"
]
#: The bound of issue 19: all tools together, compact JSON as clients receive it.
TOOLS_LIST_BYTES = 16 * 1024
BUDGET = int(MANIFEST["limits"]["observeOutputBytes"])
DEFAULT_HINTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def compact(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def sse_result(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC message of a Streamable HTTP response (JSON, or one SSE ``data:`` event)."""
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(next(d for d in data if d))


async def test_tools_list_on_the_wire_is_within_its_bound(mcp_url: str, token: str) -> None:
    auth = {"Authorization": f"token {token}"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "size", "version": "0"},
        },
    }
    async with httpx2.AsyncClient(timeout=10) as client:
        opened = await client.post(mcp_url, headers={**MCP_HEADERS, **auth}, json=init)
        session = {
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await client.post(
            mcp_url,
            headers={**MCP_HEADERS, **auth, **session},
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        )
        listed = await client.post(
            mcp_url,
            headers={**MCP_HEADERS, **auth, **session},
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        )
    tools = sse_result(listed)["result"]["tools"]
    assert [t["name"] for t in tools] == list(TOOLS)
    size = len(compact(tools))
    assert size <= TOOLS_LIST_BYTES, (
        f"tools/list is {size} bytes for {len(tools)} tools (bound {TOOLS_LIST_BYTES})"
    )
    # The deliberate choice: no output schemas listed (the gateway checks results; describe gives them).
    assert all("outputSchema" not in t for t in tools)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_listed_tools_are_the_brief_form_of_the_manifest(mcp_client: Any, mode: str) -> None:
    async with mcp_client(mode) as client:
        listed = (await client.list_tools()).tools
        assert client.instructions == MANIFEST["instructions"]
    assert [t.name for t in listed] == list(TOOLS)
    for tool in listed:
        spec = TOOLS[tool.name]
        assert tool.description == spec["description"]
        assert tool.input_schema == spec["listedInputSchema"]
        assert tool.output_schema is None
        assert tool.title == spec["annotations"]["title"]
        hints = (
            tool.annotations.model_dump(by_alias=True, exclude_none=True)
            if tool.annotations
            else {}
        )
        expected = {
            k: v
            for k, v in spec["annotations"].items()
            if k in DEFAULT_HINTS and v != DEFAULT_HINTS[k]
        }
        assert hints == expected, tool.name
    status = next(t for t in listed if t.name == "status")
    assert status.annotations is not None and status.annotations.read_only_hint is True


@pytest.mark.parametrize("case", [c for c in CASES if c["valid"]], ids=lambda c: c["tool"])
def test_listed_schema_accepts_every_valid_call(case: dict[str, Any]) -> None:
    """A client that checks arguments against the listed schema never refuses a call the gateway takes."""
    spec = TOOLS[case["tool"]]
    assert not list(Draft202012Validator(spec["inputSchema"]).iter_errors(case["args"]))
    errors = [
        e.message for e in Draft202012Validator(spec["listedInputSchema"]).iter_errors(case["args"])
    ]
    assert errors == [], f"{case['tool']}: the listed schema refuses a valid call: {errors}"


@pytest.mark.parametrize("name", [n for n, t in TOOLS.items() if t["examples"]])
def test_examples_are_valid_calls_under_both_schemas(name: str) -> None:
    spec = TOOLS[name]
    for i, example in enumerate(spec["examples"]):
        for which in ("inputSchema", "listedInputSchema"):
            errors = [e.message for e in Draft202012Validator(spec[which]).iter_errors(example)]
            assert errors == [], f"{name} examples[{i}] against {which}: {errors}"


def test_every_tool_with_a_tagged_union_has_an_example_for_most_parts() -> None:
    """act and render_panel: the parts an agent meets first each come with an example."""
    for name, wanted in {
        "act": {"focus", "set_color", "set_representation", "measure_distance", "screenshot"},
        "render_panel": {"markdown", "table", "chart", "molecules", "focus", "goto"},
    }.items():
        text = json.dumps(TOOLS[name]["examples"])
        missing = [p for p in wanted if f'"{p}"' not in text]
        assert missing == [], f"{name}: no example for {missing}"


async def test_describe_every_tool_and_part_within_the_read_budget(mcp_client: Any) -> None:
    async with mcp_client() as client:
        for name, spec in TOOLS.items():
            for part in [None, *spec["parts"], "output"]:
                args = {"tool": name} if part is None else {"tool": name, "part": part}
                result = await client.call_tool("describe", args)
                assert result.is_error is False, (name, part, result.content[0].text[:300])
                sc = result.structured_content
                assert len(compact(sc)) <= BUDGET, (name, part, len(compact(sc)))
                # Agents read text: the text carries the same answer as JSON after its first line.
                head, body = result.content[0].text.split("\n", 1)
                assert head.startswith(name) and json.loads(body) == sc
                assert sc["parts"] == [*spec["parts"], "output"]
                assert sc["errors"] == spec["errors"]
                if part is None:
                    assert sc["inputSchema"] == spec["inputSchema"] or "listed one" in (
                        sc["note"] or ""
                    )
                elif part == "output":
                    assert sc["outputSchema"] == spec["outputSchema"]
                else:
                    schema = spec["parts"][part]["schema"]
                    assert sc["inputSchema"] == schema
                    for example in sc["examples"]:
                        # Each example of a part holds a value of that part, valid against the part's schema.
                        at = spec["parts"][part]["tag"]
                        values = _tagged(example, at, part)
                        assert values, (name, part, example)
                        for v in values:
                            assert not list(Draft202012Validator(schema).iter_errors(v)), (
                                name,
                                part,
                                v,
                            )


def _tagged(value: Any, tag: str, tag_value: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        if value.get(tag) == tag_value:
            found.append(value)
        for v in value.values():
            found += _tagged(v, tag, tag_value)
    elif isinstance(value, list):
        for v in value:
            found += _tagged(v, tag, tag_value)
    return found


async def test_describe_part_gives_what_the_listing_leaves_out(mcp_client: Any) -> None:
    """act set_representation: the listed schema names the op; describe gives its full fields and an example."""
    async with mcp_client() as client:
        result = await client.call_tool("describe", {"tool": "act", "part": "set_representation"})
    sc = result.structured_content
    assert sc["inputSchema"]["required"] == ["op", "selector", "representation"]
    assert "cartoon" in sc["inputSchema"]["properties"]["representation"]["enum"]
    assert "label_comp_id" in json.dumps(
        sc["inputSchema"]
    )  # the selector's expression fields, in full
    assert any(a.get("op") == "set_representation" for e in sc["examples"] for a in e["actions"]), (
        "an example of set_representation"
    )


async def test_describe_refuses_unknown_tool_and_part_located(mcp_client: Any) -> None:
    async with mcp_client() as client:
        tool = await client.call_tool("describe", {"tool": "acts"})
        part = await client.call_tool("describe", {"tool": "act", "part": "paint"})
        bad = await client.call_tool("describe", {"tool": "act", "pageId": "x"})
    t = located_error(tool)
    assert t["code"] == "NOT_FOUND"
    assert t["where"] == "/tool" and '"act"' in t["fix"] and "act" in t["details"]["known"]
    p = located_error(part)
    assert p["code"] == "NOT_FOUND"
    assert p["where"] == "/part" and '"set_color"' in p["fix"] and '"output"' in p["fix"]
    assert "set_color" in p["details"]["parts"]
    b = located_error(bad)
    assert b["code"] == "INVALID_INPUT"
    assert b["where"] == "/pageId"
