"""The MCP endpoint with the official SDK client over real TCP: tools, status, auth, Origin."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.parse
from typing import Any

import httpx2
import pytest
from gateway_helpers import http_refusal, located_error, server_config
from mcp.shared.exceptions import MCPError

from molspace.gateway._entry import _jupyter_server_extension_points
from molspace.gateway.app import MolspaceGateway
from molspace.gateway.manifest import DEFAULT_MANIFEST_PATH

MANIFEST = json.loads(DEFAULT_MANIFEST_PATH.read_text(encoding="utf-8"))
MANIFEST_TOOLS = {t["name"]: t for t in MANIFEST["tools"]}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def raw_post(url: str, headers: dict[str, str]) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=10) as client:
        return await client.post(url, headers={**MCP_HEADERS, **headers}, json=INIT)


async def test_entry_points_and_server_config() -> None:
    assert _jupyter_server_extension_points() == [{"module": "molspace", "app": MolspaceGateway}]
    from pathlib import Path

    cfg = Path(__file__).resolve().parents[2] / "jupyter-config" / "server-config" / "molspace.json"
    assert json.loads(cfg.read_text()) == {"ServerApp": {"jpserver_extensions": {"molspace": True}}}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_status_without_page(
    mcp_client: Any, server_root: str, jp_base_url: str, mode: str
) -> None:
    async with mcp_client(mode) as client:
        result = await client.call_tool("status", {})
    assert result.is_error is False
    sc = result.structured_content
    assert sc["pageConnected"] is False
    assert sc["pages"] == [] and sc["widgets"] == 0
    assert sc["versions"] == MANIFEST["versions"]
    assert sc["endpoint"] == f"{jp_base_url}molspace/mcp"
    assert f"{server_root}lab" in sc["howToConnect"]
    assert "molspace widget" in sc["howToConnect"]
    assert "no JupyterLab page connected" in result.content[0].text


#: Each bundled library ``status`` names, and the package it is read from at build time.
BUNDLED = {
    "molstar": "molstar",
    "ketcher": "ketcher-core",
    "ketcherReact": "ketcher-react",
    "indigo": "indigo-ketcher",
    "vegaLite": "vega-lite",
    "jupyterlab": "@jupyterlab/application",
}


async def test_status_names_every_bundled_library_version(mcp_client: Any) -> None:
    from pathlib import Path

    node_modules = Path(__file__).resolve().parents[2] / "node_modules"
    async with mcp_client() as client:
        result = await client.call_tool("status", {})
    versions = result.structured_content["versions"]
    for field, package in BUNDLED.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+\S*", versions[field] or ""), (
            field,
            versions.get(field),
        )
        package_json = node_modules / package / "package.json"
        if package_json.exists():  # a checkout with its build tree: the very version built
            assert (
                versions[field] == json.loads(package_json.read_text(encoding="utf-8"))["version"]
            ), field
    text = result.content[0].text
    assert f"Ketcher {versions['ketcher']}" in text and f"Indigo {versions['indigo']}" in text


async def test_observe_without_page_fails_at_once(mcp_client: Any, server_root: str) -> None:
    async with mcp_client() as client:
        start = time.monotonic()
        result = await client.call_tool("observe", {})
        elapsed = time.monotonic() - start
    err = located_error(result)
    assert err["code"] == "NO_PAGE"
    assert f"{server_root}lab" in err["fix"]
    assert elapsed < 5  # not the 10 s call deadline
    assert result.content[0].text.startswith("NO_PAGE: ")


@pytest.mark.parametrize(
    ("tool", "args", "where"),
    [
        ("story_control", {}, "/action"),
        ("story_control", {"action": "jump"}, "/action"),
        ("story_control", {"action": "goto", "index": -1}, "/index"),
        ("observe", {"bogus": 1}, "/bogus"),
        ("observe", {"limit": "ten"}, "/limit"),
        ("status", {"x": 1}, "/x"),
    ],
)
async def test_invalid_arguments_are_located(
    mcp_client: Any, tool: str, args: dict, where: str
) -> None:
    async with mcp_client() as client:
        result = await client.call_tool(tool, args)
    err = located_error(result)
    assert err["code"] == "INVALID_INPUT"
    assert err["where"] == where
    assert err["fix"] and err["message"]
    assert err["details"]["errors"][0]["where"] == where


@pytest.mark.parametrize(
    ("tool", "args", "where", "tag", "value", "allowed", "said"),
    [
        # a wrong field inside the second operation: that operation's index, tag and own fields
        (
            "act",
            {
                "actions": [
                    {"op": "focus", "selector": "ligand"},
                    {"op": "set_color", "selector": "ligand", "colr": "#ff0000"},
                ]
            },
            "/actions/1/color",
            "op",
            "set_color",
            ["color", "op", "selector"],
            ['missing required field "color"', 'unknown field "colr"'],
        ),
        (
            "act",
            {"actions": [{"op": "focus", "selector": "ligand", "colour": "red"}]},
            "/actions/0/colour",
            "op",
            "focus",
            ["op", "selector"],
            ['unknown field "colour"'],
        ),
        (
            "act",
            {"actions": [{"op": "set_transparency", "selector": "ligand", "value": 3}]},
            "/actions/0/value",
            "op",
            "set_transparency",
            ["op", "selector", "value"],
            ["must be at most 1 (got 3)"],
        ),
        # the same for any tagged union: panel content by `type`
        (
            "render_panel",
            {"content": {"type": "markdown", "markdown": "x", "rows": []}},
            "/content/rows",
            "type",
            "markdown",
            ["markdown", "type"],
            ['unknown field "rows"'],
        ),
    ],
)
async def test_bad_field_inside_a_tagged_union_names_the_item(
    mcp_client: Any,
    tool: str,
    args: dict,
    where: str,
    tag: str,
    value: str,
    allowed: list[str],
    said: list[str],
) -> None:
    """A bad field inside an ``act`` operation (or any ``op``/``type``/``action`` union item) names the
    item's index, the field and that item's own allowed fields, with values as JSON (never a Python repr)."""
    async with mcp_client() as client:
        await client.list_tools()
        result = await client.call_tool(tool, args)
    err = located_error(result)
    assert err["code"] == "INVALID_INPUT" and err["where"] == where
    assert (
        err["details"]["tag"] == tag
        and err["details"]["tagValue"] == value
        and err["details"]["allowed"] == allowed
    )
    item = err["details"]["item"]
    assert where.startswith(item + "/")
    for s in said:
        assert s in err["message"]
    assert (
        f'{tag} "{value}"' in err["message"] and f"takes only: {', '.join(allowed)}" in err["fix"]
    )
    if "/actions/" in where:
        assert f"item {where.split('/')[2]} of /actions" in err["message"]
    top = sorted(MANIFEST_TOOLS[tool]["inputSchema"]["properties"])
    assert ", ".join(top) not in err["fix"]  # not the tool's top-level fields
    for text in (err["message"], err["fix"], json.dumps(err["details"])):
        assert "{'" not in text and "is not valid under any of the given schemas" not in text


async def test_unknown_tag_value_lists_the_known_ones(mcp_client: Any) -> None:
    async with mcp_client() as client:
        result = await client.call_tool(
            "act", {"actions": [{"op": "focus", "selector": "ligand"}, {"op": "zoom"}]}
        )
    err = located_error(result)
    assert err["code"] == "INVALID_INPUT" and err["where"] == "/actions/1/op"
    assert '"zoom"' in err["message"] and err["details"]["tagValue"] == "zoom"
    assert (
        '"focus"' in err["fix"]
        and '"set_color"' in err["fix"]
        and "focus" in err["details"]["tagValues"]
    )


async def test_messages_quote_values_as_json_not_python(mcp_client: Any) -> None:
    """jsonschema's own messages are Python reprs (``'x' is too long``, the whole 70 kB value): never sent."""
    async with mcp_client() as client:
        result = await client.call_tool("observe", {"limit": "ten"})
    err = located_error(result)
    assert err["message"].endswith("must be integer (got string)."), err["message"]
    assert "'ten'" not in err["message"]


