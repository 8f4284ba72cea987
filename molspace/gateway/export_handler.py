"""``POST {base_url}molspace/export-html``: the page's own ``export`` to ``.html`` (a docked panel's *Export…*).

An agent's ``export`` to ``.html`` comes through the gateway, which asks the page for the
widget's App ``_meta`` and writes the file (``ToolRoutes.export_html``). A person's *Export…*
button runs ``export`` in the page with no gateway call around it, so the page posts the same
answer here and the server writes the same file, by the same code
(:func:`molspace.app.export.html_export_answer`): the path checked by the Story-file rules (under
the Jupyter root, relative, no ``..``, ``.html``), the ``_meta`` checked against the App's schema
(a panel's content by the kernel's checks), written through the contents manager, an existing file
refused unless ``overwrite``. Jupyter authenticates the request (the page's cookie and XSRF token)
and authorizes it as a contents write; agent tokens do not open it. Body and answers are JSON:

- request ``{"path": str, "overwrite": bool, "answer": ExportOutput}``, ``answer`` the page's
  ``export`` result with its ``app``, at most :data:`MAX_BODY_BYTES`;
- 200 ``{"structuredContent": ExportOutput, "text": str}`` (path, size, replaced; no data);
- 4xx ``{"error": LocatedError}``: ``FORBIDDEN`` at ``/path`` or ``/overwrite``,
  ``UNSUPPORTED_FORMAT`` at ``/path``, ``TOO_LARGE``, ``INVALID_INPUT``, ``INTERNAL`` at ``/app``.
"""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..app import AppFiles
from ..app.export import html_export_answer
from ..contract import LIMITS, manifest
from ..errors import MolspaceError
from .located_handler import LocatedErrorHandler

#: Path under base_url.
EXPORT_HTML_PATH = "molspace/export-html"

#: Largest request body, bytes: the page sends its answer in at most one bridge frame's size.
MAX_BODY_BYTES: int = LIMITS["bridgeFrameBytes"]


class ExportHtmlHandler(LocatedErrorHandler, APIHandler):
    """Write the posted ``export`` answer as one offline HTML file under the Jupyter root."""

    auth_resource = "contents"
    status_by_code = {"FORBIDDEN": 403, "TOO_LARGE": 413, "INTERNAL": 500}

    @web.authenticated
    async def post(self) -> None:
        """Answer ``{structuredContent, text}`` or ``{error}`` (see the module docstring)."""
        if not await self._allowed("write"):
            raise web.HTTPError(403, "not authorized to write files")
        body = self.request.body or b""
        if len(body) > MAX_BODY_BYTES:
            self._fail(
                MolspaceError(
                    "TOO_LARGE",
                    f"The export is {len(body):,} bytes; the server takes at most {MAX_BODY_BYTES:,}.",
                    "/target",
                    "Export a smaller panel (fewer rows or molecules), or call its to_html method "
                    "in the panel's cell.",
                    {"bytes": len(body), "limit": MAX_BODY_BYTES},
                )
            )
            return
        try:
            parsed: Any = json.loads(body)
        except ValueError:
            parsed = None
        ok = (
            isinstance(parsed, dict)
            and isinstance(parsed.get("path"), str)
            and isinstance(parsed.get("answer"), dict)
            and isinstance(parsed.get("overwrite", False), bool)
        )
        if not ok:
            self._fail(
                MolspaceError(
                    "INVALID_INPUT",
                    'The request body is not {"path": <text>, "overwrite": <bool>, "answer": <export result>}.',
                    "",
                    "Reload the JupyterLab page so it runs the same molspace version as the server.",
                )
            )
            return
        files = AppFiles(self.contents_manager, LIMITS["appStructureBytes"])
        args = {"path": parsed["path"], "overwrite": parsed.get("overwrite", False)}
        try:
            structured, text = await html_export_answer(
                parsed["answer"], args, files, manifest()["app"]
            )
        except MolspaceError as e:
            self._fail(e)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"structuredContent": structured, "text": text}))
