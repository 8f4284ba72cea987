"""MCP client configurations for ``jupyter molspace connect <client>``.

Each agent client keeps its MCP servers in a file of its own format. This module knows
where each keeps them and how one entry for the molspace gateway reads there, merges that
entry into an existing file without touching its other entries, and refuses (never
overwrites) an existing ``molspace`` entry unless told to replace it.

=============  =====================================  ==========================================
client         file (default)                         entry
=============  =====================================  ==========================================
claude-code    ``./.mcp.json`` (project scope)        ``mcpServers.molspace`` {type: http, url, headers}
codex          ``$CODEX_HOME/config.toml``            ``[mcp_servers.molspace]`` url, http_headers
               (default ``~/.codex/config.toml``)
cursor         ``~/.cursor/mcp.json``                 ``mcpServers.molspace`` {url, headers}
vscode         ``./.vscode/mcp.json`` (workspace)     ``servers.molspace`` {type: http, url, headers}
gemini         ``~/.gemini/settings.json``            ``mcpServers.molspace`` {httpUrl, headers}
=============  =====================================  ==========================================

Formats follow each client's documentation (Claude Code ``claude mcp add --transport http``'s
``.mcp.json``; Codex ``config.toml`` Streamable HTTP servers with ``url`` and
``http_headers``; Cursor and VS Code ``mcp.json``; Gemini CLI ``settings.json`` ``httpUrl``).
JSON files are read with :mod:`json` (a file with comments is refused, not rewritten) and TOML
with ``tomlkit``, which keeps the file's comments and layout.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError

#: The entry name every client's file gets.
SERVER_NAME = "molspace"


class ClientConfigError(Exception):
    """A located refusal: ``what`` failed, ``where`` (a file and place), and ``fix``."""

    def __init__(self, what: str, where: str, fix: str) -> None:
        super().__init__(f"{what} ({where}). {fix}")
        self.what, self.where, self.fix = what, where, fix


@dataclass(frozen=True)
class ClientFormat:
    """How one client keeps its MCP servers.

    Attributes
    ----------
    name : str
        The client, as ``jupyter molspace connect`` takes it.
    default_path : callable
        The file it reads, given the working directory.
    toml : bool
        TOML (Codex) rather than JSON.
    table : tuple of str
        Keys from the file's root to the table of servers.
    entry : callable
        ``(url, authorization) -> dict``: the molspace entry.
    """

    name: str
    default_path: Callable[[Path], Path]
    toml: bool
    table: tuple[str, ...]
    entry: Callable[[str, str], dict[str, Any]]


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


CLIENTS: dict[str, ClientFormat] = {
    "claude-code": ClientFormat(
        "claude-code",
        lambda cwd: cwd / ".mcp.json",
        False,
        ("mcpServers",),
        lambda url, auth: {"type": "http", "url": url, "headers": {"Authorization": auth}},
    ),
    "codex": ClientFormat(
        "codex",
        lambda cwd: _codex_home() / "config.toml",
        True,
        ("mcp_servers",),
        lambda url, auth: {"url": url, "http_headers": {"Authorization": auth}},
    ),
    "cursor": ClientFormat(
        "cursor",
        lambda cwd: Path.home() / ".cursor" / "mcp.json",
        False,
        ("mcpServers",),
        lambda url, auth: {"url": url, "headers": {"Authorization": auth}},
    ),
    "vscode": ClientFormat(
        "vscode",
        lambda cwd: cwd / ".vscode" / "mcp.json",
        False,
        ("servers",),
        lambda url, auth: {"type": "http", "url": url, "headers": {"Authorization": auth}},
    ),
    "gemini": ClientFormat(
        "gemini",
        lambda cwd: Path.home() / ".gemini" / "settings.json",
        False,
        ("mcpServers",),
        lambda url, auth: {"httpUrl": url, "headers": {"Authorization": auth}},
    ),
}


def endpoint_of(server_url: str) -> str:
    """The MCP endpoint of a Jupyter server URL that includes its ``base_url``.

    ``http://localhost:8888/`` → ``http://localhost:8888/molspace/mcp``;
    ``https://hub.example.org/user/alice`` → ``https://hub.example.org/user/alice/molspace/mcp``.
    """
    base = server_url.split("?", 1)[0].split("#", 1)[0]
    if not base.startswith(("http://", "https://")):
        raise ClientConfigError(
            f"{server_url!r} is not an http(s) URL of a Jupyter server",
            "--url",
            "Pass the server's URL with its base_url, e.g. --url http://localhost:8888/ or "
            "--url https://hub.example.org/user/alice/.",
        )
    return base.rstrip("/") + "/molspace/mcp"


def load(fmt: ClientFormat, path: Path) -> Any:
    """The client file's document (a dict, or a ``tomlkit`` document), empty when the file is absent.

    Raises
    ------
    ClientConfigError
        The file does not parse (naming the line and column) or its servers table is not a table.
    """
    if not path.exists() or not path.read_text(encoding="utf-8").strip():
        return tomlkit.document() if fmt.toml else {}
    text = path.read_text(encoding="utf-8")
    try:
        doc: Any = tomlkit.parse(text) if fmt.toml else json.loads(text)
    except ParseError as e:
        raise ClientConfigError(
            f"{path} is not valid TOML: {e}", f"{path}:{e.line}:{e.col}", _repair(path)
        ) from e
    except json.JSONDecodeError as e:
        raise ClientConfigError(
            f"{path} is not plain JSON: {e.msg} (comments are not rewritten)",
            f"{path}:{e.lineno}:{e.colno}",
            _repair(path),
        ) from e
    if not isinstance(doc, dict):
        raise ClientConfigError(
            f"{path} does not hold an object at its root", str(path), _repair(path)
        )
    table: Any = doc
    for key in fmt.table:
        table = table.get(key, {})
        if not isinstance(table, dict):
            raise ClientConfigError(
                f"`{'.'.join(fmt.table)}` in {path} is not a table of servers",
                str(path),
                _repair(path),
            )
    return doc


def _repair(path: Path) -> str:
    return f"Repair {path}, or add the entry by hand from `--print`, or write another file with --config."


def has_entry(fmt: ClientFormat, doc: Any) -> bool:
    """Whether the document already has a ``molspace`` server entry."""
    table: Any = doc
    for key in fmt.table:
        table = table.get(key, {})
    return SERVER_NAME in table


def with_entry(fmt: ClientFormat, doc: Any, url: str, authorization: str) -> Any:
    """The document with the molspace entry set (other entries and, for TOML, comments kept)."""
    table: Any = doc
    for key in fmt.table:
        if key not in table:
            table[key] = tomlkit.table(is_super_table=True) if fmt.toml else {}
        table = table[key]
    entry = fmt.entry(url, authorization)
    if fmt.toml:
        t = tomlkit.table()
        for k, v in entry.items():
            if isinstance(v, dict):
                inline = tomlkit.inline_table()
                inline.update(v)
                t[k] = inline
            else:
                t[k] = v
        table[SERVER_NAME] = t
    else:
        table[SERVER_NAME] = entry
    return doc


def dumps(fmt: ClientFormat, doc: Any) -> str:
    """The document as the client's file text."""
    return tomlkit.dumps(doc) if fmt.toml else json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically; a new file is readable by its owner only (it holds a token)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = (path.stat().st_mode & 0o777) if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def running_server_url() -> str:
    """The URL (with ``base_url``) of the one Jupyter server running for this user.

    Raises
    ------
    ClientConfigError
        None is running, or several are (naming them).
    """
    from jupyter_server.serverapp import list_running_servers

    servers = list(list_running_servers())
    if not servers:
        raise ClientConfigError(
            "no running Jupyter server was found",
            "--url",
            "Start JupyterLab first (jupyter lab), or pass the server's URL with --url.",
        )
    if len(servers) > 1:
        urls = ", ".join(str(s.get("url")) for s in servers)
        raise ClientConfigError(
            f"{len(servers)} Jupyter servers are running ({urls})", "--url", "Pick one with --url."
        )
    return str(servers[0]["url"])
