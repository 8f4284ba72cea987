"""The molspace Jupyter server extension: an MCP gateway inside Jupyter's server.

Configuration (traitlets, e.g. in ``jupyter_server_config.py``)::

    c.MolspaceGateway.call_timeout = 30.0        # seconds per relayed call
    c.MolspaceGateway.lab_url = ""               # public JupyterLab URL for agents
    c.MolspaceGateway.session_idle_timeout = 1800.0
    c.MolspaceGateway.manifest_path = ""         # default: packaged manifest
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from traitlets import Float, TraitError, Unicode, validate

from .errors import ToolError
from .handlers import BridgeHandler, McpHandler
from .manifest import Manifest
from .origin import OriginPolicy
from .pages import PageRegistry
from .server import build_server

log = logging.getLogger(__name__)

MCP_PATH = "molspace/mcp"
BRIDGE_PATH = "molspace/bridge"


class MolspaceGateway(ExtensionApp):
    """molspace MCP gateway (Jupyter server extension ``molspace``).

    Serves MCP (Streamable HTTP) at ``{base_url}molspace/mcp`` and the page
    bridge websocket at ``{base_url}molspace/bridge``, behind Jupyter's auth.
    """

    name = "molspace"
    description = "molspace MCP gateway"
    load_other_extensions = True

    call_timeout = Float(
        30.0,
        config=True,
        help="Deadline of one tool call relayed to a JupyterLab page, in seconds (> 0). "
        "A call past it fails with TIMEOUT.",
    )
    lab_url = Unicode(
        "",
        config=True,
        help="Public JupyterLab URL agents are told to open (howToConnect). Default: derived "
        "from the Host the MCP client used plus base_url, e.g. http://localhost:8888/lab.",
    )
    session_idle_timeout = Float(
        1800.0,
        config=True,
        help="Seconds without traffic after which an MCP session is closed (> 0).",
    )
    manifest_path = Unicode(
        "", config=True, help="Path of the tool manifest JSON; default: the packaged one."
    )

    @validate("call_timeout", "session_idle_timeout")
    def _positive(self, proposal: Any) -> float:
        value = float(proposal["value"])
        if not value > 0:
            raise TraitError(f"{proposal['trait'].name} must be > 0 seconds, got {value}")
        return value

    # ------------------------------------------------------------ lifecycle
    def initialize_settings(self) -> None:
        """Load the manifest; create the registry, origin policy and MCP session manager."""
        assert self.serverapp is not None
        self.manifest = Manifest.load(self.manifest_path or None)
        self.base_url: str = self.serverapp.base_url
        self.mcp_endpoint = url_path_join(self.base_url, MCP_PATH)
        self.bridge_endpoint = url_path_join(self.base_url, BRIDGE_PATH)
        self.registry = PageRegistry(self.how_to_connect(None), self.call_timeout)
        self.origin_policy = OriginPolicy.from_serverapp(self.serverapp)
        self.mcp_server = build_server(self)
        # Origin is checked by McpHandler with Jupyter's own settings (the SDK's
        # matcher knows neither allow_origin_pat regexes nor Jupyter's Host check),
        # and Host by Jupyter's check_host; so the SDK's own check is off here.
        self.session_manager = StreamableHTTPSessionManager(
            self.mcp_server,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            session_idle_timeout=self.session_idle_timeout,
        )
        self._run_task: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._run_error: BaseException | None = None
        self.observe(lambda change: setattr(self.registry, "call_timeout", change["new"]), names="call_timeout")

    def initialize_handlers(self) -> None:
        """Register the two endpoints (base_url is prepended by ExtensionApp)."""
        self.handlers.extend(
            [
                (MCP_PATH + "/?", McpHandler, {"gateway": self}),
                (BRIDGE_PATH, BridgeHandler, {"gateway": self}),
            ]
        )

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        """Start the session manager once the server's event loop runs."""
        await self.ensure_started()

    async def ensure_started(self) -> StreamableHTTPSessionManager:
        """Enter the session manager's ``run()`` context (once) and keep it open.

        ``run()`` is held by a dedicated task on the server's event loop until
        :meth:`stop_extension`; requests arriving before the server's
        start hook ran start it lazily.

        Returns
        -------
        StreamableHTTPSessionManager

        Raises
        ------
        RuntimeError
            If the manager failed to start or has been stopped.
        """
        if self._run_task is None:
            self._ready = asyncio.Event()
            self._stop = asyncio.Event()
            self._run_task = asyncio.get_running_loop().create_task(
                self._hold_manager(), name="molspace-mcp-session-manager"
            )
        assert self._ready is not None
        await self._ready.wait()
        if self._run_error is not None or self._run_task.done():
            raise RuntimeError(f"the molspace MCP session manager is not running: {self._run_error!r}")
        return self.session_manager

    async def _hold_manager(self) -> None:
        assert self._ready is not None and self._stop is not None
        try:
            async with self.session_manager.run():
                self._ready.set()
                await self._stop.wait()
        except BaseException as e:
            self._run_error = e
            if not isinstance(e, asyncio.CancelledError):
                log.exception("molspace MCP session manager stopped with an error")
            raise
        finally:
            self._ready.set()

    async def stop_extension(self) -> None:
        """Fail pending page calls and close the session manager (server shutdown)."""
        self.registry.close_all()
        task = self._run_task
        if task is None or task.done():
            return
        assert self._stop is not None
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), 5)
        except asyncio.TimeoutError:
            task.cancel()
        except BaseException:  # noqa: BLE001 - already logged
            pass

    # -------------------------------------------------------------- answers
    def how_to_connect(self, lab_url: str | None) -> str:
        """The sentence telling an agent how to get a page connected.

        Parameters
        ----------
        lab_url : str or None
            ``scheme://host{base_url}lab`` as seen by the current request.

        Returns
        -------
        str
        """
        url = self.lab_url or lab_url
        if not url:
            assert self.serverapp is not None
            url = url_path_join(self.serverapp.connection_url, "lab")
        return (
            f"Open JupyterLab at {url} (log in if asked) and keep a notebook with a molspace "
            "widget open; the page connects to this server by itself. Then call `status` again."
        )

    def answer_gateway_tool(self, name: str, args: dict[str, Any], *, lab_url: str | None) -> dict[str, Any]:
        """Answer a ``runs: 'gateway'`` tool.

        Returns
        -------
        dict
            ``status``: ``{versions, pageConnected, pages, widgets, howToConnect, endpoint}``.

        Raises
        ------
        ToolError
            ``NOT_FOUND`` for a gateway tool this server does not implement.
        """
        if name == "status":
            pages = self.registry.page_infos()
            return {
                "versions": dict(self.manifest.versions),
                "pageConnected": bool(pages),
                "pages": pages,
                "widgets": self.registry.total_widgets(),
                "howToConnect": self.how_to_connect(lab_url),
                "endpoint": self.mcp_endpoint,
            }
        raise ToolError(
            "NOT_FOUND",
            f"The gateway does not implement the tool `{name}`.",
            "/name",
            "Upgrade the molspace Python package so the server matches the manifest.",
            {"tool": name},
        )

    def summarize_gateway_tool(self, name: str, result: dict[str, Any]) -> str:
        """One-line text summary of a gateway tool result."""
        if name == "status":
            v = result["versions"]
            head = f"molspace {v.get('molspace')} (Mol* {v.get('molstar')}, MVS {v.get('mvsSpec')})"
            if not result["pageConnected"]:
                return f"{head}: no JupyterLab page connected. {result['howToConnect']}"
            ids = ", ".join(p["pageId"] for p in result["pages"])
            return (
                f"{head}: {len(result['pages'])} page(s) connected ({ids}), "
                f"{result['widgets']} widget(s). MCP endpoint {result['endpoint']}."
            )
        return f"{name}: ok"
