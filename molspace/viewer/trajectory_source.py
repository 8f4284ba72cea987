"""Trajectories from analysis libraries: an MDAnalysis ``Universe`` or ``AtomGroup``, an MDTraj ``Trajectory``.

The object is written with the library's own writers, as the files the page reads for any
trajectory (``src/viewer/trajectoryData.ts``): a PDB of the first frame taken (the topology)
and a DCD of the frames taken (``frames``: a slice or range of frame indices, e.g.
``slice(0, None, 10)`` for every 10th). More frames than the Viewer's frame budget, or over
``viewerSourceBytes``: only the PDB is written and the frames are read from the object when the
page asks (:mod:`molspace.viewer.frames`). Both libraries are optional (``pip install MDAnalysis``
or ``mdtraj``); neither is imported unless such an object is passed, and the type is told from
its module name (docs/architecture.md, "Viewer").
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Any

from ..errors import StructureSourceError
from .frames import DEFAULT_FRAME_BUDGET, FrameSource, MDAnalysisFrames, MDTrajFrames
from .source import MAX_STRUCTURE_BYTES, CoordinatesSource, StructureSource

#: Bytes a DCD frame takes per atom (x, y, z as float32), for the size check before writing.
_DCD_BYTES_PER_ATOM = 12


def trajectory_object_kind(value: Any) -> str | None:
    """``"mdanalysis"`` for a Universe or AtomGroup, ``"mdtraj"`` for a Trajectory, else ``None`` (no import)."""
    cls = type(value)
    module = cls.__module__ or ""
    if module.startswith("MDAnalysis") and cls.__name__ in (
        "Universe",
        "AtomGroup",
        "UpdatingAtomGroup",
    ):
        return "mdanalysis"
    if module.startswith("mdtraj") and cls.__name__ == "Trajectory":
        return "mdtraj"
    return None


def _frame_indices(frames: Any, total: int) -> range:
    """The frame indices ``frames`` takes of ``total``.

    Raises
    ------
    StructureSourceError
        ``INVALID_INPUT`` at ``frames`` for another type; ``VALIDATION_FAILED`` when it takes none.
    """
    if frames is None:
        taken = range(total)
    elif isinstance(frames, slice):
        taken = range(total)[frames]
    elif isinstance(frames, range):
        taken = range(total)[slice(frames.start, frames.stop, frames.step)]
    else:
        raise StructureSourceError(
            "INVALID_INPUT",
            f"frames= takes a slice or range of frame indices, not a {type(frames).__name__}",
            "frames",
            "Pass e.g. frames=slice(0, None, 10) (every 10th frame) or frames=range(100, 200).",
            {"type": type(frames).__name__},
        )
    if len(taken) == 0:
        raise StructureSourceError(
            "VALIDATION_FAILED",
            f"frames={frames!r} takes no frame of the {total}"[:300],
            "frames",
            f"Pass a slice or range within 0–{max(total - 1, 0)}.",
            {"frames": total},
        )
    return taken


def _on_demand(atoms: int, frames: int, budget: int) -> bool:
    """Whether the frames stay in the kernel (served on demand, :mod:`molspace.viewer.frames`)."""
    return frames > budget or atoms * frames * _DCD_BYTES_PER_ATOM > MAX_STRUCTURE_BYTES


def trajectory_sources(
    value: Any, frames: Any = None, budget: int = DEFAULT_FRAME_BUDGET
) -> tuple[StructureSource, CoordinatesSource | FrameSource]:
    """A topology (PDB of the first frame taken) and coordinates (DCD) of an analysis library's object.

    More frames than ``budget``, or coordinates over ``viewerSourceBytes``: no DCD is written; the
    frames stay in the object and are served on demand (a :class:`~molspace.viewer.frames.FrameSource`).

    Parameters
    ----------
    value : MDAnalysis Universe or AtomGroup, or mdtraj Trajectory
        An AtomGroup writes only its atoms (e.g. ``u.select_atoms("protein")``).
    frames : slice or range, optional
        Frame indices to take; default every frame.

    Returns
    -------
    tuple of StructureSource, CoordinatesSource or FrameSource
        Named after the object (``"MDAnalysis AtomGroup (3341 atoms)"``, ``"frames 0:98:1"``).

    Raises
    ------
    StructureSourceError
        ``INVALID_INPUT`` / ``VALIDATION_FAILED`` at ``frames`` (see above), ``VALIDATION_FAILED`` at ``source`` for
        an object with no atoms or one the library cannot write.
    """
    kind = trajectory_object_kind(value)
    with tempfile.TemporaryDirectory(prefix="molspace-trajectory-") as tmp:
        topology, coordinates = Path(tmp) / "topology.pdb", Path(tmp) / "coordinates.dcd"
        try:
            with warnings.catch_warnings():
                # the PDB writer warns for each attribute a topology lacks (chainIDs, occupancies, ...)
                warnings.simplefilter("ignore")
                if kind == "mdanalysis":
                    name, taken, served = _write_mdanalysis(
                        value, frames, topology, coordinates, budget
                    )
                elif kind == "mdtraj":
                    name, taken, served = _write_mdtraj(
                        value, frames, topology, coordinates, budget
                    )
                else:
                    raise StructureSourceError(
                        "INVALID_INPUT",
                        f"a {type(value).__name__} is not an MDAnalysis Universe/AtomGroup or an MDTraj Trajectory",
                        "source",
                        "Pass u (a Universe), u.select_atoms(...) or an mdtraj.Trajectory.",
                        {"type": type(value).__name__},
                    )
        except StructureSourceError:
            raise
        except Exception as e:  # noqa: BLE001 - the writers of two libraries raise many kinds; each is located here
            raise StructureSourceError(
                "VALIDATION_FAILED",
                f"{type(value).__name__} could not be written as PDB + DCD: {type(e).__name__}: {e}"[
                    :500
                ],
                "source",
                "Check the object has atoms and positions in every frame taken; or write the files yourself "
                "and pass their paths (Viewer('top.pdb', coordinates='traj.dcd')).",
                {"type": type(value).__name__},
            ) from None
        step = taken.step
        if served is not None:
            return StructureSource(topology.read_bytes(), "pdb", name), served
        return (
            StructureSource(topology.read_bytes(), "pdb", name),
            CoordinatesSource(
                coordinates.read_bytes(), "dcd", f"frames {taken.start}:{taken.stop}:{step}"
            ),
        )


def _write_mdanalysis(
    value: Any, frames: Any, topology: Path, coordinates: Path, budget: int
) -> tuple[str, range, FrameSource | None]:
    import MDAnalysis as mda

    group = value.atoms if type(value).__name__ == "Universe" else value
    universe = group.universe
    if group.n_atoms == 0:
        raise StructureSourceError(
            "VALIDATION_FAILED",
            "the AtomGroup has no atoms",
            "source",
            "Select some atoms (u.select_atoms(...)).",
            {},
        )
    taken = _frame_indices(frames, universe.trajectory.n_frames)
    name = f"MDAnalysis {type(value).__name__} ({group.n_atoms} atoms)"
    served = (
        MDAnalysisFrames(group, taken, f"frames {taken.start}:{taken.stop}:{taken.step}")
        if _on_demand(group.n_atoms, len(taken), budget)
        else None
    )
    here = universe.trajectory.ts.frame
    try:
        universe.trajectory[taken[0]]
        group.write(str(topology))
        if served is None:
            with mda.Writer(str(coordinates), n_atoms=group.n_atoms) as writer:
                for _ in universe.trajectory[slice(taken.start, taken.stop, taken.step)]:
                    writer.write(group)
    finally:
        universe.trajectory[here]  # the cell's Universe stays at its frame
    return name, taken, served


def _write_mdtraj(
    value: Any, frames: Any, topology: Path, coordinates: Path, budget: int
) -> tuple[str, range, FrameSource | None]:
    if value.n_atoms == 0:
        raise StructureSourceError(
            "VALIDATION_FAILED",
            "the Trajectory has no atoms",
            "source",
            "Pass a Trajectory with atoms.",
            {},
        )
    taken = _frame_indices(frames, value.n_frames)
    name = f"MDTraj Trajectory ({value.n_atoms} atoms)"
    if _on_demand(value.n_atoms, len(taken), budget):
        value[taken[0]].save_pdb(str(topology))
        return (
            name,
            taken,
            MDTrajFrames(value, taken, f"frames {taken.start}:{taken.stop}:{taken.step}"),
        )
    part = value[slice(taken.start, taken.stop, taken.step)]
    part[0].save_pdb(str(topology))
    part.save_dcd(str(coordinates))
    return name, taken, None
