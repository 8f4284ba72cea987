"""The molspace Jupyter server extension: an MCP gateway inside Jupyter's server.

Configuration (traitlets, e.g. in ``jupyter_server_config.py``)::

    c.MolspaceGateway.call_timeout = 30.0        # seconds per relayed call
    c.MolspaceGateway.lab_url = ""               # public JupyterLab URL for agents
    c.MolspaceGateway.session_idle_timeout = 1800.0
    c.MolspaceGateway.manifest_path = ""         # default: packaged manifest
    c.MolspaceGateway.read_mirror = True         # answer read tools from pages' pushed state
"""

from __future__ import annotations

import logging
from typing import Any

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from traitlets import Bool, Float, Int, List, TraitError, Unicode, validate

from ..app import AppFiles
from .agent_tokens import AgentTokenStore
from .bridge_frames import BridgeFrames
from .connect_hint import ConnectHint
from .embed_handler import EMBED_PATH, Embed3dHandler
from .export_handler import EXPORT_HTML_PATH, ExportHtmlHandler
from .frames_handler import FRAMES_PATH, FramesHandler, OpenTrajectories
from .handlers import BridgeHandler, McpHandler
from .manifest import Manifest
from .origin import OriginPolicy
from .pages import ConnectedPages
from .server import build_server
from .session_host import SessionManagerHost
from .session_owners import SessionOwners
from .static_fallback import FallbackSaveHook, FallbackStore

log = logging.getLogger(__name__)

MCP_PATH = "molspace/mcp"
BRIDGE_PATH = "molspace/bridge"


class MolspaceGateway(ExtensionApp):
    """molspace MCP gateway (Jupyter server extension ``molspace``).

    Serves MCP (Streamable HTTP) at ``{base_url}molspace/mcp`` and the page
    bridge websocket at ``{base_url}molspace/bridge``, behind Jupyter's auth.
    This class holds the settings and wires the collaborators together; the
    path of a call through them is in ``docs/architecture.md``.
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
    allowed_hosts = List(
        Unicode(),
        config=True,
        help="More host names under which browsers reach this server (e.g. a proxy's public name). "
        "A browser request (with Origin) whose Host is not one of the server's own names is refused "
        "(DNS-rebinding protection).",
    )
    max_request_bytes = Int(
        1024 * 1024,
        config=True,
        help="Largest MCP request body accepted, in bytes (default 1 MiB); larger gets 413 TOO_LARGE.",
    )
    read_mirror = Bool(
        True,
        config=True,
        help="Answer read tools (observe, story_observe, viewer_observe) from the state pages push, "
        "without a round trip through the page's main thread; False: relay every read.",
    )
    agent_token_file = Unicode(
        "",
        config=True,
        help="File of hashed agent tokens (`jupyter molspace token`); default: "
        "{jupyter_data_dir}/molspace/agent-tokens.json.",
    )

    @validate("call_timeout", "session_idle_timeout")
    def _positive(self, proposal: Any) -> float:
        value = float(proposal["value"])
        if not value > 0:
            raise TraitError(f"{proposal['trait'].name} must be > 0 seconds, got {value}")
        return value

    # ------------------------------------------------------------ lifecycle
    def initialize_settings(self) -> None:
        """Build the collaborators: manifest, pages, origin policy, connect hint, MCP server."""
        assert self.serverapp is not None
        self.manifest = Manifest.load(self.manifest_path or None)
        base_url: str = self.serverapp.base_url
        self.mcp_endpoint = url_path_join(base_url, MCP_PATH)
        mirrored = (
            {s.name: s.defaults for s in self.manifest.tools.values() if s.mirrored}
            if self.read_mirror
            else {}
        )
        limits = self.manifest.limits
        self.pages = ConnectedPages(
            self.call_timeout,
            mirrored,
            limits["observeOutputBytes"],
            served_batch_ms=limits["servedReadsBatchMs"],
            served_limit=limits["activityEntries"],
        )
        self.origin_policy = OriginPolicy.from_serverapp(
            self.serverapp, [*self.allowed_hosts, self.lab_url]
        )
        self.connect_hint = ConnectHint(
            configured_lab_url=self.lab_url,
            base_url=base_url,
            server_lab_url=url_path_join(self.serverapp.connection_url, "lab"),
        )
        self.agent_tokens = AgentTokenStore(self.agent_token_file or None)
        self.frames = BridgeFrames(
            self.manifest.wire["bridge"]["pageToGateway"],
            self.manifest.bridge_protocol,
            self.manifest.limits["bridgeFrameBytes"],
        )
        server = build_server(
            self.manifest,
            self.pages,
            self.connect_hint,
            self.mcp_endpoint,
            # The MCP App with no page: files under the root through Jupyter's contents manager.
            app_files=AppFiles(self.serverapp.contents_manager, limits["appStructureBytes"]),
        )
        # Origin is checked by McpHandler with Jupyter's own settings (the SDK's
        # matcher knows neither allow_origin_pat regexes nor Jupyter's Host check),
        # and Host by Jupyter's check_host; so the SDK's own check is off here.
        self.session_owners = SessionOwners(self.session_idle_timeout)
        self.session_host = SessionManagerHost(
            StreamableHTTPSessionManager(
                server,
                security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
                session_idle_timeout=self.session_idle_timeout,
            )
        )
        self.observe(
            lambda change: setattr(self.pages, "call_timeout", change["new"]), names="call_timeout"
        )
        # Static fallbacks of saved notebooks (docs/architecture.md, "Static fallback in saved notebooks").
        self.fallbacks = FallbackStore()
        self.serverapp.contents_manager.register_pre_save_hook(FallbackSaveHook(self.fallbacks))
        # Trajectory files whose frames the page fetches (agent-opened Viewers, frames on demand).
        self.trajectories = OpenTrajectories()

    def initialize_handlers(self) -> None:
        """Register the MCP endpoint, the page bridge, the page's 3D and HTML-export endpoints (base_url is prepended by ExtensionApp)."""
        self.handlers.extend(
            [
                (
                    MCP_PATH + "/?",
                    McpHandler,
                    {
                        "origin_policy": self.origin_policy,
                        "session_manager": self.session_host.started,
                        "agent_tokens": self.agent_tokens,
                        "max_request_bytes": self.max_request_bytes,
                        "session_owners": self.session_owners,
                    },
                ),
                (
                    BRIDGE_PATH,
                    BridgeHandler,
                    {"pages": self.pages, "frames": self.frames, "fallbacks": self.fallbacks},
                ),
                (EMBED_PATH, Embed3dHandler),
                (EXPORT_HTML_PATH, ExportHtmlHandler),
                (FRAMES_PATH, FramesHandler, {"trajectories": self.trajectories}),
            ]
        )

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        """Start the session manager once the server's event loop runs."""
        await self.session_host.started()

    async def stop_extension(self) -> None:
        """Fail pending page calls and close the session manager (server shutdown)."""
        self.pages.close_all()
        self.trajectories.close_all()
        await self.session_host.stop()
