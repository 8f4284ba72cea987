"""Trajectory frames served on demand: the kernel keeps the coordinates, the page asks for frames.

A Viewer whose trajectory has more frames than its frame budget (``Viewer(..., frame_budget=)``,
default :data:`DEFAULT_FRAME_BUDGET`, the JupyterLab setting ``trajectoryFrameBudget``'s default),
or whose coordinates would pass ``viewerSourceBytes``, does not send the coordinates file to the
page. The page holds at most the budget's frames in an LRU cache (``src/viewer/frameCache.ts``)
and asks for a block of frames over the widget's comm::

    page -> kernel  {"type": "frames", "id": "<page>:<n>", "start": i, "count": k}
    kernel -> page  {"type": "frames", "id", "start", "count", "atoms"}  + one binary buffer
    kernel -> page  {"type": "frames", "id", "error": {code, message, where, fix, details}}

The buffer holds ``count`` frames, each as ``atoms`` float32 x, then y, then z (little-endian,
Å): Mol*'s ``Frame`` layout.

Readers: a coordinates file (path or bytes) of any format Mol* reads — DCD, XTC, TRR, AMBER
NetCDF, LAMMPS dump — read with MDAnalysis's reader of that format (:class:`FileFrames`; no
parser of molspace's own), an MDAnalysis Universe/AtomGroup and an MDTraj Trajectory (read with
their libraries). MDAnalysis is optional (``pip install MDAnalysis``): without it a coordinates
file goes to the page whole, as it did before frames on demand (the page's Mol* readers), and
one over ``viewerSourceBytes`` is refused ``TOO_LARGE`` with that install as the fix.

The Jupyter server serves the same blocks of files under its root for Viewers an agent opens
(``GET {base_url}molspace/frames``, :mod:`molspace.gateway.frames_handler`), with the same
readers and the same range checks (:func:`check_block`). See docs/architecture.md, "Viewer".
"""

from __future__ import annotations

import threading
import warnings
from pathlib import Path
from typing import Any

from ..errors import StructureSourceError

#: Frames the page holds of an on-demand trajectory unless the cell or the setting says otherwise
#: (``schema/plugin.json`` ``trajectoryFrameBudget``'s default; a test checks they agree).
DEFAULT_FRAME_BUDGET = 1000

#: Most frames one request may ask for (the page's read-ahead block is at most this).
MAX_FRAME_BLOCK = 64


def _round(v: float) -> float:
    return round(v * 1e4) / 1e4


