"""Kernel-side Ketcher API: sources (good and bad), read-only page state, control messages, to_viewer.

The page side of the same path (Ketcher and Indigo in their frame, the
Dispatcher, agents) runs in the Galata tests (ui-tests/tests/ketcher.spec.ts).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import traitlets
from rdkit import Chem

from molspace import Ketcher, KetcherControlError, Viewer
from molspace.contract import LIMITS
from molspace.ketcher import structure_text

DATA = Path(__file__).resolve().parent / "data" / "structures"


def sent(widget: Ketcher, monkeypatch) -> list[dict]:
    messages: list[dict] = []
    monkeypatch.setattr(widget, "send", lambda content, buffers=None: messages.append(content))
    return messages


def code_of(excinfo) -> tuple[str, str]:
    d = excinfo.value.to_dict()
    assert d["fix"]
    return d["code"], d["where"]


class TestSources:
    def test_text_is_sent_as_the_initial_structure(self):
        k = Ketcher("O=C(O)[C@@]([H])(N)C", format="smiles", title="alanine")
        assert (k._initial, k._initial_format, k.title) == (
            "O=C(O)[C@@]([H])(N)C",
            "smiles",
            "alanine",
        )

    def test_a_path_under_the_working_directory_is_read(self, monkeypatch):
        monkeypatch.chdir(DATA)
        text, fmt = structure_text("small01.mol")
        assert fmt == "molfile" and "M  END" in text

    def test_an_rdkit_mol_becomes_a_molfile(self):
        text, fmt = structure_text(Chem.MolFromSmiles("C[C@H](O)c1ccccc1"))
        assert fmt == "molfile"
        assert Chem.MolToSmiles(Chem.MolFromMolBlock(text)) == Chem.MolToSmiles(
            Chem.MolFromSmiles("C[C@H](O)c1ccccc1")
        )

    @pytest.mark.parametrize(
        ("value", "fmt", "code", "where"),
        [
            ("CCO", "png", "UNSUPPORTED_FORMAT", "format"),
            ("structure.xyz2", None, "INVALID_INPUT", "value"),
            (42, None, "INVALID_INPUT", "value"),
            ("missing.mol", None, "NOT_FOUND", "value"),
            ("../outside.mol", None, "FORBIDDEN", "value"),
            ("C" * (LIMITS["ketcherInlineBytes"] + 1), None, "TOO_LARGE", "value"),
        ],
    )
    def test_bad_sources_are_located(self, monkeypatch, value, fmt, code, where):
        monkeypatch.chdir(DATA)
        if value == "structure.xyz2":
            value = Path("structure.xyz2")  # a path with no chemical extension
            code = "UNSUPPORTED_FORMAT"
        with pytest.raises(KetcherControlError) as e:
            Ketcher(value, format=fmt)
        assert code_of(e) == (code, where)


class TestPageOwnedState:
    @pytest.mark.parametrize(
        ("name", "value"),
        [
            ("smiles", "x"),
            ("structure_revision", 1),
            ("ket", "{}"),
            ("ready", True),
            ("highlighted", [1]),
        ],
    )
    def test_a_cell_cannot_set_page_state(self, name, value):
        k = Ketcher()
        with pytest.raises(traitlets.TraitError, match="set by the page"):
            setattr(k, name, value)

    def test_the_page_sets_it_and_on_change_sees_who(self):
        k = Ketcher()
        seen = []
        k.on_change(seen.append)
        k.set_state(
            {
                "smiles": "CCO",
                "molfile": "m\n  M  END\n",
                "atoms": 3,
                "last_change": {"revision": 1, "source": "agent", "summary": "s"},
                "structure_revision": 1,
            }
        )
        assert [(c.revision, c.source, c.smiles) for c in seen] == [(1, "agent", "CCO")]
        assert k.sdf.endswith("$$$$\n")


class TestControl:
    def test_set_structure_sends_one_control_message(self, monkeypatch):
        k = Ketcher()
        messages = sent(k, monkeypatch)
        k.set_structure("c1ccccc1", expected_revision=2, action_id="a1")
        (m,) = messages
        assert {
            key: m[key] for key in ("type", "action", "value", "expectedRevision", "actionId")
        } == {
            "type": "control",
            "action": "set_structure",
            "value": "c1ccccc1",
            "expectedRevision": 2,
            "actionId": "a1",
        }

    def test_clear_and_highlight(self, monkeypatch):
        k = Ketcher()
        messages = sent(k, monkeypatch)
        k.clear()
        k.highlight([0, 2], color="#ff0000")
        assert [m["action"] for m in messages] == ["clear_structure", "highlight_atoms"]
        assert messages[1]["atoms"] == [0, 2]

    @pytest.mark.parametrize(
        ("atoms", "code"),
        [
            ([-1], "INVALID_INPUT"),
            (["0"], "INVALID_INPUT"),
            (list(range(LIMITS["ketcherHighlightAtoms"] + 1)), "TOO_LARGE"),
        ],
    )
    def test_bad_highlights_send_nothing(self, monkeypatch, atoms, code):
        k = Ketcher()
        messages = sent(k, monkeypatch)
        with pytest.raises(KetcherControlError) as e:
            k.highlight(atoms)
        assert code_of(e) == (code, "atoms")
        assert messages == []


class TestToViewer:
    def test_the_molecule_goes_to_a_viewer_in_3d(self):
        k = Ketcher()
        mol = Chem.MolFromSmiles("CC(=O)Nc1ccc(O)cc1")
        k.set_state({"molfile": Chem.MolToMolBlock(mol), "atoms": mol.GetNumAtoms()})
        v = k.to_viewer()
        assert isinstance(v, Viewer) and v.format == "sdf"
        back = Chem.MolFromMolBlock(v._data.decode(), removeHs=False)
        assert back.GetNumConformers() == 1 and back.GetConformer().Is3D()
        assert Chem.MolToSmiles(Chem.RemoveHs(back)) == Chem.MolToSmiles(mol)

    def test_before_the_page_reports_the_initial_structure_is_used(self):
        v = Ketcher("CCO").to_viewer()
        back = Chem.MolFromMolBlock(v._data.decode(), removeHs=False)
        assert Chem.MolToSmiles(Chem.RemoveHs(back)) == "CCO" and back.GetConformer().Is3D()

    def test_an_empty_editor_is_located(self):
        with pytest.raises(KetcherControlError) as e:
            Ketcher().to_viewer()
        assert code_of(e) == ("VALIDATION_FAILED", "molfile")

    @pytest.mark.parametrize(
        ("platform", "says"),
        [("linux", "molspace[rdkit]"), ("emscripten", "In JupyterLite, %pip install rdkit")],
    )
    def test_without_rdkit_it_is_located_and_says_how(self, monkeypatch, platform, says):
        """JupyterLite's Pyodide kernel has no RDKit unless the site hosts it, and no server to ask."""
        monkeypatch.setitem(sys.modules, "rdkit", None)
        monkeypatch.setattr(sys, "platform", platform)
        with pytest.raises(KetcherControlError) as e:
            Ketcher("CCO").to_viewer()
        assert code_of(e) == ("UNSUPPORTED_FORMAT", "molfile")
        assert says in e.value.fix and e.value.details == {"missing": "rdkit", "platform": platform}


