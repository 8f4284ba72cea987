"""``GET {base_url}molspace/frames``: frames of a trajectory file under the Jupyter root, for the page.

A Viewer an agent opens (``open {path, coordinates}``) has no kernel to keep its frames. When its
coordinates have more frames than the page's frame budget (the JupyterLab setting
``trajectoryFrameBudget``) or pass ``viewerSourceBytes``, the page asks this endpoint for blocks of
frames instead of reading the whole file (``src/viewer/serverFrames.ts``), with the same block
layout and page cache as a kernel's frames on demand (:mod:`molspace.viewer.frames`).

Requests (query arguments; answers are not cached by the browser):

- ``?path=P``: ``{"frames", "atoms", "format", "timePs", "notes", "bytes"}`` (JSON);
- ``?path=P&start=i&count=k``: ``k`` frames from ``i`` as float32 x, then y, then z blocks of
  ``atoms`` per frame, little-endian, Å (``application/octet-stream``);
- refused: 4xx/501 ``{"error": LocatedError}``; a file cut inside a frame is refused at the
  description (``VALIDATION_FAILED`` at ``/coordinates``, ``details.lastGoodFrame``), and a DCD
  whose header announces another frame count is described with a note (``notes``), both in the
  words of the page's whole-file reader (:meth:`molspace.viewer.frames.FileFrames._check_whole`).

The path policy is ``open``'s: a path relative to the root that does not climb above it
(``FORBIDDEN`` at ``/coordinates``), a coordinates extension (``UNSUPPORTED_FORMAT``), and a file
Jupyter's contents manager serves (``NOT_FOUND``; ``FORBIDDEN`` for what it refuses, e.g. hidden
files, reported as not there, as the contents API does), read as the contents API would read it. Jupyter authenticates the request (the page's
cookie or a token) and it must be allowed to read contents; agent tokens do not open it. Caps: at
most ``MAX_FRAME_BLOCK`` frames a request, :data:`MAX_OPEN_FILES` files open at once (least
recently used closed first); reads run off the event loop. Frames are read with MDAnalysis
(``pip install MDAnalysis`` on the server; without it ``UNSUPPORTED_FORMAT`` (501), and the page
reads the whole file as before).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections import OrderedDict
from typing import Any

from tornado import web

from ..app.structure import climbs_above_root, file_model
from ..errors import MolspaceError, StructureSourceError
from ..viewer.frames import (
    INSTALL_FIX,
    FileFrames,
    check_block,
    mdanalysis_available,
)
from ..viewer.source import COORDINATES_EXTENSIONS
from .located_handler import LocatedErrorHandler

#: Path under base_url.
FRAMES_PATH = "molspace/frames"

#: Trajectory files held open at once (each an MDAnalysis reader).
MAX_OPEN_FILES = 8

WHERE = "/coordinates"


class OpenTrajectories:
    """Readers of trajectory files, by (file, size, modification time): a file that changes is
    opened again; at most ``limit`` held, least recently used closed first."""

    def __init__(self, limit: int = MAX_OPEN_FILES) -> None:
        self._limit = limit
        self._held: OrderedDict[tuple[str, str, int, int], FileFrames] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, os_path: str, fmt: str, shown: str) -> tuple[FileFrames, int]:
        """The reader of ``os_path`` and the file's size (opened when new or changed; blocking)."""
        stat = os.stat(os_path)
        key = (os_path, fmt, stat.st_size, stat.st_mtime_ns)
        with self._lock:
            held = self._held.get(key)
            if held is not None:
                self._held.move_to_end(key)
                return held, stat.st_size
        from pathlib import Path

        source = FileFrames(Path(os_path), fmt, shown, WHERE)
        with self._lock:
            for old in [k for k in self._held if k[0] == os_path]:
                self._held.pop(old).close()
            self._held[key] = source
            while len(self._held) > self._limit:
                self._held.popitem(last=False)[1].close()
        return source, stat.st_size

    def close_all(self) -> None:
        with self._lock:
            for source in self._held.values():
                source.close()
            self._held.clear()