async def test_unknown_tool_is_not_found(mcp_client: Any) -> None:
    async with mcp_client() as client:
        result = await client.call_tool("teleport", {})
    err = located_error(result)
    assert err["code"] == "NOT_FOUND"
    assert err["where"] == "/name"
    assert "status" in err["fix"]


async def test_missing_token_is_refused(mcp_url: str) -> None:
    r = await raw_post(mcp_url, {})
    assert r.status_code == 403
    assert "mcp-session-id" not in r.headers


async def test_wrong_token_is_refused(mcp_url: str) -> None:
    r = await raw_post(mcp_url, {"Authorization": "token not-the-token"})
    assert r.status_code == 403
    assert "mcp-session-id" not in r.headers


async def test_foreign_origin_is_refused(mcp_url: str, token: str) -> None:
    r = await raw_post(
        mcp_url, {"Authorization": f"token {token}", "Origin": "https://evil.example"}
    )
    assert r.status_code == 403
    body = http_refusal(r)
    assert body["code"] == "FORBIDDEN"
    assert body["where"] == "https://evil.example"
    assert "allow_origin" in body["fix"]
    assert "mcp-session-id" not in r.headers


async def test_same_origin_is_allowed(mcp_url: str, token: str, jp_http_port: int) -> None:
    r = await raw_post(
        mcp_url, {"Authorization": f"token {token}", "Origin": f"http://127.0.0.1:{jp_http_port}"}
    )
    assert r.status_code == 200
    assert r.headers["mcp-session-id"]
    r = await raw_post(
        mcp_url, {"Authorization": f"token {token}", "Origin": f"http://localhost:{jp_http_port}"}
    )
    assert r.status_code == 200  # a local_hostnames name at the server's own port


