"""What a gateway-answered tool receives and returns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..manifest import Manifest
from ..pages import ConnectedPages


@dataclass(frozen=True)
class GatewayToolContext:
    """Narrow collaborators of one gateway tool call.

    Attributes
    ----------
    pages : ConnectedPages
        The connected JupyterLab pages (read only here).
    versions : dict
        ``versions`` of the manifest (molspace, molstar, mvsSpec, ketcher, ketcherReact, indigo, vegaLite, jupyterlab).
    endpoint : str
        This MCP endpoint's path, ``{base_url}molspace/mcp``.
    how_to_connect : str
        The connect sentence for this request (:class:`~molspace.gateway.connect_hint.ConnectHint`).
    client : dict or None
        ``{name, version}`` of the calling MCP client, for calls a gateway tool relays to a page.
    pages_listed : int
        Most pages ``status`` lists (``limits.statusPagesListed``).
    manifest : Manifest or None
        The tool manifest (``describe`` reads it).
    """

    pages: ConnectedPages
    versions: dict[str, Any]
    endpoint: str
    how_to_connect: str
    client: dict[str, str] | None = None
    pages_listed: int = 20
    manifest: Manifest | None = None


@dataclass(frozen=True)
class GatewayToolAnswer:
    """A successful answer: ``structuredContent`` valid against the tool's outputSchema, and one text line."""

    structured: dict[str, Any]
    text: str


#: A handler: validated arguments and the context in, an answer (or an awaitable of one) out,
#: or a raised MolspaceError. Handlers that relay to a page (``story_template_create``) are async.
GatewayToolHandler = Callable[
    [dict[str, Any], GatewayToolContext], GatewayToolAnswer | Awaitable[GatewayToolAnswer]
]
