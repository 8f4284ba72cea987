"""``render_panel`` in the MCP App (``ui://molspace/panel``), through the official Python SDK client.

With no JupyterLab page and a client that declares the Apps extension, the gateway answers
``render_panel`` for the Panel App: the panel (its checked content, a grid's RDKit pictures) in
``_meta["molspace/panel"]``, a bounded ``structuredContent.app``; bad content is refused located,
nothing sent. With a page open, the page docks it and the result also carries the panel. The App
itself renders in Chromium in ``ui-tests/tests/mcpApp.spec.ts``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gateway_helpers import located_error
from mcp.shared.exceptions import MCPError
from test_app import McpApps

from molspace.app.resources import STATIC_DIR
from molspace.contract import manifest
from molspace.gateway.app_panels import MEMORY

APP = manifest()["app"]
LIMITS = manifest()["limits"]

MARKDOWN = "## Findings\n<img src=x onerror=alert(1)><script>alert(2)</script>"
TABLE = {
    "type": "table",
    "columns": [{"name": "residue"}, {"name": "distance", "type": "number", "unit": "Å"}],
    "rows": [["ASP 25", 2.9], ["GLY 27", 3.4]],
}
CHART = {
    "type": "chart",
    "spec": {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "data": {"values": [{"frame": 0, "rmsd": 0}, {"frame": 1, "rmsd": 1.5}]},
        "mark": "line",
        "encoding": {
            "x": {"field": "frame", "type": "quantitative"},
            "y": {"field": "rmsd", "type": "quantitative"},
        },
    },
}


def shown_panel(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.content[0].text
    return result.meta[APP["panelMeta"]]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_render_panel_names_the_panel_app_whose_parts_rebuild_it(
    mcp_client: Any, mode: str
) -> None:
    async with mcp_client(mode=mode, extensions=[McpApps()]) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["render_panel"].meta == {"ui": {"resourceUri": APP["panel"]}}
        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        assert resources == [APP["viewer"], APP["panel"]]
        page = (await client.read_resource(APP["panel"])).contents[0]
        assert page.mime_type == APP["mimeType"]
        # A panel fetches nothing: no connect or resource domains.
        assert page.meta["ui"]["csp"] == {"connectDomains": [], "resourceDomains": []}
        assert len(page.text.encode()) <= LIMITS["appResourceBytes"]
        parts = page.text.split('name="molspace-app-parts" content="', 1)[1].split('"', 1)[0]
        texts = [(await client.read_resource(uri)).contents[0].text for uri in parts.split()]
    assert all(len(t.encode()) <= LIMITS["appResourceBytes"] for t in texts)
    assert "".join(texts) == (STATIC_DIR / "panel.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_render_panel_with_no_page_is_rendered_in_the_app(mcp_client: Any, mode: str) -> None:
    async with mcp_client(mode=mode, extensions=[McpApps()]) as client:
        notes = await client.call_tool(
            "render_panel",
            {
                "panelId": "notes",
                "title": "Notes",
                "content": {"type": "markdown", "markdown": MARKDOWN},
            },
        )
        table = await client.call_tool("render_panel", {"content": TABLE})
        chart = await client.call_tool("render_panel", {"title": "RMSD", "content": CHART})
        grid = await client.call_tool(
            "render_panel",
            {
                "content": {
                    "type": "molecules",
                    "molecules": [
                        {"smiles": "c1ccccc1O", "name": "phenol", "properties": {"score": -7.1}},
                        {"smiles": "not((a smiles", "name": "typo"},
                    ],
                }
            },
        )
    # The panel travels whole in _meta (the App sanitizes the markdown; the gateway does not edit it).
    assert shown_panel(notes) == {
        "panelId": "notes",
        "title": "Notes",
        "content": {"type": "markdown", "markdown": MARKDOWN},
        "follow": {"uri": "ui://molspace/panels/notes", "seq": shown_panel(notes)["follow"]["seq"]},
    }
    assert notes.structured_content == {
        "created": True,
        "previousRevision": None,
        "changes": [],
        "replayed": False,
        "app": {
            "resourceUri": APP["panel"],
            "panelId": "notes",
            "title": "Notes",
            "type": "markdown",
        },
    }
    # The model reads one short line, never the content.
    assert (
        "shown in the molspace App" in notes.content[0].text
        and "<script>" not in notes.content[0].text
    )
    assert shown_panel(table)["content"] == TABLE and shown_panel(table)["title"] == "Table"
    # Panels shown without an id get one of their own, which the model reads to update them.
    table_id = table.structured_content["app"]["panelId"]
    assert table_id.startswith("panel-") and table_id != chart.structured_content["app"]["panelId"]
    assert repr(table_id) in table.content[0].text
    assert (
        shown_panel(chart)["content"] == CHART
        and chart.structured_content["app"]["type"] == "chart"
    )
    # A grid: the server's RDKit pictures by SMILES; one RDKit cannot read has none, and says why.
    drawn = shown_panel(grid)
    assert list(drawn["depictions"]) == ["c1ccccc1O"] and "<svg" in drawn["depictions"]["c1ccccc1O"]
    assert "could not read 1 SMILES" in drawn["note"]
    assert grid.structured_content["app"]["depicted"] == 1
    assert (
        "<svg" not in grid.content[0].text
        and "1 of 2 distinct molecules drawn" in grid.content[0].text
    )


@pytest.mark.parametrize(
    ("args", "code", "where"),
    [
        (
            {"content": {"type": "markdown", "markdown": "x" * (LIMITS["panelMarkdownChars"] + 1)}},
            "TOO_LARGE",
            "/content",
        ),
        (
            {"content": {**TABLE, "rows": [["r", 1]] * (LIMITS["panelTableRows"] + 1)}},
            "TOO_LARGE",
            "/content/rows",
        ),
        (
            {
                "content": {
                    "type": "molecules",
                    "molecules": [{"smiles": "C" * (LIMITS["panelSmilesChars"] + 1)}],
                }
            },
            "TOO_LARGE",
            "/content/molecules/0/smiles",
        ),
        (
            {"content": {"type": "molecules", "file": {"format": "csv", "text": "smiles\nCCO"}}},
            "UNSUPPORTED_FORMAT",
            "/content/file",
        ),
        ({"target": "panel-1", "content": TABLE}, "NO_PAGE", "/target"),
        ({"expectedRevision": 2, "content": TABLE}, "NO_PAGE", "/expectedRevision"),
        ({"placement": "inline", "content": TABLE}, "NO_PAGE", "/placement"),
    ],
)
async def test_bad_panels_with_no_page_are_located_and_nothing_is_sent(
    mcp_client: Any, args: dict[str, Any], code: str, where: str
) -> None:
    async with mcp_client(extensions=[McpApps()]) as client:
        result = await client.call_tool("render_panel", args)
    err = located_error(result)
    assert (err["code"], err["where"]) == (code, where), err
    assert err["fix"] and not (result.meta or {}).get(APP["panelMeta"])


async def test_a_client_without_apps_gets_no_page_for_render_panel(mcp_client: Any) -> None:
    async with mcp_client() as client:
        err = located_error(await client.call_tool("render_panel", {"content": TABLE}))
    assert err["code"] == "NO_PAGE"


PANEL_STATE = {
    "panel": {
        "target": "contacts",
        "kind": "panel",
        "panelId": "contacts",
        "title": "Contacts",
        "placement": "docked",
        "type": "table",
        "ready": True,
        "revision": 1,
        "error": None,
    },
    "created": True,
    "previousRevision": None,
    "changes": [],
    "replayed": False,
}


def docking_page(tool: str, args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """A page that docks the panel render_panel names (its answer, as a real page gives it)."""
    assert tool == "render_panel", tool
    return {"ok": True, "structuredContent": PANEL_STATE, "text": "render_panel: docked"}


@pytest.mark.parametrize("renders_apps", [True, False])
async def test_with_a_page_open_the_page_docks_the_panel_and_the_app_gets_it_too(
    mcp_client: Any, connect_page: Any, renders_apps: bool
) -> None:
    page = await connect_page()
    page.handler = docking_page
    async with mcp_client(extensions=[McpApps()] if renders_apps else None) as client:
        result = await client.call_tool("render_panel", {"panelId": "contacts", "content": TABLE})
    assert [c["tool"] for c in page.calls] == ["render_panel"]
    assert result.is_error is False and result.structured_content == PANEL_STATE
    shown = (result.meta or {}).get(APP["panelMeta"])
    if renders_apps:
        assert shown == {
            "panelId": "contacts",
            "title": "Contacts",
            "content": TABLE,
            "follow": {"uri": "ui://molspace/panels/contacts", "seq": shown["follow"]["seq"]},
        }
    else:
        assert shown is None


async def kept(client: Any, uri: str) -> dict[str, Any]:
    """The panel the App following ``uri`` reads (``resources/read``, as the host forwards it)."""
    read = (await client.read_resource(uri)).contents[0]
    assert read.mime_type == "application/json"
    return json.loads(read.text)


async def test_an_app_follows_its_panel_through_later_render_panel_calls(mcp_client: Any) -> None:
    """The App reads its panel's ``follow.uri``: a later render_panel of the id is the latest."""
    async with mcp_client(extensions=[McpApps()]) as client:
        first = shown_panel(
            await client.call_tool("render_panel", {"panelId": "fit.1-a", "content": TABLE})
        )
        uri = first["follow"]["uri"]
        assert uri == "ui://molspace/panels/fit.1-a"
        assert await kept(client, uri) == first
        other = shown_panel(await client.call_tool("render_panel", {"content": CHART}))
        assert other["follow"]["uri"] != uri
        update = {**TABLE, "rows": [["ASP 25", 3.1]]}
        second = shown_panel(
            await client.call_tool(
                "render_panel", {"panelId": "fit.1-a", "title": "Fit", "content": update}
            )
        )
        assert second["follow"]["uri"] == uri and second["follow"]["seq"] > first["follow"]["seq"]
        now = await kept(client, uri)
        assert now == second and now["content"] == update and now["title"] == "Fit"
        # A refused update leaves the kept panel as it was.
        refused = await client.call_tool(
            "render_panel",
            {
                "panelId": "fit.1-a",
                "content": {**TABLE, "rows": [["r", 1]] * (LIMITS["panelTableRows"] + 1)},
            },
        )
        assert located_error(refused)["code"] == "TOO_LARGE"
        assert await kept(client, uri) == second


async def test_a_panel_not_kept_is_a_located_resource_error_and_the_oldest_is_dropped(
    mcp_client: Any,
) -> None:
    async with mcp_client(extensions=[McpApps()]) as client:
        with pytest.raises(MCPError) as unknown:
            await client.read_resource("ui://molspace/panels/never-shown")
        assert unknown.value.error.code == -32002
        assert (
            "/uri" in unknown.value.error.message and "render_panel" in unknown.value.error.message
        )
        uris = [
            shown_panel(
                await client.call_tool("render_panel", {"panelId": f"p{i}", "content": TABLE})
            )["follow"]["uri"]
            for i in range(MEMORY + 1)
        ]
        with pytest.raises(MCPError) as dropped:
            await client.read_resource(uris[0])
        assert dropped.value.error.code == -32002
        assert (await kept(client, uris[-1]))["panelId"] == f"p{MEMORY}"
        # Other resources are read as before.
        assert (await client.read_resource(APP["panel"])).contents[0].mime_type == APP["mimeType"]
