"""The App's ``ui://`` resources: its HTML (a loader) and the script parts the loader reads back.

Hosts cap each resource (512 KiB–1 MiB in the wild) and let an App fetch nothing it
did not declare, so the App's Mol* code (about 3 MB) travels as resources, not URLs:

- ``ui://molspace/viewer`` (``text/html;profile=mcp-app``): the HTML, whose only script is the
  loader (``static/loader.js``), and a ``<meta name="molspace-app-parts">`` listing the parts;
- ``ui://molspace/app/viewer-<hash>-<n>.js`` (``text/javascript``): ``static/viewer.js`` cut
  into parts of at most ``limits.appResourceBytes``; the hash changes with the build, so a
  host's cache never mixes two builds;
- ``ui://molspace/panel``: the Panel App (``render_panel``'s report panels), the same loader with
  the parts of ``static/panel.js`` (``ui://molspace/app/panel-<hash>-<n>.js``): a separate App, so
  a structure reads no panel code and a panel no Mol* code.

Each resource declares its CSP allow-list (``_meta.ui.csp``): ``connectDomains`` are the default
resource hosts a Story's data may come from (the manifest's ``app.connectDomains``), nothing else.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

#: The built App (``npm run build:app``; shipped in the wheel).
STATIC_DIR = Path(__file__).resolve().parent / "static"

#: JSON-RPC code of an unknown resource (the MCP spec's "Resource not found").
RESOURCE_NOT_FOUND = -32002

_STYLE = """
html, body { margin: 0; height: 100%; font: 13px/1.4 system-ui, sans-serif;
  color: var(--color-text-primary, #1b1b1b); background: var(--color-background-primary, #fff); }
html[data-theme="dark"] body { color: var(--color-text-primary, #e8e8e8); background: var(--color-background-primary, #111); }
#molspace-app-root { position: relative; height: 420px; }
#molspace-app-status { padding: 4px 8px; color: var(--color-text-secondary, #666); }
#molspace-app-error { margin: 8px; padding: 8px; border-left: 3px solid #c62828; white-space: pre-wrap; }
#molspace-app-story { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 6px 8px; }
#molspace-app-story button { font: inherit; padding: 2px 10px; }
.molspace-app-description { flex-basis: 100%; white-space: pre-wrap; max-height: 8em; overflow: auto; }
#molspace-app-picture { padding: 8px; }
.molspace-app-depiction { display: block; max-width: 100%; background: #fff; }
.molspace-app-caption { padding: 4px 0; word-break: break-all; }
#molspace-app-note { color: var(--color-text-secondary, #666); }
"""


def _inline_script(js: str) -> str:
    """``js`` safe inside ``<script>``: no ``</script`` or ``<!--`` that would end or escape it.

    The bundles hold these only inside string literals, where ``<\\/`` and ``<\\!`` read the same.
    """
    return (
        js.replace("</script", "<\\/script")
        .replace("</SCRIPT", "<\\/SCRIPT")
        .replace("<!--", "<\\!--")
    )


class AppResources:
    """The App's ``ui://`` resources, read from the built App once.

    Parameters
    ----------
    contract : dict
        The manifest's ``app`` entry (``viewer``, ``partPrefix``, ``mimeType``).
    part_bytes : int
        Largest resource, bytes of text (``limits.appResourceBytes``).
    static_dir : Path
        Where ``loader.js`` and ``viewer.js`` are (default :data:`STATIC_DIR`).
    """

    def __init__(
        self, contract: dict[str, Any], part_bytes: int, static_dir: Path = STATIC_DIR
    ) -> None:
        self.viewer_uri: str = contract["viewer"]
        self.panel_uri: str | None = contract.get("panel")
        self.part_prefix: str = contract["partPrefix"]
        self.mime_type: str = contract["mimeType"]
        self.connect_domains: list[str] = list(contract.get("connectDomains") or [])
        self.part_bytes = int(part_bytes)
        self.static_dir = static_dir

    def _built(self, name: str) -> str:
        path = self.static_dir / name
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise MCPError(
                -32603,
                f"The molspace App is not built: {path} is missing. Fix: in a source checkout run "
                "`npm run build:app` (or reinstall molspace).",
                {"where": str(path)},
            ) from None

    def _parts_of(self, name: str) -> dict[str, str]:
        js = self._built(f"{name}.js")
        digest = hashlib.sha256(js.encode("utf-8")).hexdigest()[:10]
        # Parts are cut by characters; each is at most part_bytes of UTF-8 (4 bytes a character at most).
        step = max(1, self.part_bytes // 4) if not js.isascii() else self.part_bytes
        chunks = [js[i : i + step] for i in range(0, len(js), step)] or [""]
        return {f"{self.part_prefix}{name}-{digest}-{n}.js": c for n, c in enumerate(chunks)}

    @cached_property
    def parts(self) -> dict[str, str]:
        """The viewer script's parts by URI, in order."""
        return self._parts_of("viewer")

    @cached_property
    def panel_parts(self) -> dict[str, str]:
        """The Panel App script's parts by URI, in order."""
        return self._parts_of("panel")

    @cached_property
    def html(self) -> str:
        """The Viewer App's HTML: its loader inline and the list of parts it reads."""
        return self._html(self.parts)

    @cached_property
    def panel_html(self) -> str:
        """The Panel App's HTML: the same loader and the panel script's parts."""
        return self._html(self.panel_parts)

    def _html(self, parts: dict[str, str]) -> str:
        loader = _inline_script(self._built("loader.js"))
        return (
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="molspace-app-parts" content="{" ".join(parts)}">\n'
            f"<title>molspace</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            '<div id="molspace-app-root"></div>\n'
            '<div id="molspace-app-status" aria-live="polite"></div>\n'
            '<div id="molspace-app-error" role="alert" hidden></div>\n'
            f"<script>{loader}</script>\n</body>\n</html>\n"
        )

    @property
    def _meta(self) -> dict[str, Any]:
        # A Story's data may come from the default resource hosts (as in a page); nothing else:
        # no resource (script, image, font) or frame domains.
        return {
            "ui": {
                "csp": {"connectDomains": self.connect_domains, "resourceDomains": []},
                "prefersBorder": True,
            }
        }

    def listed(self) -> list[types.Resource]:
        """What ``resources/list`` gives: the Apps' HTML (their parts are read by the App, unlisted)."""
        listed = [
            types.Resource(
                uri=self.viewer_uri,
                name="molspace-viewer",
                title="molspace Viewer",
                description="A structure from a tool result, drawn by Mol* (MCP App).",
                mime_type=self.mime_type,
                _meta=self._meta,
            )
        ]
        if self.panel_uri:
            listed.append(
                types.Resource(
                    uri=self.panel_uri,
                    name="molspace-panel",
                    title="molspace report panel",
                    description="Markdown, a table, a Vega-Lite chart or a molecule grid from render_panel (MCP App).",
                    mime_type=self.mime_type,
                    _meta=self._panel_meta,
                )
            )
        return listed

    @property
    def _panel_meta(self) -> dict[str, Any]:
        # A panel fetches nothing: its data is inline, its pictures are data: URLs.
        return {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}}

    def read(self, uri: str) -> list[types.TextResourceContents | types.BlobResourceContents]:
        """The contents of ``uri``.

        Raises
        ------
        MCPError
            -32002 (resource not found) for any other URI, naming the App's URI; -32603 when the
            App is not built.
        """
        if uri == self.viewer_uri:
            return [
                types.TextResourceContents(
                    uri=uri, mime_type=self.mime_type, text=self.html, _meta=self._meta
                )
            ]
        if self.panel_uri and uri == self.panel_uri:
            return [
                types.TextResourceContents(
                    uri=uri, mime_type=self.mime_type, text=self.panel_html, _meta=self._panel_meta
                )
            ]
        text = self.parts.get(uri)
        if text is None and self.panel_uri and uri.startswith(f"{self.part_prefix}panel-"):
            text = self.panel_parts.get(uri)
        if text is not None:
            return [types.TextResourceContents(uri=uri, mime_type="text/javascript", text=text)]
        shown = uri if len(uri) <= 200 else uri[:199] + "…"
        apps = [u for u in (self.viewer_uri, self.panel_uri) if u]
        raise MCPError(
            RESOURCE_NOT_FOUND,
            f"There is no molspace resource {shown!r} (at /uri). Fix: call resources/list; the App is "
            f"{' and '.join(apps)}, and their script parts are the URIs their HTML lists.",
            {"where": "/uri", "uri": shown, "resources": apps},
        )
