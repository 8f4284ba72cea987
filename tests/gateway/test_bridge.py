"""Relaying through the page bridge: a fake page (real websocket client) answers calls."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from gateway_helpers import (
    CALL_TIMEOUT,
    FakePage,
    located_error,
    observe_result,
    server_config,
    wait_for,
)
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect


async def test_observe_is_relayed_to_the_page(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("page-1", widgets=2)
    async with mcp_client() as client:
        result = await client.call_tool("observe", {"limit": 5})
        status = await client.call_tool("status", {})
    assert result.is_error is False
    assert result.structured_content["pageId"] == "page-1"
    assert result.content[0].text == "page page-1: 0 widgets"
    (call,) = page.calls
    assert call["tool"] == "observe"
    assert call["args"] == {"limit": 5}
    assert call["deadlineMs"] == int(CALL_TIMEOUT * 1000)
    # the deadline counts from when the gateway sent the call (server clock), not when the page reads
    # it; the welcome gave the page that clock
    assert page.welcome["serverTime"] <= call["sentAt"] <= time.time() * 1000
    assert call["context"]["pageId"] == "page-1"
    (info,) = call["context"]["pages"]
    assert info["pageId"] == "page-1" and info["focused"] is True and info["widgets"] == 2
    assert info["connectedAt"].endswith("Z") and info["lastFocusAt"].endswith("Z")
    sc = status.structured_content
    assert sc["pageConnected"] is True
    assert sc["widgets"] == 2
    assert [p["pageId"] for p in sc["pages"]] == ["page-1"]


async def test_concurrent_calls_are_matched_by_call_id(mcp_client: Any, connect_page: Any) -> None:
    page = await connect_page("page-1")
    held: list[dict[str, Any]] = []
    both = asyncio.Event()

    def handler(tool: str, args: dict[str, Any], ctx: dict[str, Any]) -> None:
        held.append({"tool": tool, "args": args, "ctx": ctx, "callId": page.calls[-1]["callId"]})
        if len(held) == 2:
            both.set()
        return None

    page.handler = handler

    async def answer_in_reverse() -> None:
        await both.wait()
        for h in reversed(held):
            sc = observe_result("page-1", h["ctx"]["pages"])
            sc["total"] = h["args"]["limit"]
            await page.send(
                {
                    "type": "result",
                    "callId": h["callId"],
                    "ok": True,
                    "structuredContent": sc,
                    "text": "t",
                }
            )

    async with mcp_client() as client:
        answering = asyncio.get_running_loop().create_task(answer_in_reverse())
        r1, r2 = await asyncio.gather(
            client.call_tool("observe", {"limit": 1}), client.call_tool("observe", {"limit": 2})
        )
        await answering
    assert r1.structured_content["total"] == 1
    assert r2.structured_content["total"] == 2


async def test_page_error_is_passed_through(mcp_client: Any, connect_page: Any) -> None:
    await connect_page("page-1")
    async with mcp_client() as client:
        result = await client.call_tool("story_control", {"action": "next", "target": "w1"})
    assert located_error(result) == {
        "code": "NOT_FOUND",
        "message": "fake page has no story_control",
        "where": "/target",
        "fix": "use observe",
        "details": {},
    }
    summary = result.content[0].text.split("\n")[0]
    assert summary == "NOT_FOUND at /target: fake page has no story_control. Fix: use observe"


async def test_non_object_result_is_internal(mcp_client: Any, connect_page: Any) -> None:
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: {"ok": True, "structuredContent": [1, 2], "text": "x"}
    async with mcp_client() as client:
        result = await client.call_tool("observe", {})
    err = located_error(result)
    assert err["code"] == "INTERNAL"
    assert err["where"] == "page-1"


class TestTimeout:
    @pytest.fixture
    def call_timeout(self) -> float:
        return 0.5

    async def test_silent_page_times_out(
        self, mcp_client: Any, connect_page: Any, gateway: Any
    ) -> None:
        assert gateway.pages.call_timeout == 0.5
        page = await connect_page("slow-page")
        page.handler = lambda tool, args, ctx: None  # never answers
        async with mcp_client() as client:
            result = await client.call_tool("observe", {})
        err = located_error(result)
        assert err["code"] == "TIMEOUT"
        assert err["where"] == "slow-page"
        assert (
            "observe" in err["message"]
            and "slow-page" in err["message"]
            and "0.5 s" in err["message"]
        )
        assert err["details"] == {"tool": "observe", "pageId": "slow-page", "timeoutSeconds": 0.5}
        assert "call_timeout" in err["fix"]
        assert page.calls[0]["deadlineMs"] == 500
        assert not gateway.pages.default_page().pending  # nothing left behind


async def test_page_disconnect_fails_the_call_at_once(mcp_client: Any, connect_page: Any) -> None:
    page = await connect_page("leaving-page")
    page.handler = lambda tool, args, ctx: None

    async def leave() -> None:
        await page.call_seen.wait()
        page.close()

    async with mcp_client() as client:
        start = time.monotonic()
        leaving = asyncio.get_running_loop().create_task(leave())
        result = await client.call_tool("observe", {})
        elapsed = time.monotonic() - start
        await leaving
        after = await client.call_tool("observe", {})
    err = located_error(result)
    assert err["code"] == "NO_PAGE"
    assert "page leaving-page disconnected during the call" in err["message"]
    assert elapsed < CALL_TIMEOUT / 2
    assert located_error(after)["code"] == "NO_PAGE"


async def test_routing_follows_most_recent_focus(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    p1 = await connect_page("p1", focused=True)
    p2 = await connect_page("p2", focused=False)
    async with mcp_client() as client:
        r = await client.call_tool("observe", {})
        assert r.structured_content["pageId"] == "p1"  # p2 connected later but never focused
        await p2.send({"type": "focus", "focused": True})
        await wait_for(lambda: gateway.pages.default_page().page_id == "p2")
        await p1.send({"type": "focus", "focused": False})
        r = await client.call_tool("observe", {})
        assert r.structured_content["pageId"] == "p2"
        infos = {p["pageId"]: p for p in r.structured_content["pages"]}
        assert infos["p2"]["focused"] is True and infos["p1"]["focused"] is False
        # An explicit pageId wins over focus.
        r = await client.call_tool("observe", {"pageId": "p1"})
        assert r.structured_content["pageId"] == "p1"
        assert p1.calls[-1]["args"] == {"pageId": "p1"}
        assert p1.calls[-1]["context"]["pageId"] == "p1"
        r = await client.call_tool("observe", {"pageId": "nope"})
    err = located_error(r)
    assert err["code"] == "NOT_FOUND" and err["where"] == "/pageId"
    assert sorted(err["details"]["known"]) == ["p1", "p2"]
    assert "p1" in err["fix"] and "p2" in err["fix"]


async def test_ties_go_to_the_most_recently_connected(mcp_client: Any, connect_page: Any) -> None:
    await connect_page("first", focused=False)
    await connect_page("second", focused=False)
    async with mcp_client() as client:
        r = await client.call_tool("observe", {})
    assert r.structured_content["pageId"] == "second"


async def test_summary_updates_widget_count(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("p1", widgets=0)
    await page.send({"type": "summary", "widgets": 7})
    await wait_for(lambda: gateway.pages.total_widgets() == 7)
    async with mcp_client() as client:
        status = await client.call_tool("status", {})
    assert status.structured_content["widgets"] == 7
    assert status.structured_content["pages"][0]["widgets"] == 7


async def test_reconnect_with_same_page_id_replaces_old(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    old = await connect_page("tab")
    new = await connect_page("tab")
    await asyncio.wait_for(old.closed.wait(), 10)  # the server closed the old socket
    assert old.ws.close_code == 4000
    assert [p.page_id for p in gateway.pages.ordered] == ["tab"]
    async with mcp_client() as client:
        r = await client.call_tool("observe", {})
    assert r.is_error is False
    assert len(new.calls) == 1 and not old.calls


async def test_malformed_frames_are_ignored(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    page = await connect_page("p1")
    for frame in [
        "not json",
        "[1, 2]",
        json.dumps({"type": "bogus"}),
        json.dumps({"type": "focus", "focused": "yes"}),
        json.dumps({"type": "summary", "widgets": -1}),
        json.dumps(
            {"type": "result", "callId": "unknown", "ok": True, "structuredContent": {}, "text": ""}
        ),
        json.dumps({"type": "result", "ok": True}),
        json.dumps(
            {
                "type": "hello",
                "protocol": 1,
                "pageId": "",
                "version": "0",
                "focused": True,
                "widgets": 0,
            }
        ),
    ]:
        await page.send(frame)
    await page.ws.write_message(b"\x00\x01binary", binary=True)
    async with mcp_client() as client:
        r = await client.call_tool("observe", {})
    assert r.is_error is False and r.structured_content["pageId"] == "p1"
    assert [p.page_id for p in gateway.pages.ordered] == ["p1"]
    assert gateway.pages.ordered[0].widgets == 1


async def test_an_ignored_frame_is_logged_in_bounded_size(
    mcp_client: Any, connect_page: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A page sending a huge invalid value does not write it whole into the server log."""
    page = await connect_page("p1")
    huge = "x" * 200_000
    with caplog.at_level(logging.WARNING):
        await page.send(
            {
                "type": "hello",
                "protocol": 1,
                "pageId": huge,
                "version": "0",
                "focused": True,
                "widgets": 0,
            }
        )
        await page.send({"type": "summary", "widgets": huge})
        async with mcp_client() as client:  # the frames were handled before this call is answered
            assert (await client.call_tool("observe", {})).is_error is False
    ignored = [r.getMessage() for r in caplog.records if "ignored frame" in r.getMessage()]
    assert len(ignored) == 2, ignored
    assert all(len(m) < 1000 for m in ignored), [len(m) for m in ignored]


