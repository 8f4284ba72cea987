"""Origin and Host checks for the MCP endpoint.

The MCP Streamable HTTP spec requires servers to validate ``Origin``. Jupyter
skips its own Origin check for token-authenticated requests, so the gateway
checks it itself, using the Jupyter server's own settings.

A request from a browser (it carries ``Origin``) must first name this server in
``Host``: one of ``ServerApp.local_hostnames``, the bound ``ip``, the host of
``ServerApp.custom_display_url`` or ``c.MolspaceGateway.lab_url``, a name in
``c.MolspaceGateway.allowed_hosts``, or an IP address literal. A DNS-rebinding page reaches the server
under its own name (``Host: evil.example:8888``), so "Origin equals Host" alone
is never enough. Then the Origin must be one of:

- ``ServerApp.allow_origin == "*"``: every origin;
- the same origin as that vetted Host;
- ``http(s)://<name>:<port>`` for the server's own names at its own port;
- ``ServerApp.allow_origin`` (exact) or ``ServerApp.allow_origin_pat`` (full regex match).

An ``Origin`` that is not a serialized ``http(s)`` origin (a path, query,
fragment, userinfo or another scheme; browsers never send one) passes only as
the exact ``ServerApp.allow_origin``.

A request without ``Origin`` is a non-browser client (an MCP SDK client, an
agent's CLI): it passed Jupyter's authentication and is allowed. Anything else is
refused with 403 and a located ``FORBIDDEN`` body.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

WILDCARD_IPS = {"", "0.0.0.0", "::", "*"}  # noqa: S104 - names, not binds


@dataclass
class OriginPolicy:
    """Allowed browser origins for ``{base_url}molspace/mcp``.

    Attributes
    ----------
    allow_all : bool
        ``allow_origin == "*"``.
    allow_origin : str
        Exact extra origin (``ServerApp.allow_origin``), may be ``""``.
    allow_origin_pat : re.Pattern or None
        ``ServerApp.allow_origin_pat`` compiled; must match the whole origin.
    local_origins : set of str
        ``scheme://host:port`` for the server's own names and port.
    """

    allow_all: bool = False
    allow_origin: str = ""
    allow_origin_pat: re.Pattern[str] | None = None
    local_origins: set[str] = field(default_factory=set)
    host_names: set[str] = field(default_factory=set)

    @classmethod
    def from_serverapp(
        cls, serverapp: Any, extra_hosts: list[str] | tuple[str, ...] = ()
    ) -> OriginPolicy:
        """Derive the policy from a running ``jupyter_server.serverapp.ServerApp``.

        Parameters
        ----------
        serverapp : ServerApp
        extra_hosts : sequence of str
            More names (or URLs, whose host is taken) under which browsers reach
            this server: ``c.MolspaceGateway.allowed_hosts`` and ``lab_url``.
        """
        allow_origin = serverapp.allow_origin or ""
        pat = serverapp.allow_origin_pat or None
        port = serverapp.port
        names = set(serverapp.local_hostnames or [])
        if serverapp.ip not in WILDCARD_IPS:
            names.add(serverapp.ip)
        hosts = {n.lower().strip("[]") for n in names}
        for extra in [*extra_hosts, getattr(serverapp, "custom_display_url", "") or ""]:
            name = _host_name(extra)
            if name:
                hosts.add(name)
        origins: set[str] = set()
        for name in names:
            host = f"[{name}]" if ":" in name and not name.startswith("[") else name
            for scheme in ("http", "https"):
                origins.add(f"{scheme}://{host}:{port}".lower())
        return cls(
            allow_all=allow_origin == "*",
            allow_origin="" if allow_origin == "*" else allow_origin,
            allow_origin_pat=re.compile(pat) if pat else None,
            local_origins=origins,
            host_names=hosts,
        )

    def host_allowed(self, host: str | None) -> bool:
        """Whether ``Host`` names this server (any port: proxies change it).

        An IP address literal always passes: a rebinding page needs a DNS name of
        its own, so a browser that sends an IP literal opened the server by address.
        """
        name = _host_name(host or "")
        if not name:
            return False
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return name in self.host_names

    def allows(self, origin: str | None, host: str | None) -> bool:
        """Decide one request.

        Parameters
        ----------
        origin : str or None
            The ``Origin`` header (``None`` when absent).
        host : str or None
            The ``Host`` header.

        Returns
        -------
        bool
        """
        if origin is None:
            return True
        if not self.host_allowed(host):
            return False
        if self.allow_all:
            return True
        o = origin.strip().lower()
        if o == "null":
            return False
        parsed = urlparse(o)
        netloc = parsed.netloc
        if parsed.scheme not in ("http", "https") or o != f"{parsed.scheme}://{netloc}":
            # not a serialized origin (a path, query, fragment, userinfo, another scheme): browsers never send it
            return bool(self.allow_origin and o == self.allow_origin.lower())
        if host and netloc and netloc == host.lower():
            return True
        if o in self.local_origins:
            return True
        if self.allow_origin and o == self.allow_origin.lower():
            return True
        if self.allow_origin_pat is not None and self.allow_origin_pat.fullmatch(origin):
            return True
        return False

    def refusal(self, origin: str, path: str, host: str | None = None) -> dict[str, Any]:
        """The located error body for a refused Origin (HTTP 403).

        Returns
        -------
        dict
            ``{code: 'FORBIDDEN', message, where: <origin>, fix, details}``.
        """
        if not self.host_allowed(host):
            return {
                "code": "FORBIDDEN",
                "message": f"A browser request to {path} named the host {host!r}, which is not one of this "
                "server's names (a DNS-rebinding page looks like this).",
                "where": "Host",
                "fix": "Open JupyterLab under one of the server's own names, or add the public name to "
                "c.MolspaceGateway.allowed_hosts.",
                "details": {"origin": origin, "host": host, "path": path},
            }
        return {
            "code": "FORBIDDEN",
            "message": f"Requests to {path} from the browser origin {origin} are not allowed.",
            "where": origin,
            "fix": "Call the MCP endpoint from a non-browser MCP client (no Origin header), from the "
            "Jupyter server's own origin, or allow this origin with ServerApp.allow_origin / "
            "ServerApp.allow_origin_pat.",
            "details": {"origin": origin, "path": path},
        }


def _host_name(value: str) -> str:
    """The lower-case host name of a ``Host`` header, a ``host:port``, or a URL (``""`` if none)."""
    value = value.strip().lower()
    if not value:
        return ""
    if "://" not in value:
        value = "//" + value
    try:
        return (urlparse(value).hostname or "").strip("[]")
    except ValueError:
        return ""
