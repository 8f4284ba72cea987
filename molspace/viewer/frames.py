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
Å): Mol*'s ``Frame`` layout. Kernel readers: a DCD file or bytes (read by offset, the layout of
``src/viewer/trajectoryData.ts``'s ``checkDcd``), an MDAnalysis Universe/AtomGroup and an MDTraj
Trajectory (read with their libraries). Other coordinates formats are sent whole as before
(docs/architecture.md, "Viewer").
"""

from __future__ import annotations

import struct
import threading
from pathlib import Path
from typing import Any

from ..errors import StructureSourceError

#: Frames the page holds of an on-demand trajectory unless the cell or the setting says otherwise
#: (``schema/plugin.json`` ``trajectoryFrameBudget``'s default; a test checks they agree).
DEFAULT_FRAME_BUDGET = 1000

#: Most frames one request may ask for (the page's read-ahead block is at most this).
MAX_FRAME_BLOCK = 64

#: One AKMA time unit, ps (as ``trajectoryData.ts`` and MDAnalysis).
_AKMA_PS = 0.04888821


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


class DcdFrames(FrameSource):
    """A little-endian CHARMM/X-PLOR DCD, from a path (read per request) or bytes.

    Frames are counted from the size, as MDAnalysis and the page do; a header count that differs
    is a note, as the page's.

    Raises
    ------
    StructureSourceError
        ``VALIDATION_FAILED`` at ``where`` for data that is not such a DCD or is cut inside a frame.
    """

    def __init__(self, data: bytes | Path, size: int, head: bytes, name: str, where: str):
        self._data = data
        self.name = name
        self.format = "dcd"

        def bad(why: str, details: dict[str, Any] | None = None) -> StructureSourceError:
            return StructureSourceError(
                "VALIDATION_FAILED",
                f"the coordinates from {name} are not a DCD the kernel can serve by frame: {why}",
                where,
                "Pass a little-endian CHARMM or X-PLOR DCD (as MDAnalysis, CHARMM or NAMD write), "
                "or fewer frames (e.g. every 10th) so the whole file goes to the page.",
                details or {},
            )

        if len(head) < 104 or struct.unpack_from("<i", head, 0)[0] != 84 or head[4:8] != b"CORD":
            raise bad("no little-endian DCD header")
        ints = struct.unpack_from("<23i", head, 0)
        charmm = ints[22] != 0
        extra = charmm and ints[12] != 0
        if charmm and ints[13] == 1:
            raise bad("four-dimensional coordinates")
        nset, istart, nsavc = ints[2], ints[3], ints[4]
        delta = struct.unpack_from("<f" if charmm else "<d", head, 44)[0]
        title_bytes = struct.unpack_from("<i", head, 92)[0]
        natom_at = 92 + title_bytes + 8
        if title_bytes < 0 or natom_at + 12 > len(head):
            raise bad("a title block longer than the header read")
        natom = struct.unpack_from("<i", head, natom_at + 4)[0]
        if natom <= 0:
            raise bad(f"{natom} atoms", {"atoms": natom})
        self._first = natom_at + 12
        self._extra = 56 if extra else 0
        self._frame_bytes = self._extra + 3 * (natom * 4 + 8)
        whole, rest = divmod(size - self._first, self._frame_bytes)
        if rest != 0 or whole <= 0:
            raise StructureSourceError(
                "VALIDATION_FAILED",
                f"the dcd coordinates from {name} end inside frame {whole} (0-based)",
                where,
                "Pass the whole file: it looks truncated.",
                {"format": "dcd", "truncated": True, "lastGoodFrame": whole - 1, "frames": whole},
            )
        self.frames = whole
        self.atoms = natom
        self.time_ps = (
            {
                "start": _round(istart * delta * _AKMA_PS),
                "step": _round(delta * max(nsavc, 1) * _AKMA_PS),
            }
            if delta > 0
            else None
        )
        if whole != nset:
            self.notes = (
                f"DCD header frame count {nset}; the file holds {whole} whole frames "
                "(counted from its size, as MDAnalysis does)",
            )

    @classmethod
    def of(cls, data: bytes | Path, name: str, where: str) -> DcdFrames:
        if isinstance(data, Path):
            with data.open("rb") as f:
                head = f.read(64 * 1024)
            return cls(data, data.stat().st_size, head, name, where)
        return cls(data, len(data), bytes(data[: 64 * 1024]), name, where)

    def read(self, start: int, count: int) -> bytes:
        n = self.atoms * 4
        offset = self._first + start * self._frame_bytes
        if isinstance(self._data, Path):
            with self._data.open("rb") as f:
                f.seek(offset)
                raw = f.read(count * self._frame_bytes)
        else:
            raw = bytes(self._data[offset : offset + count * self._frame_bytes])
        out = bytearray()
        for k in range(count):
            at = k * self._frame_bytes + self._extra + 4
            for _axis in range(3):
                out += raw[at : at + n]
                at += n + 8
        return bytes(out)


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


def frame_reply(source: FrameSource, content: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
    """The kernel's answer to the page's ``frames`` request: the block, or a located refusal."""
    request_id = content.get("id")
    start, count = content.get("start"), content.get("count")
    answer: dict[str, Any] = {
        "type": "frames",
        "id": request_id if isinstance(request_id, str) else None,
    }

    def refuse(
        where: str, message: str, details: dict[str, Any]
    ) -> tuple[dict[str, Any], list[bytes]]:
        answer["error"] = {
            "code": "VALIDATION_FAILED",
            "message": message[:300],
            "where": where,
            "fix": f"Ask for frames 0–{source.frames - 1}, at most {MAX_FRAME_BLOCK} at a time.",
            "details": {**details, "frames": source.frames},
        }
        return answer, []

    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start < source.frames:
        return refuse(
            "/frames/start",
            f"frame {start!r} is out of range: the trajectory has {source.frames} frames",
            {"start": start if isinstance(start, int) else repr(start)},
        )
    if (
        isinstance(count, bool)
        or not isinstance(count, int)
        or not 1 <= count <= MAX_FRAME_BLOCK
        or start + count > source.frames
    ):
        return refuse(
            "/frames/count",
            f"a block of {count!r} frames from {start} is not 1–{MAX_FRAME_BLOCK} frames "
            f"within the {source.frames}",
            {"start": start, "count": count if isinstance(count, int) else repr(count)},
        )
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
) -> DcdFrames | None:
    """A DCD (path or bytes) the kernel serves by frame, when it has more frames than ``budget`` or
    is over ``viewerSourceBytes``; else ``None`` (sent whole, as before: every other format too).

    Raises
    ------
    StructureSourceError
        ``VALIDATION_FAILED`` at ``coordinates`` for such a DCD the kernel cannot serve (see
        :class:`DcdFrames`); a path outside the working directory as the whole-file path does.
    """
    from .source import (
        MAX_STRUCTURE_BYTES,
        _coordinates_format,
        _resolve_under_cwd,
        _shown,
    )

    if isinstance(coordinates, (bytes, bytearray, memoryview)):
        if _coordinates_format(None, coordinates_format, "bytes") != "dcd" or not coordinates:
            return None
        data: bytes | Path = bytes(coordinates)
        name = "bytes"
        size = len(coordinates)
    elif isinstance(coordinates, (str, Path)) or hasattr(coordinates, "__fspath__"):
        path = Path(coordinates)
        name = _shown(path)
        if _coordinates_format(path, coordinates_format, name) != "dcd":
            return None
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
    if size < 104:
        return None  # the page says what is wrong with it, as before
    try:
        source = DcdFrames.of(data, name, "coordinates")
    except StructureSourceError:
        if size > MAX_STRUCTURE_BYTES:
            raise
        return None  # sent whole: the page's reader says what is wrong with it, as before
    if source.frames > budget or size > MAX_STRUCTURE_BYTES:
        return source
    return None