async def test_frames_before_hello_are_ignored_and_bad_protocol_closes(
    bridge_url: str, token: str, gateway: Any
) -> None:
    ws = await websocket_connect(HTTPRequest(f"{bridge_url}?token={quote(token)}"))
    await ws.write_message(json.dumps({"type": "focus", "focused": True}))
    await ws.write_message(
        json.dumps(
            {
                "type": "hello",
                "protocol": 99,
                "pageId": "p",
                "version": "0",
                "focused": True,
                "widgets": 0,
            }
        )
    )
    assert await asyncio.wait_for(ws.read_message(), 10) is None
    assert ws.close_code == 4001
    assert "protocol" in (ws.close_reason or "")
    assert gateway.pages.ordered == []


async def test_bridge_refuses_unauthenticated(bridge_url: str) -> None:
    with pytest.raises(HTTPClientError) as missing:
        await websocket_connect(HTTPRequest(bridge_url))
    assert missing.value.code == 403
    with pytest.raises(HTTPClientError) as wrong:
        await websocket_connect(HTTPRequest(f"{bridge_url}?token=wrong"))
    assert wrong.value.code == 403


async def test_bridge_accepts_authorization_header(
    bridge_url: str, token: str, gateway: Any
) -> None:
    ws = await websocket_connect(
        HTTPRequest(bridge_url, headers={"Authorization": f"token {token}"})
    )
    await ws.write_message(
        json.dumps(
            {
                "type": "hello",
                "protocol": 1,
                "pageId": "hdr",
                "version": "0",
                "focused": False,
                "widgets": 0,
            }
        )
    )
    welcome = json.loads(await asyncio.wait_for(ws.read_message(), 10))
    assert abs(welcome.pop("serverTime") - time.time() * 1000) < 60_000
    assert welcome == {"type": "welcome", "pageId": "hdr", "mirror": True}
    ws.close()
    await wait_for(lambda: gateway.pages.ordered == [])