async def test_same_host_other_port_is_refused(mcp_url: str, token: str, jp_http_port: int) -> None:
    r = await raw_post(
        mcp_url,
        {"Authorization": f"token {token}", "Origin": f"http://127.0.0.1:{jp_http_port + 1}"},
    )
    assert r.status_code == 403


class TestAllowOriginPat:
    @pytest.fixture
    def jp_server_config(self) -> dict[str, Any]:
        return server_config({"allow_origin_pat": r"https://([a-z]+\.)?trusted\.example"})

    async def test_pattern_origin_is_allowed(self, mcp_url: str, token: str) -> None:
        ok = await raw_post(
            mcp_url, {"Authorization": f"token {token}", "Origin": "https://lab.trusted.example"}
        )
        assert ok.status_code == 200
        bad = await raw_post(
            mcp_url,
            {"Authorization": f"token {token}", "Origin": "https://trusted.example.evil.example"},
        )
        assert bad.status_code == 403

    async def test_preflight_allows_mcp_headers(self, mcp_url: str) -> None:
        async with httpx2.AsyncClient(timeout=10) as client:
            ok = await client.options(
                mcp_url,
                headers={
                    "Origin": "https://lab.trusted.example",
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization, content-type, mcp-session-id",
                },
            )
            bad = await client.options(
                mcp_url,
                headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
            )
        assert ok.status_code in (200, 204)
        assert ok.headers["access-control-allow-origin"] == "https://lab.trusted.example"
        assert "mcp-session-id" in ok.headers["access-control-allow-headers"]
        assert "mcp-session-id" in ok.headers["access-control-expose-headers"]
        assert bad.status_code == 403


