"""Kernel-side Viewer API: sources (good and bad), the binary buffer, read-only page state, act messages.

The page side of the same path (Mol* parsing, composition, act) runs in jest
(src/viewer/__tests__) and in the Galata tests (ui-tests/tests/viewer.spec.ts).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
import traitlets

from molspace import StructureSourceError, Viewer, ViewerControlError
from molspace.viewer.source import FORMATS, MAX_STRUCTURE_BYTES, normalize_structure_source

DATA = Path(__file__).resolve().parent / "data" / "structures"


@pytest.fixture
def in_data(monkeypatch):
    """Run with the test structures as the notebook's working directory."""
    monkeypatch.chdir(DATA)
    return DATA


def sent(viewer: Viewer, monkeypatch) -> list[dict]:
    messages: list[dict] = []
    monkeypatch.setattr(viewer, "send", lambda content, buffers=None: messages.append(content))
    return messages


def error_of(excinfo) -> dict:
    return excinfo.value.to_dict()


class TestSources:
    @pytest.mark.parametrize(
        ("name", "fmt"),
        [
            ("1cbs.cif", "mmcif"),
            ("1hpv.pdb", "pdb"),
            ("1pgp_lig.pdbqt", "pdbqt"),
            ("cdk2.sdf", "sdf"),
            ("small03.mol2", "mol2"),
            ("small01.mol", "mol"),
            ("spc216.gro", "gro"),
            ("1cbs.bcif", "bcif"),
            ("small01.xyz", "xyz"),
            ("small01.extxyz", "xyz"),
        ],
    )
    def test_format_from_the_extension(self, in_data, name, fmt):
        src = normalize_structure_source(name)
        assert src.format == fmt and src.data == (in_data / name).read_bytes() and src.name == name

    def test_ent_and_sd_extensions_and_upper_case(self, in_data, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        (tmp_path / "x.ENT").write_bytes((in_data / "1hpv.pdb").read_bytes())
        (tmp_path / "y.sd").write_bytes((in_data / "cdk2.sdf").read_bytes())
        assert normalize_structure_source("x.ENT").format == "pdb"
        assert normalize_structure_source(Path("y.sd")).format == "sdf"

    def test_text_and_bytes_with_a_format(self, in_data):
        text = (in_data / "1hpv.pdb").read_text()
        assert normalize_structure_source(text, format="pdb").name == "text"
        assert normalize_structure_source(text.encode(), format="PDB").format == "pdb"
        assert (
            normalize_structure_source(bytearray(b"\x00\x01binary"), format="bcif").format == "bcif"
        )

    def test_unknown_extension(self, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        (tmp_path / "notes.txt").write_text("hello")
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source("notes.txt")
        err = error_of(e)
        assert err["code"] == "UNSUPPORTED_FORMAT" and err["where"] == "notes.txt"
        assert ".pdb" in err["fix"] and err["details"]["extension"] == "txt"

    def test_no_extension_without_format(self, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        (tmp_path / "structure").write_text("ATOM\n")
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source("structure")
        assert error_of(e)["code"] == "UNSUPPORTED_FORMAT" and "format=" in error_of(e)["fix"]

    def test_bytes_or_text_without_a_format_and_an_unknown_format(self):
        for source in (b"ATOM", "ATOM      1  N\n"):
            with pytest.raises(StructureSourceError) as e:
                normalize_structure_source(source)
            assert error_of(e)["code"] == "UNSUPPORTED_FORMAT" and error_of(e)["where"] == "format"
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(b"ATOM", format="pqr")
        assert error_of(e)["code"] == "UNSUPPORTED_FORMAT" and error_of(e)["details"][
            "formats"
        ] == list(FORMATS)

    def test_empty(self, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        (tmp_path / "empty.pdb").write_bytes(b"")
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source("empty.pdb")
        assert error_of(e)["code"] == "VALIDATION_FAILED" and error_of(e)["where"] == "empty.pdb"
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(b"  \n", format="sdf")
        assert error_of(e)["code"] == "VALIDATION_FAILED"

    def test_binary_garbage_as_a_text_format(self, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        (tmp_path / "garbage.pdb").write_bytes(bytes(range(256)) * 4)
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source("garbage.pdb")
        assert error_of(e)["code"] == "UNSUPPORTED_FORMAT" and "binary" in error_of(e)["message"]
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(b"\xff\xfe ATOM", format="pdb")
        assert error_of(e)["code"] == "UNSUPPORTED_FORMAT" and "UTF-8" in error_of(e)["message"]

    def test_missing_file_and_outside_the_working_directory(self, in_data):
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source("nope.pdb")
        assert error_of(e)["code"] == "NOT_FOUND" and error_of(e)["where"] == "nope.pdb"
        for outside in (
            "../test_viewer.py.pdb",
            "/etc/hostname.pdb",
            os.path.join("..", "..", "x.cif"),
        ):
            with pytest.raises(StructureSourceError) as e:
                normalize_structure_source(outside)
            assert error_of(e)["code"] == "FORBIDDEN", outside

    def test_too_large(self, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        big = tmp_path / "big.pdb"
        with big.open("wb") as f:
            f.truncate(MAX_STRUCTURE_BYTES + 1)
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source("big.pdb")
        assert (
            error_of(e)["code"] == "TOO_LARGE"
            and error_of(e)["details"]["limit"] == MAX_STRUCTURE_BYTES
        )

    def test_other_types(self):
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(42)
        assert error_of(e)["code"] == "INVALID_INPUT"


class TestWidget:
    def test_bytes_travel_as_a_binary_buffer(self, in_data):
        v = Viewer("1cbs.cif")
        state = v.get_state()
        # ipywidgets puts Bytes traits into buffers, not into the JSON state
        from ipywidgets.widgets.widget import _remove_buffers

        json_state, paths, buffers = _remove_buffers(state)
        assert ["_data"] in paths
        assert bytes(buffers[paths.index(["_data"])]) == (in_data / "1cbs.cif").read_bytes()
        assert "_data" not in json_state and v.format == "mmcif" and v.title == "1cbs.cif"

    def test_page_state_is_read_only(self, in_data):
        v = Viewer("1hpv.pdb")
        for name, value in (
            ("revision", 3),
            ("ready", True),
            ("composition", {}),
            ("error", {"code": "INTERNAL"}),
            ("undo_steps", 2),
        ):
            with pytest.raises(traitlets.TraitError, match="read-only"):
                setattr(v, name, value)
        v.set_state(
            {"revision": 2, "composition": {"modelCount": 1}, "summary": "1hpv.pdb (pdb): 1 model"}
        )
        assert v.revision == 2 and v.composition == {"modelCount": 1}
        assert "1hpv.pdb (pdb)" in repr(v)

    def test_operations_send_act_control_messages(self, in_data, monkeypatch):
        v = Viewer("1cbs.cif")
        msgs = sent(v, monkeypatch)
        v.focus({"auth_asym_id": "A", "auth_seq_id": 200})
        v.set_representation("ligand", "spacefill")
        v.act([{"op": "clear_selection"}], expected_revision=4, dry_run=True, action_id="a-1")
        v.screenshot(320, 200)
        v.undo()
        v.redo()
        assert [m["type"] for m in msgs] == ["control"] * 6
        assert [m["actions"] for m in msgs[4:]] == [[{"op": "undo"}], [{"op": "redo"}]]
        assert msgs[0]["actions"] == [
            {"op": "focus", "selector": {"auth_asym_id": "A", "auth_seq_id": 200}}
        ]
        assert msgs[1]["actions"][0] == {
            "op": "set_representation",
            "selector": "ligand",
            "representation": "spacefill",
        }
        assert msgs[2] | {"requestId": None} == {
            "type": "control",
            "requestId": None,
            "actions": [{"op": "clear_selection"}],
            "dryRun": True,
            "expectedRevision": 4,
            "actionId": "a-1",
        }
        assert msgs[3]["actions"] == [
            {"op": "screenshot", "format": "png", "width": 320, "height": 200}
        ]
        assert v.last_request_id == msgs[-1]["requestId"]
        # every message is one the page's contract accepts (the manifest's kernel wire schema)
        from jsonschema import Draft202012Validator

        from molspace.contract import manifest

        validator = Draft202012Validator(manifest()["wire"]["kernel"]["kernelToPage"])
        for m in msgs:
            assert not list(validator.iter_errors(m)), m
        assert list(validator.iter_errors({**msgs[0], "actions": [{"op": "zoom"}]}))

    def test_bad_batches_fail_in_the_cell(self, in_data, monkeypatch):
        v = Viewer("1cbs.cif")
        msgs = sent(v, monkeypatch)
        with pytest.raises(ViewerControlError) as e:
            v.act([])
        assert error_of(e)["where"] == "actions"
        with pytest.raises(ViewerControlError) as e:
            v.act([{"op": "focus", "selector": "ligand"}, {"op": "zoom"}])
        assert error_of(e)["where"] == "actions/1/op" and "focus" in error_of(e)["fix"]
        with pytest.raises(ViewerControlError) as e:
            v.act([{"op": "set_color", "selector": "ligand"}])
        assert error_of(e)["where"] == "actions/0/color"
        assert msgs == []

    def test_a_screenshot_result_lands_as_png_bytes(self, in_data):
        v = Viewer("1cbs.cif")
        png = b"\x89PNG\r\n\x1a\nrest"
        v._handle_page_message(
            v,
            {
                "type": "result",
                "ok": True,
                "images": [{"mimeType": "image/png", "data": base64.b64encode(png).decode()}],
            },
            [],
        )
        assert v.last_screenshot == png and v.last_result["ok"] is True


class TestNewOperations:
    """set_transparency, measure_distance, label, apply_mvs: the kernel's methods send the contract's operations."""

    def test_methods_send_act_operations_the_contract_accepts(self, in_data, monkeypatch):
        from jsonschema import Draft202012Validator
        from molviewspec import create_builder

        from molspace.contract import manifest

        v = Viewer("1cbs.cif")
        msgs = sent(v, monkeypatch)
        a = {"auth_asym_id": "A", "auth_seq_id": 200, "auth_atom_id": "C1"}
        b = {"auth_asym_id": "A", "auth_seq_id": 200, "auth_atom_id": "O1"}
        v.set_transparency("polymer", 0.6)
        v.measure_distance(a, b)
        v.label({"auth_asym_id": "A", "auth_seq_id": 200}, "retinoic acid")
        builder = create_builder()
        builder.download(url="https://files.rcsb.org/download/1cbs.cif").parse(
            format="mmcif"
        ).model_structure().component(selector="polymer").representation(type="cartoon")
        v.apply_mvs(builder)
        v.apply_mvs('{"kind": "single", "root": {"kind": "root"}, "metadata": {"version": "1"}}')
        v.apply_mvs(None)
        actions = [m["actions"][0] for m in msgs]
        assert actions[:3] == [
            {"op": "set_transparency", "selector": "polymer", "value": 0.6},
            {"op": "measure_distance", "start": a, "end": b},
            {
                "op": "label",
                "selector": {"auth_asym_id": "A", "auth_seq_id": 200},
                "text": "retinoic acid",
            },
        ]
        state = actions[3]["state"]
        assert state["root"]["children"][0] == {
            "kind": "download",
            "params": {"url": "https://files.rcsb.org/download/1cbs.cif"},
            "children": state["root"]["children"][0]["children"],
        }
        assert actions[4]["state"]["root"] == {"kind": "root"} and actions[5] == {
            "op": "apply_mvs",
            "state": None,
        }
        validator = Draft202012Validator(manifest()["wire"]["kernel"]["kernelToPage"])
        for m in msgs:
            assert not list(validator.iter_errors(m)), m
        # what the contract refuses: transparency out of 0..1, a label over the limit, a distance with one side
        limit = manifest()["limits"]["viewerLabelChars"]
        for bad in (
            {"op": "set_transparency", "selector": "all", "value": 1.5},
            {"op": "label", "selector": "all", "text": "x" * (limit + 1)},
            {"op": "label", "selector": "all", "text": ""},
            {"op": "measure_distance", "start": a},
        ):
            assert list(validator.iter_errors({**msgs[0], "actions": [bad]})), bad

    def test_bad_new_operations_fail_in_the_cell(self, in_data, monkeypatch):
        v = Viewer("1cbs.cif")
        msgs = sent(v, monkeypatch)
        with pytest.raises(ViewerControlError) as e:
            v.act([{"op": "measure_distance", "start": "ligand"}])
        assert error_of(e)["where"] == "actions/0/end" and error_of(e)["details"]["missing"] == [
            "end"
        ]
        with pytest.raises(ViewerControlError) as e:
            v.act([{"op": "set_transparency", "selector": "all"}])
        assert error_of(e)["where"] == "actions/0/value"
        with pytest.raises(ViewerControlError) as e:
            v.apply_mvs("not json")
        assert error_of(e)["code"] == "INVALID_INPUT" and error_of(e)["where"] == "state"
        with pytest.raises(ViewerControlError) as e:
            v.apply_mvs(42)
        assert error_of(e)["details"] == {"type": "int"}
        assert msgs == []


def test_the_display_bundle_marks_the_viewer_for_the_pre_save_hook(in_data):
    """docs/architecture.md, "Static fallback in saved notebooks"."""
    from molspace.contract import STATIC_FALLBACK_MIME

    bundle = Viewer("1cbs.cif")._repr_mimebundle_()
    assert (
        bundle[STATIC_FALLBACK_MIME]["kind"] == "viewer"
        and bundle[STATIC_FALLBACK_MIME]["origin"] == "kernel"
    )
    assert bundle["text/plain"] == "molspace Viewer: 1cbs.cif (mmcif)"
