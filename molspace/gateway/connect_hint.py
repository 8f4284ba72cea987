"""The "how to connect a page" sentence, built in one place from the request.

Agents are told where to open JupyterLab whenever no page can answer (``status``
and every ``NO_PAGE`` fix). The URL is, in order: ``c.MolspaceGateway.lab_url``
when an admin set one (e.g. a hub's public URL); else ``scheme://Host`` of the
MCP request plus ``base_url`` and ``lab`` (the address the agent already reached);
else the server's own ``connection_url`` plus ``lab``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jupyter_server.utils import url_path_join


@dataclass(frozen=True)
class ConnectHint:
    """Builds the connect sentence for one request.

    Attributes
    ----------
    configured_lab_url : str
        ``c.MolspaceGateway.lab_url`` (``""`` when unset).
    base_url : str
        The server's ``base_url`` (starts and ends with ``/``).
    server_lab_url : str
        ``{connection_url}lab``: the last resort when the request says nothing.
    """

    configured_lab_url: str
    base_url: str
    server_lab_url: str

    def lab_url(self, request: Any = None) -> str:
        """The JupyterLab URL to tell the agent.

        Parameters
        ----------
        request : object, optional
            The MCP request (an object with ``headers`` and ``url.scheme``, as the
            MCP SDK's Starlette request has), or ``None``.
        """
        if self.configured_lab_url:
            return self.configured_lab_url
        headers = getattr(request, "headers", None)
        host = headers.get("host") if headers is not None else None
        if host:
            scheme = getattr(getattr(request, "url", None), "scheme", None) or "http"
            return f"{scheme}://{host}{url_path_join(self.base_url, 'lab')}"
        return self.server_lab_url

    def sentence(self, request: Any = None) -> str:
        """The sentence itself: open JupyterLab at the URL, keep a widget open, call ``status``."""
        return (
            f"Open JupyterLab at {self.lab_url(request)} (log in if asked) and keep a notebook with a "
            "molspace widget open; the page connects to this server by itself. Then call `status` again."
        )
