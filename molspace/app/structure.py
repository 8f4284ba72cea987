"""The structure a tool result carries to the App, and ``open`` answered with no JupyterLab page.

With no page connected, a client that renders MCP Apps still gets a structure shown: the
gateway reads the file under the Jupyter root itself, through Jupyter's contents manager (so
Jupyter's root confinement and hidden-file rules apply, as they do to the page's reads), and
returns it in the result's ``_meta["molspace/structure"]`` (``src/contract/app.ts``
``AppStructure``) for the App only; the model reads a bounded ``structuredContent.app`` and a
text line. A PDB ID goes to the App as a download it makes itself from the allow-listed mirror
(``AppStructure.download``; the App's CSP allows those hosts, the server needs no network). Sources
that need a page (an MVS state, a Ketcher editor) still answer ``NO_PAGE``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from jupyter_core.utils import ensure_async
from tornado.web import HTTPError

from ..errors import MolspaceError

#: Sources ``open`` takes that need a page (a ``pdbId`` the App downloads itself, from the mirror).
PAGE_ONLY_SOURCES = ("mvs", "ketcher")
#: Story files, played in the App with its own step buttons.
STORY_FORMATS = ("mvsj", "mvsx")


@dataclass(frozen=True)
class AppFile:
    """One file read for the App: its name and bytes."""

    name: str
    data: bytes


def climbs_above_root(path: str) -> bool:
    """Whether the root-relative ``path`` climbs above the root (as ``checkRootPath`` in
    ``src/viewer/structureOpener.ts``): ``a/../..`` does, ``a/../b`` does not."""
    depth = 0
    for part in path.split("/"):
        if part == "..":
            depth -= 1
        elif part not in ("", "."):
            depth += 1
        if depth < 0:
            return True
    return False


def _refusal(e: HTTPError, path: str, where: str) -> MolspaceError:
    """The contents manager's refusal to read the file ``path``, located at ``where``: a missing
    file (or a folder) is ``NOT_FOUND``; anything else it refuses (e.g. a hidden file) ``FORBIDDEN``."""
    if e.status_code in (400, 404):
        return MolspaceError(
            "NOT_FOUND",
            f"There is no file {path!r} under the Jupyter root.",
            where,
            "Pass the path of a file as the file browser shows it (relative to the root).",
            {"path": path},
        )
    return MolspaceError(
        "FORBIDDEN",
        f"Jupyter refused to read {path!r}: {e.log_message or e.reason or e.status_code}.",
        where,
        "Pass a file Jupyter serves (not hidden, under the root).",
        {"path": path, "status": e.status_code},
    )


async def file_model(contents_manager: Any, path: str, where: str) -> dict[str, Any]:
    """The contents model (no content) of the file at the root-relative ``path``, as the contents
    API would read it.

    Raises
    ------
    MolspaceError
        at ``where``: ``NOT_FOUND`` (no such file, or a folder), ``FORBIDDEN`` (Jupyter refuses it).
    """
    try:
        return dict(await ensure_async(contents_manager.get(path, content=False, type="file")))
    except HTTPError as e:
        raise _refusal(e, path, where) from None


class AppFiles:
    """Files under the Jupyter root, read through the server's contents manager.

    Parameters
    ----------
    contents_manager : ContentsManager
        The Jupyter server's (sync or async).
    limit_bytes : int
        Largest file, bytes (``limits.appStructureBytes``).
    """

    def __init__(self, contents_manager: Any, limit_bytes: int) -> None:
        self.cm = contents_manager
        self.limit_bytes = int(limit_bytes)

    async def read(self, path: str, where: str) -> AppFile:
        """Read ``path`` (relative to the root, as the file browser shows it).

        Raises
        ------
        MolspaceError
            at ``where``: ``FORBIDDEN`` (climbs above the root, or Jupyter refuses it),
            ``NOT_FOUND`` (no such file, or a folder), ``TOO_LARGE`` (over ``limit_bytes``).
        """
        if climbs_above_root(path) or path.startswith("/"):
            raise MolspaceError(
                "FORBIDDEN",
                f"{path!r} is not under the Jupyter root.",
                where,
                "Pass a path under the Jupyter root, relative to it (as the file browser shows it).",
                {"path": path},
            )
        model = await file_model(self.cm, path, where)
        size = model.get("size")
        if isinstance(size, int) and size > self.limit_bytes:
            raise self._too_large(path, size, where)
        try:
            model = await ensure_async(
                self.cm.get(path, content=True, type="file", format="base64")
            )
        except HTTPError as e:
            raise _refusal(e, path, where) from None
        data = base64.b64decode(model.get("content") or "")
        if len(data) > self.limit_bytes:
            raise self._too_large(path, len(data), where)
        return AppFile(path, data)

    async def exists(self, path: str, where: str) -> bool:
        """Whether a file or folder is at ``path`` (``FORBIDDEN`` at ``where`` when Jupyter refuses to say)."""
        try:
            await ensure_async(self.cm.get(path, content=False))
            return True
        except HTTPError as e:
            if e.status_code == 404:
                return False
            raise MolspaceError(
                "FORBIDDEN",
                f"Jupyter refused to read {path!r}: {e.log_message or e.reason or e.status_code}.",
                where,
                "Use a path under the Jupyter root that you may write (not hidden).",
                {"path": path, "status": e.status_code},
            ) from None

    async def check_overwrite(self, path: str, overwrite: bool) -> bool:
        """Whether a file is at ``path``; ``FORBIDDEN`` at ``/overwrite`` when one is and not ``overwrite``."""
        present = await self.exists(path, "/path")
        if present and not overwrite:
            raise MolspaceError(
                "FORBIDDEN",
                f"{path!r} exists; export does not overwrite it.",
                "/overwrite",
                "Pass overwrite: true to replace it, or choose another path.",
                {"path": path},
            )
        return present

    async def write_text(self, path: str, text: str, overwrite: bool) -> bool:
        """Write ``text`` to ``path`` through the contents manager, making missing folders, as the page does.

        Returns
        -------
        bool
            Whether an existing file was replaced.

        Raises
        ------
        MolspaceError
            ``FORBIDDEN`` at ``/overwrite`` (exists, no ``overwrite``) or at ``/path`` (Jupyter
            refused: a hidden path, a folder of that name, no permission).
        """
        replaced = await self.check_overwrite(path, overwrite)
        parts = path.split("/")[:-1]
        try:
            for i in range(1, len(parts) + 1):
                folder = "/".join(parts[:i])
                if not await self.exists(folder, "/path"):
                    await ensure_async(self.cm.save({"type": "directory"}, folder))
            await ensure_async(
                self.cm.save({"type": "file", "format": "text", "content": text}, path)
            )
        except HTTPError as e:
            raise MolspaceError(
                "FORBIDDEN",
                f"Jupyter refused to write {path!r}: {e.log_message or e.reason or e.status_code}.",
                "/path",
                "Use a path under the Jupyter root that you may write (not hidden, not a folder).",
                {"path": path, "status": e.status_code},
            ) from None
        return replaced

    def _too_large(self, path: str, size: int, where: str) -> MolspaceError:
        return MolspaceError(
            "TOO_LARGE",
            f"{path!r} is {size:,} bytes; the App is sent at most {self.limit_bytes:,} bytes.",
            where,
            "Open JupyterLab and call open there (a page reads files up to 100 MiB), or pass a smaller file.",
            {"path": path, "bytes": size, "limit": self.limit_bytes},
        )


def app_file_json(file: AppFile, binary: bool) -> dict[str, str]:
    """``AppFile`` of ``src/contract/app.ts``: text as UTF-8 (unless ``binary`` or not UTF-8), else base64."""
    if not binary:
        try:
            return {"name": file.name, "encoding": "utf8", "data": file.data.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {
        "name": file.name,
        "encoding": "base64",
        "data": base64.b64encode(file.data).decode("ascii"),
    }


def app_structure(
    fmt: str,
    structure: AppFile,
    coordinates: tuple[str, AppFile] | None,
    title: str,
    binary: list[str],
) -> dict[str, Any]:
    """``_meta["molspace/structure"]`` (``AppStructure``): text as UTF-8, binary as base64.

    Parameters
    ----------
    fmt : str
        A ``StructureFormat``.
    structure : AppFile
    coordinates : (str, AppFile) or None
        A ``CoordinatesFormat`` and its file (always base64: coordinates files are binary,
        but for a LAMMPS dump).
    title : str
    binary : list of str
        The binary structure formats (``structureFormats.binary``).
    """
    return {
        "format": fmt,
        "structure": app_file_json(structure, fmt in binary),
        "coordinates": None
        if coordinates is None
        else {
            "format": coordinates[0],
            "file": app_file_json(coordinates[1], coordinates[0] != "lammpstrj"),
        },
        "title": title,
    }


def file_extension(path: str) -> str:
    """The lower-case extension of ``path``'s file name, or ``""``."""
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


