"""``molspace.stories``: templates, filling and writing from a cell (no page)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import molspace
from molspace import MolspaceError, stories


def examples(template_id: str) -> dict:
    return {
        v["name"]: v["example"]
        for v in next(t for t in stories.templates() if t["id"] == template_id)["variables"]
    }


def test_catalogue() -> None:
    assert {t["id"] for t in stories.templates()} >= {
        "structure-overview",
        "binding-site-tour",
        "docking-pose-comparison",
        "aligned-structure-comparison",
    }


def test_create_from_a_template_writes_multistate_mvs_that_molspace_story_reads(
    tmp_path: Path,
) -> None:
    out = stories.create(
        tmp_path / "s" / "1hpv.mvsj",
        template="binding-site-tour",
        variables=examples("binding-site-tour"),
    )
    assert out.keys == ["overview", "binding-site", "key-residue"] and out.replaced is False
    data = json.loads(out.path.read_text())
    assert (
        data["kind"] == "multiple"
        and data["snapshots"][0]["metadata"]["linger_duration_ms"] == 4000
    )
    story = molspace.Story(
        out.path
    )  # reads and checks the file's MVS shape (StorySourceError otherwise)
    assert "not shown yet" in repr(story)


def test_every_template_validates_with_molviewspec() -> None:
    for t in stories.templates():
        check = stories.validate(stories.fill(t["id"], examples(t["id"])))
        assert check.valid, (t["id"], check.issues)


def test_overwrite_is_refused_unless_asked(tmp_path: Path) -> None:
    doc = stories.fill("structure-overview", examples("structure-overview"))
    stories.create(tmp_path / "a.mvsj", doc)
    with pytest.raises(molspace.MolspaceError) as info:
        stories.create(tmp_path / "a.mvsj", doc)
    assert (info.value.code, info.value.where) == ("FORBIDDEN", "overwrite")
    assert stories.create(tmp_path / "a.mvsj", doc, overwrite=True).replaced is True


def test_validation_issues_are_located_and_nothing_is_written(tmp_path: Path) -> None:
    doc = stories.fill("structure-overview", examples("structure-overview"))
    doc["steps"][1]["root"]["children"][0]["kind"] = "teleport"
    check = stories.validate(doc)
    assert not check.valid
    assert check.issues[0]["snapshotIndex"] == 1 and check.issues[0]["key"] == "ligands"
    assert check.issues[0]["path"].startswith("root/children/0/kind")
    with pytest.raises(molspace.MolspaceError) as info:
        stories.create(tmp_path / "b.mvsj", doc)
    assert info.value.code == "VALIDATION_FAILED" and not (tmp_path / "b.mvsj").exists()


def test_bad_variables_and_arguments() -> None:
    with pytest.raises(molspace.MolspaceError) as info:
        stories.fill("binding-site-tour", {**examples("binding-site-tour"), "extra": "x"})
    assert (info.value.code, info.value.where) == ("INVALID_INPUT", "/variables/extra")
    with pytest.raises(molspace.MolspaceError) as info:
        stories.create(
            "x.json", template="structure-overview", variables=examples("structure-overview")
        )
    assert info.value.code == "UNSUPPORTED_FORMAT"
    with pytest.raises(molspace.MolspaceError) as info:
        stories.create("x.mvsj")
    assert info.value.code == "INVALID_INPUT"


def test_an_error_stays_small_whatever_the_arguments_quote() -> None:
    """Three unknown variables named with 20,000 characters each were quoted whole, in the message,
    ``where`` and every problem of ``details``: a 21 kB error (found by tests/fuzz in CI). Every
    located error is bounded as on the page: 2,000 characters of message and fix, 1,000 of where
    and of each string in details, 100 items of a list."""
    names = {c * 20_000: "x" for c in "abc"}
    with pytest.raises(molspace.MolspaceError) as info:
        stories.fill("structure-overview", {**examples("structure-overview"), **names})
    error = info.value.to_dict()
    assert error["code"] == "INVALID_INPUT"
    assert error["where"].startswith("/variables/aaaa") and len(error["where"]) == 1_000
    assert error["message"].startswith("3 problem(s) with the variables of 'structure-overview'")
    assert len(json.dumps(error)) < 16_384
    many = molspace.MolspaceError("INVALID_INPUT", "m", "", "f", {"ids": list(range(10_000))})
    assert many.details["ids"] == list(range(100))


# ---------------------------------------------------------------- .mvsx with assets
PDB = Path(__file__).resolve().parent / "data" / "structures" / "1hpv.pdb"


def _pdb_board(url: str) -> dict:
    tree = {
        "kind": "root",
        "children": [
            {
                "kind": "download",
                "params": {"url": url},
                "children": [
                    {
                        "kind": "parse",
                        "params": {"format": "pdb"},
                        "children": [{"kind": "structure", "params": {"type": "model"}}],
                    }
                ],
            }
        ],
    }
    return {
        "title": "1HPV packed",
        "steps": [{"key": "a", "title": "A", "description": "", "root": tree}],
    }


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "1hpv.pdb").write_bytes(PDB.read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_create_mvsx_packs_assets_and_rewrites_references(workdir: Path) -> None:
    import zipfile

    from molspace.story.source import normalize_story_source

    out = stories.create("s/1hpv.mvsx", _pdb_board("./data/1hpv.pdb"), assets=["data/1hpv.pdb"])
    assert out.path == Path("s/1hpv.mvsx") and out.keys == ["a"]
    with zipfile.ZipFile(workdir / "s" / "1hpv.mvsx") as z:
        assert sorted(z.namelist()) == ["assets/1hpv.pdb", "index.mvsj"]
        assert z.read("assets/1hpv.pdb") == PDB.read_bytes()
        index = json.loads(z.read("index.mvsj"))
    assert index["snapshots"][0]["root"]["children"][0]["params"]["url"] == "assets/1hpv.pdb"
    assert normalize_story_source("s/1hpv.mvsx").format == "mvsx"
    named = stories.create(
        "s/named.mvsx",
        _pdb_board("assets/p.pdb"),
        assets=[{"path": "data/1hpv.pdb", "name": "p.pdb"}],
    )
    assert named.keys == ["a"]


@pytest.mark.parametrize(
    "assets, code, where",
    [
        (["../outside.pdb"], "FORBIDDEN", "assets/0"),
        (["/etc/passwd"], "FORBIDDEN", "assets/0"),
        (["data/1hpv.pdb", "data/none.pdb"], "NOT_FOUND", "assets/1"),
        (["data/1hpv.pdb", "other/1hpv.pdb"], "INVALID_INPUT", "assets/1"),
        ([{"path": "data/1hpv.pdb", "name": "a/b.pdb"}], "INVALID_INPUT", "assets/0"),
        (["data/big.pdb"], "TOO_LARGE", "assets/0"),
        ([3], "INVALID_INPUT", "assets/0"),
    ],
)
def test_create_mvsx_refuses_bad_assets_located(
    workdir: Path, assets: list, code: str, where: str
) -> None:
    (workdir / "other").mkdir()
    (workdir / "other" / "1hpv.pdb").write_bytes(PDB.read_bytes())
    with open(workdir / "data" / "big.pdb", "wb") as f:
        f.truncate(50 * 1024 * 1024 + 1)  # sparse: only the size counts
    with pytest.raises(MolspaceError) as info:
        stories.create("bad.mvsx", _pdb_board("data/1hpv.pdb"), assets=assets)
    assert (info.value.code, info.value.where) == (code, where)
    assert info.value.fix
    assert not (workdir / "bad.mvsx").exists()


def test_create_mvsx_refuses_unmatched_references_overwrite_and_mvsj_assets(workdir: Path) -> None:
    with pytest.raises(MolspaceError) as info:
        stories.create("a.mvsx", _pdb_board("data/other.pdb"), assets=["data/1hpv.pdb"])
    assert info.value.code == "VALIDATION_FAILED"
    assert info.value.details["issues"][0]["path"] == "root/children/0/params/url"
    with pytest.raises(MolspaceError) as info:
        stories.create("a.mvsj", _pdb_board("data/1hpv.pdb"), assets=["data/1hpv.pdb"])
    assert (info.value.code, info.value.where) == ("UNSUPPORTED_FORMAT", "assets")
    stories.create("a.mvsx", _pdb_board("data/1hpv.pdb"), assets=["data/1hpv.pdb"])
    with pytest.raises(MolspaceError) as info:
        stories.create("a.mvsx", _pdb_board("data/1hpv.pdb"), assets=["data/1hpv.pdb"])
    assert (info.value.code, info.value.where) == ("FORBIDDEN", "overwrite")
    assert stories.create(
        "a.mvsx", _pdb_board("data/1hpv.pdb"), assets=["data/1hpv.pdb"], overwrite=True
    ).replaced