async def test_session_lifecycle_over_raw_http(mcp_url: str, token: str) -> None:
    auth = {"Authorization": f"token {token}"}
    opened = await raw_post(mcp_url, auth)
    assert opened.status_code == 200
    assert opened.headers["content-type"].startswith("text/event-stream")
    assert '"instructions"' in opened.text
    session = opened.headers["mcp-session-id"]
    async with httpx2.AsyncClient(timeout=10) as client:
        deleted = await client.delete(mcp_url, headers={**auth, "mcp-session-id": session})
        gone = await client.post(
            mcp_url,
            headers={
                **MCP_HEADERS,
                **auth,
                "mcp-session-id": session,
                "mcp-protocol-version": "2025-11-25",
            },
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        )
    assert deleted.status_code == 200
    assert gone.status_code == 404


async def test_sessions_are_separate(mcp_client: Any) -> None:
    async with mcp_client() as a, mcp_client() as b:
        ra = await a.call_tool("status", {})
        rb = await b.call_tool("status", {})
        assert ra.structured_content == rb.structured_content
        assert a.session is not b.session


async def test_session_manager_lives_with_the_server(mcp_client: Any, gateway: Any) -> None:
    async with mcp_client() as client:
        await client.call_tool("status", {})
    task = gateway.session_host.task
    assert task is not None and not task.done()  # run() context held open between requests
    await gateway.stop_extension()  # what ServerApp cleanup calls at shutdown
    assert task.done()
    assert gateway.session_host.manager._task_group is None


class TestRemoteAccess:
    """``allow_remote_access`` (Binder, hubs, containers) turns Jupyter's own Host check off."""

    @pytest.fixture
    def jp_server_config(self) -> dict[str, Any]:
        return server_config({"allow_remote_access": True}, {"allowed_hosts": ["lab.example.org"]})

    async def test_rebinding_page_is_refused_even_when_origin_equals_host(
        self, mcp_url: str, token: str, jp_http_port: int
    ) -> None:
        """A DNS-rebinding page reaches the server under its own name: Origin equals Host, both foreign."""
        rebinding = f"evil.example:{jp_http_port}"
        r = await raw_post(
            mcp_url,
            {"Authorization": f"token {token}", "Host": rebinding, "Origin": f"http://{rebinding}"},
        )
        assert r.status_code == 403
        assert http_refusal(r)["where"] == "Host" and "allowed_hosts" in http_refusal(r)["fix"]

    async def test_a_configured_public_name_passes(self, mcp_url: str, token: str) -> None:
        r = await raw_post(
            mcp_url,
            {
                "Authorization": f"token {token}",
                "Host": "lab.example.org",
                "Origin": "https://lab.example.org",
            },
        )
        assert r.status_code == 200

    async def test_clients_without_origin_pass_under_any_host(
        self, mcp_url: str, token: str
    ) -> None:
        r = await raw_post(mcp_url, {"Authorization": f"token {token}", "Host": "anything.example"})
        assert r.status_code == 200


async def test_foreign_host_is_refused_by_jupyter_itself(
    mcp_url: str, token: str, jp_http_port: int
) -> None:
    rebinding = f"evil.example:{jp_http_port}"
    r = await raw_post(
        mcp_url,
        {"Authorization": f"token {token}", "Host": rebinding, "Origin": f"http://{rebinding}"},
    )
    assert r.status_code == 403


@pytest.mark.parametrize(
    "origin",
    ["null", "http://", "not a url", "http://xn--e1afmkfd.example", "http://\u00e9vil.example", ""],
)
async def test_odd_origins_are_refused(mcp_url: str, token: str, origin: str) -> None:
    async with httpx2.AsyncClient(timeout=10) as client:
        r = await client.post(
            mcp_url,
            headers=[
                (b"Authorization", f"token {token}".encode()),
                (b"Origin", origin.encode("utf-8")),
                *((k.encode(), v.encode()) for k, v in MCP_HEADERS.items()),
            ],
            json=INIT,
        )
    assert r.status_code == 403
    assert http_refusal(r)["code"] == "FORBIDDEN"


