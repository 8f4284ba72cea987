"""The MCP server: tools from the manifest, ``status`` answered here, the rest relayed.

Built on the SDK's low-level ``mcp.server.lowlevel.Server`` (mcp 2.x registers
handlers as constructor arguments ``on_list_tools`` / ``on_call_tool``), because
the tools come from the generated manifest rather than from Python functions.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.lowlevel import Server

from .errors import ToolError

if TYPE_CHECKING:
    from .app import MolspaceGateway

log = logging.getLogger(__name__)


def error_result(error: ToolError) -> types.CallToolResult:
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
    error : ToolError
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
    where = f" at {error['where']}" if error.get("where") else ""
    message = " ".join(str(error["message"]).split()).rstrip(".")
    fix = " ".join(str(error["fix"]).split())
    summary = f"{error['code']}{where}: {message}. Fix: {fix}"
    return summary + "\n" + json.dumps(error, ensure_ascii=False, separators=(",", ":"))


def ok_result(tool: str, structured: dict[str, Any], text: str) -> types.CallToolResult:
    """Wrap a successful result (``structuredContent`` + a short text summary)."""
    summary = text.strip() if text and text.strip() else f"{tool}: ok. " + _clip(json.dumps(structured))
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=summary)],
        structured_content=structured,
        is_error=False,
    )


def _clip(s: str, limit: int = 400) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _request_lab_url(ctx: Any, gateway: MolspaceGateway) -> str | None:
    """``scheme://host{base_url}lab`` as the MCP client reached us, if known."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    host = headers.get("host")
    if not host:
        return None
    scheme = getattr(getattr(request, "url", None), "scheme", None) or "http"
    return f"{scheme}://{host}{gateway.base_url}lab"


def build_server(gateway: MolspaceGateway) -> Server[Any]:
    """Create the low-level MCP server bound to one gateway.

    Parameters
    ----------
    gateway : MolspaceGateway
        Supplies the manifest, the page registry and URLs.

    Returns
    -------
    mcp.server.lowlevel.Server
        Stateless handler set; the session manager runs one server
        session/transport per MCP session.
    """
    manifest = gateway.manifest
    tools = [
        types.Tool(
            name=spec.name,
            title=spec.annotations.get("title"),
            description=spec.description,
            input_schema=spec.input_schema,
            output_schema=spec.output_schema,
            annotations=types.ToolAnnotations.model_validate(spec.annotations)
            if spec.annotations
            else None,
        )
        for spec in manifest.tools.values()
    ]

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        args = dict(params.arguments or {})
        lab_url = _request_lab_url(ctx, gateway)
        try:
            spec = manifest.get(name)
            spec.check_arguments(args)
            if spec.runs == "gateway":
                structured = gateway.answer_gateway_tool(name, args, lab_url=lab_url)
                return ok_result(name, structured, gateway.summarize_gateway_tool(name, structured))
            result = await gateway.registry.call(
                name, args, how_to_connect=gateway.how_to_connect(lab_url)
            )
            return ok_result(name, result["structuredContent"], result["text"])
        except ToolError as e:
            return error_result(e)
        except Exception as e:  # noqa: BLE001 - never a stack trace to the agent
            log.exception("molspace tool %s failed", name)
            return error_result(
                ToolError(
                    "INTERNAL",
                    f"The molspace gateway failed while running `{name}`: {type(e).__name__}: {e}",
                    "",
                    "Retry once; if it fails again, report this message together with the Jupyter "
                    "server log.",
                    {"tool": name},
                )
            )

    return Server(
        "molspace",
        version=str(manifest.versions.get("molspace", "")),
        title="molspace",
        instructions=manifest.instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
