"""``POST {base_url}molspace/embed3d``: 3D coordinates for a drawn molecule, for the page.

The page's ``open {ketcher}`` (an agent sending an editor's molecule to a
Viewer) needs 3D coordinates that neither Indigo nor Mol* make; the server's
RDKit makes them (:func:`molspace.ketcher.embedding.embed_3d`), off the event loop.
Jupyter authenticates the request (the page's cookie and XSRF token); agent
tokens do not open it (they open ``molspace/mcp`` only). Body and answers
are JSON:

- request ``{"molfile": str}`` (a Molfile or SMILES), at most :data:`MAX_BODY_BYTES`;
- 200 ``{"sdf": str, "atoms": int, "optimized": bool}``;
- 4xx/501 ``{"error": LocatedError}`` (``VALIDATION_FAILED``, ``TOO_LARGE``,
  ``UNSUPPORTED_FORMAT`` when the server has no RDKit, ``INVALID_INPUT``).
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..errors import MolspaceError
from ..ketcher.embedding import embed_3d
from .located_handler import LocatedErrorHandler

#: Path under base_url.
EMBED_PATH = "molspace/embed3d"

#: Largest request body, in bytes: twice the editor's inline bound (a Molfile of a 64 KiB drawing, JSON-escaped).
MAX_BODY_BYTES = 128 * 1024


class Embed3dHandler(LocatedErrorHandler, APIHandler):
    """Embed the posted molecule in 3D with RDKit; answer one SDF record."""

    auth_resource = "molspace"
    status_by_code = {"TOO_LARGE": 413, "UNSUPPORTED_FORMAT": 501}

    @web.authenticated
    async def post(self) -> None:
        """Answer ``{sdf, atoms, optimized}`` or ``{error}`` (see the module docstring)."""
        if not await self._allowed("execute"):
            raise web.HTTPError(403, "not authorized to use molspace")
        body = self.request.body or b""
        if len(body) > MAX_BODY_BYTES:
            self._fail(
                MolspaceError(
                    "TOO_LARGE",
                    f"The molecule is {len(body)} bytes; the 3D endpoint takes at most {MAX_BODY_BYTES}.",
                    "/molfile",
                    "Send a smaller molecule.",
                    {"size": len(body), "limit": MAX_BODY_BYTES, "unit": "bytes"},
                )
            )
            return
        try:
            parsed: Any = json.loads(body)
        except ValueError:
            parsed = None
        molfile = parsed.get("molfile") if isinstance(parsed, dict) else None
        if not isinstance(molfile, str):
            self._fail(
                MolspaceError(
                    "INVALID_INPUT",
                    'The request body is not {"molfile": <text>}.',
                    "/molfile",
                    "POST JSON with a molfile string.",
                )
            )
            return
        try:
            embedded = await asyncio.get_running_loop().run_in_executor(
                None, functools.partial(embed_3d, molfile, where="/molfile")
            )
        except MolspaceError as e:
            self._fail(e)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(
            json.dumps(
                {"sdf": embedded.sdf, "atoms": embedded.atoms, "optimized": embedded.optimized}
            )
        )
