"""Frames on demand, the kernel's side (molspace/viewer/frames.py): which trajectories stay in the
kernel, the frame blocks it answers for every coordinates format (read with MDAnalysis; checked
against MDAnalysis's reading in reference.json), what happens without MDAnalysis, and every bad
request or unreadable frame refused located. The server's endpoint for agent-opened files is
tests/gateway/test_frames_endpoint.py.

The page's frame cache (bound, eviction, one request per block in flight) is jest's
(src/viewer/__tests__/frameCache.spec.ts); the whole path plays in Galata (ui-tests/tests/trajectory.spec.ts).
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

import molspace.viewer.frames as frames_module
import molspace.viewer.source as source_module
from molspace import MolspaceError, StructureSourceError, Viewer
from molspace.viewer.frames import DEFAULT_FRAME_BUDGET, MAX_FRAME_BLOCK, FileFrames

pytest.importorskip("MDAnalysis")

DATA = Path(__file__).resolve().parent / "data" / "trajectories"
REFERENCES = json.loads((DATA / "reference.json").read_text())
REFERENCE = REFERENCES["adk_dims.dcd"]
#: Coordinates file -> its format, for every format Mol* reads.
FORMATS = {
    "adk_dims.dcd": "dcd",
    "adk_oplsaa.xtc": "xtc",
    "adk_ca.trr": "trr",
    "bala.ncdf": "nctraj",
    "chain_dump_1.lammpstrj": "lammpstrj",
}
SCHEMA = Path(__file__).resolve().parent.parent / "schema" / "plugin.json"
ATOMS = 3341


@pytest.fixture
def in_data(monkeypatch):
    monkeypatch.chdir(DATA)
    return DATA


def ask(viewer: Viewer, monkeypatch, **request):
    """The kernel's answer to one page request: (content, buffers)."""
    answers: list = []
    monkeypatch.setattr(
        viewer, "send", lambda content, buffers=None: answers.append((content, buffers))
    )
    viewer._handle_page_message(viewer, {"type": "frames", "id": "page:1", **request}, [])
    assert len(answers) == 1
    return answers[0]


def positions(buffer: bytes, count: int, k: int, atom: int, atoms: int = ATOMS) -> list[float]:
    """Atom ``atom`` of frame ``k`` of a block (x, y, z float32 blocks per frame)."""
    at = k * 3 * atoms
    return [
        round(struct.unpack_from("<f", buffer, 4 * (at + axis * atoms + atom))[0], 3)
        for axis in range(3)
    ]


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_is_read_by_frame_as_mdanalysis_reads_it(tmp_path, name):
    ref = REFERENCES[name]
    shutil.copy(DATA / name, tmp_path / name)
    source = FileFrames(tmp_path / name, FORMATS[name], name, "coordinates")
    assert (source.frames, source.atoms, source.format) == (
        ref["n_frames"],
        ref["n_atoms"],
        FORMATS[name],
    )
    for one in ref["frames"]:
        block = source.read(one["frame"], 1)
        assert len(block) == 3 * ref["n_atoms"] * 4
        for atom, xyz in one["positions"].items():
            got = positions(block, 1, 0, int(atom), ref["n_atoms"])
            assert got == pytest.approx(xyz, abs=1.5e-3), (name, one["frame"], atom)
    # MDAnalysis caches an XTC/TRR's offsets beside the file it opens: a private link, not here
    assert [p.name for p in tmp_path.iterdir()] == [name]
    folder = Path(source._dir)
    source.close()
    assert not folder.exists()


@pytest.mark.parametrize(
    ("topology", "name"),
    [
        ("adk.psf", "adk_dims.dcd"),
        ("adk_oplsaa.gro", "adk_oplsaa.xtc"),
        ("adk_ca.pdb", "adk_ca.trr"),
        ("bala.prmtop", "bala.ncdf"),
    ],
)
def test_a_cell_viewer_over_the_budget_serves_every_format(in_data, monkeypatch, topology, name):
    ref = REFERENCES[name]
    v = Viewer(topology, coordinates=name, frame_budget=2)
    assert v._coordinates is None
    described = v._frames_on_demand
    assert (described["frames"], described["atoms"], described["format"]) == (
        ref["n_frames"],
        ref["n_atoms"],
        FORMATS[name],
    )
    frame = ref["frames"][1]
    content, buffers = ask(v, monkeypatch, start=frame["frame"], count=1)
    assert content["count"] == 1 and content["atoms"] == ref["n_atoms"]
    atom, xyz = next(iter(frame["positions"].items()))
    assert positions(buffers[0], 1, 0, int(atom), ref["n_atoms"]) == pytest.approx(xyz, abs=1.5e-3)


