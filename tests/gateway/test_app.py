"""The MCP App (extension ``io.modelcontextprotocol/ui``): declared, its ``ui://`` resources, and
``open`` shown in the App with no JupyterLab page, through the official Python SDK client.

A client that declares the extension gets ``open`` answered for the App when no page is
connected (the structure in ``_meta["molspace/structure"]``, bounded ``structuredContent``);
a client that does not gets today's ``NO_PAGE``. The App itself runs in Chromium in
``ui-tests/tests/mcpApp.spec.ts``.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import located_error
from mcp.client.extension import ClientExtension
from mcp.shared.exceptions import MCPError

from molspace.app.resources import STATIC_DIR
from molspace.contract import manifest

DATA = Path(__file__).resolve().parents[1] / "data"
APP = manifest()["app"]
LIMITS = manifest()["limits"]


class McpApps(ClientExtension):
    """A client that renders MCP Apps, as Claude, VS Code or the Inspector declare it."""

    identifier = APP["extension"]

    def settings(self) -> dict[str, Any]:
        return {"mimeTypes": [APP["mimeType"]]}


@pytest.fixture
def root_files(jp_root_dir: Path) -> Path:
    """The Jupyter root with a PDB, a BCIF, and a PSF + DCD trajectory under data/."""
    (jp_root_dir / "data").mkdir()
    for name in (
        "structures/1hpv.pdb",
        "structures/1cbs.bcif",
        "trajectories/adk.psf",
        "trajectories/adk_dims.dcd",
        "trajectories/adk_ca.pdb",
        "trajectories/adk_ca.trr",
        "1cbs.mvsj",
        "1h9t.mvsx",
    ):
        shutil.copy(DATA / name, jp_root_dir / "data" / Path(name).name)
    return jp_root_dir


def app_structure(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.content[0].text
    return result.meta[APP["structureMeta"]]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_open_names_its_app_and_the_server_declares_the_extension(
    mcp_client: Any, mode: str
) -> None:
    async with mcp_client(mode=mode, extensions=[McpApps()]) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["open"].meta == {"ui": {"resourceUri": APP["viewer"]}}
        assert sorted(n for n, t in listed.items() if t.meta) == [
            "ketcher_open",
            "open",
            "render_panel",
        ]
        if mode == "auto":
            # The SDK sieves `extensions` (2026-07-28 vocabulary) out of a 2025-11-25 initialize
            # result; hosts on that wire go by the tool's `_meta.ui.resourceUri` alone.
            assert client.server_capabilities.extensions[APP["extension"]] == {
                "mimeTypes": [APP["mimeType"]]
            }


async def test_app_resources_are_bounded_and_rebuild_the_app(mcp_client: Any) -> None:
    async with mcp_client(extensions=[McpApps()]) as client:
        listed = (await client.list_resources()).resources
        # The Viewer App, and the Panel App (tests/gateway/test_app_panel.py).
        assert [(str(r.uri), r.mime_type) for r in listed] == [
            (APP["viewer"], APP["mimeType"]),
            (APP["panel"], APP["mimeType"]),
        ]
        page = (await client.read_resource(APP["viewer"])).contents[0]
        assert page.mime_type == APP["mimeType"]
        # A Story's data may come from the default resource hosts; nothing else is declared.
        assert page.meta["ui"]["csp"] == {
            "connectDomains": APP["connectDomains"],
            "resourceDomains": [],
        }
        assert all(d.startswith("https://") for d in APP["connectDomains"])
        # CSP's `*.x` does not match x itself: a mirror on the apex (https://pdbj.org) is listed too.
        assert {"https://pdbj.org", "https://*.pdbj.org", "https://*.rcsb.org"} <= set(
            APP["connectDomains"]
        )
        html = page.text
        assert len(html.encode()) <= LIMITS["appResourceBytes"]
        assert html.count("<script>") == 1 and html.count("</script>") == 1
        parts = html.split('name="molspace-app-parts" content="', 1)[1].split('"', 1)[0].split()
        assert len(parts) > 1 and all(p.startswith(APP["partPrefix"]) for p in parts)
        texts = []
        for uri in parts:
            part = (await client.read_resource(uri)).contents[0]
            assert len(part.text.encode()) <= LIMITS["appResourceBytes"]
            texts.append(part.text)
        viewer = (STATIC_DIR / "viewer.js").read_text(encoding="utf-8")
        assert "".join(texts) == viewer
        # The build writes ASCII only, so each part is a full resource: as few reads as can be.
        assert viewer.isascii() and len(parts) == -(-len(viewer) // LIMITS["appResourceBytes"])


async def test_an_unknown_ui_resource_is_refused_located(mcp_client: Any) -> None:
    async with mcp_client(extensions=[McpApps()]) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource("ui://molspace/nope")
        assert refused.value.error.code == -32002
        assert "ui://molspace/nope" in refused.value.error.message
        assert (
            APP["viewer"] in refused.value.error.message and "Fix:" in refused.value.error.message
        )


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_open_with_no_page_is_shown_in_the_app(
    mcp_client: Any, root_files: Path, mode: str
) -> None:
    async with mcp_client(mode=mode, extensions=[McpApps()]) as client:
        result = await client.call_tool(
            "open", {"path": "data/1hpv.pdb", "title": "HIV-1 protease"}
        )
        shown = app_structure(result)
        text = (root_files / "data/1hpv.pdb").read_text()
        assert shown == {
            "format": "pdb",
            "structure": {"name": "data/1hpv.pdb", "encoding": "utf8", "data": text},
            "coordinates": None,
            "title": "HIV-1 protease",
        }
        assert result.structured_content == {
            "app": {
                "resourceUri": APP["viewer"],
                "title": "HIV-1 protease",
                "format": "pdb",
                "bytes": len(text),
            }
        }
        # The model reads a short line, never the structure.
        assert "shown in the molspace App" in result.content[0].text
        assert len(result.content[0].text) < 400 and "ATOM" not in result.content[0].text


async def test_binary_files_and_trajectories_travel_base64(
    mcp_client: Any, root_files: Path
) -> None:
    async with mcp_client(extensions=[McpApps()]) as client:
        bcif = app_structure(await client.call_tool("open", {"path": "data/1cbs.bcif"}))
        assert bcif["structure"]["encoding"] == "base64"
        assert (
            base64.b64decode(bcif["structure"]["data"])
            == (root_files / "data/1cbs.bcif").read_bytes()
        )
        traj = app_structure(
            await client.call_tool(
                "open", {"path": "data/adk_ca.pdb", "coordinates": "data/adk_ca.trr"}
            )
        )
        assert traj["format"] == "pdb" and traj["structure"]["encoding"] == "utf8"
        assert (
            traj["coordinates"]["format"] == "trr"
            and traj["coordinates"]["file"]["encoding"] == "base64"
        )
        assert (
            base64.b64decode(traj["coordinates"]["file"]["data"])
            == (root_files / "data/adk_ca.trr").read_bytes()
        )


async def test_a_story_file_with_no_page_is_played_in_the_app(
    mcp_client: Any, root_files: Path
) -> None:
    async with mcp_client(extensions=[McpApps()]) as client:
        mvsj = await client.call_tool("open", {"path": "data/1cbs.mvsj", "title": "RBP"})
        mvsx = await client.call_tool("open", {"path": "data/1h9t.mvsx"})
    assert mvsj.is_error is False and mvsx.is_error is False
    text = (root_files / "data/1cbs.mvsj").read_text()
    assert mvsj.meta[APP["storyMeta"]] == {
        "format": "mvsj",
        "file": {"name": "data/1cbs.mvsj", "encoding": "utf8", "data": text},
        "title": "RBP",
    }
    assert mvsj.structured_content == {
        "app": {
            "resourceUri": APP["viewer"],
            "title": "RBP",
            "format": "mvsj",
            "bytes": len(text.encode()),
        }
    }
    shown = mvsx.meta[APP["storyMeta"]]
    assert (shown["format"], shown["file"]["encoding"]) == ("mvsx", "base64")
    assert base64.b64decode(shown["file"]["data"]) == (root_files / "data/1h9t.mvsx").read_bytes()
    assert "kind" not in mvsj.content[0].text


async def test_a_client_without_apps_gets_no_page_as_before(
    mcp_client: Any, root_files: Path
) -> None:
    async with mcp_client() as client:
        err = located_error(await client.call_tool("open", {"path": "data/1hpv.pdb"}))
        assert err["code"] == "NO_PAGE"


@pytest.mark.parametrize(
    ("args", "code", "where"),
    [
        ({"path": "data/missing.pdb"}, "NOT_FOUND", "/path"),
        ({"path": "../outside.pdb"}, "FORBIDDEN", "/path"),
        ({"path": "data/1hpv.txt"}, "UNSUPPORTED_FORMAT", "/path"),
        (
            {"path": "data/adk.psf", "coordinates": "data/adk.psf"},
            "UNSUPPORTED_FORMAT",
            "/coordinates",
        ),
        ({"path": "data/adk_ca.pdb", "coordinates": "data/none.dcd"}, "NOT_FOUND", "/coordinates"),
        ({"path": "data/adk.psf", "coordinates": "data/adk_dims.dcd"}, "TOO_LARGE", "/coordinates"),
        ({"path": "data/big.pdb"}, "TOO_LARGE", "/path"),
        ({"path": "stories/x.mvsj"}, "NOT_FOUND", "/path"),
        ({"path": "data/1cbs.mvsj", "format": "pdb"}, "INVALID_INPUT", "/format"),
        # Sources that need a page answer as they did before.
        ({"mvs": {"kind": "single"}}, "NO_PAGE", ""),
        ({"ketcher": "ketcher-1"}, "NO_PAGE", ""),
        # A PDB ID that is not one never reaches the App (the input schema refuses it).
        ({"pdbId": "../x"}, "INVALID_INPUT", "/pdbId"),
    ],
)
async def test_bad_sources_are_located_and_nothing_is_sent(
    mcp_client: Any, root_files: Path, args: dict[str, Any], code: str, where: str
) -> None:
    (root_files / "data/1hpv.txt").write_text("not a structure")
    with (root_files / "data/big.pdb").open("wb") as f:
        f.truncate(LIMITS["appStructureBytes"] + 1)
    async with mcp_client(extensions=[McpApps()]) as client:
        result = await client.call_tool("open", args)
        err = located_error(result)
        assert (err["code"], err["where"]) == (code, where), err
        assert not (result.meta or {}).get(APP["structureMeta"])
        assert err["fix"]


async def test_a_pdb_id_with_no_page_is_a_download_for_the_app(mcp_client: Any) -> None:
    """``open {pdbId}`` with no page: the App downloads the entry itself; the server sends no bytes."""
    async with mcp_client(extensions=[McpApps()]) as client:
        result = await client.call_tool("open", {"pdbId": "1cbs"})
    async with mcp_client() as client:
        plain = await client.call_tool("open", {"pdbId": "1cbs"})
    assert result.is_error is False, result.content
    assert result.structured_content == {
        "app": {"resourceUri": APP["viewer"], "title": "1CBS", "format": "mmcif", "bytes": 0}
    }
    assert "downloaded by the App" in result.content[0].text
    assert result.meta[APP["structureMeta"]] == {
        "format": "mmcif",
        "download": {"pdbId": "1cbs", "mirror": "rcsb"},
        "coordinates": None,
        "title": "1CBS",
    }
    # A client that renders no App: NO_PAGE as before.
    assert located_error(plain)["code"] == "NO_PAGE"


DOCKED = {
    "viewer": {
        "target": "viewer-1",
        "kind": "viewer",
        "title": "1hpv.pdb",
        "ready": True,
        "revision": 3,
        "error": None,
        "undo": 0,
        "redo": 0,
    }
}


def docking_page(tool: str, args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """A page that docks what open names (the page's answer, as a real page gives it)."""
    assert tool == "open", tool
    return {"ok": True, "structuredContent": DOCKED, "text": "open: docked viewer-1"}


@pytest.mark.parametrize("renders_apps", [True, False])
async def test_with_a_page_open_the_page_docks_it_and_the_app_draws_the_same_file(
    mcp_client: Any, root_files: Path, connect_page: Any, renders_apps: bool
) -> None:
    page = await connect_page()
    page.handler = docking_page
    async with mcp_client(extensions=[McpApps()] if renders_apps else None) as client:
        result = await client.call_tool("open", {"path": "data/1hpv.pdb"})
        entry = await client.call_tool("open", {"pdbId": "1cbs", "mirror": "pdbe"})
    assert [c["tool"] for c in page.calls] == ["open", "open"]
    # The page's answer stands (the docked Viewer and its revision); the App gets the same file.
    assert result.is_error is False and result.structured_content == DOCKED
    shown = (result.meta or {}).get(APP["structureMeta"])
    if renders_apps:
        assert shown["structure"]["data"] == (root_files / "data/1hpv.pdb").read_text()
    else:
        assert shown is None
    # A PDB ID the page downloaded: the App downloads the same entry from the same mirror.
    assert entry.structured_content == DOCKED
    if renders_apps:
        assert (entry.meta or {})[APP["structureMeta"]] == {
            "format": "mmcif",
            "download": {"pdbId": "1cbs", "mirror": "pdbe"},
            "coordinates": None,
            "title": "1CBS",
        }
    else:
        assert not (entry.meta or {}).get(APP["structureMeta"])


async def test_ketcher_open_with_no_page_is_the_servers_depiction_in_the_app(
    mcp_client: Any, root_files: Path
) -> None:
    shutil.copy(DATA / "structures/small01.mol", root_files / "data/small01.mol")
    async with mcp_client(extensions=[McpApps()]) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["ketcher_open"].meta == {"ui": {"resourceUri": APP["viewer"]}}
        smiles = await client.call_tool(
            "ketcher_open", {"value": "CC(=O)Oc1ccccc1C(=O)O", "title": "aspirin"}
        )
        molfile = await client.call_tool("ketcher_open", {"path": "data/small01.mol"})
    assert smiles.is_error is False, smiles.content[0].text
    shown = smiles.meta[APP["depictionMeta"]]
    assert shown["svg"].lstrip().startswith("<?xml") and "<svg" in shown["svg"]
    assert (shown["formula"], shown["atoms"], shown["title"]) == ("C9H8O4", 13, "aspirin")
    assert smiles.structured_content == {
        "app": {
            "resourceUri": APP["viewer"],
            "title": "aspirin",
            "smiles": shown["smiles"],
            "formula": "C9H8O4",
            "atoms": 13,
        }
    }
    # The model is told why it is a picture and how to get the editor; never the SVG.
    assert "WebAssembly" in smiles.content[0].text and "open JupyterLab" in smiles.content[0].text
    assert "<svg" not in smiles.content[0].text
    assert (
        molfile.is_error is False and molfile.meta[APP["depictionMeta"]]["title"] == "small01.mol"
    )


@pytest.mark.parametrize(
    ("args", "code", "where"),
    [
        ({"value": "not a molecule ((("}, "VALIDATION_FAILED", "/value"),
        ({"value": "{}", "format": "ket"}, "UNSUPPORTED_FORMAT", "/format"),
        ({"path": "data/1hpv.pdb"}, "UNSUPPORTED_FORMAT", "/path"),
        ({"path": "data/none.mol"}, "NOT_FOUND", "/path"),
        ({}, "INVALID_INPUT", "/value"),
    ],
)
async def test_bad_ketcher_sources_with_no_page_are_located(
    mcp_client: Any, root_files: Path, args: dict[str, Any], code: str, where: str
) -> None:
    async with mcp_client(extensions=[McpApps()]) as client:
        result = await client.call_tool("ketcher_open", args)
    err = located_error(result)
    assert (err["code"], err["where"]) == (code, where), err
    assert not (result.meta or {}).get(APP["depictionMeta"])
