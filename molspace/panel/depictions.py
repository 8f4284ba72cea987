"""RDKit depictions a molecule-grid :class:`molspace.Panel` sends with its content.

When the kernel has RDKit (``molspace[rdkit]``), the first page of a grid is drawn here as SVG,
by SMILES, and sent beside the content (the widget's ``_depictions``, the contract's
``GridDepictions``), so the page shows it at once instead of waiting for its Indigo depiction
frame to start (docs/architecture.md, "Report panels"; docs/benchmarks.md, "Molecule grids").
The page shows each as an image (never inline SVG) and Indigo draws every molecule not here.
The gateway draws an agent's ``render_panel`` grid the same way for the page it relays the call to
(:func:`molspace.app.panel.relayed_depictions`, ``CallContext.depictions``).

Bounded: at most ``LIMITS["panelDepictionChars"]`` characters each (a larger one is left to
Indigo) and ``LIMITS["panelDepictionsChars"]`` together (drawing stops there). A SMILES RDKit
cannot read is left to Indigo, which shows its own note in the cell. ``MOLSPACE_GRID_DEPICTIONS=off``
in the kernel's environment turns this off (the benchmark's "before").
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..contract import LIMITS

#: Size of one depiction, px (the grid's picture box is 150 px high).
SIZE = (220, 150)
#: Molecules on a page when the content does not say (``DEFAULT_PAGE_SIZE`` in ``moleculeGrid.ts``).
DEFAULT_PAGE_SIZE = 24
#: The kernel environment variable that turns kernel depictions off (``off``).
SWITCH = "MOLSPACE_GRID_DEPICTIONS"


#: RDKit's style of a bond line, which SVG's defaults reduce to three presentation attributes.
_BOND_STYLE = re.compile(
    r"style='fill:none;fill-rule:evenodd;stroke:(#[0-9A-Fa-f]{6});stroke-width:([0-9.]+)px;"
    r"stroke-linecap:butt;stroke-linejoin:miter;stroke-opacity:1'"
)
#: RDKit's ``class`` attributes (atom and bond indices, for highlighting; an image does not use them).
_CLASS = re.compile(r" class='[^']*'")
_INDENT = re.compile(r"\n[ \t]+")


def compact(svg: str) -> str:
    """RDKit's SVG, about 40% shorter, drawn the same: bond styles as attributes, no classes or indents."""
    return _INDENT.sub(
        "\n", _CLASS.sub("", _BOND_STYLE.sub(r"fill='none' stroke='\1' stroke-width='\2'", svg))
    )


def _drawer() -> Any:
    from rdkit.Chem.Draw import rdMolDraw2D

    return rdMolDraw2D


def svg_of(smiles: str) -> str | None:
    """One SVG depiction of ``smiles`` (no XML declaration, :func:`compact`); None when RDKit cannot read it."""
    from rdkit import Chem, rdBase

    # Indigo shows its own note for a SMILES neither reads: RDKit's parse error is not the cell's.
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumAtoms() == 0:
        return None
    draw = _drawer()
    drawer = draw.MolDraw2DSVG(*SIZE)
    draw.PrepareAndDrawMolecule(drawer, mol)
    drawer.FinishDrawing()
    svg: str = drawer.GetDrawingText()
    return compact(svg[svg.index("<svg") :]) if "<svg" in svg else None


def grid_depictions(content: Mapping[str, Any]) -> dict[str, str]:
    """The first page's depictions of a ``molecules`` content, by SMILES, within the bounds.

    Empty when the content is not a grid of ``molecules``, when RDKit is not installed, or when
    ``MOLSPACE_GRID_DEPICTIONS=off``.
    """
    if content.get("type") != "molecules" or not content.get("molecules"):
        return {}
    if os.environ.get(SWITCH, "").lower() == "off":
        return {}
    try:
        import rdkit  # noqa: F401
    except ImportError:
        return {}
    page = content["molecules"][: int(content.get("pageSize") or DEFAULT_PAGE_SIZE)]
    out: dict[str, str] = {}
    total = 0
    for m in page:
        smiles = m["smiles"]
        if smiles in out:
            continue
        svg = svg_of(smiles)
        if svg is None or len(svg) > LIMITS["panelDepictionChars"]:
            continue
        if total + len(svg) > LIMITS["panelDepictionsChars"]:
            break
        out[smiles] = svg
        total += len(svg)
    return out
