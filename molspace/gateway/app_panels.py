"""The panels chat Apps show, kept so that an App follows later ``render_panel`` calls of its panel.

Every ``render_panel`` answered for a client that renders MCP Apps (with no page:
:func:`molspace.app.panel_answer`; beside a page: :func:`molspace.app.panel_meta_beside_page`)
is kept here under its ``panelId``, and its ``AppPanel`` (``_meta["molspace/panel"]``) gets
``follow``: ``{uri, seq}``, where ``uri`` is ``ui://molspace/panels/<panelId>`` (the id
percent-encoded) and ``seq`` grows by one with every panel kept, of any id. The Panel App reads
``uri`` through the host (``resources/read``, ``application/json``: the latest ``AppPanel``)
while it is visible and renders again when ``seq`` moved (``src/app/appFollow.ts``), so the
model's later ``render_panel`` with the same ``panelId`` reaches the chat.

Only the gateway's own answers are kept (a cell's ``Panel.update`` is not seen here), the last
:data:`MEMORY` panels, the least recently kept dropped first; a dropped or unknown panel is a
located resource-not-found error, and the App stops following it. Panels are not listed in
``resources/list``. Any client the gateway admits may read them, as it may observe a page.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..app.resources import RESOURCE_NOT_FOUND

#: The URI prefix of kept panels.
PREFIX = "ui://molspace/panels/"
#: How many panels are kept.
MEMORY = 16


class AppPanels:
    """The last :data:`MEMORY` panels shown in chat Apps, by ``panelId``."""

    def __init__(self, memory: int = MEMORY) -> None:
        self._memory = memory
        self._kept: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._seq = 0

    def keep(self, panel: dict[str, Any]) -> dict[str, Any]:
        """Keep ``panel`` (an ``AppPanel``) as its id's latest; returns it with ``follow`` added."""
        panel_id = str(panel["panelId"])
        self._seq += 1
        kept = {**panel, "follow": {"uri": PREFIX + quote(panel_id, safe=""), "seq": self._seq}}
        self._kept.pop(panel_id, None)
        self._kept[panel_id] = kept
        while len(self._kept) > self._memory:
            self._kept.popitem(last=False)
        return kept

    def owns(self, uri: str) -> bool:
        """Whether ``uri`` names a kept panel's resource (kept or not)."""
        return uri.startswith(PREFIX)

    def read(self, uri: str) -> list[types.TextResourceContents | types.BlobResourceContents]:
        """The latest ``AppPanel`` of the panel ``uri`` names, as JSON.

        Raises
        ------
        MCPError
            -32002 (resource not found) at ``/uri`` for a panel that is not kept: never shown
            in a chat App, dropped after :data:`MEMORY` later panels, or the server restarted.
        """
        panel_id = unquote(uri[len(PREFIX) :])
        kept = self._kept.get(panel_id)
        if kept is None:
            shown = panel_id if len(panel_id) <= 120 else panel_id[:119] + "…"
            raise MCPError(
                RESOURCE_NOT_FOUND,
                f"No panel {shown!r} is kept for chat Apps (at /uri): the gateway keeps the last "
                f"{self._memory} panels render_panel showed in an App, until the server restarts. "
                "Fix: call render_panel again to show it.",
                # ``uri``: SDK 2.x clients read a resource-not-found error by it.
                {"where": "/uri", "uri": uri[:200], "panelId": shown, "kept": len(self._kept)},
            )
        return [
            types.TextResourceContents(
                uri=uri, mime_type="application/json", text=json.dumps(kept, ensure_ascii=False)
            )
        ]
