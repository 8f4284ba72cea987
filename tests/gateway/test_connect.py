"""``jupyter molspace connect <client>``: each client's file, parsed in its own format, opens the gateway.

Run as a user runs it (``python -m jupyter molspace connect ...``) against a real Jupyter server
whose gateway reads the same agent token file; the official Python SDK client then connects
with exactly the URL and header the written file holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
import tomlkit
from gateway_helpers import server_config
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from molspace.gateway.agent_tokens import AgentTokenStore

#: Where each client's entry is, and which keys hold the URL and the headers.
READ = {
    "claude-code": (("mcpServers", "molspace"), "url", "headers"),
    "codex": (("mcp_servers", "molspace"), "url", "http_headers"),
    "cursor": (("mcpServers", "molspace"), "url", "headers"),
    "vscode": (("servers", "molspace"), "url", "headers"),
    "gemini": (("mcpServers", "molspace"), "httpUrl", "headers"),
}


def connect(
    *args: str, token_file: Path, cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "HOME": str(cwd),
    }
    return subprocess.run(
        [sys.executable, "-m", "jupyter", "molspace", "connect", *args, "--file", str(token_file)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
        input=stdin,
    )


def parse(client: str, text: str) -> Any:
    return tomlkit.parse(text).unwrap() if client == "codex" else json.loads(text)


def entry_of(client: str, doc: Any) -> tuple[str, dict[str, str]]:
    keys, url_key, headers_key = READ[client]
    entry = doc
    for k in keys:
        entry = entry[k]
    return entry[url_key], entry[headers_key]


class TestConnect:
    @pytest.fixture
    def token_file(self, tmp_path: Path) -> Path:
        return tmp_path / "agent-tokens.json"

    @pytest.fixture
    def jp_server_config(self, token_file: Path) -> dict[str, Any]:
        return server_config(gateway={"agent_token_file": str(token_file)})

    @pytest.mark.parametrize("client", sorted(READ))
    async def test_written_file_opens_the_gateway(
        self,
        client: str,
        token_file: Path,
        tmp_path: Path,
        mcp_url: str,
        jp_http_port: int,
        jp_base_url: str,
    ) -> None:
        server_url = f"http://localhost:{jp_http_port}{jp_base_url}"
        config = tmp_path / f"{client}.conf"
        made = connect(
            client,
            "--url",
            server_url,
            "--config",
            str(config),
            token_file=token_file,
            cwd=tmp_path,
        )
        assert made.returncode == 0, made.stderr
        assert str(config) in made.stderr and "revoke" in made.stderr
        url, headers = entry_of(client, parse(client, config.read_text()))
        assert url.endswith(f"{jp_base_url}molspace/mcp") and url.replace(
            "localhost", "127.0.0.1"
        ) == mcp_url.replace("localhost", "127.0.0.1")
        assert oct(config.stat().st_mode & 0o777) == "0o600"  # it holds a token
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(20.0))
        async with http, Client(streamable_http_client(url, http_client=http)) as mcp:
            tools = (await mcp.list_tools()).tools
            status = await mcp.call_tool("status", {})
        assert "act" in [t.name for t in tools] and status.is_error is False
        assert [t.name for t in AgentTokenStore(token_file).list()] == [client]

    def test_other_entries_and_toml_comments_are_kept(
        self, token_file: Path, tmp_path: Path
    ) -> None:
        cfg = tmp_path / "config.toml"
        cfg.write_text(
            '# my Codex settings\nmodel = "o4"\n\n[mcp_servers.other]\nurl = "https://other.example/mcp"\n'
        )
        made = connect(
            "codex",
            "--url",
            "http://localhost:8888/",
            "--config",
            str(cfg),
            token_file=token_file,
            cwd=tmp_path,
        )
        assert made.returncode == 0, made.stderr
        text = cfg.read_text()
        assert text.startswith('# my Codex settings\nmodel = "o4"')
        doc = parse("codex", text)
        assert doc["mcp_servers"]["other"] == {"url": "https://other.example/mcp"}
        assert doc["mcp_servers"]["molspace"]["url"] == "http://localhost:8888/molspace/mcp"
        js = tmp_path / "mcp.json"
        js.write_text(json.dumps({"mcpServers": {"fs": {"command": "fs-server"}}, "other": 1}))
        assert (
            connect(
                "cursor",
                "--url",
                "http://h/",
                "--config",
                str(js),
                token_file=token_file,
                cwd=tmp_path,
            ).returncode
            == 0
        )
        doc = json.loads(js.read_text())
        assert (
            doc["mcpServers"]["fs"] == {"command": "fs-server"}
            and doc["other"] == 1
            and "molspace" in doc["mcpServers"]
        )

    def test_an_existing_entry_is_not_replaced_without_asking(
        self, token_file: Path, tmp_path: Path
    ) -> None:
        cfg = tmp_path / ".mcp.json"
        assert (
            connect(
                "claude-code", "--url", "http://h/", token_file=token_file, cwd=tmp_path
            ).returncode
            == 0
        )
        before = cfg.read_text()
        again = connect(
            "claude-code", "--url", "http://h/", token_file=token_file, cwd=tmp_path, stdin=""
        )
        assert (
            again.returncode == 1
            and "already has a molspace entry" in again.stderr
            and "--yes" in again.stderr
        )
        assert cfg.read_text() == before
        assert len(AgentTokenStore(token_file).list()) == 1  # no token made for nothing
        replaced = connect(
            "claude-code", "--url", "http://h2/", "--yes", token_file=token_file, cwd=tmp_path
        )
        assert replaced.returncode == 0, replaced.stderr
        assert (
            json.loads(cfg.read_text())["mcpServers"]["molspace"]["url"] == "http://h2/molspace/mcp"
        )
        assert [t.name for t in AgentTokenStore(token_file).list()] == [
            "claude-code",
            "claude-code-2",
        ]

    def test_bad_files_and_urls_are_refused_located(self, token_file: Path, tmp_path: Path) -> None:
        cfg = tmp_path / "settings.json"
        cfg.write_text('{\n  // a comment\n  "theme": "dark"\n}\n')
        bad = connect(
            "gemini",
            "--url",
            "http://h/",
            "--config",
            str(cfg),
            token_file=token_file,
            cwd=tmp_path,
        )
        assert bad.returncode == 1 and f"{cfg}:2:3" in bad.stderr and "--print" in bad.stderr
        assert cfg.read_text().startswith("{\n  // a comment")
        toml = tmp_path / "c.toml"
        toml.write_text("[mcp_servers\n")
        bad_toml = connect(
            "codex",
            "--url",
            "http://h/",
            "--config",
            str(toml),
            token_file=token_file,
            cwd=tmp_path,
        )
        assert (
            bad_toml.returncode == 1
            and "not valid TOML" in bad_toml.stderr
            and f"{toml}:" in bad_toml.stderr
        )
        url = connect(
            "cursor",
            "--url",
            "localhost:8888",
            "--config",
            str(tmp_path / "x.json"),
            token_file=token_file,
            cwd=tmp_path,
        )
        assert url.returncode == 1 and "--url http://localhost:8888/" in url.stderr
        assert AgentTokenStore(token_file).list() == []
        assert not (tmp_path / "x.json").exists()

    def test_print_writes_nothing(self, token_file: Path, tmp_path: Path) -> None:
        printed = connect(
            "vscode", "--url", "http://h/user/a/", "--print", token_file=token_file, cwd=tmp_path
        )
        assert printed.returncode == 0, printed.stderr
        url, headers = entry_of("vscode", json.loads(printed.stdout))
        assert url == "http://h/user/a/molspace/mcp" and headers["Authorization"].startswith(
            "Bearer msa_"
        )
        assert not (tmp_path / ".vscode").exists()
