"""``Viewer.to_html`` / ``Story.to_html``: one HTML file, written whole or not at all, every bad path located.

That the file draws from ``file://`` with the network off is ``ui-tests/tests/exportHtml.spec.ts``.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

import molspace
from molspace.app import export
from molspace.contract import manifest
from molspace.errors import MolspaceError

ROOT = Path(__file__).resolve().parents[1]
APP = manifest()["app"]


def data_block(html: str) -> dict:
    m = re.search(
        r'<script type="application/json" id="molspace-export">(.*?)</script>', html, re.S
    )
    assert m, "no data block"
    return json.loads(m.group(1))


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding a PDB (Viewer paths are read under it)."""
    (tmp_path / "1hpv.pdb").write_bytes((ROOT / "tests/data/structures/1hpv.pdb").read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_viewer_is_one_file_with_its_structure_and_no_url(here: Path) -> None:
    size = molspace.Viewer("1hpv.pdb", title="HIV-1 <protease>").to_html(here / "v.html")
    html = (here / "v.html").read_text(encoding="utf-8")
    assert size == len(html.encode("utf-8"))
    shown = data_block(html)["result"]["_meta"][APP["structureMeta"]]
    assert (
        shown["format"] == "pdb" and shown["structure"]["data"] == (here / "1hpv.pdb").read_text()
    )
    assert "<title>HIV-1 &lt;protease&gt;</title>" in html
    # Nothing is loaded by URL: no src or href attribute at all.
    assert not re.search(r"\s(src|href)\s*=", html.split("<script>", 1)[0])
    assert stat.S_IMODE((here / "v.html").stat().st_mode) & 0o044, (
        "readable by others, as open() makes files"
    )


def test_a_story_archive_travels_base64(here: Path) -> None:
    mvsx = (ROOT / "tests/data/1h9t.mvsx").read_bytes()
    molspace.Story(mvsx).to_html(here / "s.html")
    shown = data_block((here / "s.html").read_text(encoding="utf-8"))["result"]["_meta"][
        APP["storyMeta"]
    ]
    assert shown["format"] == "mvsx" and shown["file"]["encoding"] == "base64"


@pytest.mark.parametrize(
    ("target", "code"),
    [
        ("v.txt", "INVALID_INPUT"),
        ("folder.html", "INVALID_INPUT"),
        ("missing/v.html", "INVALID_INPUT"),
    ],
)
def test_bad_paths_are_located_and_nothing_is_written(here: Path, target: str, code: str) -> None:
    (here / "folder.html").mkdir()
    before = sorted(p.name for p in here.iterdir())
    with pytest.raises(MolspaceError) as e:
        molspace.Viewer("1hpv.pdb").to_html(here / target)
    assert (e.value.code, e.value.where) == (code, "Viewer.to_html") and e.value.fix
    assert sorted(p.name for p in here.iterdir()) == before


def test_over_the_bound_is_too_large_and_nothing_is_written(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export, "MAX_HTML_BYTES", 1000)
    with pytest.raises(MolspaceError) as e:
        molspace.Viewer("1hpv.pdb").to_html(here / "v.html")
    assert e.value.code == "TOO_LARGE" and e.value.details["limit"] == 1000
    assert not (here / "v.html").exists() and not list(here.glob(".molspace-export-*"))


def test_a_viewer_of_an_mvs_state_has_no_file_to_export(here: Path) -> None:
    state = json.loads((ROOT / "tests/data/1cbs.mvsj").read_text())
    with pytest.raises(MolspaceError) as e:
        molspace.Viewer(state).to_html(here / "v.html")
    assert e.value.code == "UNSUPPORTED_FORMAT" and "MVS state" in e.value.message


def test_a_panel_is_one_file_with_its_content_and_no_url(tmp_path: Path) -> None:
    hostile = "# Findings\n<img src=x onerror=alert(1)><script>alert(2)</script></script><!--"
    panel = molspace.Panel(hostile, title="Notes <b>", panel_id="notes")
    size = panel.to_html(tmp_path / "p.html")
    html = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert size == len(html.encode("utf-8"))
    shown = data_block(html)["result"]["_meta"][APP["panelMeta"]]
    assert shown == {
        "panelId": "notes",
        "title": "Notes <b>",
        "content": {"type": "markdown", "markdown": hostile},
    }
    # The Panel App's script, not the viewer's; the markdown is JSON data (no "<" at all), never markup.
    assert (export.STATIC_DIR / "panel.js").read_text(encoding="utf-8")[:2000] in html
    assert "<title>Notes &lt;b&gt;</title>" in html
    assert (
        html.count("</script>") == 3
        and "onerror" not in html.split("<script>", 1)[0].split('id="molspace-export">', 1)[0]
    )
    assert not re.search(r"\s(src|href)\s*=", html.split("<script", 1)[0])
    # A panel fetches nothing.
    assert "connect-src 'none'" in html


def test_a_grid_panel_carries_the_servers_pictures(tmp_path: Path) -> None:
    pytest.importorskip("rdkit")
    molspace.Panel(["c1ccccc1O", "not((a smiles"], title="Grid").to_html(tmp_path / "g.html")
    shown = data_block((tmp_path / "g.html").read_text(encoding="utf-8"))["result"]["_meta"][
        APP["panelMeta"]
    ]
    assert list(shown["depictions"]) == ["c1ccccc1O"] and "could not read 1 SMILES" in shown["note"]


@pytest.mark.parametrize("target", ["p.txt", "folder.html", "missing/p.html"])
def test_bad_panel_paths_are_located_and_nothing_is_written(tmp_path: Path, target: str) -> None:
    (tmp_path / "folder.html").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(MolspaceError) as e:
        molspace.Panel("# x").to_html(tmp_path / target)
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "Panel.to_html") and e.value.fix
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_panel_over_the_bound_is_too_large_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export, "MAX_HTML_BYTES", 1000)
    with pytest.raises(MolspaceError) as e:
        molspace.Panel("# x").to_html(tmp_path / "p.html")
    assert (e.value.code, e.value.where) == ("TOO_LARGE", "Panel.to_html")
    assert e.value.details["limit"] == 1000 and "panel" in e.value.fix
    assert not (tmp_path / "p.html").exists() and not list(tmp_path.glob(".molspace-export-*"))
