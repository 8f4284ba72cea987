"""The read mirror at the gateway (docs/architecture.md, "Read mirror"), with a fake page.

The fake page speaks the bridge protocol over a real websocket; the client is the
official Python SDK, listing tools first. The real page pushing its own answers
is ui-tests/tests/readMirror.spec.ts.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import located_error, server_config, wait_for

from molspace.contract import manifest
from molspace.gateway.read_mirror import json_bytes

OUTPUTS = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "contract" / "tool-outputs.json").read_text()
)
#: The tools the manifest says the gateway may answer from a page's mirror.
MIRRORED = [t["name"] for t in manifest()["tools"] if t.get("mirrored")]


def sample(tool: str) -> dict[str, Any]:
    """The contract fixture's sample answer of ``tool``, with its target id."""
    return json.loads(json.dumps(OUTPUTS[tool]))


def target_args(tool: str) -> dict[str, Any]:
    spec = next(t for t in manifest()["tools"] if t["name"] == tool)
    if "target" not in spec["inputSchema"].get("properties", {}):
        return {}
    sc = sample(tool)
    state = next(v for v in sc.values() if isinstance(v, dict) and "target" in v)
    return {"target": state["target"]}


def mirrored_entry(
    tool: str, args: dict[str, Any], sc: dict[str, Any], text: str
) -> dict[str, Any]:
    """What the real page pushes for ``sc``: ``observe`` computed with ``pages: []``."""
    entry: dict[str, Any] = {"tool": tool, "args": args, "structuredContent": sc, "text": text}
    if "pages" in sc:
        sc = {**sc, "pages": []}
        entry["structuredContent"] = sc
        entry["pages"] = {"bytes": json_bytes(sc), "complete": True}
    return entry


