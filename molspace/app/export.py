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

An agent's ``export`` to ``.html`` writes the same file from the page's answer
(:func:`html_export_answer`: the widget's App ``_meta`` joined with the script here, written under the
Jupyter root through the contents manager; docs/architecture.md, "Export to HTML").
"""

from __future__ import annotations

import html
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from ..contract import LIMITS, manifest
from ..errors import MolspaceError
from .resources import _STYLE, STATIC_DIR, _inline_script
from .structure import AppFiles

#: Largest exported file, bytes (the contract's ``exportHtmlBytes``).
MAX_HTML_BYTES: int = LIMITS["exportHtmlBytes"]


def _data_block(data: dict[str, Any]) -> str:
    # JSON in a <script> block: no "<" at all, so no "</script" or "<!--" can end or escape it.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def html_document(meta: dict[str, Any], title: str, *, where: str, app: str = "viewer") -> bytes:
    """The exported file of ``meta`` (a result's ``_meta`` for the App), as UTF-8 bytes.

    Parameters are those of :func:`export_html`.

    Raises
    ------
    MolspaceError
        ``TOO_LARGE`` (over :data:`MAX_HTML_BYTES`), ``INTERNAL`` (the App is not built: a source
        checkout without ``npm run build:app``), at ``where``.
    """
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
    return encoded


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
    encoded = html_document(meta, title, where=where, app=app)
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


def html_export_path(path: str, where: str = "/path") -> str:
    """``export``'s ``.html`` path under the Jupyter root, by the page's Story-file rules (``checkStoryPath``).

    Returns
    -------
    str
        The path without leading ``./``.

    Raises
    ------
    MolspaceError
        ``FORBIDDEN`` at ``where`` for an absolute, ``~``, drive, URL or backslash path or one with
        a ``..`` part; ``UNSUPPORTED_FORMAT`` at ``where`` for another ending than ``.html``.
    """
    p = re.sub(r"^(\./)+", "", path)

    def forbidden(why: str) -> MolspaceError:
        return MolspaceError(
            "FORBIDDEN",
            f"The path {path!r} {why}.",
            where,
            'Give a path relative to the Jupyter root without "..", e.g. "share/protease.html".',
            {"path": path},
        )

    if p.startswith(("/", "~")) or re.match(r"^[a-zA-Z]:", p):
        raise forbidden("is absolute; only paths relative to the Jupyter root are allowed")
    if "\\" in p or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", p):
        raise forbidden("is not a plain relative path")
    if ".." in p.split("/"):
        raise forbidden('leaves the Jupyter root ("..")')
    if not p.lower().endswith(".html"):
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            f"The path {path!r} does not end with .html.",
            where,
            "Name the file with .html.",
            {"path": path, "extensions": [".html"]},
        )
    return p


def _page_meta(answer: dict[str, Any], app: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The one App ``_meta`` entry of a page's ``export`` answer for its kind, checked against the App's schema."""
    from jsonschema import Draft202012Validator

    kind = answer.get("kind")
    key, schema = {
        "viewer": (app["structureMeta"], app["structure"]),
        "story": (app["storyMeta"], app["story"]),
        "panel": (app["panelMeta"], app["panelSchema"]),
    }.get(str(kind), ("", None))
    meta = answer.get("app")
    value = meta.get(key) if isinstance(meta, dict) and len(meta) == 1 else None
    problem = (
        None
        if schema is None or value is None
        else next(iter(Draft202012Validator(schema).iter_errors(value)), None)
    )
    if schema is None or value is None or problem is not None:
        raise MolspaceError(
            "INTERNAL",
            f"The page answered export to .html without a {kind} App _meta the gateway can write"
            + (f" ({problem.message[:200]})" if problem is not None else "")
            + ".",
            "/app",
            "Reload the JupyterLab page so it runs the same molspace version as the server.",
            {"kind": kind},
        )
    return key, value


async def html_export_answer(
    answer: dict[str, Any], args: dict[str, Any], files: AppFiles, app: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """``export`` to ``.html``: the page's answer joined with the App's script and written under the root.

    Parameters
    ----------
    answer : dict
        The page's ``structuredContent``: ``{path, target, kind, type?, app}``, ``app`` the widget's
        App ``_meta`` (``AppStructure``, ``AppStory`` or ``AppPanel``).
    args : dict
        ``export``'s arguments (``path``, ``overwrite``).
    files : AppFiles
        The Jupyter root, through the server's contents manager.
    app : dict
        The manifest's ``app`` (meta keys and their schemas).

    Returns
    -------
    tuple
        ``(structuredContent, text)``: the path, widget, kind, size and whether a file was
        replaced; never the data.

    Raises
    ------
    MolspaceError
        :func:`html_export_path`'s; ``FORBIDDEN`` at ``/overwrite`` or ``/path`` (``AppFiles.write_text``);
        ``TOO_LARGE`` at ``/target`` (over ``exportHtmlBytes``); a panel's content refused by the
        kernel's checks; ``INTERNAL`` for an answer the gateway cannot read.
    """
    path = html_export_path(str(args["path"]))
    key, value = _page_meta(answer, app)
    if key == app["panelMeta"]:
        from .panel import app_panel

        # As Panel.to_html: the kernel's checks, and a grid's pictures drawn here by RDKit.
        value = app_panel(
            {"content": value["content"]}, str(value["panelId"]), str(value["title"]) or None
        )
    title = str(value.get("title") or answer.get("target") or "molspace")
    document = html_document(
        {key: value}, title, where="/target", app="panel" if key == app["panelMeta"] else "viewer"
    )
    replaced = await files.write_text(path, document.decode("utf-8"), bool(args.get("overwrite")))
    structured = {k: v for k, v in answer.items() if k != "app"}
    structured.update(path=path, bytes=len(document), replaced=replaced)
    text = (
        f'export: {answer["kind"]} "{answer["target"]}" written to {path} as one HTML file that '
        f"opens offline ({len(document):,} bytes{', replaced' if replaced else ''})."
    )
    return structured, text
