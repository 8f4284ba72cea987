"""``export`` to ``.html`` through the real gateway, with the official MCP Python SDK client.

The page (here a real bridge websocket client speaking the protocol) answers with the widget's
App ``_meta``; the gateway joins it with the App's script, as a cell's ``to_html`` does, writes
the file under the Jupyter root, and answers the model with the path and size only. Bad paths and
an existing file are refused before the page is asked; the page's own refusals pass through
located. The real page and the written files opened offline in Chromium:
``ui-tests/tests/exportHtml.spec.ts``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import located_error

from molspace.app import export as export_module
from molspace.app.export import export_html
from molspace.contract import manifest

APP = manifest()["app"]
PDB = (
    "REMARK 999 </script><script>document.title='pwned'</script>\n"
    "ATOM      1  N   PRO A   1       0.000   0.000   0.000  1.00  0.00           N\nEND\n"
)
TABLE = {
    "type": "table",
    "columns": [{"name": "ligand"}, {"name": "score", "type": "number"}],
    "rows": [["L1", -7.5], ["L2", -6.1]],
}
METAS: dict[str, dict[str, Any]] = {
    "viewer": {
        APP["structureMeta"]: {
            "format": "pdb",
            "structure": {"name": "1hpv.pdb", "encoding": "utf8", "data": PDB},
            "coordinates": None,
            "title": "HIV-1 protease",
            "view": None,
        }
    },
    "story": {
        APP["storyMeta"]: {
            "format": "mvsx",
            "file": {
                "name": "story.mvsx",
                "encoding": "base64",
                "data": base64.b64encode(b"PK\x03\x04 a Story archive").decode(),
            },
            "title": "Tour",
        }
    },
    "panel": {APP["panelMeta"]: {"panelId": "scores", "title": "Scores", "content": TABLE}},
}


def exporting_page(kind: str, target: str, meta: dict[str, Any] | None = None) -> Any:
    """A page handler that answers ``export`` with ``meta`` as the real page does (``src/tools/export.ts``)."""

    def handler(tool: str, args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        assert tool == "export"
        if args.get("target") not in (None, target):
            return {
                "ok": False,
                "error": {
                    "code": "NOT_FOUND",
                    "message": f'No widget with id "{args["target"]}" in this page.',
                    "where": "/target",
                    "fix": "Call observe and use a widget id it lists.",
                    "details": {},
                },
            }
        if not args["path"].endswith(".html"):
            return {
                "ok": False,
                "error": {
                    "code": "UNSUPPORTED_FORMAT",
                    "message": f'A {kind} exports as one .html file; "{args["path"]}" does not end with .html.',
                    "where": "/path",
                    "fix": "Name the file with .html.",
                    "details": {"kind": kind},
                },
            }
        answer: dict[str, Any] = {
            "path": args["path"].removeprefix("./"),
            "target": target,
            "kind": kind,
            "bytes": 0,
            "replaced": False,
            # Only a call the gateway relays to write .html is answered with the data.
            **({"app": meta or METAS[kind]} if context.get("writesHtml") is True else {}),
        }
        if kind == "panel":
            answer["type"] = "table"
        return {"ok": True, "structuredContent": answer, "text": "sent to the gateway"}

    return handler


def data_block(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    block = text.split('<script type="application/json" id="molspace-export">', 1)[1]
    return json.loads(block.split("</script>", 1)[0])


@pytest.mark.parametrize(
    ("kind", "target", "app"),
    [
        ("viewer", "viewer-1", "viewer"),
        ("story", "story-1", "viewer"),
        ("panel", "scores", "panel"),
    ],
)
async def test_export_html_writes_the_file_a_cell_writes_and_tells_only_path_and_size(
    mcp_client: Any,
    connect_page: Any,
    jp_root_dir: Path,
    tmp_path: Path,
    kind: str,
    target: str,
    app: str,
) -> None:
    page = await connect_page()
    page.handler = exporting_page(kind, target)
    async with mcp_client() as client:
        result = await client.call_tool(
            "export", {"target": target, "path": f"./share/{kind}.html"}
        )
    assert result.is_error is False, result.content[0].text
    written = jp_root_dir / "share" / f"{kind}.html"
    size = written.stat().st_size
    assert result.structured_content == {
        "path": f"share/{kind}.html",
        "target": target,
        "kind": kind,
        **({"type": "table"} if kind == "panel" else {}),
        "bytes": size,
        "replaced": False,
    }
    # The model reads the path and size, never the data.
    assert len(result.content) == 1 and f"share/{kind}.html" in result.content[0].text
    assert "ATOM" not in result.content[0].text and "pwned" not in result.content[0].text
    assert page.calls[-1]["context"]["writesHtml"] is True
    # The same file a cell's to_html writes from the same _meta (a panel's built by the same builder).
    meta = data_block(written)["result"]["_meta"]
    if kind == "panel":
        assert meta[APP["panelMeta"]]["content"] == TABLE
    else:
        assert meta == METAS[kind]
    title = next(iter(meta.values()))["title"]
    reference = tmp_path / "cell.html"
    export_html(meta, title, reference, where="test", app=app)
    assert written.read_bytes() == reference.read_bytes()


async def test_export_html_refuses_located_and_writes_nothing(
    mcp_client: Any, connect_page: Any, jp_root_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = await connect_page()
    page.handler = exporting_page("viewer", "viewer-1")
    (jp_root_dir / "taken.html").write_text("keep me", encoding="utf-8")
    async with mcp_client() as client:
        call = client.call_tool
        climbing = located_error(
            await call("export", {"target": "viewer-1", "path": "../out.html"})
        )
        absolute = located_error(
            await call("export", {"target": "viewer-1", "path": "/tmp/out.html"})
        )
        taken = located_error(await call("export", {"target": "viewer-1", "path": "taken.html"}))
        asked = len(page.calls)
        unknown = located_error(await call("export", {"target": "nope", "path": "n.html"}))
        suffix = located_error(await call("export", {"target": "viewer-1", "path": "v.csv"}))
        # A page that answers without the data the gateway writes: INTERNAL, nothing written.
        page.handler = exporting_page("viewer", "viewer-1", {APP["storyMeta"]: {"title": "x"}})
        malformed = located_error(await call("export", {"target": "viewer-1", "path": "m.html"}))
        # Over the export bound: TOO_LARGE at /target.
        page.handler = exporting_page("viewer", "viewer-1")
        monkeypatch.setattr(export_module, "MAX_HTML_BYTES", 1000)
        large = located_error(await call("export", {"target": "viewer-1", "path": "big.html"}))
        monkeypatch.undo()
        replaced = await call(
            "export", {"target": "viewer-1", "path": "taken.html", "overwrite": True}
        )
    assert (climbing["code"], climbing["where"]) == ("FORBIDDEN", "/path")
    assert (absolute["code"], absolute["where"]) == ("FORBIDDEN", "/path")
    assert (taken["code"], taken["where"]) == ("FORBIDDEN", "/overwrite")
    # Refused before the page was asked: no data crossed the bridge for them.
    assert asked == 0
    assert (unknown["code"], unknown["where"]) == ("NOT_FOUND", "/target")
    assert (suffix["code"], suffix["where"]) == ("UNSUPPORTED_FORMAT", "/path")
    assert (malformed["code"], malformed["where"]) == ("INTERNAL", "/app")
    assert (large["code"], large["where"], large["details"]["limit"]) == (
        "TOO_LARGE",
        "/target",
        1000,
    )
    assert sorted(p.name for p in jp_root_dir.iterdir()) == ["taken.html"]
    assert replaced.structured_content["replaced"] is True
    assert "HIV-1 protease" in (jp_root_dir / "taken.html").read_text(encoding="utf-8")
