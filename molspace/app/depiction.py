"""``ketcher_open`` with no JupyterLab page: a depiction made by the server, for the App.

Ketcher's engine (Indigo) is WebAssembly, which the MCP Apps default CSP blocks (no
``'wasm-unsafe-eval'``), so no editor runs inside a chat App. What does run is a picture: the
server draws the molecule with RDKit (``molspace[rdkit]``) as SVG and sends it in the result's
``_meta["molspace/depiction"]`` (``src/contract/app.ts`` ``AppDepiction``); the App shows it with a
located note saying why it is not an editor and how to get one (open JupyterLab).
"""

from __future__ import annotations

from typing import Any

from ..errors import MolspaceError
from .structure import AppFiles, file_extension

#: Side of the depiction, px.
SIZE = (420, 300)
#: What RDKit reads here: SMILES, Molfile (V2000/V3000) and an SDF's first record.
READ_EXTENSIONS = {"smi": "smiles", "mol": "molfile", "sdf": "sdf"}


def _rdkit_mol(text: str, fmt: str | None, where: str) -> Any:
    try:
        from rdkit import Chem
    except ImportError as e:
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            "A depiction in the App needs RDKit on the Jupyter server, which is not installed.",
            where,
            "pip install 'molspace[rdkit]' where the Jupyter server runs, or open JupyterLab and call ketcher_open there.",
            {"missing": "rdkit"},
        ) from e
    if fmt not in (None, "smiles", "molfile", "molfile-v3000", "sdf"):
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            f"The App's depiction reads SMILES and Molfile/SDF, not {fmt}.",
            "/format",
            "Pass SMILES or a Molfile, or open JupyterLab and call ketcher_open there (Ketcher reads every format).",
            {"format": fmt},
        )
    molfile = fmt in ("molfile", "molfile-v3000", "sdf") or (fmt is None and "\n" in text.strip())
    mol = Chem.MolFromMolBlock(text) if molfile else Chem.MolFromSmiles(text.strip())
    if mol is None or mol.GetNumAtoms() == 0:
        raise MolspaceError(
            "VALIDATION_FAILED",
            "RDKit could not read the molecule for the App's depiction.",
            where,
            "Pass a valid SMILES or Molfile (format names which).",
            {"format": fmt or ("molfile" if molfile else "smiles")},
        )
    return mol


def depict(text: str, fmt: str | None, title: str, where: str) -> dict[str, Any]:
    """``_meta["molspace/depiction"]``: ``{svg, smiles, formula, atoms, title}``.

    Raises
    ------
    MolspaceError
        ``UNSUPPORTED_FORMAT`` (no RDKit, or a format RDKit does not read here),
        ``VALIDATION_FAILED`` (RDKit cannot read it) at ``where``.
    """
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors
    from rdkit.Chem.Draw import rdMolDraw2D

    mol = _rdkit_mol(text, fmt, where)
    drawer = rdMolDraw2D.MolDraw2DSVG(*SIZE)
    rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol)
    drawer.FinishDrawing()
    return {
        "svg": drawer.GetDrawingText(),
        "smiles": Chem.MolToSmiles(mol),
        "formula": rdMolDescriptors.CalcMolFormula(mol),
        "atoms": mol.GetNumAtoms(),
        "title": title,
    }


async def depiction_answer(
    args: dict[str, Any], files: AppFiles, manifest: Any
) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """``ketcher_open`` with no page: ``(structuredContent, text, _meta)`` for the App.

    Raises
    ------
    MolspaceError
        :func:`depict`'s errors; :meth:`AppFiles.read`'s for ``path`` (and ``UNSUPPORTED_FORMAT``
        at ``/path`` for an extension RDKit does not read here).
    """
    app = manifest.app
    fmt = args.get("format")
    if isinstance(args.get("path"), str):
        path = args["path"]
        fmt = fmt or READ_EXTENSIONS.get(file_extension(path))
        if fmt is None:
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                f"The App's depiction reads .smi, .mol and .sdf files, not {path!r}.",
                "/path",
                "Pass one of those, or open JupyterLab and call ketcher_open there (Ketcher reads every format).",
                {"path": path},
            )
        text = (await files.read(path, "/path")).data.decode("utf-8", errors="replace")
        where, title = "/path", args.get("title") or path.rsplit("/", 1)[-1]
    else:
        text, where, title = str(args.get("value") or ""), "/value", args.get("title") or "molecule"
        if not text.strip():
            raise MolspaceError(
                "INVALID_INPUT",
                "With no JupyterLab page, ketcher_open shows a given molecule: value or path is needed.",
                "/value",
                "Pass value (SMILES or a Molfile) or path, or open JupyterLab for an empty editor.",
                {},
            )
    shown = depict(text, fmt, title, where)
    smiles = shown["smiles"] if len(shown["smiles"]) <= 200 else shown["smiles"][:199] + "…"
    structured = {
        "app": {
            "resourceUri": app["viewer"],
            "title": title,
            "smiles": smiles,
            "formula": shown["formula"],
            "atoms": shown["atoms"],
        }
    }
    note = (
        f"ketcher_open: {title} ({shown['formula']}, {smiles}) is shown as a picture in the "
        "molspace App: Ketcher's engine is WebAssembly, which chat Apps may not run. To edit it, open "
        "JupyterLab and call ketcher_open again."
    )
    return structured, note, {app["depictionMeta"]: shown}