@dataclass(frozen=True)
class AppShown:
    """A structure read for the App: the result ``_meta`` and what the model is told of it."""

    meta: dict[str, Any]
    title: str
    format: str
    bytes: int


async def structure_answer(
    args: dict[str, Any],
    files: AppFiles,
    manifest: Any,
    no_page: MolspaceError,
) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """``open`` with no page: ``(structuredContent, text, _meta)`` for the App.

    Raises what :func:`read_for_app` raises.
    """
    shown = await read_for_app(args, files, manifest, no_page)
    structured = {
        "app": {
            "resourceUri": manifest.app["viewer"],
            "title": shown.title,
            "format": shown.format,
            "bytes": shown.bytes,
        }
    }
    size = f"{shown.bytes:,} bytes" if shown.bytes else "downloaded by the App"
    text = (
        f"open: {shown.title} ({shown.format}, {size}) is shown in the molspace App in "
        "this chat: no JupyterLab page is open. The App tells you its composition when drawn; to act on "
        "it (act, viewer_observe), open JupyterLab and call open again."
    )
    return structured, text, shown.meta


async def app_meta_beside_page(
    args: dict[str, Any], files: AppFiles, manifest: Any
) -> dict[str, Any]:
    """The ``_meta`` for the App of an ``open`` a page answered: the same file, so the chat shows it too.

    A PDB ID is sent as a download the App makes itself. Empty where the App has nothing to draw
    from the arguments (an MVS state, an editor) or the file cannot be sent (too large, gone since):
    the page's answer stands either way.
    """
    no_page = MolspaceError(
        "NO_PAGE", "The App draws this source only from a page.", "", "Open JupyterLab.", {}
    )
    try:
        return (await read_for_app(args, files, manifest, no_page)).meta
    except MolspaceError:
        return {}


