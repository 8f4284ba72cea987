"""The kernel side of the inline report panel (ipywidgets 8).

A :class:`Panel` shows one bounded artifact in the notebook (markdown, a
table, a Vega-Lite chart), rendered in the page by JupyterLab's rendermime
(docs/architecture.md, "Report panels"). An agent can replace its content by
``panel_id`` with ``render_panel``; :meth:`Panel.update` sends the same
operation (a ``control`` message, never JavaScript) through the page's
Dispatcher.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import traitlets
from traitlets import Bool, Dict, Int, Unicode

from .._version import MODULE_NAME, MODULE_VERSION_RANGE
from ..errors import PanelContentError
from ..page_request import PageRequest
from ..page_widget import PageWidget
from .content import ContentOptions, check_content_options, normalize_panel_content
from .depictions import grid_depictions

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: Traits only the page may change after the panel is made.
_PAGE_OWNED = ("_content", "title", "revision", "ready", "error", "last_change")

_PANEL_ID_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")

#: The mime type of JupyterLab's Vega-Lite 5 renderer (the chart's static fallback).
VEGALITE_MIME = "application/vnd.vegalite.v5+json"


class Panel(PageWidget):
    """One report panel inline in the notebook.

    Parameters
    ----------
    content : str, pandas.DataFrame, altair chart, list, or dict
        Markdown text, a DataFrame (a sortable table, or a molecule grid with
        ``smiles_column=`` or an RDKit molecule column), an Altair chart or a
        Vega-Lite dict (a chart), a list of SMILES or RDKit molecules (a
        molecule grid), or a contract ``PanelContent`` dict; see
        :func:`molspace.panel.content.normalize_panel_content`.
    title : str, optional
        Shown above the content.
    panel_id : str, optional
        The id agents address it by (``render_panel`` ``panelId``); default:
        the widget's model id. 1-64 of ``A-Z a-z 0-9 _ . -``.
    units : mapping, optional
        DataFrame tables: the unit of each column by name.
    smiles_column, molecule_column, name_column : str, optional
        Molecule grids from a DataFrame: the SMILES column, or the RDKit
        molecule column (default: the first one), and the name column; other
        columns become properties.
    page_size : int, optional
        Molecule grids: molecules per page (default 24).
    viewer : molspace.Viewer or str, optional
        DataFrames and charts: the Viewer (or its widget id) a row's link focuses
        or steps to a frame of.
    selector_column : str, optional
        DataFrames: the column holding each row's MolViewSpec component
        selector (``"ligand"``, ``{"label_asym_id": "A", "beg_auth_seq_id": 10}``
        or a list of such dicts); a click on the row's *Focus* button runs
        ``act`` focus on ``viewer`` through the page's Dispatcher (source ``ui``).
    story : molspace.Story or str, optional
        DataFrames: the Story (or its widget id) a row's link steps.
    step_column : str, optional
        DataFrames: the column holding each row's Story snapshot key; the
        row's *Go to* button runs ``story_control`` goto.
    frame_column : str, optional
        DataFrames: the column of each row's 0-based trajectory frame (ints);
        the row's *Frame n* button runs ``act`` goto_frame on ``viewer``. Charts
        (an Altair chart of such a DataFrame, or a spec dict): the field of
        each data value holding its frame; a click on the value's mark (e.g.
        a point of an RMSD-vs-frame line with ``point=True``) goes to it.
        One of ``selector_column`` / ``frame_column`` / ``step_column``; a
        selector or step column is not shown (a frame column is), and a
        missing cell (None/NaN) means no link. A link whose widget is gone
        shows a located ``STALE_TARGET`` / ``NOT_FOUND`` in the panel.
    links : sequence of (dict or None), optional
        Charts: one ``PanelLink`` dict per value of the chart's inline data, by
        index, or None (``{"op": "goto_frame", "viewer": v, "frame": 12}``;
        ``focus`` with ``selector``, ``goto`` with ``story`` and ``key``); at
        most as many as values. An Altair chart's dataset is inlined so the
        indices are its DataFrame's rows.

    Raises
    ------
    molspace.errors.PanelContentError
        ``UNSUPPORTED_FORMAT``, ``INVALID_INPUT`` or ``TOO_LARGE`` (the
        limit's name in ``details["limit"]``); for links, ``INVALID_INPUT`` at
        the argument, ``links/<i>/<field>`` or ``content/<column>/<row>`` (a
        frame that is not an int from 0, more links than chart values, a
        Story as ``viewer=``), ``VALIDATION_FAILED`` there for a frame past
        ``viewer.frames``.

    Notes
    -----
    The page checks the content again (cell types, the Vega-Lite schema) and
    reports a failure as ``error`` (a located error dict) in the panel and
    here. ``content``, ``title``, ``revision``, ``ready`` and ``error`` are
    set by the page after construction. The saved output carries a static
    fallback (markdown, an HTML table, or the Vega-Lite spec) for viewers
    without molspace.
    """

    _control_error = PanelContentError

    _model_name = Unicode("PanelModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)
    _view_name = Unicode("PanelView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)
    _fallback_kind = "panel"

    _content = Dict().tag(sync=True)
    #: The first page's RDKit depictions of a molecule grid, SVG by SMILES (``depictions.py``).
    _depictions = Dict().tag(sync=True)
    panel_id = Unicode("", help="The id agents address the panel by; '' means the model id.").tag(
        sync=True
    )
    title = Unicode("").tag(sync=True)
    revision = Int(0, help="Advanced by every content change.").tag(sync=True)
    ready = Bool(False, help="True once the content is rendered.").tag(sync=True)

    def __init__(
        self,
        content: Any,
        *,
        title: str | None = None,
        panel_id: str | None = None,
        units: Mapping[str, str] | None = None,
        smiles_column: str | None = None,
        molecule_column: str | None = None,
        name_column: str | None = None,
        page_size: int | None = None,
        viewer: Any = None,
        selector_column: str | None = None,
        story: Any = None,
        step_column: str | None = None,
        frame_column: str | None = None,
        links: Sequence[Any] | None = None,
        **kwargs: Any,
    ):
        options: ContentOptions = {
            "units": units,
            "smiles_column": smiles_column,
            "molecule_column": molecule_column,
            "name_column": name_column,
            "page_size": page_size,
            "viewer": viewer,
            "selector_column": selector_column,
            "story": story,
            "step_column": step_column,
            "frame_column": frame_column,
            "links": links,
        }
        normalized = normalize_panel_content(content, **options)
        if panel_id is not None:
            _check_panel_id(panel_id)
        super().__init__(
            _content=normalized,
            _depictions=grid_depictions(normalized),
            title=title or "",
            panel_id=panel_id or "",
            **kwargs,
        )
        self._constructed = True

    @property
    def content(self) -> dict[str, Any]:
        """The content shown (the contract's ``PanelContent``), as the page last reported it."""
        return dict(self._content)

    def update(
        self,
        content: Any,
        *,
        title: str | None = None,
        expected_revision: int | None = None,
        action_id: str | None = None,
        **options: Unpack[ContentOptions],
    ) -> PageRequest:
        """Replace the content through the page's Dispatcher (``render_panel``).

        Parameters
        ----------
        content : as for :class:`Panel`
        **options : ContentOptions
            ``units``, ``smiles_column``, ``molecule_column``, ``name_column``, ``page_size``,
            ``viewer``, ``selector_column``, ``story``, ``step_column``, ``frame_column``,
            ``links``: as for :class:`Panel`.
        title : str, optional
        expected_revision : int, optional
            Refuse (``REVISION_CONFLICT`` in :attr:`last_result`) unless the panel is at this revision.
        action_id : str, optional
            Idempotency key: a retried id is not applied twice.

        Returns
        -------
        PageRequest
            Shown in a cell as what happened; ``.wait()`` waits for the page's answer (raising
            its refusal as :class:`PanelContentError`). The answer (the contract's kernel
            ``result``) also lands in :attr:`last_result` when the kernel next handles messages.

        Raises
        ------
        PanelContentError
            As for :class:`Panel`.
        """
        check_content_options(options, "Panel.update")
        content = normalize_panel_content(content, **options)
        message: dict[str, Any] = {"content": content}
        # Synced before the control message, so the page has them when it renders the content.
        self._depictions = grid_depictions(content)
        if title is not None:
            message["title"] = title
        if expected_revision is not None:
            message["expectedRevision"] = int(expected_revision)
        if action_id is not None:
            message["actionId"] = action_id
        return self._send_control(message, "update")

    def to_html(self, path: str | os.PathLike[str]) -> int:
        """Write this panel as one HTML file that opens anywhere, offline (``file://``, no network).

        The file is the Panel App (the notebook's panel renderer, JupyterLab's markdown renderer
        and sanitizer, its Vega-Lite renderer) with the content the page last reported inline; a
        molecule grid's pictures are drawn here by RDKit (``molspace[rdkit]``) within the
        depiction bounds, and a molecule without one shows its SMILES with a note. Links (to a
        Viewer or a Story) are not followed in the file.

        Parameters
        ----------
        path : str or PathLike
            A file ending in ``.html`` in an existing folder; replaced whole.

        Returns
        -------
        int
            The file's size, bytes (at most ``limits.exportHtmlBytes``).

        Raises
        ------
        MolspaceError
            ``INVALID_INPUT`` (not ``.html``, a folder, a missing folder), ``TOO_LARGE``, at
            ``Panel.to_html``.
        """
        from ..app.export import export_html
        from ..app.panel import app_panel
        from ..contract import manifest

        content = dict(self._content)
        panel = app_panel({"content": content}, self.panel_id or self.model_id, self.title or None)
        title = str(panel["title"])
        meta = {manifest()["app"]["panelMeta"]: panel}
        return export_html(meta, title, path, where="Panel.to_html", app="panel")

    # ------------------------------------------------------------------ read-only page state
    @traitlets.validate(*_PAGE_OWNED)
    def _page_owned(self, proposal: dict[str, Any]) -> Any:
        return self._page_owned_value(proposal, "use panel.update(content).")

    # ------------------------------------------------------------------ static fallback
    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        """The widget view plus a static fallback for viewers without molspace.

        Markdown as ``text/markdown``, a table as ``text/html`` (every cell
        escaped), a chart as its Vega-Lite spec (``application/vnd.vegalite.v5+json``).
        """
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        bundle = dict(bundle)
        bundle.update(static_fallback(self._content, self.title))
        return bundle

    def __repr__(self) -> str:
        kind = self._content.get("type", "?")
        if self.error:
            return f"<molspace.Panel {kind} {self.title!r}: error {self.error.get('code')}: {self.error.get('message')}>"
        return f"<molspace.Panel {kind} {self.title!r}: revision {self.revision}>"


def static_fallback(content: Mapping[str, Any], title: str = "") -> dict[str, Any]:
    """The mime bundle that shows ``content`` without molspace (see :meth:`Panel._repr_mimebundle_`)."""
    kind = content.get("type")
    if kind == "markdown":
        heading = f"**{title}**\n\n" if title else ""
        return {"text/markdown": heading + str(content.get("markdown", ""))}
    if kind == "chart":
        return {VEGALITE_MIME: content.get("spec", {})}
    if kind == "table":
        columns = content.get("columns", [])
        head = "".join(
            f"<th>{html.escape(str(c.get('name')))}{' (' + html.escape(str(c['unit'])) + ')' if c.get('unit') else ''}</th>"
            for c in columns
        )
        body = "".join(
            "<tr>"
            + "".join(f"<td>{'' if v is None else html.escape(str(v))}</td>" for v in row)
            + "</tr>"
            for row in content.get("rows", [])
        )
        caption = f"<caption>{html.escape(title)}</caption>" if title else ""
        return {
            "text/html": f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        }
    if kind == "molecules":
        rows = "".join(
            "<tr>"
            + f"<td>{html.escape(str(m.get('name', '')))}</td><td><code>{html.escape(str(m.get('smiles', '')))}</code></td>"
            + f"<td>{html.escape('; '.join(f'{k}: {v}' for k, v in (m.get('properties') or {}).items()))}</td>"
            + "</tr>"
            for m in content.get("molecules", [])
        )
        caption = f"<caption>{html.escape(title)}</caption>" if title else ""
        return {
            "text/html": f"<table>{caption}<thead><tr><th>name</th><th>SMILES</th><th>properties</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        }
    return {}


def _check_panel_id(panel_id: Any) -> None:
    if (
        not isinstance(panel_id, str)
        or not (1 <= len(panel_id) <= 64)
        or not set(panel_id) <= _PANEL_ID_CHARS
    ):
        raise PanelContentError(
            "INVALID_INPUT",
            f"panel_id {panel_id!r} is not a panel id",
            "panel_id",
            "Use 1-64 of A-Z a-z 0-9 _ . -",
            {"panel_id": panel_id if isinstance(panel_id, str) else repr(panel_id)},
        )
