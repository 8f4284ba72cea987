"""3D embedding of a drawn molecule (RDKit ETKDG + MMFF94): good input, each bad input located."""

from __future__ import annotations

import builtins
from typing import Any

import pytest
from rdkit import Chem
from rdkit.Chem import rdDepictor

from molspace.errors import MolspaceError
from molspace.ketcher.embedding import MAX_HEAVY_ATOMS, embed_3d


def z_spread(sdf: str) -> float:
    mol = Chem.MolFromMolBlock(sdf, removeHs=False)
    zs = [mol.GetConformer().GetAtomPosition(i).z for i in range(mol.GetNumAtoms())]
    return max(zs) - min(zs)


def test_smiles_and_molfile_get_3d_coordinates_with_hydrogens() -> None:
    ethanol = embed_3d("CCO")
    assert ethanol.atoms == 9 and ethanol.optimized and ethanol.sdf.endswith("$$$$\n")
    mol = Chem.MolFromMolBlock(ethanol.sdf, removeHs=False)
    assert mol.GetConformer().Is3D() and z_spread(ethanol.sdf) > 0.5
    # A 2D Molfile (z = 0 everywhere, as Ketcher writes it) comes back 3D, stereo kept.
    flat = Chem.MolFromSmiles("O=C(O)[C@@H](N)C")
    rdDepictor.Compute2DCoords(flat)
    alanine = embed_3d(Chem.MolToMolBlock(flat))
    back = Chem.MolFromMolBlock(alanine.sdf)
    Chem.AssignStereochemistryFrom3D(back)
    assert Chem.MolToSmiles(back) == Chem.MolToSmiles(flat) and z_spread(alanine.sdf) > 0.5
    # Same drawing, same coordinates (seeded).
    assert embed_3d("CCO").sdf == ethanol.sdf


@pytest.mark.parametrize(
    ("text", "code", "needle"),
    [
        ("", "VALIDATION_FAILED", "empty"),
        ("   \n", "VALIDATION_FAILED", "empty"),
        ("C1CC", "VALIDATION_FAILED", "cannot read"),
        ("not a molfile\nat all\n", "VALIDATION_FAILED", "cannot read"),
        ("C" * (MAX_HEAVY_ATOMS + 1), "TOO_LARGE", f"at most {MAX_HEAVY_ATOMS}"),
    ],
)
def test_bad_input_is_located(text: str, code: str, needle: str) -> None:
    with pytest.raises(MolspaceError) as caught:
        embed_3d(text, where="/ketcher")
    e = caught.value
    assert (e.code, e.where) == (code, "/ketcher") and needle in e.message and e.fix


def test_without_rdkit_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_rdkit(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("rdkit"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_rdkit)
    with pytest.raises(MolspaceError) as caught:
        embed_3d("CCO")
    assert caught.value.code == "UNSUPPORTED_FORMAT" and "molspace[rdkit]" in caught.value.fix