class TestUserBaseUrl:
    @pytest.fixture
    def jp_base_url(self) -> str:
        return "/user/alice/"

    async def test_mcp_and_bridge_under_base_url(
        self,
        mcp_client: Any,
        connect_page: Any,
        mcp_url: str,
        bridge_url: str,
        jp_http_port: int,
        token: str,
    ) -> None:
        assert mcp_url.endswith("/user/alice/molspace/mcp")
        assert "/user/alice/molspace/bridge" in bridge_url
        await connect_page("alice-tab")
        async with mcp_client() as client:
            status = await client.call_tool("status", {})
            r = await client.call_tool("observe", {})
        assert status.structured_content["endpoint"] == "/user/alice/molspace/mcp"
        assert (
            f"http://127.0.0.1:{jp_http_port}/user/alice/lab"
            in status.structured_content["howToConnect"]
        )
        assert r.structured_content["pageId"] == "alice-tab"
        assert r.structured_content == observe_result("alice-tab", r.structured_content["pages"])
        # Nothing is served outside base_url.
        with pytest.raises(HTTPClientError) as outside:
            await websocket_connect(
                HTTPRequest(f"ws://127.0.0.1:{jp_http_port}/molspace/bridge?token={quote(token)}")
            )
        assert outside.value.code == 404


