"""Normalise what a notebook cell passes to :class:`molspace.Viewer`.

A structure source becomes bytes plus a format name (the contract's
``structureFormats``). Mol*'s parsers read it in the page; here we refuse,
early and located, what cannot be a structure at all (unknown format, no
extension and no ``format``, empty data, binary data for a text format, too
large, a path outside the working directory), so the cell fails rather than
the widget. A truncated or malformed file is refused by Mol* in the page and
shows as ``viewer.error``.

Two sources are not files: an RDKit ``Mol`` becomes SDF text here (one
record per 3D conformer; embedded with ETKDG when it has none), and an MVS
state (a dict, MVSJ text, a molviewspec builder ``Root`` or ``State``) is
sent as the Viewer's first ``apply_mvs`` state, the page fetching the
structure it downloads (docs/architecture.md, "Viewer").
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..contract import LIMITS, STRUCTURE_FORMATS
from ..errors import MolspaceError, StructureSourceError

#: Largest structure accepted, bytes: the contract's ``viewerSourceBytes``.
MAX_STRUCTURE_BYTES: int = LIMITS["viewerSourceBytes"]
#: Largest MVS state accepted, bytes of JSON: the contract's ``viewerMvsBytes``.
MAX_MVS_BYTES: int = LIMITS["viewerMvsBytes"]
#: Seed of the ETKDG embedding of an RDKit Mol without 3D coordinates (the same Mol gives the same coordinates).
EMBED_SEED: int = 0xC0FFEE
FORMATS: tuple[str, ...] = tuple(STRUCTURE_FORMATS["formats"])
EXTENSIONS: dict[str, str] = dict(STRUCTURE_FORMATS["extensions"])
BINARY: frozenset[str] = frozenset(STRUCTURE_FORMATS["binary"])
#: Topology formats (atoms, no coordinates): they need ``coordinates=``.
TOPOLOGY: frozenset[str] = frozenset(STRUCTURE_FORMATS["topology"])
#: Trajectory coordinates formats (MVS ``parse`` names) and their file extensions.
COORDINATES_FORMATS: tuple[str, ...] = tuple(STRUCTURE_FORMATS["coordinates"])
COORDINATES_EXTENSIONS: dict[str, str] = dict(STRUCTURE_FORMATS["coordinatesExtensions"])


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
        Where it came from, for messages: the path as given, ``"text"``, ``"bytes"``,
        ``"rdkit.Mol"`` or ``"mvs"``.
    mvs : dict or None
        For an MVS source: the one MVS state (``{"kind": "single", "root", "metadata"}``).
    """

    data: bytes
    format: str
    name: str
    #: An MVS state the Viewer draws (``apply_mvs``) with ``data`` empty: the page fetches its structure.
    mvs: dict[str, Any] | None = None


