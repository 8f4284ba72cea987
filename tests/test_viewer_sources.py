"""Viewer sources that are not files: an RDKit Mol (SDF, one model per 3D conformer) and an MVS state.

Each bad input is a located StructureSourceError raised in the cell. The page
side (Mol* reading the SDF, fetching the state's structure) runs in
ui-tests/tests/viewerSources.spec.ts.
"""

from __future__ import annotations

import json
import sys

import pytest
from rdkit import Chem  # RDKit is in the test extras
from rdkit.Chem import AllChem, rdDistGeom

from molspace import StructureSourceError, Viewer, ViewerControlError
from molspace.viewer.source import EMBED_SEED, MAX_MVS_BYTES, normalize_structure_source

URL = "https://files.rcsb.org/molspace-test/1cbs.cif"


def records(data: bytes) -> list[str]:
    return [r for r in data.decode().split("$$$$\n") if r.strip()]


def error_of(excinfo) -> dict:
    return excinfo.value.to_dict()


class TestRdkitMol:
    def test_a_3d_conformer_is_one_sdf_record_with_its_coordinates_and_properties(self):
        mol = Chem.AddHs(Chem.MolFromSmiles("CCO"))
        AllChem.EmbedMolecule(mol, randomSeed=1)
        mol.SetProp("_Name", "ethanol")
        mol.SetProp("source", "test")
        src = normalize_structure_source(mol)
        assert src.format == "sdf" and src.name == "rdkit.Mol" and src.mvs is None
        [record] = records(src.data)
        back = Chem.MolFromMolBlock(record, removeHs=False)
        assert back.GetNumAtoms() == 9 and back.GetConformer().Is3D()
        assert back.GetConformer().GetAtomPosition(0).z == pytest.approx(
            mol.GetConformer().GetAtomPosition(0).z, abs=1e-3
        )
        assert record.startswith("ethanol\n") and "<source>" in record

    def test_several_conformers_are_one_model_each(self):
        mol = Chem.AddHs(Chem.MolFromSmiles("CCCCO"))
        ids = list(AllChem.EmbedMultipleConfs(mol, numConfs=3, randomSeed=7))
        assert len(ids) == 3
        src = normalize_structure_source(mol)
        recs = records(src.data)
        assert len(recs) == 3
        xs = [
            Chem.MolFromMolBlock(r, removeHs=False).GetConformer().GetPositions()[4].tolist()
            for r in recs
        ]
        assert xs[0] != xs[1] != xs[2]

    @pytest.mark.parametrize("how", ["no conformer", "2D"])
    def test_without_3d_coordinates_etkdg_embeds_it_with_hydrogens(self, how):
        mol = Chem.MolFromSmiles("c1ccccc1O")
        if how == "2D":
            AllChem.Compute2DCoords(mol)
        src = normalize_structure_source(mol)
        assert src.name == "rdkit.Mol (embedded with ETKDG)"
        [record] = records(src.data)
        back = Chem.MolFromMolBlock(record, removeHs=False)
        assert back.GetNumAtoms() == 13  # 7 heavy + 6 H
        assert back.GetConformer().Is3D() and any(
            abs(p[2]) > 0.01 for p in back.GetConformer().GetPositions().tolist()
        )
        # the seed is fixed: the same Mol gives the same coordinates
        assert (
            normalize_structure_source(Chem.MolFromSmiles("c1ccccc1O")).data
            == normalize_structure_source(Chem.MolFromSmiles("c1ccccc1O")).data
        )
        assert EMBED_SEED == 0xC0FFEE

    def test_the_viewer_sends_the_sdf_as_its_binary_buffer(self):
        mol = Chem.AddHs(Chem.MolFromSmiles("CC"))
        AllChem.EmbedMolecule(mol, randomSeed=1)
        v = Viewer(mol, title="ethane")
        assert (
            v.format == "sdf"
            and v.source_name == "rdkit.Mol"
            and v.title == "ethane"
            and v._mvs is None
        )
        assert v._data == normalize_structure_source(mol).data

    def test_an_empty_mol(self):
        with pytest.raises(StructureSourceError) as e:
            Viewer(Chem.Mol())
        assert error_of(e) | {"message": None, "fix": None} == {
            "code": "VALIDATION_FAILED",
            "where": "source",
            "message": None,
            "fix": None,
            "details": {"atoms": 0},
        }

    def test_etkdg_cannot_embed_it(self, monkeypatch):
        # where normalize_structure_source looks it up (AllChem re-exports it)
        monkeypatch.setattr(rdDistGeom, "EmbedMolecule", lambda mol, params: -1)
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(Chem.MolFromSmiles("CCO"))
        err = error_of(e)
        assert err["code"] == "VALIDATION_FAILED" and err["where"] == "source"
        assert (
            "ETKDG" in err["message"] and "CCO" in err["message"] and "EmbedMolecule" in err["fix"]
        )

    def test_rdkit_cannot_be_imported(self, monkeypatch):
        mol = Chem.MolFromSmiles("CCO")
        monkeypatch.setitem(sys.modules, "rdkit", None)
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(mol)
        err = error_of(e)
        assert (
            err["code"] == "UNSUPPORTED_FORMAT"
            and err["where"] == "source"
            and "molspace[rdkit]" in err["fix"]
        )


