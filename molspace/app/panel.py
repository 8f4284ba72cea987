"""``render_panel`` for the Panel App (``ui://molspace/panel``): the panel a result carries.

With no JupyterLab page and a client that renders MCP Apps, the gateway answers ``render_panel``
itself: the content is checked here (the shared bounds and shapes, by the kernel's checks in
:mod:`molspace.panel.content`, imported on use: ``molspace.app`` sits below the widget kinds),
and the panel travels in the result's ``_meta["molspace/panel"]`` (``AppPanel`` of
``src/contract/app.ts``), which the App renders with the notebook's renderer
(``src/app/appPanel.ts``). With a page open, the page docks the panel as before and
:func:`panel_meta_beside_page` adds the same panel for the chat's App.

A molecule grid's pictures: Ketcher's Indigo engine is WebAssembly, which the MCP Apps default CSP
blocks, so the server draws the molecules with RDKit (``molspace[rdkit]``) as SVG, at most
``panelDepictionChars`` each and ``panelDepictionsChars`` together; a molecule left undrawn is
shown as its name and SMILES with a located note. Links (focus a Viewer, go to a frame or a Story
step) name widgets of a JupyterLab page: the App shows no link buttons.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from ..contract import LIMITS
from ..errors import MolspaceError

#: Side of a grid depiction, px (the page's grid cells are about this size).
DEPICTION_SIZE = (240, 180)
#: Largest depiction, characters of SVG; and all of a grid's together (the kernel's bounds).
DEPICTION_CHARS: int = int(LIMITS.get("panelDepictionChars", 64 * 1024))
DEPICTIONS_CHARS: int = int(LIMITS.get("panelDepictionsChars", 1024 * 1024))

log = logging.getLogger(__name__)

_DEFAULT_TITLES = {
    "markdown": "Notes",
    "table": "Table",
    "chart": "Chart",
    "molecules": "Molecules",
}


def _no_page(how_to_connect: str, argument: str, why: str) -> MolspaceError:
    return MolspaceError(
        "NO_PAGE",
        f"No JupyterLab page is connected to molspace: {why}",
        f"/{argument}",
        f"Leave out {argument} to show a new panel in this chat's App, or: {how_to_connect}",
        {"pages": []},
    )


def checked_content(content: Any) -> dict[str, Any]:
    """``content`` (a ``PanelContent`` the tool's schema accepted) after the kernel's bound checks.

    Raises
    ------
    MolspaceError
        ``TOO_LARGE`` over a bound (``details.limit`` names it), ``INVALID_INPUT`` for a malformed
        one, ``UNSUPPORTED_FORMAT`` for a molecule ``file`` (read by the page), each at its
        ``/content/...`` pointer.
    """
    from ..panel.content import normalize_panel_content  # the panel kind's checks, on use

    if not isinstance(content, dict) or content.get("type") not in _DEFAULT_TITLES:
        raise MolspaceError(
            "INVALID_INPUT",
            "content needs a type: markdown, table, chart or molecules.",
            "/content/type",
            "Pass {type: 'markdown', markdown: '...'} or another PanelContent.",
            {},
        )
    if content["type"] == "molecules" and content.get("file") is not None:
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            "With no JupyterLab page, a molecule grid is shown from molecules, not a file: the page reads SDF/CSV files.",
            "/content/file",
            "Pass molecules: [{smiles, name?, properties?}, ...] (read the file yourself), or open JupyterLab.",
            {},
        )
    try:
        return normalize_panel_content(content)
    except MolspaceError as e:
        # The kernel's pointers name the cell's argument (``content/rows``): here they are the tool's.
        where = e.where if e.where.startswith("/") else f"/{e.where}"
        raise MolspaceError(e.code, e.message, where, e.fix, e.details) from None


def grid_depictions(content: dict[str, Any]) -> tuple[dict[str, str], str | None]:
    """RDKit's SVG depictions of a grid's molecules by SMILES, in order, within the bounds.

    Returns
    -------
    tuple
        ``(depictions, note)``: ``note`` says why some molecules have none (``None`` when all
        are drawn): no RDKit on the server, the bound reached, or RDKit could not read one.
    """
    molecules = content.get("molecules") or []
    if not molecules:
        return {}, None
    try:
        from rdkit import Chem, rdBase
        from rdkit.Chem.Draw import rdMolDraw2D
    except ImportError:
        return {}, "The server has no RDKit (pip install 'molspace[rdkit]' where Jupyter runs)."
    rdBase.DisableLog("rdApp.error")  # a SMILES RDKit cannot read is said in the note, not the log
    drawn: dict[str, str] = {}
    total, unread, over = 0, 0, 0
    for m in molecules:
        smiles = m["smiles"]
        if smiles in drawn:
            continue
        if total >= DEPICTIONS_CHARS:
            over += 1
            continue
        mol = Chem.MolFromSmiles(smiles)
        if mol is None or mol.GetNumAtoms() == 0:
            unread += 1
            continue
        drawer = rdMolDraw2D.MolDraw2DSVG(*DEPICTION_SIZE)
        rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol)
        drawer.FinishDrawing()
        svg = drawer.GetDrawingText()
        if len(svg) > DEPICTION_CHARS or total + len(svg) > DEPICTIONS_CHARS:
            over += 1
            total = DEPICTIONS_CHARS if total + len(svg) > DEPICTIONS_CHARS else total
            continue
        drawn[smiles] = svg
        total += len(svg)
    reasons = []
    if unread:
        reasons.append(f"RDKit could not read {unread} SMILES")
    if over:
        reasons.append(
            f"{over} were past the depictions' bound (panelDepictionChars {DEPICTION_CHARS:,} each, "
            f"panelDepictionsChars {DEPICTIONS_CHARS:,} together)"
        )
    return drawn, ("; ".join(reasons) + ".") if reasons else None


def app_panel(args: dict[str, Any], panel_id: str, title: str | None) -> dict[str, Any]:
    """``_meta["molspace/panel"]`` (``AppPanel``) of ``args`` (``render_panel``'s arguments).

    Raises what :func:`checked_content` raises.
    """
    content = checked_content(args.get("content"))
    panel: dict[str, Any] = {
        "panelId": panel_id,
        "title": title or args.get("title") or _DEFAULT_TITLES[content["type"]],
        "content": content,
    }
    if content["type"] == "molecules":
        depictions, note = grid_depictions(content)
        panel["depictions"] = depictions
        if note:
            panel["note"] = note
    return panel


async def panel_answer(
    args: dict[str, Any], manifest: Any, how_to_connect: str
) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """``render_panel`` with no page: ``(structuredContent, text, _meta)`` for the Panel App.

    Raises
    ------
    MolspaceError
        ``NO_PAGE`` at ``/target``, ``/expectedRevision`` or ``/placement`` (they name a page's
        panel); :func:`checked_content`'s errors.
    """
    if args.get("target") is not None:
        raise _no_page(how_to_connect, "target", "target names a panel of a page.")
    if args.get("expectedRevision") is not None:
        raise _no_page(how_to_connect, "expectedRevision", "only a page's panel has a revision.")
    if args.get("placement") == "inline":
        raise _no_page(how_to_connect, "placement", "inline panels are a notebook cell's.")
    app = manifest.app
    # A new panel without an id: one no earlier App shows (an App follows its panelId).
    panel = app_panel(args, str(args.get("panelId") or f"panel-{uuid.uuid4().hex[:8]}"), None)
    kind = panel["content"]["type"]
    summary: dict[str, Any] = {
        "resourceUri": app["panel"],
        "panelId": panel["panelId"],
        "title": panel["title"],
        "type": kind,
    }
    notes = []
    if kind == "molecules":
        summary["depicted"] = len(panel["depictions"])
        count = len(panel["content"].get("molecules") or [])
        notes.append(
            f"{summary['depicted']} of {count} distinct molecules drawn by the server's RDKit"
        )
        if panel.get("note"):
            notes.append(panel["note"])
    if panel["content"].get("links") or any(
        isinstance(m, dict) and m.get("link") for m in panel["content"].get("molecules") or []
    ):
        notes.append(
            "its links are not followed in the App (they act on a JupyterLab page's widgets)"
        )
    structured: dict[str, Any] = {
        "created": True,
        "previousRevision": None,
        "changes": [],
        "replayed": False,
        "app": summary,
    }
    text = (
        f'render_panel: {kind} panel "{panel["title"]}" is shown in the molspace App in this chat: no '
        "JupyterLab page is open"
        + ("; " + "; ".join(notes) if notes else "")
        + f". The App tells you if it cannot render it; render_panel with panelId "
        f"{panel['panelId']!r} updates it there; to dock it, open JupyterLab."
    )
    return structured, text, {app["panelMeta"]: panel}


def panel_meta_beside_page(
    args: dict[str, Any], structured: dict[str, Any], manifest: Any
) -> dict[str, Any]:
    """The ``_meta`` for the App of a ``render_panel`` a page answered: the same panel, for the chat.

    ``structured`` is the page's answer (its ``panel`` names the id and title). A molecule ``file``
    (read by the page) adds nothing.

    Raises as the `_meta` builder above does (a located error at the bad content field).
    """
    state = structured.get("panel") or {}
    if (args.get("content") or {}).get("file") is not None:
        return {}
    panel = app_panel(args, str(state.get("panelId") or "panel"), state.get("title"))
    return {manifest.app["panelMeta"]: panel}


def relayed_depictions(args: dict[str, Any]) -> dict[str, str] | None:
    """The first page of a ``render_panel`` grid the gateway relays to a page, drawn by RDKit.

    The same depictions a cell's grid syncs as ``_depictions`` (:mod:`molspace.panel.depictions`:
    220x150 SVG, at most ``panelDepictionChars`` each and ``panelDepictionsChars`` together, off
    with ``MOLSPACE_GRID_DEPICTIONS=off``), sent in the call's ``CallContext.depictions``, not in
    its arguments, so the page shows them at once and asks Indigo only for the rest. ``None`` for
    other content, a molecule ``file`` (the page reads it), or a server without RDKit.
    """
    content = args.get("content")
    if not isinstance(content, dict) or content.get("type") != "molecules":
        return None
    if content.get("file") is not None or not isinstance(content.get("molecules"), list):
        return None
    from ..panel.depictions import grid_depictions as first_page  # the panel kind's, on use

    try:
        return first_page(content) or None
    except Exception:  # a molecule RDKit fails on: Indigo draws the grid, as without RDKit
        log.exception("molspace: drawing a render_panel grid with RDKit failed")
        return None