def test_without_mdanalysis_the_whole_file_goes_or_a_located_install_fix(tmp_path, monkeypatch):
    for name in ("adk.psf", "adk_dims.dcd"):
        shutil.copy(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(frames_module, "mdanalysis_available", lambda: False)
    # over the budget but under the size bound: sent whole, as before frames on demand
    v = Viewer("adk.psf", coordinates="adk_dims.dcd", frame_budget=5)
    assert (
        v._frames_on_demand is None
        and len(v._coordinates) == (tmp_path / "adk_dims.dcd").stat().st_size
    )
    # over the size bound: refused, located, the fix says what to install
    monkeypatch.setattr(source_module, "MAX_STRUCTURE_BYTES", 2_000_000)
    with pytest.raises(StructureSourceError) as e:
        Viewer("adk.psf", coordinates="adk_dims.dcd")
    err = e.value.to_dict()
    assert (err["code"], err["where"]) == ("TOO_LARGE", "coordinates")
    assert "pip install MDAnalysis" in err["fix"]


def test_the_default_budget_is_the_settings_default():
    schema = json.loads(SCHEMA.read_text())
    assert schema["properties"]["trajectoryFrameBudget"]["default"] == DEFAULT_FRAME_BUDGET


def test_under_the_budget_the_whole_file_goes_to_the_page_as_before(in_data):
    v = Viewer("adk.psf", coordinates="adk_dims.dcd")
    assert v._coordinates == (DATA / "adk_dims.dcd").read_bytes()
    assert (v._frames_on_demand, v.frame_budget) == (None, 0)


@pytest.mark.parametrize("as_bytes", [False, True])
def test_over_the_budget_the_kernel_serves_frames_as_mdanalysis_reads_them(
    in_data, monkeypatch, as_bytes
):
    coords = (DATA / "adk_dims.dcd").read_bytes() if as_bytes else "adk_dims.dcd"
    v = Viewer("adk.psf", coordinates=coords, coordinates_format="dcd", frame_budget=5)
    assert v._coordinates is None and v.frame_budget == 5
    assert v._frames_on_demand == {
        "frames": 98,
        "atoms": ATOMS,
        "format": "dcd",
        "timePs": {"start": 1.0, "step": 1.0},
        # the header announces 500 frames: noted, in the page's words (trajectoryData.ts checkDcd)
        "notes": [
            "DCD header frame count 500; the file holds 98 whole frames "
            "(counted from its size, as MDAnalysis does)"
        ],
    }
    for ref in REFERENCE["frames"]:
        start = max(0, ref["frame"] - 2)
        count = ref["frame"] - start + 1
        content, buffers = ask(v, monkeypatch, start=start, count=count)
        assert content == {
            "type": "frames",
            "id": "page:1",
            "start": start,
            "count": count,
            "atoms": ATOMS,
        }
        assert len(buffers) == 1 and len(buffers[0]) == count * 3 * ATOMS * 4
        for atom, xyz in ref["positions"].items():
            assert positions(buffers[0], count, count - 1, int(atom)) == xyz


def test_over_the_size_bound_a_dcd_is_served_not_refused(in_data, monkeypatch):
    monkeypatch.setattr(
        source_module, "MAX_STRUCTURE_BYTES", 2_000_000
    )  # the PSF under it, the DCD over
    v = Viewer("adk.psf", coordinates="adk_dims.dcd")
    assert v._coordinates is None and v._frames_on_demand["frames"] == 98


@pytest.mark.parametrize(
    ("request_", "where", "details"),
    [
        ({"start": 98, "count": 1}, "/frames/start", {"start": 98}),
        ({"start": -1, "count": 1}, "/frames/start", {"start": -1}),
        ({"start": True, "count": 1}, "/frames/start", {"start": True}),
        ({"start": "3", "count": 1}, "/frames/start", {"start": "'3'"}),
        ({"start": 0, "count": 0}, "/frames/count", {"count": 0}),
        (
            {"start": 0, "count": MAX_FRAME_BLOCK + 1},
            "/frames/count",
            {"count": MAX_FRAME_BLOCK + 1},
        ),
        ({"start": 96, "count": 3}, "/frames/count", {"count": 3}),
        ({"start": 0}, "/frames/count", {"count": "None"}),
    ],
)
def test_bad_frame_requests_are_refused_located(in_data, monkeypatch, request_, where, details):
    v = Viewer("adk.psf", coordinates="adk_dims.dcd", frame_budget=5)
    content, buffers = ask(v, monkeypatch, **request_)
    assert buffers == []
    error = content["error"]
    assert (content["type"], content["id"], error["code"], error["where"]) == (
        "frames",
        "page:1",
        "VALIDATION_FAILED",
        where,
    )
    assert error["details"] == {**error["details"], **details, "frames": 98}
    assert "0–97" in error["fix"]


def test_a_frame_the_kernel_cannot_read_is_a_located_error(tmp_path, monkeypatch):
    for name in ("adk.psf", "adk_dims.dcd"):
        shutil.copy(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    v = Viewer("adk.psf", coordinates="adk_dims.dcd", frame_budget=5)
    with (tmp_path / "adk_dims.dcd").open("r+b") as f:
        f.truncate(1000)  # cut short after the Viewer was made
    content, buffers = ask(v, monkeypatch, start=40, count=2)
    assert buffers == []
    assert (content["error"]["code"], content["error"]["where"]) == ("INTERNAL", "/frames/40")
    assert "adk_dims.dcd" in content["error"]["message"]


def test_a_cut_or_unreadable_file_over_the_size_bound(tmp_path, monkeypatch):
    shutil.copy(DATA / "adk.psf", tmp_path / "adk.psf")
    data = (DATA / "adk_dims.dcd").read_bytes()
    (tmp_path / "cut.dcd").write_bytes(data[:-100])
    (tmp_path / "junk.dcd").write_bytes(b"not a dcd" * 250_000)  # 2.25 MB
    monkeypatch.chdir(tmp_path)
    # cut inside a frame: under the size bound it goes whole (the page's reader names the last
    # whole frame, as below); over it, refused below
    assert Viewer("adk.psf", coordinates="cut.dcd", frame_budget=5)._frames_on_demand is None
    # a file MDAnalysis cannot read: under the size bound it goes whole (the page's reader says why)
    assert Viewer("adk.psf", coordinates="junk.dcd", frame_budget=5)._frames_on_demand is None
    monkeypatch.setattr(source_module, "MAX_STRUCTURE_BYTES", 2_000_000)  # the PSF under it
    with pytest.raises(StructureSourceError) as e:
        Viewer("adk.psf", coordinates="junk.dcd")
    err = e.value.to_dict()
    assert (err["code"], err["where"]) == ("VALIDATION_FAILED", "coordinates")
    assert "MDAnalysis could not read the dcd coordinates from junk.dcd" in err["message"]
    with pytest.raises(StructureSourceError) as e:
        Viewer("adk.psf", coordinates="cut.dcd")
    err = e.value.to_dict()
    assert (err["code"], err["where"], err["details"]["lastGoodFrame"]) == (
        "VALIDATION_FAILED",
        "coordinates",
        96,
    )


#: Bytes of one adk_dims.dcd frame (3 axes of 3341 float32 and their record markers).
DCD_FRAME = 3 * (ATOMS * 4 + 8)


def xtc_offsets() -> list[int]:
    """Where each frame of adk_oplsaa.xtc starts (MDAnalysis's offsets of it)."""
    from MDAnalysis.lib.formats.libmdaxdr import XTCFile

    with XTCFile(str(DATA / "adk_oplsaa.xtc")) as f:
        return [int(o) for o in f.offsets]


def test_a_dcd_cut_at_open_names_the_last_whole_frame_or_notes_the_header(tmp_path):
    """As the page's whole-file reader (trajectoryData.ts checkDcd): cut inside a frame, refused
    naming the last whole frame and the count the header announces; cut between frames, served
    with a note of both counts."""
    data = (DATA / "adk_dims.dcd").read_bytes()
    with pytest.raises(StructureSourceError) as e:
        FileFrames(data[: -DCD_FRAME // 2], "dcd", "cut.dcd", "coordinates")
    err = e.value.to_dict()
    assert (err["code"], err["where"]) == ("VALIDATION_FAILED", "coordinates")
    assert err["message"] == (
        "The dcd coordinates end inside frame 97 (0-based); the last whole frame is 96 "
        "of 500 announced."
    )
    assert err["details"] == {
        "format": "dcd",
        "truncated": True,
        "lastGoodFrame": 96,
        "frames": 97,
        "announced": 500,
        "name": "cut.dcd",
    }
    assert "0–96" in err["fix"]
    whole = FileFrames(data[: -3 * DCD_FRAME], "dcd", "cut.dcd", "coordinates")
    assert (whole.frames, whole.describe()["notes"]) == (
        95,
        [
            "DCD header frame count 500; the file holds 95 whole frames "
            "(counted from its size, as MDAnalysis does)"
        ],
    )
    whole.close()


@pytest.mark.parametrize("cut", ["inside its coordinates", "inside its header"])
def test_an_xtc_cut_at_open_names_the_last_whole_frame(tmp_path, monkeypatch, cut):
    """MDAnalysis counts a frame cut after its header (reading it fails) and drops one cut inside
    its header: both are refused when the file is opened, naming frame 8 of 10."""
    data = (DATA / "adk_oplsaa.xtc").read_bytes()
    last = xtc_offsets()[-1]
    cut_data = data[:-100] if cut == "inside its coordinates" else data[: last + 20]
    (tmp_path / "cut.xtc").write_bytes(cut_data)
    with pytest.raises(StructureSourceError) as e:
        FileFrames(tmp_path / "cut.xtc", "xtc", "cut.xtc", "coordinates")
    err = e.value.to_dict()
    assert err["message"] == (
        "The xtc coordinates end inside frame 9 (0-based); the last whole frame is 8."
    )
    assert (err["code"], err["details"]["lastGoodFrame"], err["details"]["truncated"]) == (
        "VALIDATION_FAILED",
        8,
        True,
    )
    # a Viewer: under the size bound the file goes whole (the page's scanXtc refuses it the same
    # way); over it, refused in the cell
    shutil.copy(DATA / "adk_oplsaa.gro", tmp_path / "adk_oplsaa.gro")
    monkeypatch.chdir(tmp_path)
    assert Viewer("adk_oplsaa.gro", coordinates="cut.xtc", frame_budget=2)._frames_on_demand is None
    monkeypatch.setattr(source_module, "MAX_STRUCTURE_BYTES", len(cut_data) - 1)
    with pytest.raises(StructureSourceError) as e:
        frames_module.served_coordinates("cut.xtc", None, 2)  # the GRO itself is over that bound
    assert (e.value.where, e.value.details["lastGoodFrame"]) == ("coordinates", 8)


def test_a_cut_trr_at_open_names_the_last_whole_frame():
    data = (DATA / "adk_ca.trr").read_bytes()
    with pytest.raises(StructureSourceError) as e:
        FileFrames(data[:-100], "trr", "cut.trr", "coordinates")
    assert e.value.details["lastGoodFrame"] == 8 and "frame 9" in e.value.message


def test_under_the_budget_other_formats_go_whole_and_other_messages_pass(in_data, monkeypatch):
    # an XTC under the budget is sent whole; a frame request to a Viewer with no served frames gets no answer
    v = Viewer("adk_oplsaa.gro", coordinates="adk_oplsaa.xtc")
    assert v._coordinates == (DATA / "adk_oplsaa.xtc").read_bytes() and v._frames_on_demand is None
    answers: list = []
    monkeypatch.setattr(v, "send", lambda content, buffers=None: answers.append(content))
    v._handle_page_message(v, {"type": "frames", "id": "page:1", "start": 0, "count": 1}, [])
    assert answers == []  # no frames to serve: nothing answered


@pytest.mark.parametrize("budget", [1, 0, -3, 2.5, True, "5"])
def test_a_bad_budget_is_refused_located(in_data, budget):
    with pytest.raises(StructureSourceError) as e:
        Viewer("adk.psf", coordinates="adk_dims.dcd", frame_budget=budget)
    assert (e.value.to_dict()["code"], e.value.to_dict()["where"]) == (
        "INVALID_INPUT",
        "frame_budget",
    )


def test_an_on_demand_viewer_is_not_exported_whole(in_data, tmp_path):
    v = Viewer("adk.psf", coordinates="adk_dims.dcd", frame_budget=5)
    with pytest.raises(MolspaceError) as e:
        v.to_html(tmp_path / "x.html")
    assert (e.value.code, e.value.where) == ("TOO_LARGE", "Viewer.to_html")


class TestAnalysisLibraries:
    def test_a_universe_over_the_budget_serves_its_frames_and_keeps_its_frame(
        self, in_data, monkeypatch
    ):
        mda = pytest.importorskip("MDAnalysis")
        u = mda.Universe("adk.psf", "adk_dims.dcd")
        u.trajectory[5]
        v = Viewer(u.select_atoms("protein"), frames=slice(1, None, 2), frame_budget=5)
        assert v._coordinates is None and v.format == "pdb"
        assert (v._frames_on_demand["frames"], v._frames_on_demand["atoms"]) == (49, ATOMS)
        assert v.coordinates_name == "frames 1:98:2"
        content, buffers = ask(v, monkeypatch, start=47, count=2)
        assert content["count"] == 2 and u.trajectory.ts.frame == 5
        # read from a copy of the reader: the cell's Universe never moves
        assert v._served._reader is not None and v._served._reader is not u.trajectory
        last = REFERENCE["frames"][-1]  # frame 97 is taken frame 48
        assert last["frame"] == 97
        for atom, xyz in last["positions"].items():
            assert positions(buffers[0], 2, 1, int(atom)) == xyz
        _, bad = ask(v, monkeypatch, start=49, count=1)
        assert bad == []

    def test_a_universe_over_the_size_bound_is_served_not_refused(self, in_data, monkeypatch):
        mda = pytest.importorskip("MDAnalysis")
        from molspace.viewer import trajectory_source

        monkeypatch.setattr(trajectory_source, "MAX_STRUCTURE_BYTES", ATOMS * 12 * 20)
        v = Viewer(mda.Universe("adk.psf", "adk_dims.dcd"))
        assert v._coordinates is None and v._frames_on_demand["frames"] == 98
