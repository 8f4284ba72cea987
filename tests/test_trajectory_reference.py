"""MDAnalysis's reading of the trajectories in tests/data/trajectories, pinned in reference.json.

reference.json is what the page's (TypeScript, Mol*) trajectory reader is checked against: atom
and frame counts, dt and the first and last frame's time (ps), and the positions (Å, 3 decimals)
of atom index 0 and atom index n_atoms // 2 in frame 0, frame 1 and the last frame. The test
recomputes every value with MDAnalysis and asserts the committed JSON equals it, so the JSON
cannot drift from MDAnalysis.

    python tests/test_trajectory_reference.py --write   # rewrite reference.json

dt and the times are null where MDAnalysis has none (it warns "Reader has no dt information" and
makes up 1.0 ps); then the first and last step numbers are recorded where the file has them
(LAMMPS dump). The DCD also carries its header's frame count (NSET, int32 at byte offset 8),
which differs from the frames in the file.
"""

from __future__ import annotations

import json
import shutil
import struct
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import MDAnalysis as mda
import pytest

DATA = Path(__file__).resolve().parent / "data" / "trajectories"
REFERENCE = DATA / "reference.json"

# (topology, coordinates, MDAnalysis format); keyed in the JSON by the coordinates file's name.
# adk_oplsaa.gro has a single frame, so it is only the topology of adk_oplsaa.xtc.
PAIRS: list[tuple[str, str, str | None]] = [
    ("adk.psf", "adk_dims.dcd", None),
    ("adk_oplsaa.gro", "adk_oplsaa.xtc", None),
    ("bala.prmtop", "bala.ncdf", None),
    ("chain_dump_1.lammpstrj", "chain_dump_1.lammpstrj", "LAMMPSDUMP"),
    # written by MDAnalysis from adk.psf + adk_dims.dcd (make_derived): a TRR, and a multi-model PDB
    ("adk_ca.pdb", "adk_ca.trr", None),
    ("adk_ca_25.pdb", "adk_ca_25.pdb", None),
]

NO_DT = "Reader has no dt information"


def _xyz(u: mda.Universe, index: int) -> list[float]:
    return [round(float(v), 3) for v in u.atoms.positions[index]]


def _time(value: float) -> float:
    return round(float(value), 6)


def read(topology: str, coordinates: str, fmt: str | None) -> dict[str, Any]:
    """One entry of reference.json, as MDAnalysis reads the files now.

    The files are read from copies in a temporary folder: MDAnalysis writes an offsets cache
    (``.adk_oplsaa.xtc_offsets.npz`` and a ``.lock``) next to an XTC, which must not land in
    tests/data nor be read back from a stale run.
    """
    with tempfile.TemporaryDirectory() as tmp:
        for name in {topology, coordinates}:
            shutil.copy(DATA / name, tmp)
        return _read(Path(tmp), topology, coordinates, fmt)


def _read(folder: Path, topology: str, coordinates: str, fmt: str | None) -> dict[str, Any]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if topology == coordinates:
            u = mda.Universe(str(folder / topology), format=fmt)
        else:
            u = mda.Universe(str(folder / topology), str(folder / coordinates), format=fmt)
        traj = u.trajectory
        n_atoms = u.atoms.n_atoms
        n_frames = traj.n_frames
        seen.clear()
        dt = traj.dt
        has_dt = not any(NO_DT in str(w.message) for w in seen)
        atoms = [0, n_atoms // 2]
        entry: dict[str, Any] = {
            "topology": topology,
            "coordinates": coordinates,
            "format": fmt,
            "n_atoms": n_atoms,
            "n_frames": n_frames,
        }
        if coordinates.endswith(".dcd"):
            with open(DATA / coordinates, "rb") as f:
                entry["header_frames"] = struct.unpack("<i", f.read(12)[8:12])[0]
        entry["dt"] = _time(dt) if has_dt else None
        frames = []
        times = []
        steps = []
        for frame in (0, 1, n_frames - 1):
            ts = traj[frame]
            times.append(ts.time)
            steps.append(ts.data.get("step"))
            frames.append(
                {"frame": frame, "positions": {str(i): _xyz(u, i) for i in atoms}},
            )
        entry["time_first"] = _time(times[0]) if has_dt else None
        entry["time_last"] = _time(times[-1]) if has_dt else None
        if not has_dt and steps[0] is not None:
            entry["step_first"] = int(steps[0])
            entry["step_last"] = int(steps[-1])
        entry["atom_indices"] = atoms
        entry["frames"] = frames
        traj.close()
    return entry


def reference() -> dict[str, Any]:
    return {crd: read(top, crd, fmt) for top, crd, fmt in PAIRS}


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2) + "\n"


@pytest.mark.parametrize("coordinates", [crd for _, crd, _ in PAIRS])
def test_reference_matches_mdanalysis(coordinates: str) -> None:
    committed = json.loads(REFERENCE.read_text())
    top, crd, fmt = next(p for p in PAIRS if p[1] == coordinates)
    assert committed[coordinates] == read(top, crd, fmt), (
        f"reference.json[{coordinates!r}] differs from MDAnalysis {mda.__version__}; "
        "if MDAnalysis is right, rewrite it: python tests/test_trajectory_reference.py --write"
    )


def test_reference_has_exactly_the_pairs() -> None:
    committed = json.loads(REFERENCE.read_text())
    assert sorted(committed) == sorted(crd for _, crd, _ in PAIRS)


def make_derived() -> None:
    """Write the files made from adk.psf + adk_dims.dcd, for formats the shared data lacks.

    ``adk_ca.pdb`` (the 214 CA atoms, frame 0) with ``adk_ca.trr`` (every 10th frame: 10) for TRR,
    and ``adk_ca_25.pdb``: every 4th frame as 25 models, more than the Viewer superposes (20), so
    read as a trajectory.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        u = mda.Universe(str(DATA / "adk.psf"), str(DATA / "adk_dims.dcd"))
        ca = u.select_atoms("name CA")
        u.trajectory[0]
        ca.write(str(DATA / "adk_ca.pdb"))
        with mda.Writer(str(DATA / "adk_ca.trr"), n_atoms=ca.n_atoms) as w:
            for _ in u.trajectory[0:98:10]:
                w.write(ca)
        with mda.Writer(str(DATA / "adk_ca_25.pdb"), n_atoms=ca.n_atoms, multiframe=True) as w:
            for _ in u.trajectory[0:100:4]:
                w.write(ca)
    for cache in DATA.glob(".*_offsets.*"):
        cache.unlink()


if __name__ == "__main__":
    if sys.argv[1:] not in (["--write"], ["--make-derived", "--write"]):
        sys.exit("usage: python tests/test_trajectory_reference.py [--make-derived] --write")
    if sys.argv[1] == "--make-derived":
        make_derived()
    REFERENCE.write_text(_dump(reference()))
    print(f"wrote {REFERENCE} (MDAnalysis {mda.__version__})")
