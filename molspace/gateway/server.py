"""The MCP server: tools from the manifest, gateway tools answered here, page tools relayed.

Built on the SDK's low-level ``mcp.server.lowlevel.Server`` (mcp 2.x registers
handlers as constructor arguments ``on_list_tools`` / ``on_call_tool``), because
the tools come from the generated manifest rather than from Python functions.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..app import (
    AppFiles,
    AppResources,
    app_meta_beside_page,
    depiction_answer,
    html_export_answer,
    html_export_path,
    panel_answer,
    panel_meta_beside_page,
    relayed_depictions,
    structure_answer,
)
from ..errors import MolspaceError, summary_line
from .app_panels import AppPanels
from .connect_hint import ConnectHint
from .manifest import Manifest, ToolSpec
from .pages import ConnectedPages
from .prompts import workflows
from .replay import ReplayRecord
from .tools import GATEWAY_TOOLS, GatewayToolContext, GatewayToolHandler

log = logging.getLogger(__name__)


def error_result(error: MolspaceError) -> types.CallToolResult:
    """Wrap a located error as an MCP tool result every official client hands over intact.

    The error shape (documented in ``docs/architecture.md``, "Errors on the wire"):
    ``isError: true``, **no** ``structuredContent``, and one text content whose
    first line is a summary and whose second line is the located error as JSON.
    ``structuredContent`` is left out because clients validate it against the
    tool's declared ``outputSchema`` even on error results (the TypeScript SDK
    throws ``-32602`` when it does not match), and a success schema cannot
    describe an error without loosening it for every successful call.

    Parameters
    ----------
    error : MolspaceError
        The located error ``{code, message, where, fix, details}``.

    Returns
    -------
    CallToolResult
        ``content = [TextContent("<CODE> at <where>: <message> Fix: <fix>\n<JSON>")]``.
    """
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error_text(error.to_dict()))],
        is_error=True,
    )


def error_text(error: dict[str, Any]) -> str:
    """The text of an error result: a one-line summary, a newline, the located error as JSON.

    Parameters
    ----------
    error : dict
        ``{code, message, where, fix, details}``.

    Returns
    -------
    str
        Two lines; the second parses with ``json.loads`` (no raw newlines: JSON escapes them).
    """
    return summary_line(error) + "\n" + json.dumps(error, ensure_ascii=False, separators=(",", ":"))


def ok_result(
    tool: str, structured: dict[str, Any], text: str, images: list[dict[str, str]] | None = None
) -> types.CallToolResult:
    """Wrap a successful result (``structuredContent`` + a short text summary).

    ``images`` (``[{mimeType, data}]``, base64, from the page's result frame) follow the
    text as MCP image content, e.g. an ``act`` screenshot.
    """
    summary = (
        text.strip() if text and text.strip() else f"{tool}: ok. " + _clip(json.dumps(structured))
    )
    content: list[Any] = [types.TextContent(type="text", text=summary)]
    for image in images or []:
        content.append(
            types.ImageContent(type="image", data=image["data"], mime_type=image["mimeType"])
        )
    return types.CallToolResult(
        content=content,
        structured_content=structured,
        is_error=False,
    )


def with_meta(result: types.CallToolResult, meta: dict[str, Any]) -> types.CallToolResult:
    """``result`` with ``meta`` added to its ``_meta`` (what the App reads; the model does not)."""
    return result.model_copy(update={"meta": {**(result.meta or {}), **meta}})


#: MCP's default for each tool annotation hint; ``tools/list`` states only hints that differ.
ANNOTATION_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def listed_tool(spec: ToolSpec) -> types.Tool:
    """The tool as ``tools/list`` gives it: brief, since every agent reads it on every connection.

    The short ``description``, the listed input schema (``ToolSpec.listed_input_schema``),
    the ``title``, and only the annotation hints that differ from MCP's defaults. No
    ``outputSchema``: agents read the text summary; the gateway still checks every
    ``structuredContent`` against the full output schema, and ``describe`` returns it
    (``part: "output"``). Choice and figures: ``docs/architecture.md``, "The contract".
    """
    hints = {
        k: v
        for k, v in spec.annotations.items()
        if k in ANNOTATION_DEFAULTS and v != ANNOTATION_DEFAULTS[k]
    }
    return types.Tool(
        name=spec.name,
        title=spec.annotations.get("title"),
        description=spec.description,
        input_schema=spec.listed_input_schema,
        annotations=types.ToolAnnotations.model_validate(hints) if hints else None,
        # A host that renders MCP Apps shows the result in this App (src/contract/app.ts).
        _meta={"ui": {"resourceUri": spec.app}} if spec.app else None,
    )


def client_renders_apps(ctx: Any, extension: str) -> bool:
    """Whether the calling client declared the MCP Apps extension (``capabilities.extensions``)."""
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    extensions = getattr(getattr(params, "capabilities", None), "extensions", None)
    return isinstance(extensions, dict) and extension in extensions


def client_of(ctx: Any) -> dict[str, str] | None:
    """``{name, version}`` of the calling MCP client (its ``clientInfo``), or ``None`` if it gave none."""
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    if not isinstance(name, str):
        return None
    version = getattr(info, "version", None)
    return {"name": name[:200], "version": str(version or "")[:100]}


def _clip(s: str, limit: int = 400) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"


@dataclass
class ToolCall:
    """One ``tools/call`` on its way: the tool's spec, its arguments, the request's context.

    Attributes
    ----------
    spec : ToolSpec
        The called tool.
    args : dict
        Its arguments (checked against the input schema before a route runs).
    how_to_connect : str
        The request's connect sentence (the fix of ``NO_PAGE``).
    ctx : Any
        The SDK's request context (the session gives the client's ``clientInfo``).
    """

    spec: ToolSpec
    args: dict[str, Any]
    how_to_connect: str
    ctx: Any

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.spec.name


@dataclass
class ToolRoutes:
    """The three routes of a tool call: the gateway, a page's read mirror, a page.

    A gateway tool is answered here; a mirrored read from the routed page's read mirror when
    it holds the answer; every other call is relayed to a page (replayed by ``actionId`` where
    the tool has one). Each route checks the answer against the tool's output schema before it is returned.
    """

    manifest: Manifest
    pages: ConnectedPages
    endpoint: str
    gateway_tools: dict[str, GatewayToolHandler]
    replays: ReplayRecord
    app_files: AppFiles | None = None
    #: The panels shown in chat Apps, which an App follows (``render_panel`` by ``panelId``).
    app_panels: AppPanels = field(default_factory=AppPanels)

    async def at_gateway(self, call: ToolCall) -> types.CallToolResult:
        """A ``runs: 'gateway'`` tool: its handler in :attr:`gateway_tools` answers here.

        Raises
        ------
        MolspaceError
            ``INTERNAL`` at ``/name`` when the manifest lists a gateway tool that has no handler;
            the handler's own errors.
        """
        name, manifest = call.name, self.manifest
        handler = self.gateway_tools.get(name)
        if handler is None:
            raise MolspaceError(
                "INTERNAL",
                f"The gateway lists `{name}` but has no handler for it.",
                "/name",
                "Reinstall molspace so that its Python package and its manifest match.",
                {"tool": name},
            )
        answer = handler(
            call.args,
            GatewayToolContext(
                self.pages,
                manifest.versions,
                self.endpoint,
                call.how_to_connect,
                client_of(call.ctx),
                pages_listed=int(manifest.limits["statusPagesListed"]),
                manifest=manifest,
            ),
        )
        if inspect.isawaitable(answer):
            answer = await answer
        call.spec.check_output(answer.structured, source="the gateway")
        return ok_result(name, answer.structured, answer.text)

    def from_mirror(self, call: ToolCall) -> types.CallToolResult | None:
        """A mirrored read answered from the routed page's read mirror, or ``None`` to relay it.

        The page is told after this answer, batched (its activity panel shows the read).
        """
        name, args, pages = call.name, call.args, self.pages
        started_at_ms, began = time.time() * 1000.0, time.perf_counter()
        mirrored = pages.read(name, args, how_to_connect=call.how_to_connect)
        if mirrored is None:
            return None
        call.spec.check_output(mirrored["structuredContent"], source=mirrored["pageId"])
        served = ok_result(name, mirrored["structuredContent"], mirrored["text"])
        # The person sees it in the page's activity panel: told after this answer, batched.
        duration_ms = (time.perf_counter() - began) * 1000.0
        asyncio.get_running_loop().call_soon(
            pages.note_served,
            mirrored["pageId"],
            name,
            args,
            client_of(call.ctx),
            started_at_ms,
            duration_ms,
        )
        return served

    async def in_app(self, call: ToolCall) -> types.CallToolResult | None:
        """A tool with an App, no page connected, a client that renders Apps: answered for the App.

        Returns ``None`` where the call goes on as before (a page is connected, the tool has no
        App, the client renders none, or the server has no contents manager). The sources that
        need a page raise ``NO_PAGE`` as before (:func:`molspace.app.structure_answer`);
        ``ketcher_open`` is the server's depiction (:func:`molspace.app.depiction_answer`);
        ``render_panel`` the Panel App's panel (:func:`molspace.app.panel_answer`).
        """
        app = self.manifest.app
        if (
            not call.spec.app
            or (self.app_files is None and call.name != "render_panel")
            or self.pages.default_page() is not None
            or not client_renders_apps(call.ctx, app.get("extension", ""))
        ):
            return None
        no_page = MolspaceError(
            "NO_PAGE",
            "No JupyterLab page is connected to molspace.",
            "",
            call.how_to_connect,
            {"pages": []},
        )
        files = self.app_files
        if call.name == "render_panel":
            # The Panel App renders it from the result (molspace/app/panel.py).
            structured, text, meta = await panel_answer(
                call.args, self.manifest, call.how_to_connect
            )
            meta = self._kept(meta)
        elif files is None:
            return None
        elif call.name == "ketcher_open":
            # No editor runs in a chat App (Indigo is WebAssembly): the server's depiction.
            structured, text, meta = await depiction_answer(call.args, files, self.manifest)
        else:
            structured, text, meta = await structure_answer(
                call.args, files, self.manifest, no_page
            )
        call.spec.check_output(structured, source="the gateway")
        return with_meta(ok_result(call.name, structured, text), meta)

    def _kept(self, meta: dict[str, Any]) -> dict[str, Any]:
        """``meta`` with its App panel kept in :attr:`app_panels` (``follow`` added); as is without one."""
        key = self.manifest.app["panelMeta"]
        if key not in meta:
            return meta
        return {**meta, key: self.app_panels.keep(meta[key])}

    async def beside_page(
        self, call: ToolCall, result: types.CallToolResult
    ) -> types.CallToolResult:
        """A page's answer to a tool with an App, for a client that renders Apps: the App's ``_meta`` added.

        The chat's App then draws the same file the page docked (``structuredContent.viewer`` names
        the docked Viewer and its revision), or renders the panel ``render_panel`` docked
        (:func:`molspace.app.panel_meta_beside_page`); nothing is added where the App has nothing
        to draw.
        """
        app = self.manifest.app
        if (
            call.name not in ("open", "render_panel")
            or (self.app_files is None and call.name == "open")
            or result.is_error
            or not client_renders_apps(call.ctx, app.get("extension", ""))
        ):
            return result
        try:
            if call.name == "render_panel":
                meta = self._kept(
                    panel_meta_beside_page(
                        call.args, dict(result.structured_content or {}), self.manifest
                    )
                )
            elif self.app_files is not None:
                meta = await app_meta_beside_page(call.args, self.app_files, self.manifest)
        except Exception:
            # The page docked it: its answer stands whatever went wrong here.
            log.exception("molspace: reading %s's file for the App failed", call.name)
            return result
        return with_meta(result, meta) if meta else result

    async def export_html(self, call: ToolCall) -> types.CallToolResult | None:
        """``export`` to ``.html``: the page answers the widget's App ``_meta``, the gateway writes the file.

        The page holds the widget's data, the gateway the App's script (``molspace/app/static``):
        the path is checked and an existing file refused here before the page is asked; the page's
        answer (``structuredContent.app``, never passed on) is joined with the script by
        :func:`molspace.app.html_export_answer`, as a cell's ``to_html`` does, and written under
        the root through the contents manager. The model reads the path and size only. ``None``
        for any other call.
        """
        path = call.args.get("path")
        if call.name != "export" or not str(path).lower().endswith(".html"):
            return None
        files = self.app_files
        if files is None:
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                "This gateway has no access to the Jupyter root to write an .html export.",
                "/path",
                "Export a panel as .md, .csv or .vl.json, or call the widget's to_html method in its cell.",
                {"path": path},
            )
        checked = html_export_path(str(path))
        await files.check_overwrite(checked, bool(call.args.get("overwrite")))
        answer = await self.pages.call(
            call.name,
            call.args,
            how_to_connect=call.how_to_connect,
            client=client_of(call.ctx),
            writes_html=True,
        )
        call.spec.check_output(answer["structuredContent"], source=str(answer.get("pageId")))
        structured, text = await html_export_answer(
            answer["structuredContent"], call.args, files, self.manifest.app
        )
        call.spec.check_output(structured, source="the gateway")
        return ok_result(call.name, structured, text)

    async def to_page(self, call: ToolCall) -> types.CallToolResult:
        """A page tool relayed to the routed page; a retried ``actionId`` is replayed instead."""
        name, args, spec = call.name, call.args, call.spec

        async def relay() -> dict[str, Any]:
            # A grid's first page drawn here by RDKit, if the server has it: the page shows it at once.
            depictions = (
                await asyncio.to_thread(relayed_depictions, args)
                if name == "render_panel"
                else None
            )
            result = await self.pages.call(
                name,
                args,
                how_to_connect=call.how_to_connect,
                client=client_of(call.ctx),
                depictions=depictions,
            )
            spec.check_output(
                result["structuredContent"], source=str(result.get("pageId", "the page"))
            )
            return result

        if spec.replayable:
            result = await self.replays.run(
                name, args, relay, replayed_field=spec.has_replayed_field
            )
        else:
            result = await relay()
        return ok_result(name, result["structuredContent"], result["text"], result.get("images"))


def unexpected_failure(name: str, incident: str) -> types.CallToolResult:
    """The error result of a call that failed unexpectedly, naming the incident the log has."""
    return error_result(
        MolspaceError(
            "INTERNAL",
            f"The molspace gateway failed while running `{name}` (incident {incident}).",
            "",
            f"Retry once; if it fails again, report incident {incident}: the Jupyter server log "
            "has the details.",
            {"tool": name, "incident": incident},
        )
    )


def build_server(
    manifest: Manifest,
    pages: ConnectedPages,
    connect_hint: ConnectHint,
    endpoint: str,
    gateway_tools: dict[str, GatewayToolHandler] = GATEWAY_TOOLS,
    app_files: AppFiles | None = None,
    app_resources: AppResources | None = None,
) -> Server[Any]:
    """Create the low-level MCP server from its narrow collaborators.

    Parameters
    ----------
    manifest : Manifest
        The tools to list and the schemas to check arguments and results against.
    pages : ConnectedPages
        Where ``runs: 'page'`` tools are relayed.
    connect_hint : ConnectHint
        Builds the "how to connect" sentence from each request.
    endpoint : str
        This MCP endpoint's path (``{base_url}molspace/mcp``).
    gateway_tools : dict
        Handlers of the ``runs: 'gateway'`` tools (default :data:`~molspace.gateway.tools.GATEWAY_TOOLS`).
    app_files : AppFiles, optional
        Files under the Jupyter root for the MCP App when no page is connected (none: no App answers).
    app_resources : AppResources, optional
        The App's ``ui://`` resources (default: the built App, per the manifest's ``app``).

    Returns
    -------
    mcp.server.lowlevel.Server
        Stateless handler set; the session manager runs one server
        session/transport per MCP session.
    """
    tools = [listed_tool(spec) for spec in manifest.tools.values()]
    flows = workflows()
    prompts = [types.Prompt(name=w.name, description=w.description) for w in flows.values()]

    async def on_list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompts)

    async def on_get_prompt(
        ctx: Any, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        flow = flows.get(params.name)
        if flow is None:
            # JSON-RPC invalid params (the MCP spec's answer to an unknown prompt name), located.
            raise MCPError(
                -32602,
                f"There is no molspace prompt named {params.name!r}. Fix: call prompts/list; the prompts are "
                + ", ".join(flows)
                + ".",
                {"where": "/name", "prompts": list(flows)},
            )
        return types.GetPromptResult(
            description=flow.description,
            messages=[
                types.PromptMessage(
                    role="user", content=types.TextContent(type="text", text=flow.body)
                )
            ],
        )

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    routes = ToolRoutes(manifest, pages, endpoint, gateway_tools, ReplayRecord(), app_files)
    resources = app_resources or AppResources(
        manifest.app, int(manifest.limits["appResourceBytes"])
    )

    async def on_list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources.listed())

    async def on_read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if routes.app_panels.owns(uri):
            return types.ReadResourceResult(contents=routes.app_panels.read(uri))
        return types.ReadResourceResult(contents=resources.read(uri))

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        how_to_connect = connect_hint.sentence(getattr(ctx, "request", None))
        try:
            call = ToolCall(manifest.get(name), dict(params.arguments or {}), how_to_connect, ctx)
            call.spec.check_arguments(call.args)
            if call.spec.runs == "gateway":
                return await routes.at_gateway(call)
            if call.spec.mirrored:
                served = routes.from_mirror(call)
                if served is not None:
                    return served
            shown = await routes.in_app(call)
            if shown is not None:
                return shown
            exported = await routes.export_html(call)
            if exported is not None:
                return exported
            return await routes.beside_page(call, await routes.to_page(call))
        except MolspaceError as e:
            return error_result(e)
        except Exception:
            incident = uuid.uuid4().hex[:12]
            log.exception("molspace tool %s failed (incident %s)", name, incident)
            return unexpected_failure(name, incident)

    server: Server[Any] = Server(
        "molspace",
        version=str(manifest.versions.get("molspace", "")),
        title="molspace",
        instructions=manifest.instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_prompts=on_list_prompts,
        on_get_prompt=on_get_prompt,
        on_list_resources=on_list_resources,
        on_read_resource=on_read_resource,
    )
    # MCP Apps (SEP-1865): the App's HTML resources are of this MIME type.
    server.extensions = {manifest.app["extension"]: {"mimeTypes": [manifest.app["mimeType"]]}}
    return server