async def read_for_app(
    args: dict[str, Any],
    files: AppFiles,
    manifest: Any,
    no_page: MolspaceError,
) -> AppShown:
    """Read ``open``'s source for the App.

    Parameters
    ----------
    args : dict
        ``open``'s arguments, already checked against its input schema.
    files : AppFiles
    manifest : Manifest
        Gives ``structureFormats`` and the App's contract.
    no_page : MolspaceError
        The ``NO_PAGE`` error raised for a source that needs a page.

    Raises
    ------
    MolspaceError
        ``NO_PAGE`` (a source that needs a page), ``UNSUPPORTED_FORMAT`` at ``/path`` or
        ``/coordinates``, ``INVALID_INPUT`` at ``/format`` (text without one), ``TOO_LARGE``, and
        :meth:`AppFiles.read`'s errors.
    """
    formats = manifest.data["structureFormats"]
    app = manifest.app
    if any(k in args for k in PAGE_ONLY_SOURCES):
        raise no_page
    if isinstance(args.get("pdbId"), str):
        # The App downloads it from the allow-listed mirror (its CSP's connectDomains): no bytes here.
        pdb_id = args["pdbId"]
        title = args.get("title") or pdb_id.upper()
        download = {"pdbId": pdb_id, "mirror": args.get("mirror") or "rcsb"}
        meta = {
            app["structureMeta"]: {
                "format": "mmcif",
                "download": download,
                "coordinates": None,
                "title": title,
            }
        }
        return AppShown(meta, title, "mmcif", 0)
    path = args.get("path")
    if isinstance(path, str) and file_extension(path) in STORY_FORMATS:
        if "format" in args or "coordinates" in args:
            raise MolspaceError(
                "INVALID_INPUT",
                f"format and coordinates apply to structures; {path!r} is a Story.",
                "/format" if "format" in args else "/coordinates",
                "Drop them to show the Story.",
                {"path": path},
            )
        story = await files.read(path, "/path")
        story_title = args.get("title") or path.rsplit("/", 1)[-1]
        kind = file_extension(path)
        story_meta = {
            app["storyMeta"]: {
                "format": kind,
                "file": app_file_json(story, kind == "mvsx"),
                "title": story_title,
            }
        }
        return AppShown(story_meta, story_title, kind, len(story.data))
    fmt = args.get("format")
    if isinstance(path, str):
        ext = file_extension(path)
        fmt = fmt or formats["extensions"].get(ext)
        if not fmt:
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                f"The extension .{ext} of {path!r} is not a structure format molspace reads."
                if ext
                else f"{path!r} has no file extension to tell its format from.",
                "/path",
                "Pass format, or a file with one of: "
                + " ".join("." + e for e in formats["extensions"])
                + ".",
                {"path": path},
            )
        structure = await files.read(path, "/path")
        title = args.get("title") or path.rsplit("/", 1)[-1]
    else:
        text = args.get("text", "")
        if not fmt:
            raise MolspaceError(
                "INVALID_INPUT",
                "text needs format.",
                "/format",
                "Pass format (e.g. pdb, mmcif, sdf).",
                {},
            )
        structure = AppFile(args.get("title") or f"text.{fmt}", text.encode("utf-8"))
        title = args.get("title") or f"{fmt} text"
    coordinates = None
    if isinstance(args.get("coordinates"), str):
        cpath = args["coordinates"]
        cfmt = formats["coordinatesExtensions"].get(file_extension(cpath))
        if not cfmt:
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                f"{cpath!r} is not a coordinates file molspace reads.",
                "/coordinates",
                "Pass one of: " + " ".join("." + e for e in formats["coordinatesExtensions"]) + ".",
                {"path": cpath},
            )
        coordinates = (cfmt, await files.read(cpath, "/coordinates"))
    total = len(structure.data) + (len(coordinates[1].data) if coordinates else 0)
    if total > files.limit_bytes:
        raise files._too_large(structure.name, total, "/coordinates" if coordinates else "/path")
    meta = {
        app["structureMeta"]: app_structure(fmt, structure, coordinates, title, formats["binary"])
    }
    return AppShown(meta, title, fmt, total)
