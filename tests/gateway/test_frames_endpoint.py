"""``GET {base_url}molspace/frames``: frames of a trajectory under the Jupyter root, on a real Jupyter
server (molspace/gateway/frames_handler.py): the description and blocks as MDAnalysis reads the file
(tests/data/trajectories/reference.json), Jupyter's auth, ``open``'s path policy, and bad ranges
refused located."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import httpx2
import pytest

from molspace.gateway import frames_handler
from molspace.viewer.frames import MAX_FRAME_BLOCK

pytest.importorskip("MDAnalysis")

DATA = Path(__file__).resolve().parent.parent / "data" / "trajectories"
REFERENCE = json.loads((DATA / "reference.json").read_text())


#: Bytes of one adk_dims.dcd frame (3 axes of 3341 float32 and their record markers).
DCD_FRAME = 3 * (3341 * 4 + 8)


@pytest.fixture
def files(jp_root_dir: Path) -> Path:
    folder = jp_root_dir / "md"
    folder.mkdir()
    for name in ("adk_dims.dcd", "adk_oplsaa.xtc", "bala.ncdf", "adk_ca.trr"):
        shutil.copy(DATA / name, folder / name)
    return folder


async def get(server_root: str, token: str | None, **params: Any) -> httpx2.Response:
    headers = {"Authorization": f"token {token}"} if token is not None else {}
    async with httpx2.AsyncClient(timeout=60) as http:
        return await http.get(server_root + "molspace/frames", headers=headers, params=params)


@pytest.mark.parametrize("name", ["adk_dims.dcd", "adk_oplsaa.xtc", "bala.ncdf", "adk_ca.trr"])
async def test_describes_and_serves_frames_as_mdanalysis_reads_them(
    server_root: str, token: str, files: Path, name: str
) -> None:
    ref = REFERENCE[name]
    r = await get(server_root, token, path=f"md/{name}")
    assert r.status_code == 200, r.text
    described = r.json()
    assert (described["frames"], described["atoms"], described["bytes"]) == (
        ref["n_frames"],
        ref["n_atoms"],
        (DATA / name).stat().st_size,
    )
    assert r.headers["Cache-Control"] == "no-store"
    atoms = ref["n_atoms"]
    last = ref["frames"][-1]
    r = await get(server_root, token, path=f"md/{name}", start=last["frame"] - 1, count=2)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/octet-stream"
    assert len(r.content) == 2 * 3 * atoms * 4
    for atom, xyz in last["positions"].items():
        at = 3 * atoms + int(atom)  # the second frame of the block
        got = [
            round(struct.unpack_from("<f", r.content, 4 * (at + axis * atoms))[0], 3)
            for axis in range(3)
        ]
        assert got == pytest.approx(xyz, abs=1.5e-3)
    # nothing written beside the file (MDAnalysis's XTC offsets go to a private folder)
    assert sorted(p.name for p in files.iterdir()) == [
        "adk_ca.trr",
        "adk_dims.dcd",
        "adk_oplsaa.xtc",
        "bala.ncdf",
    ]


async def test_needs_jupyter_credentials(server_root: str, files: Path) -> None:
    r = await get(server_root, None, path="md/adk_dims.dcd", start=0, count=1)
    assert r.status_code == 403 and not r.content.startswith(b"\x00")


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("../md/adk_dims.dcd", 403, "FORBIDDEN"),
        ("md/../../x.dcd", 403, "FORBIDDEN"),
        ("/etc/x.dcd", 403, "FORBIDDEN"),
        ("", 403, "FORBIDDEN"),
        ("md/.hidden.dcd", 404, "NOT_FOUND"),  # as the contents API answers open
        ("md/missing.dcd", 404, "NOT_FOUND"),
        ("md/adk_dims.pdb", 501, "UNSUPPORTED_FORMAT"),
        ("md/notes", 501, "UNSUPPORTED_FORMAT"),
    ],
)
async def test_open_path_policy(
    server_root: str, token: str, files: Path, path: str, status: int, code: str
) -> None:
    (files / ".hidden.dcd").write_bytes((DATA / "adk_dims.dcd").read_bytes())
    r = await get(server_root, token, path=path)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert (error["code"], error["where"]) == (code, "/coordinates") and error["fix"]


@pytest.mark.parametrize(
    ("start", "count", "where"),
    [
        (98, 1, "/frames/start"),
        (-1, 1, "/frames/start"),
        ("x", 1, "/frames/start"),
        (0, 0, "/frames/count"),
        (0, MAX_FRAME_BLOCK + 1, "/frames/count"),
        (96, 3, "/frames/count"),
        (0, "2.5", "/frames/count"),
    ],
)
async def test_bad_ranges_are_refused_located(
    server_root: str, token: str, files: Path, start: Any, count: Any, where: str
) -> None:
    r = await get(server_root, token, path="md/adk_dims.dcd", start=start, count=count)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert (error["code"], error["where"]) == ("VALIDATION_FAILED", where)
    assert error["details"]["frames"] == 98 and error["details"]["path"] == "md/adk_dims.dcd"
    assert "0–97" in error["fix"]


async def test_a_file_mdanalysis_cannot_read_and_a_server_without_it(
    server_root: str, token: str, files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (files / "junk.xtc").write_bytes(b"not an xtc" * 100)
    r = await get(server_root, token, path="md/junk.xtc")
    error = r.json()["error"]
    assert (r.status_code, error["code"], error["where"]) == (
        400,
        "VALIDATION_FAILED",
        "/coordinates",
    )
    assert "MDAnalysis could not read" in error["message"]
    monkeypatch.setattr(frames_handler, "mdanalysis_available", lambda: False)
    r = await get(server_root, token, path="md/adk_dims.dcd")
    error = r.json()["error"]
    assert (r.status_code, error["code"]) == (501, "UNSUPPORTED_FORMAT")
    assert "pip install MDAnalysis" in error["fix"]


async def test_a_changed_file_is_read_again(
    server_root: str, token: str, files: Path, gateway: Any
) -> None:
    r = await get(server_root, token, path="md/adk_dims.dcd")
    assert r.json()["frames"] == 98
    data = (DATA / "adk_dims.dcd").read_bytes()
    (files / "adk_dims.dcd").write_bytes(data[: len(data) - 10 * DCD_FRAME])  # 10 whole frames
    r = await get(server_root, token, path="md/adk_dims.dcd")
    assert r.json()["frames"] == 88
    assert len(gateway.trajectories._held) == 1


async def test_a_cut_file_is_refused_when_described_naming_the_last_whole_frame(
    server_root: str, token: str, files: Path
) -> None:
    """As the page's whole-file reader (trajectoryData.ts): a DCD or XTC cut inside a frame is
    refused at the description, naming the last whole frame (and the DCD header's count); a DCD
    cut between frames is described with a note of both counts, which the page shows."""
    dcd = (DATA / "adk_dims.dcd").read_bytes()
    xtc = (DATA / "adk_oplsaa.xtc").read_bytes()
    (files / "cut.dcd").write_bytes(dcd[: -DCD_FRAME // 2])
    (files / "cut.xtc").write_bytes(xtc[:-100])
    (files / "short.dcd").write_bytes(dcd[: -3 * DCD_FRAME])
    for name, last, message in [
        (
            "cut.dcd",
            96,
            "The dcd coordinates end inside frame 97 (0-based); the last whole frame is 96 "
            "of 500 announced.",
        ),
        (
            "cut.xtc",
            8,
            "The xtc coordinates end inside frame 9 (0-based); the last whole frame is 8.",
        ),
    ]:
        r = await get(server_root, token, path=f"md/{name}")
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert (error["code"], error["where"], error["message"]) == (
            "VALIDATION_FAILED",
            "/coordinates",
            message,
        )
        assert error["details"]["lastGoodFrame"] == last and error["details"]["truncated"]
        assert error["details"]["path"] == f"md/{name}"
        assert f"0–{last}" in error["fix"]
    r = await get(server_root, token, path="md/short.dcd")
    assert r.status_code == 200, r.text
    assert (r.json()["frames"], r.json()["notes"]) == (
        95,
        [
            "DCD header frame count 500; the file holds 95 whole frames "
            "(counted from its size, as MDAnalysis does)"
        ],
    )