@pytest.mark.parametrize(
    "form", ["{o}/", "{o}/lab", "{o}?x=1", "{o}#f", "http://user@{h}", "ftp://{h}", "ws://{h}"]
)
async def test_origins_that_are_not_an_origin_are_refused(
    mcp_url: str, token: str, jp_http_port: int, form: str
) -> None:
    """An Origin with a path, query, fragment, userinfo or another scheme is malformed, even naming this server."""
    host = f"127.0.0.1:{jp_http_port}"
    origin = form.format(o=f"http://{host}", h=host)
    r = await raw_post(mcp_url, {"Authorization": f"token {token}", "Origin": origin})
    assert r.status_code == 403, origin
    assert http_refusal(r)["code"] == "FORBIDDEN"
    # the same server's real origin passes
    ok = await raw_post(mcp_url, {"Authorization": f"token {token}", "Origin": f"http://{host}"})
    assert ok.status_code == 200


async def test_two_origin_headers_are_refused(mcp_url: str, token: str, jp_http_port: int) -> None:
    own = f"http://127.0.0.1:{jp_http_port}"
    async with httpx2.AsyncClient(timeout=10) as client:
        r = await client.post(
            mcp_url,
            headers=[
                ("Authorization", f"token {token}"),
                ("Origin", own),
                ("Origin", "http://evil.example"),
                *MCP_HEADERS.items(),
            ],
            json=INIT,
        )
    assert r.status_code == 403


class TestAllowOriginExactAndStar:
    @pytest.fixture(params=["https://app.example.com", "*"])
    def allow_origin(self, request: Any) -> str:
        return request.param

    @pytest.fixture
    def jp_server_config(self, allow_origin: str) -> dict[str, Any]:
        # allow_remote_access: so that the Host check below is molspace's, not Jupyter's.
        return server_config({"allow_origin": allow_origin, "allow_remote_access": True})

    async def test_allow_origin(self, mcp_url: str, token: str, allow_origin: str) -> None:
        ok = await raw_post(
            mcp_url, {"Authorization": f"token {token}", "Origin": "https://app.example.com"}
        )
        assert ok.status_code == 200
        other = await raw_post(
            mcp_url, {"Authorization": f"token {token}", "Origin": "https://other.example.com"}
        )
        assert other.status_code == (200 if allow_origin == "*" else 403)

    @pytest.mark.parametrize("allow_origin", ["*"])
    async def test_star_does_not_open_a_foreign_host(
        self, mcp_url: str, token: str, allow_origin: str
    ) -> None:
        rebinding = await raw_post(
            mcp_url,
            {
                "Authorization": f"token {token}",
                "Host": "evil.example",
                "Origin": "https://app.example.com",
            },
        )
        assert rebinding.status_code == 403
        assert http_refusal(rebinding)["where"] == "Host"


async def test_unknown_session_id_is_404(mcp_url: str, token: str) -> None:
    async with httpx2.AsyncClient(timeout=10) as client:
        r = await client.post(
            mcp_url,
            headers={
                **MCP_HEADERS,
                "Authorization": f"token {token}",
                "mcp-session-id": "not-a-session",
                "mcp-protocol-version": "2025-11-25",
            },
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        )
    assert r.status_code == 404