class FrameSource:
    """Frames the kernel serves: ``frames`` frames of ``atoms`` atoms; :meth:`read` a block."""

    frames: int
    atoms: int
    format: str
    name: str
    time_ps: dict[str, float] | None = None
    notes: tuple[str, ...] = ()

    def read(self, start: int, count: int) -> bytes:
        """Frames ``start`` .. ``start + count - 1`` as float32 x, y, z blocks per frame."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """What the page needs before the first frame (the synced ``_frames_on_demand``)."""
        return {
            "frames": self.frames,
            "atoms": self.atoms,
            "format": self.format,
            "timePs": self.time_ps,
            "notes": list(self.notes),
        }


#: The MDAnalysis reader of each coordinates format (``MDAnalysis.coordinates.<module>.<class>``).
_MDA_READERS: dict[str, tuple[str, str]] = {
    "dcd": ("DCD", "DCDReader"),
    "xtc": ("XTC", "XTCReader"),
    "trr": ("TRR", "TRRReader"),
    "nctraj": ("TRJ", "NCDFReader"),
    "lammpstrj": ("LAMMPS", "DumpReader"),
}

#: The file name ending MDAnalysis tells each format by.
_SUFFIX = {"dcd": "dcd", "xtc": "xtc", "trr": "trr", "nctraj": "ncdf", "lammpstrj": "lammpstrj"}

#: What to install for frames on demand from a file.
INSTALL_FIX = "pip install MDAnalysis (in the kernel's or the Jupyter server's environment)"


def mdanalysis_available() -> bool:
    """Whether MDAnalysis can be imported (found without importing it)."""
    import importlib.util

    return importlib.util.find_spec("MDAnalysis") is not None


class FileFrames(FrameSource):
    """A coordinates file of any format Mol* reads (:data:`_MDA_READERS`), read per request with
    MDAnalysis's reader of that format (positions in Å, as the page's whole-file path reads them;
    LAMMPS dump atoms in id order, as Mol*).

    The reader opens a link to the file in a private temporary folder, so what MDAnalysis caches
    beside a file (an XTC/TRR's frame offsets) goes there, never into the user's folder; the folder
    goes with this object (:meth:`close`, or when it is collected).

    Raises
    ------
    StructureSourceError
        ``VALIDATION_FAILED`` at ``where`` for a file MDAnalysis cannot read as ``fmt`` (cut,
        another format, no frames), naming MDAnalysis's reason; for a file cut inside a frame
        (:meth:`_check_whole`: the last frame read at open, a DCD's size, an XTC/TRR's end), in
        the page's words, ``details.truncated`` and ``lastGoodFrame`` (and a DCD header's
        ``announced`` count). A DCD cut between frames is served with a note of both counts
        (``notes``, which the page shows as the whole-file path's).
    """

    def __init__(self, path: Path | bytes, fmt: str, name: str, where: str):
        import importlib
        import os
        import tempfile
        import weakref

        self.name = name
        self.format = fmt
        self._lock = threading.Lock()
        self._dir = tempfile.mkdtemp(prefix="molspace-frames-")
        self._finalizer = weakref.finalize(self, _remove_folder, self._dir)
        link = Path(self._dir) / f"frames.{_SUFFIX[fmt]}"
        if isinstance(path, bytes):  # a cell's bytes: MDAnalysis reads files, so a private copy
            link.write_bytes(path)
        else:
            try:
                os.symlink(path.resolve(), link)
            except OSError:  # no symbolic links here: MDAnalysis reads the file itself
                link = path
        module, cls = _MDA_READERS[fmt]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reader_class = getattr(
                    importlib.import_module(f"MDAnalysis.coordinates.{module}"), cls
                )
                self._reader: Any = reader_class(str(link))
                frames = int(self._reader.n_frames)
                atoms = int(self._reader.n_atoms)
                times = _times(self._reader)
        except Exception as e:  # noqa: BLE001 - MDAnalysis's reason, located
            self.close()
            raise StructureSourceError(
                "VALIDATION_FAILED",
                f"MDAnalysis could not read the {fmt} coordinates from {name}: "
                f"{type(e).__name__}: {e}"[:300],
                where,
                f"Pass a whole {fmt} file (it may be cut short or another format), "
                "or fewer frames so the whole file goes to the page.",
                {"format": fmt},
            ) from None
        if frames < 1 or atoms < 1:
            self.close()
            raise StructureSourceError(
                "VALIDATION_FAILED",
                f"the {fmt} coordinates from {name} hold {frames} frames of {atoms} atoms",
                where,
                f"Pass a {fmt} file with frames in it.",
                {"format": fmt, "frames": frames, "atoms": atoms},
            )
        self.frames = frames
        self.atoms = atoms
        self.time_ps = times
        try:
            self.notes = self._check_whole(link, fmt, name, where)
        except StructureSourceError:
            self.close()
            raise

    def _check_whole(self, link: Path, fmt: str, name: str, where: str) -> tuple[str, ...]:
        """Refuse a file cut inside a frame, naming the last whole frame; note a DCD whose header
        announces another frame count than its whole frames (the page's ``checkDcd`` and
        ``truncated`` in ``src/viewer/trajectoryData.ts``, in the same words).

        MDAnalysis counts a DCD's frames from its size (a cut frame dropped), an XTC/TRR's from its
        frame headers (a frame cut after its header counted, one cut inside it dropped): so the
        DCD's frame sizes, the last frame read and, for XTC/TRR, where it ends tell a cut file.
        """
        import os

        size = os.path.getsize(link)
        frames = self.frames
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if fmt == "dcd":
                dcd = getattr(self._reader, "_file", None)
                # MDAnalysis's DCDFile: the header's, frame 0's and each later frame's bytes
                sizes = [
                    getattr(dcd, a, None) for a in ("_header_size", "_firstframesize", "_framesize")
                ]
                announced = _dcd_announced(link)
                header, first, each = (v if isinstance(v, int) else 0 for v in sizes)
                if each > 0 and header > 0 and first > 0:
                    if (size - header - first) % each != 0:
                        raise _truncated(fmt, where, name, frames, announced)
                if announced is not None and announced != frames:
                    return (
                        f"DCD header frame count {announced}; the file holds {frames} whole frames "
                        "(counted from its size, as MDAnalysis does)",
                    )
                return ()
            try:
                self._reader[frames - 1]
            except Exception as e:  # noqa: BLE001 - the last frame MDAnalysis counted is cut
                try:
                    if frames < 2:
                        raise e
                    self._reader[frames - 2]
                except Exception as before:  # noqa: BLE001 - no whole frame before it either
                    raise StructureSourceError(
                        "VALIDATION_FAILED",
                        f"MDAnalysis could not read the {fmt} coordinates from {name}: "
                        f"{type(before).__name__}: {before}"[:300],
                        where,
                        f"Pass a whole {fmt} file (it may be cut short or another format).",
                        {"format": fmt, "frames": frames, "name": name},
                    ) from None
                raise _truncated(fmt, where, name, frames - 1, None) from None
            xdr = getattr(self._reader, "_xdr", None)
            if fmt in ("xtc", "trr") and xdr is not None:
                end = int(xdr._bytes_tell())
                if end < size:  # bytes after the last whole frame: a frame cut in its header
                    raise _truncated(fmt, where, name, frames, None)
        return ()

    def read(self, start: int, count: int) -> bytes:
        with self._lock, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return b"".join(
                _little_endian(self._reader[i].positions.T.reshape(-1))
                for i in range(start, start + count)
            )

    def close(self) -> None:
        """Close the reader and remove the private folder (idempotent)."""
        reader = getattr(self, "_reader", None)
        if reader is not None:
            try:
                reader.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass
        self._finalizer()


def _dcd_announced(path: Path) -> int | None:
    """The frame count a DCD's header announces (NSET, the third 4-byte word, after the 84-byte
    record's length), or ``None`` where it announces none; MDAnalysis's ``DCDFile.header`` leaves
    it out (it counts frames from the file's size)."""
    import struct

    with open(path, "rb") as f:
        head = f.read(12)
    if len(head) < 12:
        return None
    for order in ("<", ">"):
        marker, _, nset = struct.unpack(f"{order}iii", head)
        if marker == 84:
            return nset if nset > 0 else None
    return None


def _truncated(
    fmt: str, where: str, name: str, frames: int, announced: int | None
) -> StructureSourceError:
    """A file that ends inside frame ``frames`` (0-based): the page's ``truncated`` error, in its words."""
    of = f" of {announced} announced" if announced else ""
    return StructureSourceError(
        "VALIDATION_FAILED",
        f"The {fmt} coordinates end inside frame {frames} (0-based); the last whole frame is "
        f"{frames - 1}{of}.",
        where,
        "Pass the whole file: it looks truncated (cut while copying, or while the simulation was "
        f"still writing); or cut it to frames 0–{frames - 1}.",
        {
            "format": fmt,
            "truncated": True,
            "lastGoodFrame": frames - 1,
            "frames": frames,
            **({"announced": announced} if announced else {}),
            "name": name,
        },
    )


def _remove_folder(folder: str) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def _times(reader: Any) -> dict[str, float] | None:
    """Frame 0's time and the step, ps, where the file carries them (a step > 0), else ``None``."""
    try:
        dt = float(reader.dt)
        t0 = float(reader[0].time)
    except Exception:  # noqa: BLE001 - a reader without times: none reported
        return None
    if not dt > 0:
        return None
    return {"start": _round(t0), "step": _round(dt)}


def _little_endian(values: Any) -> bytes:
    """float32 little-endian bytes of a flat numpy array (the libraries' positions)."""
    return bytes(values.astype("<f4").tobytes())


class MDAnalysisFrames(FrameSource):
    """Frames ``taken`` of an MDAnalysis AtomGroup, read per request from a copy of its Universe's
    reader (``ReaderBase.copy()``), so the cell's Universe never moves (a request is answered on a
    kernel subshell's thread while a cell may be reading it); without a copy, from the Universe,
    put back at its frame after each block."""

    def __init__(self, group: Any, taken: range, name: str):
        self._group = group
        self._indices = group.ix
        self._taken = taken
        self._lock = threading.Lock()
        self.frames = len(taken)
        self.atoms = int(group.n_atoms)
        self.format = "dcd"
        self.name = name
        trajectory = group.universe.trajectory
        try:
            self._reader: Any = trajectory.copy()
        except Exception:  # noqa: BLE001 - a reader that cannot be copied: read from the Universe
            self._reader = None
        try:
            dt = float(trajectory.dt) * taken.step
            here = trajectory.ts.frame
            trajectory[taken[0]]
            t0 = float(trajectory.ts.time)
            trajectory[here]
            self.time_ps = {"start": _round(t0), "step": _round(dt)}
        except Exception:  # noqa: BLE001 - a reader without times: none reported
            self.time_ps = None

    def read(self, start: int, count: int) -> bytes:
        parts = []
        with self._lock:
            if self._reader is not None:
                for i in range(start, start + count):
                    ts = self._reader[self._taken[i]]
                    parts.append(_little_endian(ts.positions[self._indices].T.reshape(-1)))
                return b"".join(parts)
            trajectory = self._group.universe.trajectory
            here = trajectory.ts.frame
            try:
                for i in range(start, start + count):
                    trajectory[self._taken[i]]
                    parts.append(_little_endian(self._group.positions.T.reshape(-1)))
            finally:
                trajectory[here]  # the cell's Universe stays at its frame
        return b"".join(parts)


class MDTrajFrames(FrameSource):
    """Frames ``taken`` of an MDTraj Trajectory (nm in memory, served in Å)."""

    def __init__(self, traj: Any, taken: range, name: str):
        self._traj = traj
        self._taken = taken
        self.frames = len(taken)
        self.atoms = int(traj.n_atoms)
        self.format = "dcd"
        self.name = name
        times = getattr(traj, "time", None)
        if times is not None and len(times) > 1:
            self.time_ps = {
                "start": _round(float(times[taken[0]])),
                "step": _round(float(times[1] - times[0]) * taken.step),
            }

    def read(self, start: int, count: int) -> bytes:
        return b"".join(
            _little_endian((self._traj.xyz[self._taken[i]] * 10.0).T.reshape(-1))
            for i in range(start, start + count)
        )


def check_block(frames: int, start: Any, count: Any) -> dict[str, Any] | None:
    """The located refusal of a block request ``start``, ``count`` of ``frames`` frames, or ``None``
    when it is whole frames within them, at most :data:`MAX_FRAME_BLOCK`."""

    def refuse(where: str, message: str, details: dict[str, Any]) -> dict[str, Any]:
        return {
            "code": "VALIDATION_FAILED",
            "message": message[:300],
            "where": where,
            "fix": f"Ask for frames 0–{frames - 1}, at most {MAX_FRAME_BLOCK} at a time.",
            "details": {**details, "frames": frames},
        }

    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start < frames:
        return refuse(
            "/frames/start",
            f"frame {start!r} is out of range: the trajectory has {frames} frames",
            {"start": start if isinstance(start, int) else repr(start)},
        )
    if (
        isinstance(count, bool)
        or not isinstance(count, int)
        or not 1 <= count <= MAX_FRAME_BLOCK
        or start + count > frames
    ):
        return refuse(
            "/frames/count",
            f"a block of {count!r} frames from {start} is not 1–{MAX_FRAME_BLOCK} frames "
            f"within the {frames}",
            {"start": start, "count": count if isinstance(count, int) else repr(count)},
        )
    return None


def frame_reply(source: FrameSource, content: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
    """The kernel's answer to the page's ``frames`` request: the block, or a located refusal."""
    request_id = content.get("id")
    start, count = content.get("start"), content.get("count")
    answer: dict[str, Any] = {
        "type": "frames",
        "id": request_id if isinstance(request_id, str) else None,
    }
    refused = check_block(source.frames, start, count)
    if refused is not None:
        answer["error"] = refused
        return answer, []
    assert isinstance(start, int) and isinstance(count, int)
    try:
        data = source.read(start, count)
    except Exception as e:  # noqa: BLE001 - a file changed or a library failed: located, the page shows it
        answer["error"] = {
            "code": "INTERNAL",
            "message": f"the kernel could not read frames {start}–{start + count - 1} of "
            f"{source.name}: {type(e).__name__}: {e}"[:300],
            "where": f"/frames/{start}",
            "fix": "Check the coordinates file is still there and whole, then step again.",
            "details": {"start": start, "count": count},
        }
        return answer, []
    answer.update({"start": start, "count": count, "atoms": source.atoms})
    return answer, [data]


def served_coordinates(
    coordinates: Any, coordinates_format: str | None, budget: int
) -> FileFrames | None:
    """A coordinates file (path or bytes, any format) the kernel serves by frame, read with
    MDAnalysis, when it has more frames than ``budget`` or is over ``viewerSourceBytes``; else
    ``None`` (sent whole, as before).

    Without MDAnalysis, ``None``: the whole file goes to the page, and one over
    ``viewerSourceBytes`` is the whole-file path's ``TOO_LARGE``, whose fix says
    ``pip install MDAnalysis``.

    Raises
    ------
    StructureSourceError
        ``VALIDATION_FAILED`` at ``coordinates`` for a file over ``viewerSourceBytes`` that
        MDAnalysis cannot read (see :class:`FileFrames`; under it the page's reader says what is
        wrong, as before); ``FORBIDDEN`` for a path outside the working directory, as the
        whole-file path; ``UNSUPPORTED_FORMAT`` for an unknown format.
    """
    from .source import (
        MAX_STRUCTURE_BYTES,
        _coordinates_format,
        _resolve_under_cwd,
        _shown,
    )

    data: bytes | Path
    if isinstance(coordinates, (bytes, bytearray, memoryview)):
        fmt = _coordinates_format(None, coordinates_format, "bytes")
        data = bytes(coordinates)
        name = "bytes"
        size = len(data)
    elif isinstance(coordinates, (str, Path)) or hasattr(coordinates, "__fspath__"):
        path = Path(coordinates)
        name = _shown(path)
        fmt = _coordinates_format(path, coordinates_format, name)
        resolved = _resolve_under_cwd(
            path,
            name,
            "coordinates",
            "Copy the file under the notebook's directory, or pass its bytes with coordinates_format=.",
        )
        try:
            if not resolved.is_file():
                return None  # NOT_FOUND from the whole-file path
            size = resolved.stat().st_size
        except OSError:
            return None
        data = resolved
    else:
        return None
    if size == 0 or not mdanalysis_available():
        return None
    try:
        source = FileFrames(data, fmt, name, "coordinates")
    except StructureSourceError:
        if size > MAX_STRUCTURE_BYTES:
            raise
        return None  # sent whole: the page's reader says what is wrong with it, as before
    if source.frames > budget or size > MAX_STRUCTURE_BYTES:
        return source
    source.close()
    return None
