"""``.mvsx`` archives from a cell: ``molspace.stories.create(path.mvsx, doc, assets=[...])``.

The same rules as the agent tool ``story_create`` (docs/architecture.md, "Story authoring"):
each asset is a file under the kernel's working directory, stored as ``assets/<name>`` beside
``index.mvsj``; a ``url``/``uri`` param equal to an asset's path (or to ``assets/<name>``, with or
without ``./``) is rewritten to that entry; every other relative URL must name an entry. Zipped
with the standard library's :mod:`zipfile` (deflate); the page reads the result with Mol*.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..contract import LIMITS
from ..errors import MolspaceError

#: Largest asset, and all assets together, bytes: the contract's ``storySourceBytes`` (50 MiB).
MAX_ASSET_BYTES: int = LIMITS["storySourceBytes"]
#: Most assets of one archive: the contract's ``storyAssets``.
MAX_ASSETS: int = LIMITS["storyAssets"]
ASSET_FOLDER = "assets/"
MAIN_FILE = "index.mvsj"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Asset:
    """One packed file: ``path`` as given (relative), ``file`` on disk, ``entry`` in the archive."""

    path: str
    file: Path
    entry: str


def _plain(ref: str) -> str:
    ref = ref.strip()
    while ref.startswith("./"):
        ref = ref[2:]
    return ref


def plan_assets(assets: Iterable[Any], base: Path) -> list[Asset]:
    """Check the assets (paths under ``base``) and choose each one's archive entry.

    Raises
    ------
    MolspaceError
        ``TOO_LARGE`` at ``assets`` (more than :data:`MAX_ASSETS`); ``FORBIDDEN`` at
        ``assets/<i>`` (absolute, a URL, or leaving ``base``); ``INVALID_INPUT`` at
        ``assets/<i>`` (not a path or ``{"path", "name"}``, a bad name, two assets with one
        name); ``NOT_FOUND`` at ``assets/<i>`` (no such file).
    """
    items = list(assets)
    if len(items) > MAX_ASSETS:
        raise MolspaceError(
            "TOO_LARGE",
            f"{len(items)} assets; the limit is {MAX_ASSETS}.",
            "assets",
            "Pack fewer files; reference the rest by https URL.",
            {"count": len(items), "limit": MAX_ASSETS},
        )
    root = base.resolve()
    planned: list[Asset] = []
    by_entry: dict[str, int] = {}
    for i, item in enumerate(items):
        where = f"assets/{i}"
        if isinstance(item, dict) and set(item) <= {"path", "name"} and "path" in item:
            given, name = item["path"], item.get("name")
        elif isinstance(item, (str, Path)):
            given, name = item, None
        else:
            raise MolspaceError(
                "INVALID_INPUT",
                f"asset {i} is a {type(item).__name__}, not a path.",
                where,
                'Give a path, or {"path": ..., "name": ...}.',
            )
        text = str(given)
        if Path(text).is_absolute() or text.startswith("~") or _SCHEME.match(text) or "\\" in text:
            raise MolspaceError(
                "FORBIDDEN",
                f"asset path {text!r} is not a plain relative path.",
                where,
                "Give a path relative to the working directory, e.g. 'data/1hpv.pdb'.",
                {"path": text},
            )
        file = (root / text).resolve()
        if not file.is_relative_to(root):
            raise MolspaceError(
                "FORBIDDEN",
                f"asset path {text!r} leaves the working directory.",
                where,
                "Give a path under the working directory, without '..' above it.",
                {"path": text},
            )
        if not file.is_file():
            raise MolspaceError(
                "NOT_FOUND",
                f"no file {text!r} under the working directory.",
                where,
                "Check the path (relative to the kernel's working directory).",
                {"path": text},
            )
        name = name if name is not None else file.name
        if not isinstance(name, str) or not _NAME.match(name) or name == MAIN_FILE:
            raise MolspaceError(
                "INVALID_INPUT",
                f"{name!r} cannot name an archive file.",
                where,
                "Use letters, digits, '.', '_' and '-', no folders, e.g. 'receptor.pdb'.",
                {"name": name},
            )
        entry = ASSET_FOLDER + name
        first = by_entry.get(entry.lower())
        if first is not None:
            raise MolspaceError(
                "INVALID_INPUT",
                f"assets {first} and {i} would both be stored as {entry}.",
                where,
                f'Give one of them another name: {{"path": {text!r}, "name": "<other name>"}}.',
                {"entry": entry, "assets": [first, i]},
            )
        by_entry[entry.lower()] = i
        size = file.stat().st_size
        if size > MAX_ASSET_BYTES:
            raise MolspaceError(
                "TOO_LARGE",
                f"asset {text!r} is {size} bytes; the limit is {MAX_ASSET_BYTES} bytes (50 MiB).",
                where,
                "Reference a file this large by https URL instead of packing it.",
                {"bytes": size, "limit": MAX_ASSET_BYTES},
            )
        planned.append(Asset(_plain(text), file, entry))
    total = sum(a.file.stat().st_size for a in planned)
    if total > MAX_ASSET_BYTES:
        raise MolspaceError(
            "TOO_LARGE",
            f"the assets are {total} bytes together; the limit is {MAX_ASSET_BYTES} bytes (50 MiB).",
            "assets",
            "Pack fewer or smaller files.",
            {"bytes": total, "limit": MAX_ASSET_BYTES},
        )
    return planned


def rewrite_references(mvs: dict[str, Any], assets: list[Asset]) -> list[dict[str, Any]]:
    """Point ``url``/``uri`` params that name an asset at its entry (in place).

    Returns
    -------
    list of dict
        Issues ``{snapshotIndex, key, path, message, fix}`` for relative URLs no asset matches.
    """
    lookup = {a.path: a.entry for a in assets} | {a.entry: a.entry for a in assets}
    issues: list[dict[str, Any]] = []

    def walk(node: Any, path: str, index: int, key: Any) -> None:
        if not isinstance(node, dict):
            return
        params = node.get("params")
        if isinstance(params, dict):
            for name in ("url", "uri"):
                ref = params.get(name)
                if not isinstance(ref, str) or _SCHEME.match(ref.strip()):
                    continue
                entry = lookup.get(_plain(ref))
                if entry is not None:
                    params[name] = entry
                else:
                    issues.append(
                        {
                            "snapshotIndex": index,
                            "key": key if isinstance(key, str) else None,
                            "path": f"{path}/params/{name}",
                            "message": f"{ref!r} is not in the archive.",
                            "fix": "List the file in assets, or use an https URL.",
                        }
                    )
        for k, child in enumerate(node.get("children") or []):
            walk(child, f"{path}/children/{k}", index, key)

    for i, snap in enumerate(mvs.get("snapshots") or []):
        if isinstance(snap, dict):
            walk(snap.get("root"), "root", i, (snap.get("metadata") or {}).get("key"))
    return issues


def zip_story(mvs: dict[str, Any], assets: list[Asset]) -> bytes:
    """The ``.mvsx`` bytes: ``index.mvsj`` and each asset at its entry, deflated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(MAIN_FILE, json.dumps(mvs, indent=2, ensure_ascii=False) + "\n")
        for a in assets:
            z.write(a.file, a.entry)
    return buffer.getvalue()
