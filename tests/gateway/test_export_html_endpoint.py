"""``POST {base_url}molspace/export-html``, the page's own ``export`` to ``.html`` (a docked panel's
*Export…*), on a real Jupyter server: the page's answer written as the gateway writes an agent's
(the same file a cell's ``to_html`` writes), under the root only, an existing file refused
without ``overwrite``, bad paths and bad answers refused located, Jupyter's credentials needed.
The page half: ``src/panel/__tests__/exportFromUi.spec.ts``; the real button and file opened
offline: ``ui-tests/tests/exportHtml.spec.ts``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
from test_export_tool import APP, METAS, TABLE, data_block

from molspace.app.export import export_html


def answer(kind: str = "panel", meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The page's ``export`` result for a call that writes ``.html`` (``src/tools/export.ts``)."""
    return {
        "path": "x.html",
        "target": "scores" if kind == "panel" else f"{kind}-1",
        "kind": kind,
        **({"type": "table"} if kind == "panel" else {}),
        "bytes": 0,
        "replaced": False,
        "app": meta or METAS[kind],
    }


async def post(server_root: str, token: str | None, body: Any) -> httpx2.Response:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"token {token}"
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(
            server_root + "molspace/export-html", headers=headers, content=content
        )


async def test_writes_the_panel_file_a_cell_writes_and_asks_before_replacing(
    server_root: str, token: str, jp_root_dir: Path, tmp_path: Path
) -> None:
    r = await post(
        server_root, token, {"path": "./share/scores.html", "overwrite": False, "answer": answer()}
    )
    assert r.status_code == 200, r.text
    written = jp_root_dir / "share" / "scores.html"
    body = r.json()
    assert body["structuredContent"] == {
        "path": "share/scores.html",
        "target": "scores",
        "kind": "panel",
        "type": "table",
        "bytes": written.stat().st_size,
        "replaced": False,
    }
    assert "share/scores.html" in body["text"] and "L1" not in body["text"]
    meta = data_block(written)["result"]["_meta"]
    assert meta[APP["panelMeta"]]["content"] == TABLE
    reference = tmp_path / "cell.html"
    export_html(meta, "Scores", reference, where="test", app="panel")
    assert written.read_bytes() == reference.read_bytes()

    again = await post(
        server_root, token, {"path": "share/scores.html", "overwrite": False, "answer": answer()}
    )
    assert again.status_code == 403
    assert (again.json()["error"]["code"], again.json()["error"]["where"]) == (
        "FORBIDDEN",
        "/overwrite",
    )
    replaced = await post(
        server_root, token, {"path": "share/scores.html", "overwrite": True, "answer": answer()}
    )
    assert replaced.status_code == 200 and replaced.json()["structuredContent"]["replaced"] is True


async def test_refuses_located_and_writes_nothing(
    server_root: str, token: str, jp_root_dir: Path
) -> None:
    cases: list[tuple[Any, int, str, str]] = [
        ({"path": "../out.html", "answer": answer()}, 403, "FORBIDDEN", "/path"),
        ({"path": "/tmp/out.html", "answer": answer()}, 403, "FORBIDDEN", "/path"),
        ({"path": "out.csv", "answer": answer()}, 400, "UNSUPPORTED_FORMAT", "/path"),
        # An answer that is not the App data of its kind: nothing the server can write.
        (
            {"path": "m.html", "answer": answer("panel", {APP["storyMeta"]: {"title": "x"}})},
            500,
            "INTERNAL",
            "/app",
        ),
        (b"not json", 400, "INVALID_INPUT", ""),
        ({"path": "a.html"}, 400, "INVALID_INPUT", ""),
        ({"path": "a.html", "answer": answer(), "overwrite": "yes"}, 400, "INVALID_INPUT", ""),
    ]
    for body, status, code, where in cases:
        r = await post(server_root, token, body)
        assert r.status_code == status, (body, r.status_code, r.text)
        error = r.json()["error"]
        assert (error["code"], error["where"]) == (code, where) and error["fix"], (body, error)
    assert not [p for p in jp_root_dir.rglob("*.html")]
    assert not (jp_root_dir.parent / "out.html").exists()


async def test_needs_jupyter_credentials(server_root: str, jp_root_dir: Path) -> None:
    r = await post(server_root, None, {"path": "a.html", "answer": answer()})
    assert r.status_code == 403 and not (jp_root_dir / "a.html").exists()
