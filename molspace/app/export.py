"""One HTML file of a Viewer, a Story or a report Panel that opens anywhere, offline: ``to_html``.

The file is the MCP App (``src/app/``) without a host: the App's viewer script
(``static/viewer.js``: Mol* and the same Viewer and Story code as a notebook's widgets) and
``static/export-handoff.js`` inline, and the one result it shows in a
``<script type="application/json" id="molspace-export">`` block (``AppStructure`` or
``AppStory`` of ``src/contract/app.ts``, under ``_meta``). It loads nothing by URL: it opens
from ``file://`` with the network off (a Story whose data is a remote URL still needs that
host). A Story's text is shown as text; its data is JSON, never a script (``<`` is escaped).
A ``Content-Security-Policy`` in the file allows its own inline scripts and the default
resource hosts only. A Panel's file carries the Panel App's script (``static/panel.js``) instead
of the viewer's, and its panel (``AppPanel``) under ``_meta["molspace/panel"]``; it fetches nothing
(``connect-src 'none'``).
"""

from __future__ import annotations

import html
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..contract import LIMITS, manifest
from ..errors import MolspaceError
from .resources import _STYLE, STATIC_DIR, _inline_script

#: Largest exported file, bytes (the contract's ``exportHtmlBytes``).
MAX_HTML_BYTES: int = LIMITS["exportHtmlBytes"]


def _data_block(data: dict[str, Any]) -> str:
    # JSON in a <script> block: no "<" at all, so no "</script" or "<!--" can end or escape it.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def export_html(
    meta: dict[str, Any],
    title: str,
    path: str | os.PathLike[str],
    *,
    where: str,
    app: str = "viewer",
) -> int:
    """Write the exported file of ``meta`` (a result's ``_meta`` for the App) to ``path``.

    Parameters
    ----------
    meta : dict
        ``{"molspace/structure": AppStructure}`` or ``{"molspace/story": AppStory}``.
    title : str
        The page title.
    path : str or PathLike
        Where to write (``.html``); its folder must exist. Written whole or not at all.
    where : str
        What to name in errors (e.g. ``"Viewer.to_html"``).
    app : str
        The App's script: ``"viewer"`` (a structure or a Story) or ``"panel"`` (``{"molspace/panel":
        AppPanel}``).

    Returns
    -------
    int
        The file's size, bytes.

    Raises
    ------
    MolspaceError
        ``INVALID_INPUT`` (``path`` is a folder, its folder is missing, or it does not end in
        ``.html``/``.htm``), ``TOO_LARGE`` (over :data:`MAX_HTML_BYTES`), ``INTERNAL`` (the App
        is not built: a source checkout without ``npm run build:app``).
    """
    target = Path(path).expanduser()
    if target.suffix.lower() not in (".html", ".htm"):
        raise MolspaceError(
            "INVALID_INPUT",
            f"{str(path)!r} does not end in .html.",
            where,
            "Pass a file name ending in .html (e.g. 'story.html').",
            {"path": str(path)},
        )
    if target.is_dir() or not target.parent.is_dir():
        raise MolspaceError(
            "INVALID_INPUT",
            f"{str(path)!r} is a folder."
            if target.is_dir()
            else f"The folder of {str(path)!r} does not exist.",
            where,
            "Pass the path of a file in an existing folder.",
            {"path": str(path)},
        )
    try:
        viewer = (STATIC_DIR / f"{app}.js").read_text(encoding="utf-8")
        handoff = (STATIC_DIR / "export-handoff.js").read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise MolspaceError(
            "INTERNAL",
            f"The molspace App is not built: {e.filename} is missing.",
            where,
            "In a source checkout run `npm run build:app` (or reinstall molspace).",
            {"missing": str(e.filename)},
        ) from None
    domains = "" if app == "panel" else " ".join(manifest()["app"].get("connectDomains") or [])
    csp = (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
        f"connect-src {domains or chr(39) + 'none' + chr(39)}; base-uri 'none'; form-action 'none'"
    )
    data = {"result": {"content": [], "_meta": meta}}
    text = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        '<div id="molspace-app-root"></div>\n'
        '<div id="molspace-app-status" aria-live="polite"></div>\n'
        '<div id="molspace-app-error" role="alert" hidden></div>\n'
        f'<script type="application/json" id="molspace-export">{_data_block(data)}</script>\n'
        f"<script>{_inline_script(handoff)}</script>\n"
        f"<script>{_inline_script(viewer)}</script>\n</body>\n</html>\n"
    )
    encoded = text.encode("utf-8")
    if len(encoded) > MAX_HTML_BYTES:
        raise MolspaceError(
            "TOO_LARGE",
            f"The exported file would be {len(encoded):,} bytes; at most {MAX_HTML_BYTES:,} are written.",
            where,
            "Export a smaller panel (fewer rows or molecules)."
            if app == "panel"
            else "Export a smaller structure or Story (e.g. fewer trajectory frames).",
            {"bytes": len(encoded), "limit": MAX_HTML_BYTES},
        )
    fd, tmp = tempfile.mkstemp(prefix=".molspace-export-", suffix=".html", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(encoded)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(encoded)
