"""Molecule-grid panels from a cell: lists of SMILES and RDKit molecules, DataFrames; bounds; bad inputs.

The page side (Indigo depictions, paging, bad SMILES notes) runs in ui-tests/tests/molecule-grid.spec.ts.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from rdkit import Chem

from molspace import Panel, PanelContentError
from molspace.contract import LIMITS
from molspace.panel import static_fallback

CDK2 = Path(__file__).parent / "data" / "structures" / "cdk2.sdf"


def cdk2(n: int) -> list:
    return [m for m in Chem.SDMolSupplier(str(CDK2)) if m is not None][:n]


class TestConversions:
    def test_list_of_smiles(self):
        panel = Panel(["CCO", "c1ccccc1"], page_size=12)
        assert panel.content == {
            "type": "molecules",
            "molecules": [{"smiles": "CCO"}, {"smiles": "c1ccccc1"}],
            "pageSize": 12,
        }

    def test_list_of_rdkit_mols_from_cdk2_sdf(self):
        mols = cdk2(60)
        assert len(mols) > 40
        content = Panel(mols).content
        assert content["type"] == "molecules"
        assert len(content["molecules"]) == len(mols)
        first = content["molecules"][0]
        assert first["smiles"] == Chem.MolToSmiles(mols[0])
        assert first["name"] == mols[0].GetProp("_Name")
        public = mols[0].GetPropsAsDict(includePrivate=False, includeComputed=False)
        assert set(first.get("properties", {})) == set(public)

    def test_dataframe_with_smiles_column(self):
        df = pd.DataFrame(
            {
                "id": ["a", "b"],
                "smi": ["CCO", "CCN"],
                "score": [-7.5, math.nan],
                "pose": [1, 2],
                "ok": [True, False],
            }
        )
        content = Panel(df, smiles_column="smi", name_column="id").content
        assert content["molecules"] == [
            {"smiles": "CCO", "name": "a", "properties": {"score": -7.5, "pose": 1, "ok": "True"}},
            {"smiles": "CCN", "name": "b", "properties": {"pose": 2, "ok": "False"}},
        ]

    def test_dataframe_with_rdkit_molecule_column(self):
        df = pd.DataFrame(
            {"mol": [Chem.MolFromSmiles("CCO"), Chem.MolFromSmiles("c1ccccc1")], "logp": [0.1, 1.7]}
        )
        content = Panel(df).content
        assert content["type"] == "molecules"
        assert content["molecules"] == [
            {"smiles": "CCO", "properties": {"logp": 0.1}},
            {"smiles": "c1ccccc1", "properties": {"logp": 1.7}},
        ]

    def test_dataframe_without_molecules_stays_a_table(self):
        assert Panel(pd.DataFrame({"a": [1]})).content["type"] == "table"

    def test_contract_dict_as_is(self):
        grid = {
            "type": "molecules",
            "molecules": [{"smiles": "C", "name": "methane", "properties": {"mw": 16.04}}],
        }
        assert Panel(grid).content == grid

    def test_static_fallback_escapes_text(self):
        bundle = static_fallback(
            {
                "type": "molecules",
                "molecules": [{"smiles": "C", "name": "<img src=x onerror=alert(1)>"}],
            }
        )
        assert "<img" not in bundle["text/html"]
        assert "&lt;img src=x onerror=alert(1)&gt;" in bundle["text/html"]

    def test_update_sends_a_grid(self, monkeypatch):
        panel = Panel("notes")
        messages: list[dict] = []
        monkeypatch.setattr(panel, "send", lambda content, buffers=None: messages.append(content))
        panel.update(["CCO"], page_size=5)
        assert messages[-1]["content"] == {
            "type": "molecules",
            "molecules": [{"smiles": "CCO"}],
            "pageSize": 5,
        }


class TestBadInputs:
    def test_too_many_molecules(self):
        with pytest.raises(PanelContentError) as e:
            Panel(["C"] * (LIMITS["panelMolecules"] + 1))
        assert e.value.code == "TOO_LARGE"
        assert e.value.details["limit"] == "panelMolecules"

    def test_long_smiles(self):
        with pytest.raises(PanelContentError) as e:
            Panel(["C", "C" * (LIMITS["panelSmilesChars"] + 1)])
        assert e.value.code == "TOO_LARGE"
        assert e.value.details["limit"] == "panelSmilesChars"
        assert e.value.where == "content/molecules/1/smiles"

    def test_too_many_properties(self):
        df = pd.DataFrame(
            {"smi": ["C"], **{f"p{i}": [i] for i in range(LIMITS["panelMoleculeProperties"] + 1)}}
        )
        with pytest.raises(PanelContentError) as e:
            Panel(df, smiles_column="smi")
        assert e.value.code == "TOO_LARGE"
        assert e.value.details["limit"] == "panelMoleculeProperties"

    def test_unknown_smiles_column(self):
        with pytest.raises(PanelContentError) as e:
            Panel(pd.DataFrame({"smiles": ["C"]}), smiles_column="SMILES")
        assert e.value.code == "INVALID_INPUT"
        assert e.value.where == "smiles_column"
        assert e.value.details["columns"] == ["smiles"]

    def test_none_molecule_from_a_failed_rdkit_read(self):
        with pytest.raises(PanelContentError) as e:
            Panel([Chem.MolFromSmiles("CCO"), None])
        assert e.value.code == "INVALID_INPUT"
        assert e.value.where == "content/1"

    def test_mixed_list(self):
        with pytest.raises(PanelContentError) as e:
            Panel(["CCO", 3])
        assert e.value.code == "UNSUPPORTED_FORMAT"

    def test_non_string_smiles_in_column(self):
        with pytest.raises(PanelContentError) as e:
            Panel(pd.DataFrame({"smi": ["CCO", None]}), smiles_column="smi")
        assert e.value.code == "INVALID_INPUT"
        assert e.value.where == "content/smi/1"

    def test_bad_page_size(self):
        with pytest.raises(PanelContentError) as e:
            Panel(["C"], page_size=LIMITS["panelMoleculePageSize"] + 1)
        assert e.value.where == "page_size"

    def test_malformed_dict(self):
        with pytest.raises(PanelContentError) as e:
            Panel({"type": "molecules", "molecules": [{"name": "no smiles"}]})
        assert e.value.code == "INVALID_INPUT"
        assert e.value.where == "content/molecules/0"
