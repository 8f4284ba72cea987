"""Normalise what a notebook cell passes to :class:`molspace.Viewer`.

A structure source becomes bytes plus a format name (the contract's
``structureFormats``). Mol*'s parsers read it in the page; here we refuse,
early and located, what cannot be a structure at all (unknown format, no
extension and no ``format``, empty data, binary data for a text format, too
large, a path outside the working directory), so the cell fails rather than
the widget. A truncated or malformed file is refused by Mol* in the page and
shows as ``viewer.error``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .contract import LIMITS, STRUCTURE_FORMATS
from .errors import StructureSourceError

#: Largest structure accepted, bytes: the contract's ``viewerSourceBytes``.
MAX_STRUCTURE_BYTES: int = LIMITS["viewerSourceBytes"]
FORMATS: tuple[str, ...] = tuple(STRUCTURE_FORMATS["formats"])
EXTENSIONS: dict[str, str] = dict(STRUCTURE_FORMATS["extensions"])
BINARY: frozenset[str] = frozenset(STRUCTURE_FORMATS["binary"])


@dataclass(frozen=True)
class StructureSource:
    """A structure ready to send to the page.

    Attributes
    ----------
    data : bytes
        The file's bytes (UTF-8 text for text formats).
    format : str
        One of :data:`FORMATS` (MVS ``parse`` format names: ``pdb``, ``mmcif``, ``sdf``, ...).
    name : str
        Where it came from, for messages: the path as given, ``"text"`` or ``"bytes"``.
    """

    data: bytes
    format: str
    name: str


def _extensions_text() -> str:
    return ", ".join(f".{e}" for e in EXTENSIONS)


def _check_format(fmt: Any, where: str) -> str:
    if not isinstance(fmt, str) or fmt.lower() not in FORMATS:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"{fmt!r} is not a structure format molspace reads",
            where,
            f"Pass format= one of: {', '.join(FORMATS)}.",
            {"format": fmt if isinstance(fmt, str) else repr(fmt), "formats": list(FORMATS)},
        )
    return fmt.lower()


def _format_of_path(path: Path, given: str | None) -> str:
    if given is not None:
        return _check_format(given, "format")
    ext = path.suffix.lower().lstrip(".")
    if not ext:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"{str(path)!r} has no file extension to tell its format from",
            str(path),
            f"Pass format= one of: {', '.join(FORMATS)}, or rename the file with one of: {_extensions_text()}.",
            {"path": str(path), "formats": list(FORMATS)},
        )
    if ext not in EXTENSIONS:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"the extension .{ext} of {str(path)!r} is not a structure format molspace reads",
            str(path),
            f"Use a file with one of: {_extensions_text()}, or pass format= explicitly.",
            {"path": str(path), "extension": ext, "extensions": list(EXTENSIONS)},
        )
    return EXTENSIONS[ext]


def _check_data(data: bytes, fmt: str, where: str) -> None:
    if len(data) > MAX_STRUCTURE_BYTES:
        raise StructureSourceError(
            "TOO_LARGE",
            f"the structure from {where} is {len(data)} bytes; the limit is {MAX_STRUCTURE_BYTES} bytes",
            where,
            "Pass a smaller file (e.g. one assembly or a subset of models).",
            {"bytes": len(data), "limit": MAX_STRUCTURE_BYTES},
        )
    if not data.strip():
        raise StructureSourceError(
            "VALIDATION_FAILED",
            f"the structure from {where} is empty",
            where,
            "Pass a file or text with atom records in it.",
            {"bytes": len(data), "format": fmt},
        )
    if fmt in BINARY:
        return
    if b"\x00" in data[:65536]:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"the data from {where} is binary (it has NUL bytes), not {fmt} text",
            where,
            "Pass a text structure file, or BCIF with format='bcif'.",
            {"format": fmt},
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"the data from {where} is not UTF-8 text (byte {e.start}), so it cannot be {fmt}",
            where,
            "Pass a text structure file, or BCIF with format='bcif'.",
            {"format": fmt, "offset": e.start},
        ) from None


def _read_path(path: Path, fmt: str | None) -> StructureSource:
    shown = str(path)
    root = Path.cwd().resolve()
    resolved = (root / path).resolve() if not path.is_absolute() else path.resolve()
    if not resolved.is_relative_to(root):
        raise StructureSourceError(
            "FORBIDDEN",
            f"{shown!r} is outside the notebook's working directory {str(root)!r}",
            shown,
            "Copy the file under the notebook's directory, or read it yourself and pass its bytes with format=.",
            {"path": shown, "root": str(root)},
        )
    format_ = _format_of_path(path, fmt)
    if not resolved.is_file():
        raise StructureSourceError(
            "NOT_FOUND",
            f"no file {shown!r} (looked in {str(resolved.parent)!r})",
            shown,
            "Check the path; it is relative to the notebook's working directory.",
            {"path": shown},
        )
    size = resolved.stat().st_size
    if size > MAX_STRUCTURE_BYTES:
        raise StructureSourceError(
            "TOO_LARGE",
            f"{shown!r} is {size} bytes; the limit is {MAX_STRUCTURE_BYTES} bytes",
            shown,
            "Pass a smaller file (e.g. one assembly or a subset of models).",
            {"bytes": size, "limit": MAX_STRUCTURE_BYTES},
        )
    data = resolved.read_bytes()
    _check_data(data, format_, shown)
    return StructureSource(data, format_, shown)


def normalize_structure_source(source: Any, format: str | None = None) -> StructureSource:  # noqa: A002
    """Turn what a cell passed into bytes and a format.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        A path (relative to the notebook's working directory, which it must
        stay under), structure text (a ``str`` with a newline; needs
        ``format``), or bytes (need ``format``).
    format : str, optional
        One of :data:`FORMATS`; default: from the path's extension
        (``.pdb .ent .pdbqt .cif .mmcif .bcif .sdf .sd .mol .mol2 .xyz .gro``).

    Returns
    -------
    StructureSource

    Raises
    ------
    StructureSourceError
        ``UNSUPPORTED_FORMAT`` (unknown format or extension, no extension and no
        ``format``, binary data for a text format), ``VALIDATION_FAILED`` (empty),
        ``NOT_FOUND`` (no such file), ``FORBIDDEN`` (outside the working
        directory), ``TOO_LARGE`` (over ``viewerSourceBytes``), ``INVALID_INPUT``
        (another type).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if format is None:
            raise StructureSourceError(
                "UNSUPPORTED_FORMAT",
                "bytes carry no format",
                "format",
                f"Pass format= one of: {', '.join(FORMATS)}.",
                {"formats": list(FORMATS)},
            )
        fmt = _check_format(format, "format")
        _check_data(data, fmt, "bytes")
        return StructureSource(data, fmt, "bytes")
    if isinstance(source, str) and ("\n" in source or source.strip() == ""):
        if format is None:
            raise StructureSourceError(
                "UNSUPPORTED_FORMAT",
                "structure text carries no format",
                "format",
                f"Pass format= one of: {', '.join(FORMATS)}.",
                {"formats": list(FORMATS)},
            )
        fmt = _check_format(format, "format")
        _check_data(source.encode("utf-8"), fmt, "text")
        return StructureSource(source.encode("utf-8"), fmt, "text")
    if isinstance(source, (str, os.PathLike)):
        return _read_path(Path(source), format)
    raise StructureSourceError(
        "INVALID_INPUT",
        f"a Viewer cannot show a {type(source).__name__}",
        "source",
        "Pass a file path, structure text with format=, or bytes with format=.",
        {"type": type(source).__name__},
    )