async def test_page_result_off_its_output_schema_is_not_relayed(
    mcp_client: Any, connect_page: Any
) -> None:
    """Clients throw on structuredContent that breaks the listed outputSchema: the gateway checks first."""
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: {
        "ok": True,
        "structuredContent": {"pageId": "page-1"},
        "text": "x",
    }
    async with mcp_client() as client:
        result = await client.call_tool("observe", {})
    err = located_error(result)
    assert err["code"] == "INTERNAL"
    assert err["where"] == "page-1"
    assert "output schema" in err["message"] and "Reload" in err["fix"]
    assert err["details"]["tool"] == "observe"


async def test_unexpected_failure_does_not_echo_exception_text(
    mcp_client: Any, connect_page: Any, gateway: Any, monkeypatch: Any, caplog: Any
) -> None:
    await connect_page("page-1")

    async def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret detail /home/alice/.jupyter/token")

    monkeypatch.setattr(gateway.pages, "call", explode)
    async with mcp_client() as client:
        result = await client.call_tool("observe", {})
    err = located_error(result)
    assert err["code"] == "INTERNAL"
    assert "secret" not in result.content[0].text
    incident = err["details"]["incident"]
    assert incident in err["fix"]
    assert any(
        incident in r.getMessage() for r in caplog.records
    )  # the server log has it, with the trace


class TestPagesBelongToUsers:
    @pytest.fixture
    def jp_server_config(self) -> dict[str, Any]:
        return server_config({"identity_provider_class": "gateway_helpers.TwoUserIdentityProvider"})

    async def connect_as(self, bridge_url: str, token: str, page_id: str) -> FakePage:
        ws = await websocket_connect(HTTPRequest(f"{bridge_url}?token={token}"))
        page = FakePage(ws, page_id)
        return page

    async def test_another_user_cannot_take_over_a_page_id(
        self, bridge_url: str, gateway: Any
    ) -> None:
        alice = await self.connect_as(bridge_url, "alice-secret", "tab-1")
        await alice.hello()
        bob = await self.connect_as(bridge_url, "bob-secret", "tab-1")
        await bob.send(
            {
                "type": "hello",
                "protocol": 1,
                "pageId": "tab-1",
                "version": "0.1.0",
                "focused": True,
                "widgets": 0,
            }
        )
        assert await asyncio.wait_for(bob.ws.read_message(), 10) is None  # closed, no welcome
        assert bob.ws.close_code == 4003
        assert "another user" in (bob.ws.close_reason or "")
        assert [p.page_id for p in gateway.pages.ordered] == ["tab-1"]
        assert gateway.pages.ordered[0].owner == "user:alice"
        assert not alice.closed.is_set()
        alice.close()

    async def test_the_same_user_reconnects_under_its_page_id(
        self, bridge_url: str, gateway: Any
    ) -> None:
        first = await self.connect_as(bridge_url, "alice-secret", "tab-1")
        await first.hello()
        second = await self.connect_as(bridge_url, "alice-secret", "tab-1")
        await second.hello()
        await asyncio.wait_for(first.closed.wait(), 10)
        assert first.ws.close_code == 4000
        second.close()


