"""Kernel-side trajectories: a topology with ``coordinates=``, the frame API and its messages, bad inputs.

The page side (Mol*'s reading checked against MDAnalysis, atom counts, cut frames, playback)
runs in jest (src/viewer/__tests__/trajectoryData.spec.ts) and Galata (ui-tests/tests/trajectory.spec.ts).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ipywidgets.widgets.widget import _remove_buffers
from jsonschema import Draft202012Validator

from molspace import StructureSourceError, Viewer, ViewerChange, ViewerControlError
from molspace.contract import manifest

DATA = Path(__file__).resolve().parent / "data" / "trajectories"


@pytest.fixture
def in_data(monkeypatch):
    monkeypatch.chdir(DATA)
    return DATA


def sent(viewer: Viewer, monkeypatch) -> list[dict]:
    messages: list[dict] = []
    monkeypatch.setattr(viewer, "send", lambda content, buffers=None: messages.append(content))
    return messages


@pytest.mark.parametrize(
    ("topology", "coordinates", "fmt", "cfmt"),
    [
        ("adk.psf", "adk_dims.dcd", "psf", "dcd"),
        ("adk_oplsaa.gro", "adk_oplsaa.xtc", "gro", "xtc"),
        ("bala.prmtop", "bala.ncdf", "prmtop", "nctraj"),
    ],
)
def test_a_topology_and_its_coordinates_travel_as_two_binary_buffers(
    in_data, topology, coordinates, fmt, cfmt
):
    v = Viewer(topology, coordinates=coordinates)
    assert (v.format, v.coordinates_format, v.coordinates_name) == (fmt, cfmt, coordinates)
    json_state, paths, buffers = _remove_buffers(v.get_state())
    assert ["_coordinates"] in paths and ["_data"] in paths
    assert bytes(buffers[paths.index(["_coordinates"])]) == (in_data / coordinates).read_bytes()
    assert "_coordinates" not in json_state


def test_bytes_with_a_format_and_a_lammps_dump_alone(in_data):
    v = Viewer(
        "adk.psf", coordinates=(in_data / "adk_dims.dcd").read_bytes(), coordinates_format="DCD"
    )
    assert (v.coordinates_format, v.coordinates_name) == ("dcd", "bytes")
    dump = Viewer("chain_dump_1.lammpstrj")
    assert dump.format == "lammpstrj" and dump.coordinates_format == ""


def test_bad_coordinates_fail_in_the_cell_located(in_data, tmp_path, monkeypatch):
    cases = [
        (lambda: Viewer("adk.psf"), "VALIDATION_FAILED", "coordinates", "coordinates="),
        (lambda: Viewer("bala.prmtop"), "VALIDATION_FAILED", "coordinates", "coordinates="),
        (
            lambda: Viewer("adk.psf", coordinates="adk.psf"),
            "UNSUPPORTED_FORMAT",
            "coordinates_format",
            ".xtc",
        ),
        (
            lambda: Viewer("adk.psf", coordinates=b"\x00" * 8),
            "UNSUPPORTED_FORMAT",
            "coordinates_format",
            "coordinates_format=",
        ),
        (
            lambda: Viewer("adk.psf", coordinates="run.dcd", coordinates_format="gro"),
            "UNSUPPORTED_FORMAT",
            "coordinates_format",
            "nctraj",
        ),
        (
            lambda: Viewer("adk.psf", coordinates="missing.dcd"),
            "NOT_FOUND",
            "coordinates",
            "relative",
        ),
        (
            lambda: Viewer("adk.psf", coordinates="../../../../etc/x.dcd"),
            "FORBIDDEN",
            "coordinates",
            "Copy",
        ),
        (
            lambda: Viewer("adk.psf", coordinates=b"", coordinates_format="dcd"),
            "VALIDATION_FAILED",
            "coordinates",
            "frames",
        ),
        (lambda: Viewer("adk.psf", coordinates=42), "INVALID_INPUT", "coordinates", "path"),
        (
            lambda: Viewer(
                {"kind": "single", "root": {"kind": "root"}, "metadata": {}},
                coordinates="adk_dims.dcd",
            ),
            "INVALID_INPUT",
            "coordinates",
            "drop coordinates",
        ),
    ]
    for make, code, where, fix in cases:
        with pytest.raises(StructureSourceError) as e:
            make()
        err = e.value.to_dict()
        assert (err["code"], err["where"]) == (code, where), err
        assert fix.lower() in err["fix"].lower(), err


def test_frame_operations_send_what_the_contract_accepts(in_data, monkeypatch):
    v = Viewer("adk.psf", coordinates="adk_dims.dcd")
    msgs = sent(v, monkeypatch)
    v.goto_frame(12)
    v.frame = 3
    v.play(fps=24, loop=False)
    v.pause()
    assert [m["actions"][0] for m in msgs] == [
        {"op": "goto_frame", "frame": 12},
        {"op": "goto_frame", "frame": 3},
        {"op": "play", "fps": 24, "loop": False},
        {"op": "pause"},
    ]
    validator = Draft202012Validator(manifest()["wire"]["kernel"]["kernelToPage"])
    for m in msgs:
        assert not list(validator.iter_errors(m)), m
    for bad in (
        {"op": "goto_frame", "frame": -1},
        {"op": "play", "fps": 0},
        {"op": "play", "fps": 61},
    ):
        assert list(validator.iter_errors({**msgs[0], "actions": [bad]})), bad
    for frame in (-1, 1.5, True, "3"):
        with pytest.raises(ViewerControlError) as e:
            v.goto_frame(frame)  # type: ignore[arg-type]
        assert e.value.to_dict()["where"] == "frame"
    assert len(msgs) == 4


def test_frame_and_on_change_follow_the_page(in_data):
    v = Viewer("adk.psf", coordinates="adk_dims.dcd")
    seen: list[ViewerChange] = []
    v.on_change(seen.append)
    assert (v.frames, v.frame, v.playing) == (0, 0, False)
    v.set_state(
        {
            "composition": {"trajectory": {"frames": 98, "coordinates": "dcd", "timePs": None}},
            "view": {"frame": 7, "play": {"fps": 10, "loop": True}},
            "last_change": {"revision": 1, "source": "play", "summary": "frame 7"},
            "revision": 1,
        }
    )
    assert (v.frames, v.frame, v.playing) == (98, 7, True)
    assert seen == [
        ViewerChange(frame=7, playing=True, revision=1, source="play", summary="frame 7")
    ]
    v.on_change(seen.append, remove=True)
    v.set_state({"revision": 2})
    assert len(seen) == 1


def test_the_trajectory_files_are_under_the_size_bound(in_data, tmp_path, monkeypatch):
    # a coordinates file over viewerSourceBytes: served by frame when MDAnalysis reads it
    # (tests/test_viewer_frames.py), refused located when it cannot; without MDAnalysis refused
    # by its size, before it is read
    from molspace.viewer import frames

    limit = manifest()["limits"]["viewerSourceBytes"]
    big = tmp_path / "big.xtc"
    with open(big, "wb") as f:
        f.truncate(limit + 1)
    shutil.copy(in_data / "adk.psf", tmp_path / "adk.psf")
    monkeypatch.chdir(tmp_path)
    if frames.mdanalysis_available():
        with pytest.raises(StructureSourceError) as e:
            Viewer("adk.psf", coordinates="big.xtc")
        assert (e.value.to_dict()["code"], e.value.to_dict()["where"]) == (
            "VALIDATION_FAILED",
            "coordinates",
        )
    monkeypatch.setattr(frames, "mdanalysis_available", lambda: False)
    with pytest.raises(StructureSourceError) as e:
        Viewer("adk.psf", coordinates="big.xtc")
    assert e.value.to_dict()["code"] == "TOO_LARGE"
    assert "pip install MDAnalysis" in e.value.to_dict()["fix"]


class TestAnalysisLibraries:
    """MDAnalysis and MDTraj objects become a PDB topology and a DCD of the frames taken."""

    @pytest.fixture
    def universe(self, in_data):
        import MDAnalysis as mda

        return mda.Universe("adk.psf", "adk_dims.dcd")

    def test_a_universe_with_a_stride_reads_back_as_its_frames(self, universe, tmp_path):
        import MDAnalysis as mda

        universe.trajectory[5]
        v = Viewer(universe, frames=slice(0, None, 10))
        assert (v.format, v.coordinates_format) == ("pdb", "dcd")
        assert (v.source_name, v.coordinates_name) == (
            "MDAnalysis Universe (3341 atoms)",
            "frames 0:98:10",
        )
        assert universe.trajectory.ts.frame == 5  # the cell's Universe stays where it was
        (tmp_path / "t.pdb").write_bytes(v._data)
        (tmp_path / "t.dcd").write_bytes(v._coordinates)
        back = mda.Universe(str(tmp_path / "t.pdb"), str(tmp_path / "t.dcd"))
        assert back.trajectory.n_frames == 10 and back.atoms.n_atoms == 3341
        for k, frame in enumerate(range(0, 98, 10)):
            universe.trajectory[frame]
            back.trajectory[k]
            assert abs(back.atoms.positions - universe.atoms.positions).max() < 1e-3

    def test_an_atom_group_writes_only_its_atoms(self, universe):
        v = Viewer(universe.select_atoms("name CA"), frames=range(10, 20))
        assert (
            v.source_name == "MDAnalysis AtomGroup (214 atoms)"
            and v.coordinates_name == "frames 10:20:1"
        )
        assert v._data.count(b"\nATOM") + v._data.startswith(b"ATOM") == 214

    def test_an_mdtraj_trajectory(self, in_data, tmp_path):
        import mdtraj

        traj = mdtraj.load("adk_dims.dcd", top="adk.psf")
        v = Viewer(traj, frames=slice(0, 50, 5))
        assert (
            v.source_name == "MDTraj Trajectory (3341 atoms)"
            and v.coordinates_name == "frames 0:50:5"
        )
        (tmp_path / "t.pdb").write_bytes(v._data)
        (tmp_path / "t.dcd").write_bytes(v._coordinates)
        back = mdtraj.load_dcd(str(tmp_path / "t.dcd"), top=str(tmp_path / "t.pdb"))
        assert back.n_frames == 10
        assert abs(back.xyz[3] - traj.xyz[15]).max() < 1e-4  # nm

    def test_bad_frames_and_arguments_are_located(self, universe):
        cases = [
            (lambda: Viewer(universe, frames=5), "INVALID_INPUT", "frames"),
            (lambda: Viewer(universe, frames=slice(200, 300)), "VALIDATION_FAILED", "frames"),
            (lambda: Viewer(universe, coordinates="adk_dims.dcd"), "INVALID_INPUT", "coordinates"),
            (lambda: Viewer(universe, format="pdb"), "INVALID_INPUT", "format"),
            (
                lambda: Viewer("adk.psf", coordinates="adk_dims.dcd", frames=slice(0, 5)),
                "INVALID_INPUT",
                "frames",
            ),
            (lambda: Viewer(universe.select_atoms("name XX")), "VALIDATION_FAILED", "source"),
        ]
        for make, code, where in cases:
            with pytest.raises(StructureSourceError) as e:
                make()
            assert (e.value.to_dict()["code"], e.value.to_dict()["where"]) == (code, where)
