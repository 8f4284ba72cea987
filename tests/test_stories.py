"""``molspace.stories``: templates, filling and writing from a cell (no page)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import molspace
from molspace import stories


def examples(template_id: str) -> dict:
    return {v["name"]: v["example"] for v in next(t for t in stories.templates() if t["id"] == template_id)["variables"]}


def test_catalogue() -> None:
    assert {t["id"] for t in stories.templates()} >= {
        "structure-overview", "binding-site-tour", "docking-pose-comparison", "aligned-structure-comparison"
    }


def test_create_from_a_template_writes_multistate_mvs_that_molspace_story_reads(tmp_path: Path) -> None:
    out = stories.create(tmp_path / "s" / "1hpv.mvsj", template="binding-site-tour", variables=examples("binding-site-tour"))
    assert out.keys == ["overview", "binding-site", "key-residue"] and out.replaced is False
    data = json.loads(out.path.read_text())
    assert data["kind"] == "multiple" and data["snapshots"][0]["metadata"]["linger_duration_ms"] == 4000
    story = molspace.Story(out.path)  # reads and checks the file's MVS shape (StorySourceError otherwise)
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
        stories.create("x.json", template="structure-overview", variables=examples("structure-overview"))
    assert info.value.code == "UNSUPPORTED_FORMAT"
    with pytest.raises(molspace.MolspaceError) as info:
        stories.create("x.mvsj")
    assert info.value.code == "INVALID_INPUT"
