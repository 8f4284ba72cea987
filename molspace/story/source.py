"""Normalise what a notebook cell passes to :class:`molspace.Story`.

A Story source becomes either MVSJ text or MVSX bytes. Full validation
(the bundled Mol* MVS schema plus molspace's checks, docs/architecture.md) runs in
the page; here we only refuse what cannot be a Story at all, early and
located, so the cell fails rather than the widget.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..contract import LIMITS
from ..errors import StorySourceError

#: Largest Story accepted, bytes (MVSJ text or MVSX archive): the contract's ``storySourceBytes``.
MAX_STORY_BYTES: int = LIMITS["storySourceBytes"]
_ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class StorySource:
    """A Story ready to send to the page.

    Attributes
    ----------
    format : {"mvsj", "mvsx"}
    mvsj : str
        MVSJ text ("" for MVSX).
    mvsx : bytes or None
        MVSX archive bytes (None for MVSJ).
    origin : str
        Where it came from, for messages: a path, "dict", "text", "bytes" or a builder class name.
    """

    format: Literal["mvsj", "mvsx"]
    mvsj: str
    mvsx: bytes | None
    origin: str


def _too_large(size: int, origin: str) -> StorySourceError:
    return StorySourceError(
        "TOO_LARGE",
        f"the Story from {origin} is {size} bytes; the limit is {MAX_STORY_BYTES} bytes",
        origin,
        "Reference large structures by URL or split the Story.",
        {"bytes": size, "limit": MAX_STORY_BYTES},
    )


def _from_text(text: str, origin: str) -> StorySource:
    if len(text.encode("utf-8")) > MAX_STORY_BYTES:
        raise _too_large(len(text.encode("utf-8")), origin)
    try:
        data = json.loads(text)
    except RecursionError:
        raise StorySourceError(
            "UNSUPPORTED_FORMAT",
            f"the Story from {origin} nests its JSON too deeply to read",
            origin,
            "Pass MVSJ text (MolViewSpec JSON): a tree of nodes a few levels deep.",
            {},
        ) from None
    except json.JSONDecodeError as e:
        raise StorySourceError(
            "UNSUPPORTED_FORMAT",
            f"the Story from {origin} is not JSON: {e.msg} at line {e.lineno}, column {e.colno}",
            origin,
            "Pass MVSJ text (MolViewSpec JSON), a dict, a .mvsj/.mvsx path, MVSX bytes or a molviewspec builder object.",
            {"line": e.lineno, "column": e.colno},
        ) from None
    _check_mvs_shape(data, origin)
    return StorySource("mvsj", text, None, origin)


def _check_mvs_shape(data: Any, origin: str) -> None:
    if not isinstance(data, dict) or ("root" not in data and "snapshots" not in data):
        raise StorySourceError(
            "UNSUPPORTED_FORMAT",
            f"the JSON from {origin} is not MolViewSpec: it has neither 'root' nor 'snapshots'",
            origin,
            "Pass a MolViewSpec state ({'root': ..., 'metadata': ...}) or a multi-state Story "
            "({'kind': 'multiple', 'snapshots': [...], 'metadata': ...}).",
            {},
        )


def _from_bytes(data: bytes, origin: str) -> StorySource:
    if len(data) > MAX_STORY_BYTES:
        raise _too_large(len(data), origin)
    if data[:4] == _ZIP_MAGIC:
        return StorySource("mvsx", "", bytes(data), origin)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StorySourceError(
            "UNSUPPORTED_FORMAT",
            f"the bytes from {origin} are neither an MVSX (zip) archive nor UTF-8 MVSJ text",
            origin,
            "Pass the bytes of an .mvsx archive or of an .mvsj file.",
            {},
        ) from None
    return _from_text(text, origin)


def _from_path(path: Path) -> StorySource:
    # as messages say it: a long str that was no path stays out of the error
    origin = str(path) if len(str(path)) <= 300 else str(path)[:299] + "…"
    try:
        is_file, is_dir = path.is_file(), path.is_dir()
    except OSError:  # a name too long for the file system
        is_file = is_dir = False
    if not is_file:
        raise StorySourceError(
            "NOT_FOUND",
            f"no Story file at {origin}" + (" (it is a directory)" if is_dir else ""),
            origin,
            f"Check the path; relative paths are resolved from the kernel's working directory {os.getcwd()}.",
            {"path": origin},
        )
    suffix = path.suffix.lower()
    if suffix not in (".mvsj", ".json", ".mvsx"):
        raise StorySourceError(
            "UNSUPPORTED_FORMAT",
            f"{origin} has suffix '{suffix}'; a Story is an .mvsj or .mvsx file",
            origin,
            "Pass an .mvsj (MolViewSpec JSON) or .mvsx (MolViewSpec archive) file.",
            {"suffix": suffix},
        )
    size = path.stat().st_size
    if size > MAX_STORY_BYTES:
        raise _too_large(size, origin)
    data = path.read_bytes()
    if suffix == ".mvsx" and data[:4] != _ZIP_MAGIC:
        raise StorySourceError(
            "UNSUPPORTED_FORMAT",
            f"{origin} is named .mvsx but is not a zip archive",
            origin,
            "Rebuild the archive (e.g. molviewspec.MVSX(...).dump(path)) or rename it to .mvsj if it holds JSON.",
            {},
        )
    return _from_bytes(data, origin)


def normalize_story_source(source: Any) -> StorySource:
    """Turn a cell's Story argument into MVSJ text or MVSX bytes.

    Parameters
    ----------
    source : str, os.PathLike, dict, bytes, bytearray, memoryview, or molviewspec object
        MVSJ text; a path to an ``.mvsj``/``.mvsx`` file; a dict (MVS data);
        MVSX or MVSJ bytes; or a ``molviewspec`` builder ``Root`` (its state),
        ``State``, ``States``, ``MVSJ`` or ``MVSX`` (recognised with ``isinstance``).

    Returns
    -------
    StorySource

    Raises
    ------
    StorySourceError
        ``UNSUPPORTED_FORMAT`` for anything that is not a Story, ``NOT_FOUND``
        for a missing file, ``TOO_LARGE`` above :data:`MAX_STORY_BYTES`.
    """
    if isinstance(source, os.PathLike):
        return _from_path(Path(source))
    if isinstance(source, str):
        if source.lstrip().startswith("{"):
            return _from_text(source, "text")
        path = Path(source)
        try:
            path = path.expanduser()
        except RuntimeError:  # "~user" of no known user: then no such file
            pass
        return _from_path(path)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _from_bytes(bytes(source), "bytes")
    if isinstance(source, dict):
        _check_mvs_shape(source, "dict")
        try:
            text = json.dumps(source)
        except (TypeError, ValueError) as e:
            raise StorySourceError(
                "UNSUPPORTED_FORMAT",
                f"the dict cannot be written as JSON: {e}",
                "dict",
                "Use only JSON types (str, int, float, bool, None, list, dict) in the Story.",
                {},
            ) from None
        return _from_text(text, "dict")
    return _from_molviewspec(source)


def _molviewspec_classes() -> tuple[Any, ...] | None:
    """``(Root, State, States, MVSJ, MVSX)`` from molviewspec, or ``None`` when it is not installed."""
    try:
        from molviewspec import MVSJ, MVSX, State, States
        from molviewspec.builder import Root
    except ImportError:
        return None
    return Root, State, States, MVSJ, MVSX


def _from_molviewspec(source: Any) -> StorySource:
    classes = _molviewspec_classes()
    if classes is not None:
        root, state, states, mvsj, mvsx = classes
        if isinstance(source, root):
            return _from_text(
                source.get_state().model_dump_json(exclude_none=True), "molviewspec.Root"
            )
        if isinstance(source, (state, states)):
            return _from_text(
                source.model_dump_json(exclude_none=True), f"molviewspec.{type(source).__name__}"
            )
        if isinstance(source, mvsj):
            return _from_text(source.dumps(indent=None), "molviewspec.MVSJ")
        if isinstance(source, mvsx):
            return _from_bytes(source.dumps(), "molviewspec.MVSX")
    kind = type(source).__name__
    module = type(source).__module__ or ""
    raise StorySourceError(
        "UNSUPPORTED_FORMAT",
        f"cannot make a Story from a {module + '.' if module else ''}{kind}",
        "source",
        "Pass MVSJ text, a dict, a .mvsj/.mvsx path, MVSX bytes, or a molviewspec Root/State/States/MVSJ/MVSX.",
        {"type": f"{module}.{kind}"},
    )