def one_state(url: str = URL) -> dict:
    from molviewspec import create_builder

    b = create_builder()
    b.download(url=url).parse(format="mmcif").model_structure().component(
        selector="ligand"
    ).representation(type="ball_and_stick")
    return json.loads(b.get_state().model_dump_json(exclude_none=True))


class TestMvsState:
    def test_a_builder_a_state_a_dict_and_mvsj_text_are_one_mvs_source(self):
        from molviewspec import State, create_builder

        state = one_state()
        b = create_builder()
        b.download(url=URL).parse(format="mmcif").model_structure().component(
            selector="ligand"
        ).representation(type="ball_and_stick")
        for source in (b, State.model_validate(state), state, json.dumps(state, indent=1)):
            src = normalize_structure_source(source)
            assert (src.data, src.format, src.name) == (b"", "", "mvs") and src.mvs[
                "root"
            ] == state["root"], type(source)

    def test_the_viewer_sends_the_state_and_no_bytes(self):
        v = Viewer(one_state())
        assert (
            v._data is None
            and v._mvs["root"]["children"][0]["params"]["url"] == URL
            and v.source_name == "mvs"
        )
        from jsonschema import Draft202012Validator

        from molspace.contract import manifest

        # the page checks the state as apply_mvs checks it: it must be the contract's MvsState
        schema = manifest()["tools"]
        act = next(t for t in schema if t["name"] == "act")["inputSchema"]
        assert not list(
            Draft202012Validator(act).iter_errors(
                {"actions": [{"op": "apply_mvs", "state": v._mvs}]}
            )
        )

    def test_not_json(self):
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source('{"kind": "single", root')
        assert error_of(e)["code"] == "INVALID_INPUT" and error_of(e)["where"] == "source"

    def test_no_root(self):
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source({"kind": "single", "metadata": {}})
        assert error_of(e)["code"] == "INVALID_INPUT" and error_of(e)["where"] == "source/root"
        assert error_of(e)["details"] == {"keys": ["kind", "metadata"]}

    def test_a_multi_state_story(self):
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source({"kind": "multiple", "snapshots": [], "metadata": {}})
        assert (
            error_of(e)["code"] == "UNSUPPORTED_FORMAT"
            and error_of(e)["where"] == "source/kind"
            and "Story" in error_of(e)["fix"]
        )

    def test_too_large(self):
        state = one_state()
        state["metadata"]["description"] = "x" * MAX_MVS_BYTES
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(state)
        err = error_of(e)
        assert (
            err["code"] == "TOO_LARGE"
            and err["details"]["limit"] == MAX_MVS_BYTES
            and err["details"]["bytes"] > MAX_MVS_BYTES
        )

    def test_format_does_not_apply(self):
        with pytest.raises(StructureSourceError) as e:
            normalize_structure_source(one_state(), "mmcif")
        assert error_of(e)["code"] == "INVALID_INPUT" and error_of(e)["where"] == "format"

    def test_apply_mvs_refuses_the_same_bad_states_located_at_state(self, monkeypatch):
        v = Viewer(one_state())
        monkeypatch.setattr(v, "send", lambda content, buffers=None: pytest.fail("sent"))
        with pytest.raises(ViewerControlError) as e:
            v.apply_mvs({"kind": "multiple", "snapshots": []})
        assert error_of(e)["where"] == "state/kind"


class TestClearOperations:
    def test_clear_labels_and_clear_measurements_send_the_contracts_operations(self, monkeypatch):
        from jsonschema import Draft202012Validator

        from molspace.contract import manifest

        v = Viewer(one_state())
        msgs: list[dict] = []
        monkeypatch.setattr(v, "send", lambda content, buffers=None: msgs.append(content))
        v.clear_labels()
        v.clear_measurements()
        v.act([{"op": "clear_labels"}, {"op": "clear_measurements"}])
        assert [m["actions"] for m in msgs] == [
            [{"op": "clear_labels"}],
            [{"op": "clear_measurements"}],
            [{"op": "clear_labels"}, {"op": "clear_measurements"}],
        ]
        validator = Draft202012Validator(manifest()["wire"]["kernel"]["kernelToPage"])
        for m in msgs:
            assert not list(validator.iter_errors(m)), m
        # a clear takes no fields
        assert list(
            validator.iter_errors(
                {**msgs[0], "actions": [{"op": "clear_labels", "selector": "all"}]}
            )
        )
