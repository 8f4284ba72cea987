"""``status``: versions, connected pages and how to connect one; never touches a page."""

from __future__ import annotations

from typing import Any

from .context import GatewayToolAnswer, GatewayToolContext


def answer(args: dict[str, Any], ctx: GatewayToolContext) -> GatewayToolAnswer:
    """Answer ``status``.

    Returns
    -------
    GatewayToolAnswer
        ``{versions, pageConnected, pageCount, pages, widgets, howToConnect, endpoint}`` (the
        contract's ``StatusOutput``; ``pages`` lists at most ``limits.statusPagesListed``,
        default route first) and a one-line summary.
    """
    pages = ctx.pages.page_infos()
    listed = pages[: ctx.pages_listed]
    structured = {
        "versions": dict(ctx.versions),
        "pageConnected": bool(pages),
        "pageCount": len(pages),
        "pages": listed,
        "widgets": ctx.pages.total_widgets(),
        "howToConnect": ctx.how_to_connect,
        "endpoint": ctx.endpoint,
    }
    v = ctx.versions
    head = (
        f"molspace {v.get('molspace')} (Mol* {v.get('molstar')}, MVS {v.get('mvsSpec')}, Ketcher {v.get('ketcher')}, "
        f"Indigo {v.get('indigo')}, Vega-Lite {v.get('vegaLite')}, JupyterLab {v.get('jupyterlab')})"
    )
    if not pages:
        text = f"{head}: no JupyterLab page connected. {ctx.how_to_connect}"
    else:
        ids = ", ".join(p["pageId"] for p in listed)
        more = f" and {len(pages) - len(listed)} more" if len(pages) > len(listed) else ""
        text = f"{head}: {len(pages)} page(s) connected ({ids}{more}), {structured['widgets']} widget(s). MCP endpoint {ctx.endpoint}."
    return GatewayToolAnswer(structured, text)