def _story_control_page(outputs: dict[str, Any], calls: list[dict[str, Any]]) -> Any:
    def handler(tool: str, args: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        if args.get("action") == "previous":
            return {
                "ok": False,
                "error": {
                    "code": "REVISION_CONFLICT",
                    "message": "moved",
                    "where": "/expectedRevision",
                    "fix": "retry",
                    "details": {},
                },
            }
        return {"ok": True, "structuredContent": outputs["story_control"], "text": "next: step 2"}

    return handler


async def test_retried_action_id_is_replayed_across_a_page_reload(
    mcp_client: Any, connect_page: Any
) -> None:
    from test_clients import OUTPUTS

    calls: list[dict[str, Any]] = []
    page = await connect_page("tab")
    page.handler = _story_control_page(OUTPUTS, calls)
    args = {"action": "next", "target": "w1", "actionId": "a-1"}
    async with mcp_client() as client:
        first = await client.call_tool("story_control", args)
        page.close()  # the tab reloads: its Dispatcher forgets its own replay memory
        reloaded = await connect_page("tab")
        reloaded.handler = _story_control_page(OUTPUTS, calls)
        again = await client.call_tool("story_control", dict(reversed(list(args.items()))))
        other = await client.call_tool("story_control", {**args, "action": "pause"})
        failed = await client.call_tool("story_control", {"action": "previous", "actionId": "a-2"})
        retried = await client.call_tool("story_control", {"action": "previous", "actionId": "a-2"})
    assert first.is_error is False and first.structured_content["replayed"] is False
    assert again.is_error is False and again.structured_content["replayed"] is True
    assert "not applied again" in again.content[0].text
    assert [c["action"] for c in calls] == ["next", "previous", "previous"]  # next applied once
    err = located_error(other)
    assert err["code"] == "INVALID_INPUT" and err["where"] == "/actionId"
    assert located_error(failed)["code"] == "REVISION_CONFLICT"
    assert located_error(retried)["code"] == "REVISION_CONFLICT"  # a failed call is not remembered


async def test_a_pending_answer_is_a_success_and_not_replayed(
    mcp_client: Any, connect_page: Any
) -> None:
    """Waiting for the person is ``status: "pending"`` (not isError); a retried actionId asks the page again."""
    from test_clients import OUTPUTS

    calls: list[dict[str, Any]] = []
    answers = iter(["pending", "pending", "done"])

    def handler(tool: str, args: dict[str, Any], ctx: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        status = next(answers)
        extra = (
            {"retryAfterMs": 5000, "waitingFor": "The person to press Save or Refuse."}
            if status == "pending"
            else {}
        )
        structured = {
            **OUTPUTS["ketcher_control"],
            "action": "request_persist",
            "status": status,
            **extra,
        }
        for key in ("value", "format", "bytes"):
            structured.pop(key)
        return {"ok": True, "structuredContent": structured, "text": f"request_persist: {status}"}

    page = await connect_page("tab")
    page.handler = handler
    args = {"action": "request_persist", "path": "a.mol", "actionId": "save-1", "waitMs": 1000}
    async with mcp_client() as client:
        first = await client.call_tool("ketcher_control", args)
        second = await client.call_tool("ketcher_control", args)
        third = await client.call_tool("ketcher_control", args)
        fourth = await client.call_tool("ketcher_control", args)
    assert first.is_error is False and first.structured_content["status"] == "pending"
    assert first.structured_content["retryAfterMs"] == 5000
    assert second.is_error is False and second.structured_content["status"] == "pending"
    assert third.structured_content == {
        **third.structured_content,
        "status": "done",
        "replayed": False,
    }
    assert fourth.structured_content["replayed"] is True  # the final answer is remembered
    assert len(calls) == 3 and calls[0]["waitMs"] == 1000


async def test_wait_ms_is_bounded_by_limits(mcp_client: Any, connect_page: Any) -> None:
    from molspace.contract import LIMITS

    page = await connect_page("tab")
    async with mcp_client() as client:
        over = await client.call_tool(
            "ketcher_control",
            {"action": "request_persist", "path": "a.mol", "waitMs": LIMITS["personWaitMs"] + 1},
        )
    err = located_error(over)
    assert err["code"] == "INVALID_INPUT" and err["where"] == "/waitMs"
    assert page.calls == []


async def test_a_frame_over_tornados_default_size_keeps_the_bridge_up(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    """Tornado closes sockets on frames over 10 MiB by default; the contract allows bridgeFrameBytes."""
    limit = gateway.manifest.limits["bridgeFrameBytes"]
    assert limit > 10 * 1024 * 1024
    page = await connect_page("p1")
    big = json.dumps(
        {
            "type": "result",
            "callId": "late",
            "ok": True,
            "structuredContent": {},
            "text": "x" * (11 * 1024 * 1024),
        }
    )
    await page.send(big)
    async with mcp_client() as client:
        r = await client.call_tool("observe", {})
    assert r.is_error is False  # the same socket still answers
    assert page.ws.close_code is None and not page.closed.is_set()


async def test_calls_name_the_mcp_client_for_the_activity_panel(
    mcp_client: Any, connect_page: Any
) -> None:
    page = await connect_page("p1")
    async with mcp_client() as client:
        await client.call_tool("observe", {})
    sent = page.calls[-1]["context"]["client"]
    assert isinstance(sent["name"], str) and sent["name"]
    assert set(sent) == {"name", "version"}


#: A valid ``act`` result, as a page sends it.
ACT_SAMPLE = json.loads(
    (
        Path(__file__).resolve().parents[1] / "fixtures" / "contract" / "tool-outputs.json"
    ).read_text()
)["act"]


async def test_page_images_become_mcp_image_content(mcp_client: Any, connect_page: Any) -> None:
    """A page answer's ``images`` (an ``act`` screenshot) reach the agent as MCP image content after the text."""
    sample = ACT_SAMPLE
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n-test-").decode()
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: {
        "ok": True,
        "structuredContent": sample,
        "text": "screenshot taken",
        "images": [{"mimeType": "image/png", "data": png}],
    }
    async with mcp_client() as client:
        result = await client.call_tool("act", {"actions": [{"op": "screenshot"}]})
    assert result.is_error is False
    text, image = result.content
    assert text.type == "text" and text.text == "screenshot taken"
    assert image.type == "image" and image.mime_type == "image/png" and image.data == png
    assert result.structured_content == sample


async def test_a_page_answer_with_a_malformed_image_is_refused(
    mcp_client: Any, connect_page: Any
) -> None:
    sample = ACT_SAMPLE
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: {
        "ok": True,
        "structuredContent": sample,
        "text": "x",
        "images": [{"mimeType": "image/gif", "data": "R0lG"}],
    }
    async with mcp_client() as client:
        result = await client.call_tool("act", {"actions": [{"op": "screenshot"}]})
    assert located_error(result)["code"] == "INTERNAL"


async def test_status_lists_a_bounded_number_of_pages(
    mcp_client: Any, connect_page: Any, gateway: Any
) -> None:
    """``status`` with many pages stays within the observe budget: the default page first, then
    the most recently focused, at most ``statusPagesListed``; ``pageCount`` and the text say how many."""
    listed = gateway.manifest.limits["statusPagesListed"]
    n = listed + 5
    for i in range(n):
        await connect_page(f"p{i:03d}-" + "x" * 120, focused=False, widgets=200)
    async with mcp_client() as client:
        status = await client.call_tool("status", {})
    assert status.is_error is False
    sc = status.structured_content
    assert sc["pageCount"] == n
    assert len(sc["pages"]) == listed
    assert sc["widgets"] == 200 * n
    assert len(json.dumps(sc).encode()) <= gateway.manifest.limits["observeOutputBytes"]
    text = status.content[0].text
    assert f"{n} page(s) connected" in text and "5 more" in text
    assert len(text.encode()) <= gateway.manifest.limits["observeOutputBytes"]


async def test_a_page_text_cut_inside_a_character_reaches_the_agent(
    mcp_client: Any, connect_page: Any
) -> None:
    """JSON lets a page send half of an emoji (a lone surrogate); UTF-8, the reply's encoding, does
    not: the gateway answers with U+FFFD in its place instead of an empty body."""
    page = await connect_page("page-1")
    half = "🧬" * 3 + "\ud83e"  # json.dumps writes it as the escape \\ud83e, as JSON.stringify does

    def answer(tool: str, args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": False,
            "error": {
                "code": "NOT_FOUND",
                "message": half,
                "where": "/target",
                "fix": "use observe",
                "details": {},
            },
        }

    page.handler = answer
    async with mcp_client() as client:
        result = await client.call_tool("story_control", {"action": "next", "target": "w1"})
    err = located_error(result)
    assert err["message"] == "🧬" * 3 + "\ufffd"