def test_a_saved_editor_output_says_what_the_cell_gave_before_the_page_shows_it() -> None:
    """The kernel's part of the static fallback (docs/architecture.md, "Static fallback in saved
    notebooks"): marked as a molspace Ketcher output for the pre-save hook, its text the structure
    the cell gave, not "not shown yet"; the page's frame replaces it once the editor is drawn."""
    marker = "application/vnd.molspace.static+json"
    bundle = Ketcher("O=C(O)C", title="acetic acid")._repr_mimebundle_()
    assert bundle is not None
    assert bundle["text/plain"] == "molspace Ketcher editor 'acetic acid': O=C(O)C"
    assert bundle[marker] == {
        "kind": "ketcher",
        "origin": "kernel",
        "title": "acetic acid",
        "summary": bundle["text/plain"],
    }
    assert "application/vnd.jupyter.widget-view+json" in bundle
    molfile = Ketcher(Chem.MolFromSmiles("CCO"))._repr_mimebundle_()
    assert molfile is not None
    assert molfile["text/plain"] == "molspace Ketcher editor 'Ketcher': molfile of 9 lines"
    empty = Ketcher()._repr_mimebundle_()
    assert empty is not None
    assert empty["text/plain"] == "molspace Ketcher editor 'Ketcher': empty"