def relaying_page(page: Any, answers: dict[str, tuple[dict[str, Any], str]]) -> None:
    """The page answers a relayed read with ``answers[tool]``, ``pages`` from the call's context."""

    def handler(tool: str, args: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        sc, text = answers[tool]
        if "pages" in sc:
            sc = {**sc, "pages": ctx["pages"], "pageId": ctx["pageId"]}
        return {"ok": True, "structuredContent": sc, "text": text}

    page.handler = handler


def test_the_manifest_mirrors_the_read_tools() -> None:
    tools = {t["name"]: t for t in manifest()["tools"]}
    assert {"observe", "story_observe", "viewer_observe"} <= set(MIRRORED)
    for name in MIRRORED:
        assert tools[name]["runs"] == "page" and tools[name]["annotations"]["readOnlyHint"] is True


@pytest.mark.parametrize("tool", MIRRORED)
async def test_a_mirrored_answer_equals_the_relayed_one(
    tool: str, mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("page-1", widgets=1)
    assert page.welcome["mirror"] is True
    sc, text = sample(tool), f"{tool} sample"
    relaying_page(page, {tool: (sc, text)})
    args = target_args(tool)
    async with mcp_client() as client:
        relayed = await client.call_tool(tool, args)
        assert len(page.calls) == 1
        await page.send(
            {"type": "reads", "set": [mirrored_entry(tool, args, sc, text)], "drop": []}
        )
        await wait_for(lambda: len(_mirror(gateway, page)) == 1)
        served = await client.call_tool(tool, args)
        # The same call with its defaults spelled out and a pageId is the same read.
        spelled = await client.call_tool(tool, {**args, **_defaults(tool), "pageId": "page-1"})
    assert len(page.calls) == 1, "the mirrored reads reached the page"
    for r in (served, spelled):
        assert r.is_error is False
        assert r.structured_content == relayed.structured_content
        assert [c.model_dump() for c in r.content] == [c.model_dump() for c in relayed.content]


async def test_other_arguments_and_dropped_answers_are_relayed(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("page-1")
    sc = sample("story_observe")
    relaying_page(page, {"story_observe": (sc, "relayed")})
    args = target_args("story_observe")
    await page.send(
        {
            "type": "reads",
            "set": [mirrored_entry("story_observe", args, sc, "mirrored")],
            "drop": [],
        }
    )
    await wait_for(lambda: len(_mirror(gateway, page)) == 1)
    async with mcp_client() as client:
        served = await client.call_tool("story_observe", args)
        paged = await client.call_tool("story_observe", {**args, "offset": 1})
        await page.send(
            {"type": "reads", "set": [], "drop": [{"tool": "story_observe", "args": args}]}
        )
        await wait_for(lambda: len(_mirror(gateway, page)) == 0)
        after_drop = await client.call_tool("story_observe", args)
    assert served.content[0].text == "mirrored"
    assert paged.content[0].text == "relayed" and after_drop.content[0].text == "relayed"
    assert [c["args"] for c in page.calls] == [{**args, "offset": 1}, args]


async def test_observe_is_relayed_when_the_page_list_would_not_fit_its_budget(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("page-1")
    sc = {**sample("observe"), "pages": []}
    relaying_page(page, {"observe": (sc, "relayed")})
    budget = gateway.manifest.limits["observeOutputBytes"]
    async with mcp_client() as client:
        # Cut by the page's budget already: only the page knows the answer with the real list.
        await page.send(
            {
                "type": "reads",
                "set": [
                    {
                        **mirrored_entry("observe", {}, sc, "m"),
                        "pages": {"bytes": 500, "complete": False},
                    }
                ],
                "drop": [],
            }
        )
        await wait_for(lambda: len(_mirror(gateway, page)) == 1)
        cut = await client.call_tool("observe", {})
        # Fits with `pages: []` but not once the page list is filled in.
        await page.send(
            {
                "type": "reads",
                "set": [
                    {
                        **mirrored_entry("observe", {}, sc, "m"),
                        "pages": {"bytes": budget - 10, "complete": True},
                    }
                ],
                "drop": [],
            }
        )
        near = await client.call_tool("observe", {})
        await page.send(
            {"type": "reads", "set": [mirrored_entry("observe", {}, sc, "m")], "drop": []}
        )
        await wait_for(
            lambda: (
                _mirror(gateway, page)[next(iter(_mirror(gateway, page)))]["pages"]["bytes"] < 1000
            )
        )
        fits = await client.call_tool("observe", {})
    assert cut.content[0].text == "relayed" and near.content[0].text == "relayed"
    assert fits.content[0].text == "m"
    assert fits.structured_content["pages"][0]["pageId"] == "page-1"
    assert len(page.calls) == 2


async def test_a_write_is_read_back_from_the_mirror_it_updated(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    """Read-your-writes: the page sends the reads a call changed, then its result, on one socket."""
    page = await connect_page("page-1")
    args = target_args("story_observe")
    before = sample("story_observe")
    after = json.loads(json.dumps(before))
    after["story"]["revision"] += 1
    after["story"]["index"] = 2
    control = sample("story_control")
    control["story"] = after["story"]
    await page.send(
        {
            "type": "reads",
            "set": [mirrored_entry("story_observe", args, before, "before")],
            "drop": [],
        }
    )
    await wait_for(lambda: len(_mirror(gateway, page)) == 1)

    def handler(tool: str, a: dict[str, Any], ctx: dict[str, Any]) -> None:
        assert tool == "story_control"
        call_id = page.calls[-1]["callId"]

        async def answer() -> None:
            await page.send(
                {
                    "type": "reads",
                    "set": [mirrored_entry("story_observe", args, after, "after")],
                    "drop": [],
                }
            )
            await page.send(
                {
                    "type": "result",
                    "callId": call_id,
                    "ok": True,
                    "structuredContent": control,
                    "text": "moved",
                }
            )

        tasks.append(asyncio.get_running_loop().create_task(answer()))
        return None

    tasks: list[asyncio.Task[None]] = []
    page.handler = handler
    async with mcp_client() as client:
        first = await client.call_tool("story_observe", args)
        moved = await client.call_tool("story_control", {**args, "action": "goto", "index": 2})
        read = await client.call_tool("story_observe", args)
    assert first.content[0].text == "before" and moved.is_error is False
    assert read.content[0].text == "after"
    assert read.structured_content["story"]["revision"] == before["story"]["revision"] + 1


async def test_no_page_is_no_page(mcp_client: Any) -> None:
    async with mcp_client() as client:
        for tool in MIRRORED:
            r = await client.call_tool(tool, target_args(tool))
            assert r.is_error is True
            assert located_error(r)["code"] == "NO_PAGE"


async def test_a_closed_page_takes_its_mirror_with_it(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("page-1")
    await page.send(
        {
            "type": "reads",
            "set": [mirrored_entry("observe", {}, sample("observe"), "m")],
            "drop": [],
        }
    )
    await wait_for(lambda: len(_mirror(gateway, page)) == 1)
    page.close()
    await wait_for(lambda: gateway.pages.default_page() is None)
    async with mcp_client() as client:
        r = await client.call_tool("observe", {})
    assert located_error(r)["code"] == "NO_PAGE"


async def test_a_malformed_reads_frame_is_refused(
    connect_page: Any, gateway: Any, caplog: Any
) -> None:
    page = await connect_page("page-1")
    await page.send({"type": "reads", "set": [{"tool": "observe", "args": {}}], "drop": []})
    await page.send(
        {
            "type": "reads",
            "set": [mirrored_entry("observe", {}, sample("observe"), "m")],
            "drop": [],
        }
    )
    await wait_for(lambda: len(_mirror(gateway, page)) == 1)
    refused = [r.getMessage() for r in caplog.records if "ignored frame" in r.getMessage()]
    assert len(refused) == 1 and '"set": [{"tool": "observe", "args": {}}]' in refused[0]
    assert len(_mirror(gateway, page)) == 1


def _mirror(gateway: Any, page: Any) -> dict[str, Any]:
    """The gateway's copy of the fake page's mirror (its answers by key)."""
    live = gateway.pages._pages.get(page.page_id)
    return live.mirror._answers if live is not None else {}


def _defaults(tool: str) -> dict[str, Any]:
    spec = next(t for t in manifest()["tools"] if t["name"] == tool)
    props = spec["inputSchema"].get("properties", {})
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


class TestMirrorOff:
    """``c.MolspaceGateway.read_mirror = False``: the page is told not to push, every read is relayed."""

    @pytest.fixture
    def jp_server_config(self) -> dict[str, Any]:
        return server_config(gateway={"read_mirror": False})

    async def test_reads_are_relayed(self, mcp_client: Any, connect_page: Any) -> None:
        page = await connect_page("page-1")
        assert page.welcome["mirror"] is False
        sc = sample("observe")
        relaying_page(page, {"observe": (sc, "relayed")})
        await page.send(
            {"type": "reads", "set": [mirrored_entry("observe", {}, sc, "m")], "drop": []}
        )
        async with mcp_client() as client:
            r = await client.call_tool("observe", {})
        assert r.content[0].text == "relayed" and len(page.calls) == 1


def _served_frames(page: Any) -> list[dict[str, Any]]:
    return [f for f in page.frames if f.get("type") == "served"]


async def test_mirrored_reads_are_told_to_the_page_batched_after_their_answers(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    """The person sees mirrored reads too: the page gets them as one ``served`` frame, not as calls."""
    from jsonschema import Draft202012Validator

    page = await connect_page("page-1")
    sc = sample("story_observe")
    args = target_args("story_observe")
    await page.send(
        {
            "type": "reads",
            "set": [mirrored_entry("story_observe", args, sc, "mirrored")],
            "drop": [],
        }
    )
    await wait_for(lambda: len(_mirror(gateway, page)) == 1)
    async with mcp_client() as client:
        first = await client.call_tool("story_observe", args)
        assert first.content[0].text == "mirrored"
        await client.call_tool("story_observe", {**args, "pageId": "page-1"})
        await client.call_tool("story_observe", args)
        await client.call_tool("status", {})  # the gateway's own tool: not a read of the page
        await wait_for(lambda: sum(len(f["reads"]) for f in _served_frames(page)) >= 3)
    assert page.calls == [], "a mirrored read reached the page as a call"
    frames = _served_frames(page)
    schema = Draft202012Validator(manifest()["wire"]["bridge"]["gatewayToPage"])
    for frame in frames:  # one per batch window (how many depends on the machine's speed)
        schema.validate(frame)
        assert frame["dropped"] == 0
    reads = [r for f in frames for r in f["reads"]]
    assert [r["tool"] for r in reads] == ["story_observe"] * 3
    assert [r["args"] for r in reads] == [args, {**args, "pageId": "page-1"}, args]
    client_name = reads[0]["client"]["name"]
    assert isinstance(client_name, str) and client_name
    assert reads[0]["startedAt"] <= reads[1]["startedAt"] <= reads[2]["startedAt"]
    assert all(r["durationMs"] >= 0 for r in reads)


async def test_a_relayed_read_is_not_told_as_served(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("page-1")
    sc = sample("story_observe")
    relaying_page(page, {"story_observe": (sc, "relayed")})
    args = target_args("story_observe")
    async with mcp_client() as client:
        relayed = await client.call_tool("story_observe", args)
    assert relayed.content[0].text == "relayed" and len(page.calls) == 1
    await asyncio.sleep(gateway.manifest.limits["servedReadsBatchMs"] / 1000 * 3)
    assert _served_frames(page) == []


async def test_served_reads_are_bounded_and_stop_with_the_page() -> None:
    """100+ reads a second: one frame per batch, at most ``limit`` reads (newest kept), the rest counted."""
    from molspace.gateway.served_reads import ServedReads

    sent: list[dict[str, Any]] = []
    served = ServedReads(sent.append, batch_ms=20, limit=3)
    for i in range(5):
        served.note("observe", {"i": i}, {"name": "agent", "version": "1"}, 1000.0 + i, 0.5)
    assert sent == [], "nothing is sent while reads are noted"
    await wait_for(lambda: len(sent) == 1)
    assert [r["args"]["i"] for r in sent[0]["reads"]] == [2, 3, 4]
    assert sent[0]["dropped"] == 2
    served.note("observe", {}, None, 2000.0, 0.1)
    served.close()
    await asyncio.sleep(0.06)
    assert len(sent) == 1, "a closed page's reads are not sent"


async def test_a_closed_socket_drops_served_reads_quietly() -> None:
    from molspace.gateway.served_reads import ServedReads

    def closed(frame: dict[str, Any]) -> None:
        raise RuntimeError("socket closed")

    served = ServedReads(closed, batch_ms=10, limit=10)
    served.note("observe", {}, None, 1.0, 0.1)
    served.flush()
    assert len(served) == 0
