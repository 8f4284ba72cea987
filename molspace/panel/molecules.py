"""Molecule-grid content for a :class:`molspace.Panel` (the contract's ``MoleculesContent``).

What a cell may pass (docs/architecture.md, "Report panels"):

- a list of SMILES strings;
- a list of RDKit ``Mol`` objects (SMILES written by RDKit, ``_Name`` as the
  name, other string/number properties as properties);
- a pandas ``DataFrame`` with a SMILES column (``smiles_column=``) or a column
  of RDKit ``Mol`` objects (``molecule_column=``, default: the first such
  column); ``name_column=`` names each molecule; the other columns become
  properties.

Bounds are the contract's (``LIMITS["panelMolecules"]``,
``"panelSmilesChars"``, ``"panelMoleculeProperties"``, ``"panelCellChars"``);
over one: :class:`~molspace.errors.PanelContentError` ``TOO_LARGE`` naming the
limit; nothing is cut. Whether Indigo reads a SMILES is shown by the page in
that molecule's grid cell.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..contract import LIMITS
from ..errors import PanelContentError


def is_rdkit_mol(obj: Any) -> bool:
    """True for an RDKit ``Mol`` (recognised without importing RDKit)."""
    return type(obj).__name__ in ("Mol", "RWMol") and type(obj).__module__.startswith("rdkit")


def too_large(what: str, size: int, limit: str, where: str, fix: str) -> PanelContentError:
    """A located ``TOO_LARGE``: ``what`` measured ``size``, over ``LIMITS[limit]``."""
    return PanelContentError(
        "TOO_LARGE",
        f"{what} is {size}, over the limit of {LIMITS[limit]} ({limit})",
        where,
        fix,
        {"limit": limit, "max": LIMITS[limit], "size": size},
    )


def _smiles_of(mol: Any, where: str) -> str:
    if mol is None:
        raise PanelContentError(
            "INVALID_INPUT",
            "a molecule is None (RDKit returns None for a record it cannot read)",
            where,
            "Drop the records RDKit could not read, e.g. [m for m in supplier if m is not None].",
        )
    from rdkit import Chem

    return Chem.MolToSmiles(mol)


def _property(value: Any) -> str | float | int | None:
    """A property value as the grid shows it, or None to leave it out (missing)."""
    if value is None:
        return None
    if isinstance(value, bool) or type(value).__name__.startswith("bool"):
        return str(bool(value))
    if isinstance(value, (int, float)) or type(value).__module__ == "numpy":
        try:
            f = float(value)
        except (TypeError, ValueError):
            return str(value)
        if not math.isfinite(f):
            return None
        return int(value) if float(f).is_integer() and "int" in type(value).__name__ else f
    try:
        if value != value:  # pd.NA, NaT
            return None
    except (TypeError, ValueError):
        return str(value)
    return str(value)


def _properties(pairs: Iterable[tuple[Any, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        shown = _property(value)
        if shown is not None:
            out[str(key)] = shown
    return out


def _molecule(
    smiles: Any, where: str, name: Any = None, properties: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    if not isinstance(smiles, str) or not smiles:
        raise PanelContentError(
            "INVALID_INPUT",
            f"a SMILES must be a non-empty str, not {type(smiles).__name__} {smiles!r:.60}",
            where,
            "Pass SMILES strings (or RDKit molecules).",
            {"type": type(smiles).__name__},
        )
    molecule: dict[str, Any] = {"smiles": smiles}
    if name is not None and _property(name) is not None:
        molecule["name"] = str(name)[:200]
    if properties:
        molecule["properties"] = dict(properties)
    return molecule


def molecules_from_list(items: Sequence[Any], *, page_size: int | None = None) -> dict[str, Any]:
    """A grid from a list of SMILES strings or RDKit molecules (see the module docstring)."""
    _check_count(len(items))
    molecules = []
    for i, item in enumerate(items):
        where = f"content/{i}"
        if is_rdkit_mol(item) or item is None:
            smiles = _smiles_of(item, where)
            props = item.GetPropsAsDict(includePrivate=False, includeComputed=False)
            name = (
                item.GetProp("_Name") if item.HasProp("_Name") and item.GetProp("_Name") else None
            )
            molecules.append(_molecule(smiles, where, name, _properties(props.items())))
        else:
            molecules.append(_molecule(item, where))
    return check_molecules(_grid(molecules, page_size))


def molecules_from_dataframe(
    df: Any,
    *,
    smiles_column: str | None = None,
    molecule_column: str | None = None,
    name_column: str | None = None,
    page_size: int | None = None,
) -> dict[str, Any]:
    """A grid from a pandas DataFrame (see the module docstring).

    Raises
    ------
    PanelContentError
        ``INVALID_INPUT`` for a column the DataFrame does not have, a cell that
        is not a SMILES / molecule; ``TOO_LARGE`` over a bound.
    """
    names = [str(c) for c in df.columns]
    for arg, column in (
        ("smiles_column", smiles_column),
        ("molecule_column", molecule_column),
        ("name_column", name_column),
    ):
        if column is not None and column not in df.columns:
            raise PanelContentError(
                "INVALID_INPUT",
                f"{arg}={column!r} is not a column of the DataFrame",
                arg,
                f"Use one of: {', '.join(names[:20])}.",
                {"column": str(column), "columns": names[:50]},
            )
    if smiles_column is None and molecule_column is None:
        molecule_column = next(
            (c for c in df.columns if any(is_rdkit_mol(v) for v in df[c].head(5))), None
        )
        if molecule_column is None:
            raise PanelContentError(
                "INVALID_INPUT",
                "the DataFrame has no RDKit molecule column, and no smiles_column was named",
                "smiles_column",
                "Pass smiles_column='<column with SMILES>' or molecule_column='<column of RDKit Mols>'.",
                {"columns": names[:50]},
            )
    _check_count(len(df))
    structure = smiles_column if smiles_column is not None else molecule_column
    others = [c for c in df.columns if c not in (structure, name_column)]
    molecules = []
    for i, (_, row) in enumerate(df.iterrows()):
        where = f"content/{structure}/{i}"
        value = row[structure]
        smiles = (
            value
            if smiles_column is not None
            else _smiles_of(value if is_rdkit_mol(value) else None, where)
        )
        if smiles_column is None and not is_rdkit_mol(value) and value is not None:
            raise PanelContentError(
                "INVALID_INPUT",
                f"row {i} of {structure!r} is a {type(value).__name__}, not an RDKit Mol",
                where,
                "Use a column of RDKit molecules.",
            )
        props = _properties((c, row[c]) for c in others if not is_rdkit_mol(row[c]))
        molecules.append(
            _molecule(smiles, where, row[name_column] if name_column is not None else None, props)
        )
    return check_molecules(_grid(molecules, page_size))


def _grid(molecules: list[dict[str, Any]], page_size: int | None) -> dict[str, Any]:
    grid: dict[str, Any] = {"type": "molecules", "molecules": molecules}
    if page_size is not None:
        if not isinstance(page_size, int) or not 1 <= page_size <= LIMITS["panelMoleculePageSize"]:
            raise PanelContentError(
                "INVALID_INPUT",
                f"page_size {page_size!r} is not 1-{LIMITS['panelMoleculePageSize']}",
                "page_size",
                f"Pass an int from 1 to {LIMITS['panelMoleculePageSize']}.",
            )
        grid["pageSize"] = page_size
    return grid


def _check_count(n: int) -> None:
    if n > LIMITS["panelMolecules"]:
        raise too_large(
            "the number of molecules",
            n,
            "panelMolecules",
            "content",
            f"Pass at most {LIMITS['panelMolecules']} molecules, e.g. df.head({LIMITS['panelMolecules']}); nothing is cut for you.",
        )


def check_molecules(grid: Mapping[str, Any]) -> dict[str, Any]:
    """Check a ``MoleculesContent`` dict's shape and bounds; return it as a plain dict.

    Raises
    ------
    PanelContentError
        ``INVALID_INPUT`` for a malformed grid, ``TOO_LARGE`` over a bound.
    """
    molecules = grid.get("molecules")
    if not isinstance(molecules, list):
        raise PanelContentError(
            "INVALID_INPUT",
            "a molecules content needs a list 'molecules'",
            "content/molecules",
            "Pass [{'smiles': ...}, ...].",
        )
    _check_count(len(molecules))
    for i, m in enumerate(molecules):
        where = f"content/molecules/{i}"
        if not isinstance(m, Mapping) or not isinstance(m.get("smiles"), str) or not m["smiles"]:
            raise PanelContentError(
                "INVALID_INPUT",
                f"molecule {i} needs a non-empty str 'smiles'",
                where,
                "Pass {'smiles': ...}.",
            )
        if len(m["smiles"]) > LIMITS["panelSmilesChars"]:
            raise too_large(
                f"the SMILES of molecule {i}, in characters,",
                len(m["smiles"]),
                "panelSmilesChars",
                f"{where}/smiles",
                "Pass a shorter SMILES.",
            )
        props = m.get("properties") or {}
        if not isinstance(props, Mapping):
            raise PanelContentError(
                "INVALID_INPUT",
                f"the properties of molecule {i} are a {type(props).__name__}, not a dict",
                f"{where}/properties",
                "Pass {'smiles': ..., 'properties': {'name': value, ...}}.",
            )
        if len(props) > LIMITS["panelMoleculeProperties"]:
            raise too_large(
                f"the number of properties of molecule {i}",
                len(props),
                "panelMoleculeProperties",
                f"{where}/properties",
                f"Pass at most {LIMITS['panelMoleculeProperties']} properties a molecule; show the rest in a table.",
            )
        for key, value in props.items():
            if isinstance(value, str) and len(value) > LIMITS["panelCellChars"]:
                raise too_large(
                    f"the text of property {key!r} of molecule {i}, in characters,",
                    len(value),
                    "panelCellChars",
                    f"{where}/properties/{key}",
                    "Shorten the property text.",
                )
    return {k: v for k, v in grid.items()}