class FramesHandler(LocatedErrorHandler):
    """Describe a trajectory file under the root, or answer a block of its frames."""

    auth_resource = "contents"
    status_by_code = {
        "NOT_FOUND": 404,
        "FORBIDDEN": 403,
        "UNSUPPORTED_FORMAT": 501,
        "INTERNAL": 500,
    }

    def initialize(self, trajectories: OpenTrajectories) -> None:
        self.trajectories = trajectories

    def _fail(self, error: MolspaceError) -> None:
        self.set_header("Cache-Control", "no-store")
        super()._fail(error)

    async def get(self) -> None:
        """Answer the description, a block, or ``{error}`` (see the module docstring)."""
        if self.current_user is None:  # an API: 403, not the login page's redirect
            raise web.HTTPError(403, "not authenticated")
        if not await self._allowed("read"):
            raise web.HTTPError(403, "not authorized to read contents")
        try:
            await self._answer()
        except MolspaceError as e:
            self._fail(e)

    async def _answer(self) -> None:
        path = self.get_query_argument("path", "")
        os_path, fmt = await self._resolve(path)
        start_arg = self.get_query_argument("start", None)
        count_arg = self.get_query_argument("count", None)
        if not mdanalysis_available():
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                "The Jupyter server cannot read trajectory frames: MDAnalysis is not installed there.",
                WHERE,
                f"{INSTALL_FIX}; or open fewer frames, so the page reads the whole file.",
                {"path": path, "format": fmt},
            )
        loop = asyncio.get_running_loop()
        try:
            source, size = await loop.run_in_executor(
                None, self.trajectories.get, os_path, fmt, path
            )
        except StructureSourceError as e:
            raise MolspaceError(
                e.code, e.message, WHERE, e.fix, {**e.details, "path": path}
            ) from None
        except OSError as e:
            raise MolspaceError(
                "NOT_FOUND",
                f"{path!r} could not be read: {e.strerror or e}.",
                WHERE,
                "Pass the path of a file as the file browser shows it (relative to the root).",
                {"path": path},
            ) from None
        self.set_header("Cache-Control", "no-store")
        if start_arg is None and count_arg is None:
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({**source.describe(), "bytes": size}))
            return
        start, count = _integer(start_arg), _integer(count_arg)
        refused = check_block(source.frames, start, count)
        if refused is not None:
            raise MolspaceError(
                refused["code"],
                refused["message"],
                refused["where"],
                refused["fix"],
                {**refused["details"], "path": path},
            )
        assert isinstance(start, int) and isinstance(count, int)
        try:
            data = await loop.run_in_executor(None, source.read, start, count)
        except Exception as e:  # noqa: BLE001 - a file cut short or changed: located
            raise MolspaceError(
                "INTERNAL",
                f"The server could not read frames {start}–{start + count - 1} of {path!r}: "
                f"{type(e).__name__}: {e}"[:300],
                f"/frames/{start}",
                "Check the coordinates file is whole and unchanged, then step again.",
                {"path": path, "start": start, "count": count},
            ) from None
        self.set_header("Content-Type", "application/octet-stream")
        self.finish(data)

    async def _resolve(self, path: str) -> tuple[str, str]:
        """The file's OS path and coordinates format, by ``open``'s path policy (module docstring)."""
        if (
            not path
            or path.startswith("/")
            or "\\" in path
            or "\0" in path
            or climbs_above_root(path)
        ):
            raise MolspaceError(
                "FORBIDDEN",
                f"{path!r} is not a path under the Jupyter root.",
                WHERE,
                "Pass a path under the Jupyter root, relative to it (as the file browser shows it).",
                {"path": path},
            )
        base = path.rsplit("/", 1)[-1]
        ext = base.rsplit(".", 1)[-1].lower() if "." in base[1:] else ""
        fmt = COORDINATES_EXTENSIONS.get(ext)
        if fmt is None:
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                f"The extension .{ext[:20]} of {path!r} is not a trajectory format molspace reads."
                if ext
                else f"{path!r} has no extension to tell its format from.",
                WHERE,
                "Pass a trajectory file ending in one of: "
                + " ".join(f".{e}" for e in COORDINATES_EXTENSIONS)
                + ".",
                {"path": path, "extension": ext[:20] or None},
            )
        cm = self.contents_manager
        model = await file_model(cm, path, WHERE)
        os_path_of = getattr(cm, "_get_os_path", None)
        if model.get("type") != "file" or os_path_of is None:
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                f"The server's contents manager ({type(cm).__name__}) keeps {path!r} where frames "
                "cannot be read one by one.",
                WHERE,
                "Open fewer frames, so the page reads the whole file.",
                {"path": path},
            )
        return str(os_path_of(path)), fmt


def _integer(value: str | None) -> Any:
    """A query argument as an int, or the text itself (``check_block`` refuses it, located)."""
    if value is None:
        return None
    try:
        return int(value, 10)
    except ValueError:
        return value
