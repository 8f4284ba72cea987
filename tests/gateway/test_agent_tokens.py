"""Agent tokens open the MCP endpoint and nothing else; minted, listed and revoked by `jupyter molspace token`."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gateway_helpers import http_refusal, server_config
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from molspace.gateway.agent_tokens import AgentTokenStore, token_from_authorization


def jupyter_molspace(*args: str, token_file: Path) -> subprocess.CompletedProcess[str]:
    """Run ``jupyter molspace ...`` as a user would (jupyter_core finds ``jupyter-molspace`` on PATH)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [sys.executable, "-m", "jupyter", "molspace", "token", "--file", str(token_file), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_command_creates_lists_and_revokes(tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    made = jupyter_molspace("create", "--name", "claude-code", token_file=file)
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert token.startswith("msa_") and "opens only the MCP endpoint" in made.stderr
    assert token not in file.read_text()  # stored hashed
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    listed = jupyter_molspace("list", token_file=file)
    assert listed.stdout.startswith("claude-code\t") and token not in listed.stdout
    again = jupyter_molspace("create", "--name", "claude-code", token_file=file)
    assert again.returncode == 1 and "exists" in again.stderr
    bad = jupyter_molspace("create", "--name", "no spaces please", token_file=file)
    assert bad.returncode == 1 and "A-Z a-z 0-9" in bad.stderr
    assert AgentTokenStore(file).verify(token) is not None
    revoked = jupyter_molspace("revoke", "claude-code", token_file=file)
    assert revoked.returncode == 0
    assert AgentTokenStore(file).verify(token) is None
    unknown = jupyter_molspace("revoke", "claude-code", token_file=file)
    assert unknown.returncode == 1 and "no agent token named" in unknown.stderr


def test_verify_refuses_look_alikes(tmp_path: Path) -> None:
    store = AgentTokenStore(tmp_path / "t.json")
    _, token = store.create("a")
    assert store.verify(token) is not None
    for fake in [
        "",
        "msa_",
        token[:-1] + ("A" if token[-1] != "A" else "B"),
        token + "x",
        "token " + token,
    ]:
        assert store.verify(fake) is None, fake
    assert token_from_authorization(f"Bearer {token}") == token
    assert token_from_authorization(f"token {token}") == token
    assert token_from_authorization("token abc") is None  # a Jupyter token is not an agent token


def mcp_error_in(raised: BaseException) -> MCPError:
    """The SDK's MCPError in what the client raised (connecting, the SDK wraps it in a group)."""
    if isinstance(raised, MCPError):
        return raised
    for inner in getattr(raised, "exceptions", ()) or [raised.__context__]:
        if inner is not None:
            try:
                return mcp_error_in(inner)
            except AssertionError:
                continue
    raise AssertionError(f"no MCPError in {raised!r}")


class TestAgentTokenOnTheServer:
    @pytest.fixture
    def token_file(self, tmp_path: Path) -> Path:
        return tmp_path / "agent-tokens.json"

    @pytest.fixture
    def jp_server_config(self, token_file: Path) -> dict[str, Any]:
        return server_config(gateway={"agent_token_file": str(token_file)})

    async def test_opens_mcp_only(self, token_file: Path, mcp_url: str, server_root: str) -> None:
        _, token = AgentTokenStore(token_file).create("claude-code")
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=20) as http:
            async with Client(streamable_http_client(mcp_url, http_client=http)) as client:
                listed = await client.list_tools()
                status = await client.call_tool("status", {})
            assert [t.name for t in listed.tools][0] == "status"
            assert status.is_error is False and status.structured_content["pageConnected"] is False
            # Everything else the Jupyter token would open stays closed.
            for path in ["api/kernels", "api/terminals", "api/contents", "api/sessions", "api/me"]:
                r = await http.get(server_root + path)
                assert r.status_code == 403, (path, r.status_code)
            r = await http.post(server_root + "api/kernels", json={})
            assert r.status_code == 403
            r = await http.post(server_root + "molspace/embed3d", json={"molfile": "CCO"})
            assert r.status_code == 403
            r = await http.post(server_root + "molspace/export-html", json={"path": "a.html"})
            assert r.status_code == 403
            r = await http.get(
                server_root + "molspace/frames", params={"path": "a.dcd", "start": 0, "count": 1}
            )
            assert r.status_code == 403

    async def test_an_agent_reads_why_its_token_was_refused(
        self, token_file: Path, mcp_url: str, jp_http_port: int
    ) -> None:
        """Through the official SDK: a revoked token, and a valid one sent under a foreign Host (what
        a DNS-rebinding page sends), each come back as the located FORBIDDEN with its fix."""
        store = AgentTokenStore(token_file)
        _, revoked = store.create("gone")
        store.revoke("gone")
        _, valid = store.create("claude-code")
        for value, host, where, fix in [
            (revoked, None, "Authorization", "jupyter molspace token create"),
            (valid, f"evil.example:{jp_http_port}", "Host", "ServerApp.local_hostnames"),
        ]:
            headers = {"Authorization": f"Bearer {value}", **({"Host": host} if host else {})}
            async with httpx2.AsyncClient(headers=headers, timeout=20) as http:
                with pytest.raises(BaseException) as refused:
                    async with Client(streamable_http_client(mcp_url, http_client=http)) as client:
                        await client.list_tools()
            error = mcp_error_in(refused.value).error
            assert error.message.startswith(f"FORBIDDEN at {where}: "), error.message
            assert error.data["where"] == where and fix in error.data["fix"], error.data

    async def test_a_session_id_works_only_with_the_credential_that_opened_it(
        self, token_file: Path, mcp_url: str, token: str
    ) -> None:
        """A session opened with the Jupyter token refuses an agent token (and another Jupyter-token
        spelling of a different secret) that learned its id: 404 with a located NOT_FOUND; the owner
        goes on, and after its DELETE the id is refused to it too."""
        _, agent = AgentTokenStore(token_file).create("other")
        accept = {"Accept": "application/json, text/event-stream"}
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
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        async with httpx2.AsyncClient(timeout=10) as http:
            owner = {**accept, "Authorization": f"token {token}"}
            r = await http.post(mcp_url, headers=owner, json=init)
            session = {
                "mcp-session-id": r.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-06-18",
            }
            r = await http.post(
                mcp_url,
                headers={**accept, **session, "Authorization": f"Bearer {agent}"},
                json=ping,
            )
            assert r.status_code == 404, r.text[:300]
            refused = http_refusal(r)
            assert refused["code"] == "NOT_FOUND" and refused["where"] == "Mcp-Session-Id", refused
            r = await http.post(mcp_url, headers={**owner, **session}, json=ping)
            assert r.status_code == 200, r.text[:300]
            assert (await http.delete(mcp_url, headers={**owner, **session})).status_code == 200
            r = await http.post(mcp_url, headers={**owner, **session}, json=ping)
            assert r.status_code == 404 and http_refusal(r)["code"] == "NOT_FOUND"

    async def test_revoked_and_unknown_tokens_are_refused(
        self, token_file: Path, mcp_url: str
    ) -> None:
        store = AgentTokenStore(token_file)
        _, token = store.create("old")
        store.revoke("old")
        for value in [token, "msa_000000000000_" + "x" * 43]:
            async with httpx2.AsyncClient(timeout=10) as http:
                r = await http.post(
                    mcp_url,
                    headers={
                        "Authorization": f"Bearer {value}",
                        "Accept": "application/json, text/event-stream",
                    },
                    json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                )
            assert r.status_code == 403
            body = http_refusal(r)
            assert body["code"] == "FORBIDDEN" and "jupyter molspace token create" in body["fix"]

    async def test_revoking_ends_an_open_event_stream(
        self, token_file: Path, mcp_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A session's standalone SSE stream (GET) opened with an agent token ends once the token is revoked."""
        from molspace.gateway import handlers

        monkeypatch.setattr(handlers, "REVOCATION_CHECK_SECONDS", 0.2, raising=False)
        store = AgentTokenStore(token_file)
        _, token = store.create("streaming")
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
        }
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
        async with httpx2.AsyncClient(timeout=20) as http:
            r = await http.post(mcp_url, headers=headers, json=init)
            session = {
                "Mcp-Session-Id": r.headers["mcp-session-id"],
                "Mcp-Protocol-Version": "2025-06-18",
            }
            r = await http.post(
                mcp_url,
                headers={**headers, **session},
                json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            )
            assert r.status_code == 202
            async with http.stream(
                "GET", mcp_url, headers={**headers, **session, "Accept": "text/event-stream"}
            ) as stream:
                assert stream.status_code == 200
                store.revoke("streaming")

                async def drain() -> None:
                    async for _ in stream.aiter_bytes():
                        pass

                # the stream ends by itself (before, it stayed open, kept alive by pings)
                await asyncio.wait_for(drain(), 10)
            r = await http.get(
                mcp_url, headers={**headers, **session, "Accept": "text/event-stream"}
            )
            assert r.status_code == 403 and http_refusal(r)["code"] == "FORBIDDEN"

    async def test_jupyter_token_keeps_working(self, mcp_client: Any) -> None:
        async with mcp_client() as client:
            assert (await client.call_tool("status", {})).is_error is False
