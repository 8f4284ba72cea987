"""An agent's ``render_panel`` grid relayed to a page carries the gateway's RDKit pictures of its first page.

Through the real gateway, with the official MCP Python SDK client and a bridge client standing in
as the page: the call frame's ``context.depictions`` (``CallContext.depictions``, not an argument:
``tools/list`` does not grow) holds the first page's SVGs by SMILES, as a cell's grid syncs them
(``molspace/panel/depictions.py``), within ``panelDepictionChars`` each and
``panelDepictionsChars`` together; the model's result is the page's, unchanged. Without RDKit on
the server nothing is attached (the page's Indigo draws the grid, as before). The real page showing
them: ``ui-tests/tests/molecule-grid.spec.ts``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from molspace.contract import LIMITS

pytest.importorskip("rdkit")

SMILES = [f"C{'C' * i}O" for i in range(50)]  # 50 distinct alcohols
ANSWER = {
    "panel": {
        "target": "grid",
        "kind": "panel",
        "panelId": "grid",
        "title": "Molecules",
        "placement": "docked",
        "type": "molecules",
        "ready": True,
        "revision": 1,
        "error": None,
    },
    "created": True,
    "previousRevision": None,
    "changes": [
        {"revision": 1, "source": "agent", "summary": "render_panel: docked molecules panel"}
    ],
    "replayed": False,
}


def panel_page(tool: str, args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    assert tool == "render_panel"
    return {"ok": True, "structuredContent": ANSWER, "text": "render_panel: docked (revision 1)."}


def grid(molecules: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "panelId": "grid",
        "content": {"type": "molecules", "molecules": [{"smiles": s} for s in molecules], **extra},
    }


async def relay(mcp_client: Any, connect_page: Any, args: dict[str, Any]) -> tuple[Any, dict]:
    page = await connect_page()
    page.handler = panel_page
    async with mcp_client() as client:
        result = await client.call_tool("render_panel", args)
    assert result.is_error is False, result.content[0].text
    return result, page.calls[-1]


async def test_a_relayed_grid_carries_its_first_page_drawn_by_rdkit(
    mcp_client: Any, connect_page: Any
) -> None:
    result, call = await relay(
        mcp_client, connect_page, grid(SMILES[:10] + ["not a smiles(", *SMILES[10:]], pageSize=12)
    )
    depictions = call["context"]["depictions"]
    # The first page only (12 molecules), less the one RDKit cannot read (Indigo notes it).
    assert list(depictions) == SMILES[:11]
    assert all(svg.startswith("<svg") and "rdkit" in svg for svg in depictions.values())
    assert all(len(svg) <= LIMITS["panelDepictionChars"] for svg in depictions.values())
    assert sum(map(len, depictions.values())) <= LIMITS["panelDepictionsChars"]
    # Not an argument: the page's arguments are the model's; the model's result is the page's answer.
    assert "depictions" not in call["args"]
    assert result.structured_content == ANSWER
    assert "svg" not in json.dumps(result.model_dump(mode="json"))


async def test_the_total_bound_stops_drawing(
    mcp_client: Any, connect_page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LIMITS, "panelDepictionsChars", 5000)
    _, call = await relay(mcp_client, connect_page, grid(SMILES, pageSize=50))
    depictions = call["context"]["depictions"]
    assert 0 < len(depictions) < 50
    assert sum(map(len, depictions.values())) <= 5000


async def test_without_rdkit_on_the_server_nothing_is_attached(
    mcp_client: Any, connect_page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "rdkit", None)
    _, call = await relay(mcp_client, connect_page, grid(SMILES))
    assert "depictions" not in call["context"]
    assert call["args"] == grid(SMILES)


async def test_other_content_and_molecule_files_carry_none(
    mcp_client: Any, connect_page: Any
) -> None:
    _, call = await relay(
        mcp_client,
        connect_page,
        {"panelId": "grid", "content": {"type": "markdown", "markdown": "# CCO"}},
    )
    assert "depictions" not in call["context"]
    _, call = await relay(
        mcp_client,
        connect_page,
        {
            "panelId": "grid",
            "content": {"type": "molecules", "file": {"format": "csv", "text": "smiles\nCCO\n"}},
        },
    )
    assert "depictions" not in call["context"]
