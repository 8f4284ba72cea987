"""A molecule grid's RDKit depictions from the kernel (``molspace/panel/depictions.py``).

The page side (shown at once as images, Indigo for the rest, an SVG's script inert) runs in
ui-tests/tests/molecule-grid.spec.ts and src/panel/__tests__/givenDepictions.spec.ts.
"""

from __future__ import annotations

import pytest

from molspace import Panel
from molspace.contract import LIMITS
from molspace.panel import depictions
from molspace.panel.depictions import SWITCH, grid_depictions


def test_first_page_is_depicted_by_smiles_as_svg():
    smiles = [f"C{'C' * i}O" for i in range(30)]
    panel = Panel(smiles, page_size=12)
    given = panel._depictions
    assert list(given) == smiles[:12]
    for svg in given.values():
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        assert len(svg) <= LIMITS["panelDepictionChars"]


def test_default_page_and_repeated_smiles_once():
    given = grid_depictions({"type": "molecules", "molecules": [{"smiles": "CCO"}] * 30})
    assert list(given) == ["CCO"]
    thirty = [{"smiles": f"C{'C' * i}N"} for i in range(30)]
    assert len(grid_depictions({"type": "molecules", "molecules": thirty})) == 24


def test_unreadable_smiles_is_left_to_indigo():
    given = grid_depictions(
        {"type": "molecules", "molecules": [{"smiles": "CCO"}, {"smiles": "C1CC"}]}
    )
    assert list(given) == ["CCO"]


def test_other_contents_and_the_switch_send_none(monkeypatch: pytest.MonkeyPatch):
    assert Panel("# text")._depictions == {}
    monkeypatch.setenv(SWITCH, "off")
    assert Panel(["CCO"])._depictions == {}


def test_bounds_each_and_together(monkeypatch: pytest.MonkeyPatch):
    mols = [{"smiles": f"C{'C' * i}O"} for i in range(10)]
    one = len(depictions.svg_of("CCO") or "")
    # Together: drawing stops before the total would pass the bound.
    monkeypatch.setitem(LIMITS, "panelDepictionsChars", one * 3)
    given = grid_depictions({"type": "molecules", "molecules": mols})
    assert 1 <= len(given) < 4
    assert sum(map(len, given.values())) <= one * 3
    # Each: a depiction over the bound is left to Indigo.
    monkeypatch.setitem(LIMITS, "panelDepictionsChars", 10**9)
    monkeypatch.setitem(LIMITS, "panelDepictionChars", one)
    given = grid_depictions({"type": "molecules", "molecules": mols})
    assert all(len(v) <= one for v in given.values()) and "CCCCCCCCCCO" not in given


def test_update_sends_the_new_contents_depictions():
    panel = Panel(["CCO"])
    sent: list = []
    panel._send_control = lambda message, what: sent.append(message)  # type: ignore[method-assign]
    panel.update(["c1ccccc1"])
    assert list(panel._depictions) == ["c1ccccc1"]
    assert sent and sent[0]["content"]["molecules"] == [{"smiles": "c1ccccc1"}]


def test_compact_svg_draws_the_same_elements():
    from xml.etree import ElementTree

    from rdkit import Chem
    from rdkit.Chem.Draw import rdMolDraw2D

    drawer = rdMolDraw2D.MolDraw2DSVG(*depictions.SIZE)
    rdMolDraw2D.PrepareAndDrawMolecule(drawer, Chem.MolFromSmiles("CC(=O)Nc1ccc(O)cc1"))
    drawer.FinishDrawing()
    raw = drawer.GetDrawingText()
    small = depictions.compact(raw[raw.index("<svg") :])
    assert len(small) < 0.8 * len(raw)
    before, after = ElementTree.fromstring(raw), ElementTree.fromstring(small)
    assert [e.tag for e in before.iter()] == [e.tag for e in after.iter()]
    # Every bond line keeps its colour and width, as attributes; RDKit's other styles stay as they were.
    strokes = [(e.get("stroke"), e.get("stroke-width")) for e in after.iter() if e.get("stroke")]
    assert strokes and all(c and c.startswith("#") and w == "2.0" for c, w in strokes)
    assert len(strokes) == len(depictions._BOND_STYLE.findall(raw))
    assert depictions._BOND_STYLE.search(small) is None and " class=" not in small
