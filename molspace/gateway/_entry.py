"""Jupyter server extension entry points (re-exported by ``molspace/__init__.py``)."""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    """Declare the ``molspace`` server extension (the MCP gateway app)."""
    from .app import MolspaceGateway

    return [{"module": "molspace", "app": MolspaceGateway}]


def _load_jupyter_server_extension(serverapp: Any) -> Any:
    """Classic loader hook; delegates to :class:`~molspace.gateway.app.MolspaceGateway`."""
    from .app import MolspaceGateway

    return MolspaceGateway._load_jupyter_server_extension(serverapp)