async def test_session_id_after_delete_is_404_and_bodies_at_the_limit_pass(
    mcp_url: str, token: str, gateway: Any
) -> None:
    """A session ended with DELETE is gone (404), also for its GET stream; a body of exactly
    ``max_request_bytes`` is read, one byte more is 413, chunked or not."""
    auth = {**MCP_HEADERS, "Authorization": f"token {token}"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    async with httpx2.AsyncClient(timeout=10) as client:
        r = await client.post(mcp_url, headers=auth, json=init)
        session = {
            "mcp-session-id": r.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-06-18",
        }
        assert (await client.delete(mcp_url, headers={**auth, **session})).status_code == 200
        r = await client.post(
            mcp_url, headers={**auth, **session}, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}
        )
        assert r.status_code == 404
        r = await client.get(mcp_url, headers={**auth, **session, "Accept": "text/event-stream"})
        assert r.status_code == 404
        limit = gateway.max_request_bytes
        for size, chunked, status in [
            (limit, False, 400),
            (limit + 1, False, 413),
            (limit + 1, True, 413),
        ]:
            head = '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"'
            body = (head + "x" * (size - len(head) - 3) + '"}}').encode()
            assert len(body) == size

            async def chunks(data: bytes = body) -> Any:
                for i in range(0, len(data), 65536):
                    yield data[i : i + 65536]

            r = await client.post(
                mcp_url,
                headers={**auth, "Content-Type": "application/json"},
                content=chunks() if chunked else body,
            )
            # 400: read, then refused by the SDK for having no session; 413: refused for its size
            assert r.status_code == status, (size, chunked, r.text[:200])


async def test_request_body_over_the_limit_is_413_too_large(
    mcp_client: Any, mcp_url: str, token: str
) -> None:
    big = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "status", "arguments": {"pad": "x" * (1024 * 1024)}},
    }
    async with httpx2.AsyncClient(timeout=20) as client:
        r = await client.post(
            mcp_url, headers={**MCP_HEADERS, "Authorization": f"token {token}"}, json=big
        )
    assert r.status_code == 413
    body = http_refusal(r)
    assert body["code"] == "TOO_LARGE" and body["details"]["limit"] == 1024 * 1024
    assert "max_request_bytes" in body["fix"]
    async with mcp_client() as c:  # the endpoint still serves
        assert (await c.call_tool("status", {})).is_error is False


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("size", [2 * 2**20, 12 * 2**20])
async def test_an_sdk_client_reads_the_located_too_large(
    mcp_client: Any, gateway: Any, mode: str, size: int
) -> None:
    """The official SDK hands its caller the located TOO_LARGE (a JSON-RPC error in the 413's body),
    not a transport error, for a body a little or far over the limit; the session goes on."""
    async with mcp_client(mode=mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("status", {"pad": "x" * size})
        error = refused.value.error
        assert error.code == -32600, error
        assert error.message.startswith("TOO_LARGE at body: The MCP request body is "), (
            error.message
        )
        assert "max_request_bytes" in error.message
        located = error.data
        assert located["code"] == "TOO_LARGE" and located["where"] == "body", located
        assert located["details"]["limit"] == gateway.max_request_bytes
        assert located["details"]["bytes"] > size
        assert (await client.call_tool("status", {})).is_error is False


async def test_a_declared_body_over_the_limit_is_refused_before_it_is_sent(
    mcp_url: str, token: str, gateway: Any
) -> None:
    """A Content-Length over ``max_request_bytes`` is answered 413 TOO_LARGE from the headers alone:
    the client sends no body at all, so the gateway never reads (or buffers) it."""
    url = urllib.parse.urlsplit(mcp_url)
    declared = 100 * gateway.max_request_bytes
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        writer.write(
            (
                f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: token {token}\r\n"
                f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                f"Content-Length: {declared}\r\n\r\n"
            ).encode()
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=10)
        status_line = head.split(b"\r\n", 1)[0].decode()
        assert " 413 " in status_line, head[:300]
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
        envelope = json.loads(await asyncio.wait_for(reader.readexactly(length), timeout=10))
        body = envelope["error"]["data"]
        assert body["code"] == "TOO_LARGE" and body["details"] == {
            "bytes": declared,
            "limit": gateway.max_request_bytes,
        }
    finally:
        writer.close()


async def test_json_answers_keep_their_content_type(mcp_url: str, token: str) -> None:
    refused = await raw_post(
        mcp_url, {"Authorization": f"token {token}", "Origin": "https://evil.example"}
    )
    assert refused.headers["content-type"].startswith("application/json")
    unauth = await raw_post(mcp_url, {})
    assert unauth.headers["content-type"].startswith("application/json")
