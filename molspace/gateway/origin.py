"""Origin checks for the MCP endpoint.

The MCP Streamable HTTP spec requires servers to validate ``Origin``. Jupyter
skips its own Origin check for token-authenticated requests, so the gateway
checks it itself, using only the Jupyter server's own settings:

- no ``Origin`` header (a non-browser client such as an MCP SDK client): allowed;
- ``ServerApp.allow_origin == "*"``: every origin allowed;
- same origin (the Origin's ``host[:port]`` equals the request's ``Host``;
  Jupyter's ``check_host`` has already vetted that Host against
  ``local_hostnames``/``allow_remote_access``): allowed;
- ``http(s)://<name>:<port>`` for every ``ServerApp.local_hostnames`` name and the
  server's own ``ip``, at the server's own port: allowed;
- ``ServerApp.allow_origin`` (exact) or ``ServerApp.allow_origin_pat`` (full regex
  match): allowed;
- anything else: refused with 403 and a located ``FORBIDDEN`` error body.
"""

from __future__ import annotations

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

    @classmethod
    def from_serverapp(cls, serverapp: Any) -> OriginPolicy:
        """Derive the policy from a running ``jupyter_server.serverapp.ServerApp``."""
        allow_origin = serverapp.allow_origin or ""
        pat = serverapp.allow_origin_pat or None
        port = serverapp.port
        names = set(serverapp.local_hostnames or [])
        if serverapp.ip not in WILDCARD_IPS:
            names.add(serverapp.ip)
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
        )

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
        if origin is None or self.allow_all:
            return True
        o = origin.strip().lower()
        if o == "null":
            return False
        netloc = urlparse(o).netloc
        if host and netloc and netloc == host.lower():
            return True
        if o in self.local_origins:
            return True
        if self.allow_origin and o == self.allow_origin.lower():
            return True
        if self.allow_origin_pat is not None and self.allow_origin_pat.fullmatch(origin):
            return True
        return False

    def refusal(self, origin: str, path: str) -> dict[str, Any]:
        """The located error body for a refused Origin (HTTP 403).

        Returns
        -------
        dict
            ``{code: 'FORBIDDEN', message, where: <origin>, fix, details}``.
        """
        return {
            "code": "FORBIDDEN",
            "message": f"Requests to {path} from the browser origin {origin} are not allowed.",
            "where": origin,
            "fix": "Call the MCP endpoint from a non-browser MCP client (no Origin header), from the "
            "Jupyter server's own origin, or allow this origin with ServerApp.allow_origin / "
            "ServerApp.allow_origin_pat.",
            "details": {"origin": origin, "path": path},
        }