@dataclass(frozen=True)
class CoordinatesSource:
    """A trajectory's coordinates ready to send to the page.

    Attributes
    ----------
    data : bytes
        The file's bytes.
    format : str
        One of :data:`COORDINATES_FORMATS` (``xtc``, ``dcd``, ``trr``, ``nctraj``, ``lammpstrj``).
    name : str
        Where they came from, for messages: the path as given, ``"bytes"`` or the adaptor.
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


def _shown(path: Path) -> str:
    """A path as messages say it: a long str that was no path stays out of the error."""
    text = str(path)
    return text if len(text) <= 300 else text[:299] + "…"


def _format_of_path(path: Path, given: str | None) -> str:
    if given is not None:
        return _check_format(given, "format")
    ext = path.suffix.lower().lstrip(".")
    if not ext:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"{_shown(path)!r} has no file extension to tell its format from",
            _shown(path),
            f"Pass format= one of: {', '.join(FORMATS)}, or rename the file with one of: {_extensions_text()}.",
            {"path": _shown(path), "formats": list(FORMATS)},
        )
    if ext not in EXTENSIONS:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"the extension .{ext[:20]} of {_shown(path)!r} is not a structure format molspace reads",
            _shown(path),
            f"Use a file with one of: {_extensions_text()}, or pass format= explicitly.",
            {"path": _shown(path), "extension": ext[:20], "extensions": list(EXTENSIONS)},
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


def _resolve_under_cwd(path: Path, shown: str, where: str, fix: str) -> Path:
    """``path`` resolved against the working directory, which it must stay under.

    Raises
    ------
    StructureSourceError
        ``FORBIDDEN`` at ``where`` (with ``fix``) for a path outside it.
    """
    root = Path.cwd().resolve()
    try:
        resolved = (root / path).resolve() if not path.is_absolute() else path.resolve()
    except ValueError:  # a NUL or a lone surrogate: no file has that name
        resolved = root / "\ufffd"
    if not resolved.is_relative_to(root):
        raise StructureSourceError(
            "FORBIDDEN",
            f"{shown!r} is outside the notebook's working directory {str(root)!r}",
            where,
            fix,
            {"path": shown, "root": str(root)},
        )
    return resolved


def _read_file(resolved: Path, shown: str, where: str, fix_large: str) -> bytes:
    """The bytes of ``resolved``.

    Raises
    ------
    StructureSourceError
        ``NOT_FOUND`` at ``where`` (no such file), ``TOO_LARGE`` (over ``viewerSourceBytes``, with ``fix_large``).
    """
    try:
        is_file = resolved.is_file()
    except OSError:  # a name too long for the file system
        is_file = False
    if not is_file:
        raise StructureSourceError(
            "NOT_FOUND",
            f"no file {shown!r} (looked in {_shown(resolved.parent)!r})",
            where,
            "Check the path; it is relative to the notebook's working directory.",
            {"path": shown},
        )
    size = resolved.stat().st_size
    if size > MAX_STRUCTURE_BYTES:
        raise StructureSourceError(
            "TOO_LARGE",
            f"{shown!r} is {size} bytes; the limit is {MAX_STRUCTURE_BYTES} bytes",
            where,
            fix_large,
            {"bytes": size, "limit": MAX_STRUCTURE_BYTES},
        )
    return resolved.read_bytes()


def _read_path(path: Path, fmt: str | None) -> StructureSource:
    shown = _shown(path)
    resolved = _resolve_under_cwd(
        path,
        shown,
        shown,
        "Copy the file under the notebook's directory, or read it yourself and pass its bytes with format=.",
    )
    format_ = _format_of_path(path, fmt)
    data = _read_file(
        resolved, shown, shown, "Pass a smaller file (e.g. one assembly or a subset of models)."
    )
    _check_data(data, format_, shown)
    return StructureSource(data, format_, shown)


def _molviewspec_state(value: Any) -> dict[str, Any] | None:
    """The state of a molviewspec builder ``Root`` or ``State`` as a dict, else ``None``."""
    try:
        from molviewspec import State
        from molviewspec.builder import Root
    except ImportError:
        return None
    if isinstance(value, Root):
        return json.loads(value.get_state().model_dump_json(exclude_none=True))
    if isinstance(value, State):
        return json.loads(value.model_dump_json(exclude_none=True))
    return None


def mvs_state_of(
    value: Any, where: str, error: type[MolspaceError] = StructureSourceError
) -> dict[str, Any] | None:
    """One MVS state as a dict, or ``None`` when ``value`` is not MVS at all.

    Parameters
    ----------
    value : dict, str, molviewspec Root or State
        A dict with ``root``, MVSJ text of one state (a ``str`` starting with ``{``),
        a molviewspec builder ``Root`` (``create_builder()``) or ``State``.
    where : str
        Where the value was given, for errors (``"source"``, ``"state"``).
    error : type
        The :class:`MolspaceError` subclass to raise.

    Raises
    ------
    MolspaceError
        ``INVALID_INPUT`` for MVSJ text that is not JSON or a dict without ``root``;
        ``UNSUPPORTED_FORMAT`` for a multi-state Story; ``TOO_LARGE`` over ``viewerMvsBytes``.
    """
    state = _molviewspec_state(value)
    if state is None and isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = json.loads(value)
        except ValueError as e:
            raise error(
                "INVALID_INPUT",
                f"the MVS state is not JSON: {e}",
                where,
                "Pass MVSJ text of one state, a dict or a molviewspec object.",
            ) from None
    if state is None and isinstance(value, dict):
        state = value
    if state is None:
        return None
    if state.get("kind") == "multiple" or "snapshots" in state:
        raise error(
            "UNSUPPORTED_FORMAT",
            "a Viewer draws one MVS state, not a multi-state Story",
            f"{where}/kind",
            "Pass one state ({kind: 'single', root, metadata}); show a Story with molspace.Story.",
            {"kind": state.get("kind")},
        )
    if not isinstance(state.get("root"), dict):
        raise error(
            "INVALID_INPUT",
            "an MVS state needs a root node",
            f"{where}/root",
            "Pass {'kind': 'single', 'root': {'kind': 'root', 'children': [...]}, 'metadata': {...}} or a molviewspec builder.",
            {"keys": sorted(str(k) for k in state)[:20]},
        )
    size = len(json.dumps(state, separators=(",", ":")).encode("utf-8"))
    if size > MAX_MVS_BYTES:
        raise error(
            "TOO_LARGE",
            f"the MVS state is {size} bytes of JSON; a Viewer takes at most {MAX_MVS_BYTES}",
            where,
            "Reference structures by URL instead of inline data, or show the state as a Story (molspace.Story).",
            {"bytes": size, "limit": MAX_MVS_BYTES},
        )
    return state


def is_rdkit_mol(value: Any) -> bool:
    """True for an RDKit ``Mol`` (or ``RWMol``), checked without importing RDKit."""
    return type(value).__name__ in ("Mol", "RWMol", "EditableMol") and type(
        value
    ).__module__.startswith("rdkit")


def _from_rdkit(mol: Any) -> StructureSource:
    """SDF of an RDKit Mol: one record per 3D conformer, or one ETKDG-embedded conformer (with hydrogens)."""
    try:
        from rdkit import Chem

        # AllChem re-exports these; their own modules are what RDKit's stubs type.
        from rdkit.Chem import rdDistGeom
    except ImportError:
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            "an RDKit Mol needs RDKit to be written as SDF, and RDKit cannot be imported",
            "source",
            "pip install 'molspace[rdkit]', or pass the molecule as SDF text with format='sdf'.",
            {"type": type(mol).__name__},
        ) from None
    if type(mol).__name__ == "EditableMol":
        mol = mol.GetMol()
    if mol.GetNumAtoms() == 0:
        raise StructureSourceError(
            "VALIDATION_FAILED",
            "the RDKit Mol has no atoms",
            "source",
            "Pass a molecule with atoms.",
            {"atoms": 0},
        )
    conformers = [c.GetId() for c in mol.GetConformers() if c.Is3D()]
    embedded = False
    if not conformers:
        mol = Chem.AddHs(mol, addCoords=mol.GetNumConformers() > 0)
        params: Any = rdDistGeom.ETKDGv3()  # RDKit's stubs type its settable fields read-only
        params.randomSeed = EMBED_SEED
        if rdDistGeom.EmbedMolecule(mol, params) != 0:
            raise StructureSourceError(
                "VALIDATION_FAILED",
                f"the RDKit Mol ({Chem.MolToSmiles(Chem.RemoveHs(mol))}) has no 3D conformer and RDKit's ETKDG could not embed one",
                "source",
                "Embed it yourself (e.g. AllChem.EmbedMolecule(mol, useRandomCoords=True)) and pass the Mol, or pass 3D SDF text.",
                {"atoms": mol.GetNumAtoms(), "conformers": 0},
            )
        conformers, embedded = [mol.GetConformer().GetId()], True
    out = io.StringIO()
    writer = Chem.SDWriter(out)
    try:
        for conf_id in conformers:
            writer.write(mol, confId=conf_id)
    finally:
        writer.close()
    data = out.getvalue().encode("utf-8")
    _check_data(data, "sdf", "rdkit.Mol")
    return StructureSource(
        data, "sdf", "rdkit.Mol (embedded with ETKDG)" if embedded else "rdkit.Mol"
    )


def normalize_structure_source(source: Any, format: str | None = None) -> StructureSource:  # noqa: A002
    """Turn what a cell passed into bytes and a format.

    Parameters
    ----------
    source : str, os.PathLike, bytes, rdkit.Chem.Mol, dict or molviewspec Root/State
        A path (relative to the notebook's working directory, which it must
        stay under), structure text (a ``str`` with a newline; needs
        ``format``), bytes (need ``format``), an RDKit ``Mol`` (SDF: one
        record, so one model, per 3D conformer; without one, hydrogens are
        added and ETKDG embeds it with :data:`EMBED_SEED`), or one MVS state
        (a dict with ``root``, MVSJ text starting with ``{``, a molviewspec
        ``Root`` or ``State``; see :func:`mvs_state_of`).
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
        directory), ``TOO_LARGE`` (over ``viewerSourceBytes``, an MVS state over
        ``viewerMvsBytes``), ``INVALID_INPUT`` (another type, an MVS state without
        ``root``); for an RDKit Mol ``VALIDATION_FAILED`` (no atoms, ETKDG cannot
        embed it) or ``UNSUPPORTED_FORMAT`` (RDKit cannot be imported). All at ``source``.
    """
    if is_rdkit_mol(source):
        return _from_rdkit(source)
    if format is None or not isinstance(source, str):
        state = mvs_state_of(source, "source")
        if state is not None:
            if format is not None:
                raise StructureSourceError(
                    "INVALID_INPUT",
                    "an MVS state names its formats in its parse nodes; format= does not apply",
                    "format",
                    "Drop format=, or pass structure text or bytes with it.",
                    {"format": format},
                )
            return StructureSource(b"", "", "mvs", state)
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
        try:
            data = source.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate: half a character
            raise StructureSourceError(
                "UNSUPPORTED_FORMAT",
                f"the structure text has a lone surrogate at character {e.start}, so it is not text",
                "source",
                "Pass the file's text as read (open(path).read()), or its bytes with format=.",
                {"format": fmt, "offset": e.start},
            ) from None
        _check_data(data, fmt, "text")
        return StructureSource(data, fmt, "text")
    if isinstance(source, (str, os.PathLike)):
        return _read_path(Path(source), format)
    raise StructureSourceError(
        "INVALID_INPUT",
        f"a Viewer cannot show a {type(source).__name__}",
        "source",
        "Pass a file path, structure text or bytes with format=, an RDKit Mol, or an MVS state (dict, MVSJ, molviewspec builder).",
        {"type": type(source).__name__},
    )


def _coordinates_format(path: Path | None, given: str | None, where: str) -> str:
    if given is not None:
        if not isinstance(given, str) or given.lower() not in COORDINATES_FORMATS:
            raise StructureSourceError(
                "UNSUPPORTED_FORMAT",
                f"{given!r} is not a coordinates format molspace reads",
                "coordinates_format",
                f"Pass coordinates_format= one of: {', '.join(COORDINATES_FORMATS)}.",
                {
                    "format": given if isinstance(given, str) else repr(given),
                    "formats": list(COORDINATES_FORMATS),
                },
            )
        return given.lower()
    ext = path.suffix.lower().lstrip(".") if path is not None else ""
    if ext not in COORDINATES_EXTENSIONS:
        exts = ", ".join(f".{e}" for e in COORDINATES_EXTENSIONS)
        raise StructureSourceError(
            "UNSUPPORTED_FORMAT",
            f"the coordinates from {where} have no format: "
            + (
                f"the extension .{ext[:20]} is not a trajectory format"
                if ext
                else "no file extension to tell it from"
            ),
            "coordinates_format",
            f"Pass coordinates_format= one of: {', '.join(COORDINATES_FORMATS)}, or use a file ending in one of: {exts}.",
            {"extension": ext[:20] or None, "formats": list(COORDINATES_FORMATS)},
        )
    return COORDINATES_EXTENSIONS[ext]


#: A trajectory over ``viewerSourceBytes`` reaches the whole-file path only without MDAnalysis
#: (with it, the kernel serves the frames on demand: :mod:`molspace.viewer.frames`).
_LARGE_COORDINATES_FIX = (
    "pip install MDAnalysis in the kernel's environment, so the kernel serves the frames on demand; "
    "or pass fewer frames (e.g. every 10th, written with MDAnalysis or gmx trjconv -skip)."
)


def normalize_coordinates_source(
    coordinates: Any, coordinates_format: str | None = None
) -> CoordinatesSource:
    """Turn the ``coordinates=`` a cell passed (a trajectory for the topology) into bytes and a format.

    Parameters
    ----------
    coordinates : str, os.PathLike or bytes
        A path under the notebook's working directory (``.xtc .dcd .trr .nc .ncdf .lammpstrj``),
        or the file's bytes (need ``coordinates_format``).
    coordinates_format : str, optional
        One of :data:`COORDINATES_FORMATS`; default: from the path's extension.

    Raises
    ------
    StructureSourceError
        ``UNSUPPORTED_FORMAT`` (unknown format or extension), ``VALIDATION_FAILED`` (empty),
        ``NOT_FOUND``, ``FORBIDDEN`` (outside the working directory), ``TOO_LARGE`` (over
        ``viewerSourceBytes``), ``INVALID_INPUT`` (another type). Atom counts, frames cut short
        and the format's own checks are the page's (:attr:`molspace.Viewer.error`).
    """
    if isinstance(coordinates, (bytes, bytearray, memoryview)):
        data = bytes(coordinates)
        fmt = _coordinates_format(None, coordinates_format, "bytes")
        where = "bytes"
    elif isinstance(coordinates, (str, os.PathLike)):
        path = Path(coordinates)
        where = _shown(path)
        fmt = _coordinates_format(path, coordinates_format, where)
        resolved = _resolve_under_cwd(
            path,
            where,
            "coordinates",
            "Copy the file under the notebook's directory, or pass its bytes with coordinates_format=.",
        )
        data = _read_file(
            resolved,
            where,
            "coordinates",
            _LARGE_COORDINATES_FIX,
        )
    else:
        raise StructureSourceError(
            "INVALID_INPUT",
            f"coordinates= takes a path or bytes, not a {type(coordinates).__name__}",
            "coordinates",
            "Pass the trajectory file's path (e.g. 'run.xtc') or its bytes with coordinates_format=.",
            {"type": type(coordinates).__name__},
        )
    if len(data) > MAX_STRUCTURE_BYTES:
        raise StructureSourceError(
            "TOO_LARGE",
            f"the coordinates from {where} are {len(data)} bytes; the limit is {MAX_STRUCTURE_BYTES} bytes",
            "coordinates",
            _LARGE_COORDINATES_FIX,
            {"bytes": len(data), "limit": MAX_STRUCTURE_BYTES},
        )
    if not data:
        raise StructureSourceError(
            "VALIDATION_FAILED",
            f"the coordinates from {where} are empty",
            "coordinates",
            "Pass a trajectory file with frames in it.",
            {"bytes": 0, "format": fmt},
        )
    return CoordinatesSource(data, fmt, where)
