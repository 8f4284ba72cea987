"""3D coordinates for a drawn molecule: RDKit's ETKDG embedding, then an MMFF94 clean-up.

Used by :meth:`molspace.Ketcher.to_viewer` in the kernel and by the server's
``{base_url}molspace/embed3d`` endpoint, which the page's ``open {ketcher}``
calls for agents (docs/architecture.md, "Ketcher"). RDKit is optional
(``pip install molspace[rdkit]``); without it every call fails located.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from ..errors import MolspaceError

#: Most heavy atoms embedded in one call: ETKDG's time grows fast with size, and a
#: drawn molecule past this is not a sketch (open the structure file instead).
MAX_HEAVY_ATOMS = 300

#: Seed of the embedding, so the same drawing gives the same coordinates.
RANDOM_SEED = 0xC0FFEE


@dataclass(frozen=True)
class Embedded:
    """A molecule with 3D coordinates.

    Attributes
    ----------
    sdf : str
        One SDF record (V2000 Molfile + ``$$$$``), explicit hydrogens included, coordinates in Å.
    atoms : int
        Atom count, hydrogens included.
    optimized : bool
        True when MMFF94 could type the molecule and cleaned up its geometry;
        False leaves the ETKDG coordinates as embedded.
    """

    sdf: str
    atoms: int
    optimized: bool


def embed_3d(text: str, *, where: str = "molfile") -> Embedded:
    """Embed a Molfile (V2000/V3000) or SMILES in 3D.

    Parameters
    ----------
    text : str
        A Molfile (any text with a newline) or a SMILES string.
    where : str
        What to name as the failure's place (e.g. ``"/ketcher"`` for an agent's argument).

    Returns
    -------
    Embedded

    Raises
    ------
    MolspaceError
        ``UNSUPPORTED_FORMAT`` when RDKit is not installed; ``VALIDATION_FAILED``
        when the text is empty, RDKit cannot read it, or ETKDG finds no
        coordinates; ``TOO_LARGE`` over :data:`MAX_HEAVY_ATOMS` heavy atoms.
    """
    try:
        from rdkit import Chem

        # AllChem re-exports these; their own modules are what RDKit's stubs type.
        from rdkit.Chem import rdDistGeom, rdForceFieldHelpers
    except ImportError as e:
        if sys.platform == "emscripten":
            # JupyterLite's Pyodide kernel: no Jupyter server, and RDKit only where the site hosts it.
            fix = (
                "In JupyterLite, %pip install rdkit where the site's Pyodide hosts its rdkit package, "
                "or run this notebook on a Jupyter server with molspace[rdkit]."
            )
        else:
            fix = "pip install 'molspace[rdkit]' (or rdkit) in the Jupyter server's and the kernel's environment."
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            "3D coordinates need RDKit, which is not installed where this runs.",
            where,
            fix,
            {"missing": "rdkit", "platform": sys.platform},
        ) from e
    if not text.strip():
        raise MolspaceError(
            "VALIDATION_FAILED",
            "There is no molecule to embed: the editor is empty.",
            where,
            "Draw or set a molecule first.",
        )
    mol = Chem.MolFromMolBlock(text, removeHs=False) if "\n" in text else Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        raise MolspaceError(
            "VALIDATION_FAILED",
            "RDKit cannot read the molecule (a query feature, an R-group or a monomer has no 3D form).",
            where,
            "Draw a plain molecule (atoms and bonds only), then send it again.",
        )
    heavy = mol.GetNumHeavyAtoms()
    if heavy > MAX_HEAVY_ATOMS:
        raise MolspaceError(
            "TOO_LARGE",
            f"The molecule has {heavy} heavy atoms; at most {MAX_HEAVY_ATOMS} are embedded in 3D.",
            where,
            "Open a structure file for molecules this large, or send a fragment.",
            {"size": heavy, "limit": MAX_HEAVY_ATOMS, "unit": "heavy atoms"},
        )
    mol = Chem.AddHs(mol, addCoords=True)
    params: Any = rdDistGeom.ETKDGv3()  # RDKit's stubs type its settable fields read-only
    params.randomSeed = RANDOM_SEED
    if rdDistGeom.EmbedMolecule(mol, params) != 0:
        params.useRandomCoords = True
        if rdDistGeom.EmbedMolecule(mol, params) != 0:
            raise MolspaceError(
                "VALIDATION_FAILED",
                "RDKit's ETKDG found no 3D coordinates for the molecule (strained rings or conflicting stereo).",
                where,
                "Check the stereo centres and ring sizes of the drawing.",
            )
    optimized = (
        rdForceFieldHelpers.MMFFHasAllMoleculeParams(mol)
        and rdForceFieldHelpers.MMFFOptimizeMolecule(mol) != -1
    )
    return Embedded(
        sdf=Chem.MolToMolBlock(mol) + "$$$$\n", atoms=mol.GetNumAtoms(), optimized=bool(optimized)
    )
