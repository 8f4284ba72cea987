"""The kernel side of the structure Viewer widget (ipywidgets 8).

A :class:`Viewer` shows one structure file in a Mol* viewer in the page. The
structure's bytes travel to the page as a binary buffer (an ipywidgets
``Bytes`` trait), never as base64 in JSON. The page reads the file with
Mol*'s parsers and owns the state; this object mirrors it as read-only
synced traits (``ready``, ``error``, ``revision``, ``composition``, ``view``)
and sends typed ``act`` operations (never JavaScript) to the page's
Dispatcher, the same operations an agent's ``act`` calls become
(docs/architecture.md, "Viewer").
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import traitlets
from ipywidgets import CallbackDispatcher
from traitlets import Bool, Bytes, Dict, Int, Unicode

from .._version import MODULE_NAME, MODULE_VERSION_RANGE
from ..errors import MolspaceError, StructureSourceError, ViewerControlError
from ..page_request import PageRequest
from ..page_wait import check_timeout, wait_for_page
from ..page_widget import PageWidget
from .frames import DEFAULT_FRAME_BUDGET, FrameSource, frame_reply, served_coordinates
from .source import TOPOLOGY, mvs_state_of, normalize_coordinates_source, normalize_structure_source
from .trajectory_source import trajectory_object_kind, trajectory_sources

#: Traits only the page may change; the kernel reads them.
_PAGE_OWNED = (
    "ready",
    "error",
    "revision",
    "composition",
    "view",
    "last_change",
    "summary",
    "undo_steps",
    "redo_steps",
    "undo_label",
    "redo_label",
    "_play_owner",
)

#: The operations of ``act`` (the contract's ``ViewerAction``), with their required fields.
OPERATIONS: dict[str, tuple[str, ...]] = {
    "focus": ("selector",),
    "highlight": ("selector",),
    "clear_highlight": (),
    "select": ("selector",),
    "clear_selection": (),
    "set_representation": ("selector", "representation"),
    "set_color": ("selector", "color"),
    "reset_camera": (),
    "set_background": ("color",),
    "screenshot": (),
    "undo": (),
    "redo": (),
    "set_transparency": ("selector", "value"),
    "measure_distance": ("start", "end"),
    "label": ("selector", "text"),
    "apply_mvs": ("state",),
    "clear_labels": (),
    "clear_measurements": (),
    "goto_frame": ("frame",),
    "play": (),
    "pause": (),
}


@dataclass(frozen=True)
class ViewerChange:
    """A change of a Viewer, as seen by :meth:`Viewer.on_change`.

    Attributes
    ----------
    frame : int
        The trajectory frame drawn, 0-based (0 for one structure).
    playing : bool
        Whether the trajectory is playing.
    revision : int
        The Viewer's revision after the change.
    source : str
        Who changed it: ``"ui"`` (a button or the frame slider), ``"kernel"`` (a cell),
        ``"agent"`` (MCP), ``"play"`` (playback).
    summary : str
        What the change did, e.g. ``"frame 12, 12 ps"``.
    """

    frame: int
    playing: bool
    revision: int
    source: str
    summary: str


def _mvs_state(state: Any) -> dict[str, Any] | None:
    """One MVS state as a dict (``None`` passes through)."""
    if state is None:
        return None
    parsed = mvs_state_of(state, "state", ViewerControlError)
    if parsed is not None:
        return parsed
    raise ViewerControlError(
        "INVALID_INPUT",
        f"apply_mvs takes one MVS state, not a {type(state).__name__}",
        "state",
        "Pass a dict, MVSJ text, a molviewspec Root (create_builder()) or State, or None.",
        {"type": type(state).__name__},
    )


class Viewer(PageWidget):
    """A structure file shown in a Mol* viewer.

    Parameters
    ----------
    source : str, os.PathLike, bytes, rdkit.Chem.Mol, dict or molviewspec Root/State
        A path under the notebook's working directory, structure text (a
        ``str`` with newlines) or bytes; an RDKit ``Mol`` (SDF, one model per
        3D conformer, ETKDG-embedded when it has none); or one MVS state
        (dict, MVSJ text, ``molviewspec.create_builder()`` or ``State``), drawn
        as by :meth:`apply_mvs` over the structure it downloads, which the page
        fetches (its hosts allow-listed); see
        :func:`molspace.viewer.source.normalize_structure_source`.
    format : str, optional
        ``pdb``, ``pdbqt``, ``mmcif``, ``bcif``, ``sdf``, ``mol``, ``mol2``,
        ``xyz``, ``gro``, ``lammpstrj`` (a LAMMPS dump: a trajectory), or the
        topologies ``psf`` and ``prmtop`` (these need ``coordinates``); default:
        from the path's extension (``.extxyz`` is ``xyz``). Required for text and bytes.
    coordinates : str, os.PathLike or bytes, optional
        A trajectory of ``source`` (its topology): ``.xtc``, ``.dcd``, ``.trr``,
        ``.nc``/``.ncdf`` (AMBER NetCDF) or ``.lammpstrj``, read by Mol* in the page;
        the Viewer then steps and plays its frames (:attr:`frame`, :meth:`play`).
        A file of more models than the Viewer superposes (20) is a trajectory too.
    coordinates_format : str, optional
        ``xtc``, ``dcd``, ``trr``, ``nctraj`` or ``lammpstrj``; default: from the extension.
    frames : slice or range, optional
        With an MDAnalysis ``Universe`` / ``AtomGroup`` or an MDTraj ``Trajectory`` as ``source``
        (written as PDB + DCD by the library, :mod:`molspace.viewer.trajectory_source`): the frame
        indices to show, e.g. ``slice(0, None, 10)``; default every frame.
    frame_budget : int, optional
        Most frames the page holds (default 1000, the JupyterLab setting ``trajectoryFrameBudget``'s
        default). A trajectory of more frames, or over ``viewerSourceBytes``, stays in the kernel
        and the page fetches the frames it draws (DCD files and bytes, MDAnalysis and MDTraj
        objects; :mod:`molspace.viewer.frames`); given here, it bounds the page's frame cache too.
    title : str, optional
        Shown in ``observe``; default: the path.
    **kwargs
        Passed to :class:`ipywidgets.DOMWidget` (e.g. ``layout``).

    Raises
    ------
    molspace.errors.StructureSourceError
        ``UNSUPPORTED_FORMAT``, ``VALIDATION_FAILED``, ``NOT_FOUND``,
        ``FORBIDDEN``, ``TOO_LARGE`` or ``INVALID_INPUT`` for a source that
        cannot be a structure. A file Mol* cannot read (e.g. truncated) is
        reported by the page in :attr:`error`.

    Notes
    -----
    ``composition`` (models, chains with ``auth_asym_id``/``label_asym_id``,
    residue and atom counts, polymer types, ligands, waters, ``dropped``: what
    the file carries that is not drawn), ``view``
    (layers, colours, focus, selection, highlight, background), ``revision``,
    ``ready`` and ``error`` (``None`` or ``{code, message, where, fix,
    details}``) are set by the page, read-only here. Operations return at
    once; the page applies them and the traits update when the kernel next
    processes messages (after the cell finishes); the answer lands in
    :attr:`last_result`.

    Examples
    --------
    >>> v = Viewer("data/1cbs.cif")                                   # doctest: +SKIP
    >>> v.focus({"auth_asym_id": "A", "auth_seq_id": 200})            # doctest: +SKIP
    >>> v.act([{"op": "set_representation", "selector": "ligand", "representation": "spacefill"}])  # doctest: +SKIP
    """

    _control_error = ViewerControlError

    _model_name = Unicode("ViewerModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)
    _view_name = Unicode("ViewerView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)

    _data = Bytes(None, allow_none=True).tag(sync=True)
    _mvs = Dict(
        default_value=None,
        allow_none=True,
        help="An MVS source: the state drawn first (apply_mvs).",
    ).tag(sync=True)
    format = Unicode("", help="Structure format (MVS parse format name).").tag(sync=True)
    _coordinates = Bytes(None, allow_none=True).tag(sync=True)
    coordinates_format = Unicode("", help="Trajectory coordinates format, or ''.").tag(sync=True)
    coordinates_name = Unicode("", help="Where the coordinates came from, or ''.").tag(sync=True)
    _frames_on_demand = Dict(
        default_value=None,
        allow_none=True,
        help="A trajectory the kernel serves by frame: frames, atoms, format, timePs, notes.",
    ).tag(sync=True)
    frame_budget = Int(
        0, help="Most frames the page holds of an on-demand trajectory (0: the JupyterLab setting)."
    ).tag(sync=True)
    _play_owner = Unicode("").tag(sync=True)
    source_name = Unicode(
        "", help="Where the structure came from: a path, 'text', 'bytes', 'rdkit.Mol' or 'mvs'."
    ).tag(sync=True)
    title = Unicode("").tag(sync=True)

    ready = Bool(False, help="True once the current view is drawn.").tag(sync=True)
    revision = Int(0, help="Advanced by every applied act batch.").tag(sync=True)
    composition = Dict(
        default_value=None, allow_none=True, help="Bounded composition computed by the page."
    ).tag(sync=True)
    view = Dict(
        default_value=None,
        allow_none=True,
        help="What is shown: layers, colors, focus, selection, highlight.",
    ).tag(sync=True)
    summary = Unicode("", help="One line: what the Viewer shows.").tag(sync=True)
    undo_steps = Int(0, help="Steps undo() can take back (each act batch is one step).").tag(
        sync=True
    )
    redo_steps = Int(0, help="Steps redo() can apply again.").tag(sync=True)
    undo_label = Unicode(
        "", help="What undo() takes back and who made it, e.g. 'focus ligand (agent)'."
    ).tag(sync=True)
    redo_label = Unicode("", help="What redo() applies again and who made it.").tag(sync=True)

    _fallback_kind = "viewer"

    def _fallback_state(self) -> dict[str, Any]:
        return {"title": self.title, "summary": f"molspace Viewer: {self.title} ({self.format})"}

    def __init__(
        self,
        source: Any,
        format: str | None = None,  # noqa: A002 - the public keyword
        title: str | None = None,
        *,
        coordinates: Any = None,
        coordinates_format: str | None = None,
        frames: Any = None,
        frame_budget: int | None = None,
        **kwargs: Any,
    ):
        if frame_budget is not None and (
            isinstance(frame_budget, bool) or not isinstance(frame_budget, int) or frame_budget < 2
        ):
            raise StructureSourceError(
                "INVALID_INPUT",
                f"frame_budget is a number of frames from 2, not {frame_budget!r}"[:200],
                "frame_budget",
                "Pass e.g. frame_budget=200, or leave it out (the default, 1000 frames).",
            )
        budget = frame_budget if frame_budget is not None else DEFAULT_FRAME_BUDGET
        coords = None
        served: FrameSource | None = None
        if trajectory_object_kind(source) is not None:
            if coordinates is not None or format is not None:
                raise StructureSourceError(
                    "INVALID_INPUT",
                    f"a {type(source).__name__} carries its own topology and frames; "
                    f"{'coordinates=' if coordinates is not None else 'format='} does not apply",
                    "coordinates" if coordinates is not None else "format",
                    "Drop it; choose frames with frames=slice(start, stop, step).",
                )
            normalized, sent = trajectory_sources(source, frames, budget)
            if isinstance(sent, FrameSource):
                served = sent
            else:
                coords = sent
        elif frames is not None:
            raise StructureSourceError(
                "INVALID_INPUT",
                "frames= takes frames of an MDAnalysis Universe/AtomGroup or an MDTraj Trajectory",
                "frames",
                "Drop frames=, or pass such an object as the source.",
                {"type": type(source).__name__},
            )
        else:
            normalized = normalize_structure_source(source, format)
        if coordinates is not None:
            if normalized.mvs is not None:
                raise StructureSourceError(
                    "INVALID_INPUT",
                    "an MVS state names its own data; coordinates= does not apply",
                    "coordinates",
                    "Pass a topology or structure file as the source, or drop coordinates=.",
                )
            served = served_coordinates(coordinates, coordinates_format, budget)
            if served is None:
                coords = normalize_coordinates_source(coordinates, coordinates_format)
        elif normalized.format in TOPOLOGY:
            raise StructureSourceError(
                "VALIDATION_FAILED",
                f"a {normalized.format} file is a topology: it has atoms and bonds but no coordinates",
                "coordinates",
                "Pass its trajectory too: Viewer(topology, coordinates='run.dcd').",
                {"format": normalized.format},
            )
        self.last_screenshot: bytes | None = None
        # to_mvsx's requests waiting for the page: id -> None, then the page's answer
        self._archives: dict[str, dict[str, Any] | None] = {}
        self._change_callbacks = CallbackDispatcher()
        self._served = served
        super().__init__(
            _data=normalized.data or None,
            _mvs=normalized.mvs,
            format=normalized.format,
            source_name=normalized.name,
            _coordinates=coords.data if coords else None,
            coordinates_format=coords.format if coords else "",
            coordinates_name=coords.name if coords else (served.name if served else ""),
            _frames_on_demand=served.describe() if served else None,
            frame_budget=frame_budget or 0,
            title=title if title is not None else normalized.name,
            **kwargs,
        )
        self.observe(self._notify_change, names=["revision"])
        self._constructed = True

    # ------------------------------------------------------------------ read-only page state
    @traitlets.validate(*_PAGE_OWNED)
    def _page_owned(self, proposal: dict[str, Any]) -> Any:
        return self._page_owned_value(
            proposal,
            "use viewer.act([...]) or focus(), select(), set_representation(), set_color(), ...",
        )

    # ------------------------------------------------------------------ operations
    def act(
        self,
        actions: list[dict[str, Any]],
        *,
        expected_revision: int | None = None,
        dry_run: bool = False,
        action_id: str | None = None,
    ) -> PageRequest:
        """Send a batch of operations; the page applies all of them as one revision, or none.

        Parameters
        ----------
        actions : list of dict
            ``[{"op": "focus", "selector": ...}, ...]``; ops and fields as the
            ``act`` tool (:data:`OPERATIONS`). Selectors are MolViewSpec
            component selectors (``"ligand"``, ``{"auth_asym_id": "A", "auth_seq_id": 42}``, ...).
        expected_revision : int, optional
            Refuse (REVISION_CONFLICT in :attr:`last_result`) if the Viewer changed since.
        dry_run : bool
            Validate and report only.
        action_id : str, optional
            Idempotency key.

        Returns
        -------
        PageRequest
            Shown in a cell as what happened; ``.wait()`` waits for the page's answer (raising
            its refusal as :class:`ViewerControlError`). The answer also lands in :attr:`last_result`.

        Raises
        ------
        ViewerControlError
            ``INVALID_INPUT`` for a batch that is not a non-empty list of
            operations with known ``op`` and their required fields. Selectors
            that match nothing come back as ``NOT_FOUND`` in :attr:`last_result`.
        """
        if not isinstance(actions, list) or not actions:
            raise ViewerControlError(
                "INVALID_INPUT",
                "act takes a non-empty list of operations",
                "actions",
                'Pass e.g. [{"op": "focus", "selector": "ligand"}].',
            )
        for i, a in enumerate(actions):
            op = a.get("op") if isinstance(a, dict) else None
            if op not in OPERATIONS:
                raise ViewerControlError(
                    "INVALID_INPUT",
                    f"operation {i} has op {op!r}, which is not a Viewer operation",
                    f"actions/{i}/op",
                    f"Use one of: {', '.join(OPERATIONS)}.",
                    {"op": op if isinstance(op, str) else repr(op), "ops": list(OPERATIONS)},
                )
            missing = [f for f in OPERATIONS[op] if f not in a]
            if missing:
                raise ViewerControlError(
                    "INVALID_INPUT",
                    f"operation {i} ({op}) lacks {', '.join(missing)}",
                    f"actions/{i}/{missing[0]}",
                    f"Give {op} its fields: {', '.join(OPERATIONS[op])}.",
                    {"op": op, "missing": missing},
                )
        message: dict[str, Any] = {"actions": actions}
        if dry_run:
            message["dryRun"] = True
        if expected_revision is not None:
            message["expectedRevision"] = int(expected_revision)
        if action_id is not None:
            message["actionId"] = action_id
        return self._control(message)

    def focus(self, selector: Any) -> PageRequest:
        """Point the camera at what ``selector`` matches."""
        return self.act([{"op": "focus", "selector": selector}])

    def highlight(self, selector: Any) -> PageRequest:
        """Highlight what ``selector`` matches (replaces the highlight)."""
        return self.act([{"op": "highlight", "selector": selector}])

    def select(self, selector: Any) -> PageRequest:
        """Select what ``selector`` matches (replaces the selection)."""
        return self.act([{"op": "select", "selector": selector}])

    def clear_selection(self) -> PageRequest:
        """Clear the selection."""
        return self.act([{"op": "clear_selection"}])

    def set_representation(self, selector: Any, representation: str) -> PageRequest:
        """Draw ``selector`` as ``representation`` (cartoon, ball_and_stick, spacefill, surface, ...)."""
        return self.act(
            [{"op": "set_representation", "selector": selector, "representation": representation}]
        )

    def set_color(self, selector: Any, color: str) -> PageRequest:
        """Colour ``selector`` with ``color`` (``#rrggbb``) in every layer."""
        return self.act([{"op": "set_color", "selector": selector, "color": color}])

    def reset_camera(self) -> PageRequest:
        """Reset the camera to show the whole structure."""
        return self.act([{"op": "reset_camera"}])

    def set_background(self, color: str) -> PageRequest:
        """Set the background colour (``#rrggbb``)."""
        return self.act([{"op": "set_background", "color": color}])

    def undo(self) -> PageRequest:
        """Take back the last applied batch (one step)."""
        return self.act([{"op": "undo"}])

    def redo(self) -> PageRequest:
        """Apply the last undone batch again."""
        return self.act([{"op": "redo"}])

    def screenshot(
        self,
        width: int | None = None,
        height: int | None = None,
        format: str = "png",  # noqa: A002 - the public keyword
    ) -> PageRequest:
        """Ask the page for an image of the view; it lands in :attr:`last_screenshot` (bytes).

        ``format`` is ``"png"`` (default here), ``"jpeg"`` or ``"webp"``; without ``width``
        and ``height`` the image is at most ``LIMITS.screenshotDefaultWidth`` (512) pixels wide.
        """
        op: dict[str, Any] = {"op": "screenshot", "format": format}
        if width is not None:
            op["width"] = int(width)
        if height is not None:
            op["height"] = int(height)
        return self.act([op])

    def save_png(
        self,
        path: str | os.PathLike[str],
        width: int | None = None,
        height: int | None = None,
        timeout: float = 30.0,
    ) -> int:
        """Write the view's current frame as a PNG file: :meth:`screenshot`, waited for in the cell.

        Without ``width`` and ``height`` the image is at most ``LIMITS.screenshotDefaultWidth``
        (512) pixels wide. An agent's ``export`` to ``.png`` writes the canvas's own size.

        Parameters
        ----------
        path : str or PathLike
            A file ending in ``.png`` in an existing folder; replaced whole.
        timeout : float
            Seconds to wait for the page, in (0, 600].

        Returns
        -------
        int
            The file's size, bytes.

        Raises
        ------
        MolspaceError
            ``INVALID_INPUT`` at ``Viewer.save_png`` (not ``.png``, a folder, a missing folder);
            the screenshot's refusal (``ViewerControlError``) or a wait's ``PageWaitError``.
        """
        import time

        target = _file_to_write(path, ".png", "Viewer.save_png", "frame.png")
        before = self.last_screenshot
        self.screenshot(width, height, format="png").wait(timeout)
        # the answer is marked before its image is kept (_on_result): bounded, short polls
        deadline = time.monotonic() + timeout
        while self.last_screenshot is before and time.monotonic() < deadline:
            time.sleep(0.02)
        shot = self.last_screenshot
        if shot is None or shot is before:
            raise _bad_images("images", "missing from the page's answer")
        target.write_bytes(shot)
        return len(shot)

    def to_mvsx(self, path: str | os.PathLike[str], timeout: float = 30.0) -> int:
        """Write the current view as a MolViewSpec archive (``.mvsx``), made by the page, waited for in the cell.

        The archive is the one an agent's ``export`` to ``.mvsx`` writes: ``index.mvsj`` (the MVS
        state the Viewer draws: layers, colours, transparency, labels, measurements, focus,
        frame) and the structure file (with a trajectory's coordinates) beside it, the state's
        URLs naming them. A Viewer of an MVS state stores its state only; its data stays at its
        URLs. The page builds it (``src/viewer/viewerArchive.ts``) and sends the bytes to the
        kernel, which writes the file; it opens in Mol*, MolViewSpec viewers and
        ``molspace.Story``.

        Parameters
        ----------
        path : str or PathLike
            A file ending in ``.mvsx`` in an existing folder; replaced whole.
        timeout : float
            Seconds to wait for the page, in (0, 600].

        Returns
        -------
        int
            The file's size, bytes (at most 8 MiB: one message from the page to the kernel).

        Raises
        ------
        MolspaceError
            ``INVALID_INPUT`` at ``Viewer.to_mvsx`` (not ``.mvsx``, a folder, a missing folder);
            ``TOO_LARGE`` at ``Viewer.to_mvsx`` for frames served on demand (the archive would
            carry every frame) or an archive over 8 MiB; the page's refusal as a
            ``ViewerControlError`` at ``Viewer.to_mvsx`` (e.g. ``VALIDATION_FAILED``: the
            Viewer failed to load), its ``details["page_where"]`` where the page located it.
        PageWaitError
            ``TIMEOUT`` if no page answered within ``timeout`` (the Viewer is not shown in an
            open JupyterLab page); ``NO_PAGE`` outside a Jupyter kernel; ``INVALID_INPUT`` for a
            bad ``timeout``.
        """
        import uuid

        where = "Viewer.to_mvsx"
        target = _file_to_write(path, ".mvsx", where, "view.mvsx")
        if self._served is not None:
            raise MolspaceError(
                "TOO_LARGE",
                f"This Viewer's {self._served.frames} frames stay in the kernel (served on demand): "
                "an archive would carry them all.",
                where,
                "Show fewer frames in the cell (frames=slice(0, None, 10)) so they are sent whole, "
                "then export that Viewer.",
                {"frames": self._served.frames},
            )
        check_timeout(timeout, f"{self._label()}.to_mvsx")
        request_id = uuid.uuid4().hex
        self._archives[request_id] = None
        try:
            self.send({"type": "mvsx", "id": request_id})
            wait_for_page(
                lambda: self._archives.get(request_id) is not None,
                timeout=timeout,
                what="the page's .mvsx archive",
                where=f"{self._label()}.to_mvsx",
                fix="Show the Viewer in an open JupyterLab page (make it a cell's last line, or "
                "display(viewer)), wait for it to load, or pass a longer timeout",
            )
            answer = self._archives[request_id] or {}
        finally:
            self._archives.pop(request_id, None)
        if "data" not in answer:
            e = MolspaceError.from_dict(answer.get("error"), where_default=where)
            raise ViewerControlError(
                e.code, e.message, where, e.fix, {**e.details, "page_where": e.where}
            )
        data: bytes = answer["data"]
        target.write_bytes(data)
        return len(data)

    def set_transparency(self, selector: Any, value: float) -> PageRequest:
        """Make ``selector`` transparent in every layer: ``value`` 0 (opaque) .. 1 (invisible)."""
        return self.act([{"op": "set_transparency", "selector": selector, "value": float(value)}])

    def measure_distance(self, start: Any, end: Any) -> PageRequest:
        """Draw the distance between two atoms; each selector must match exactly one atom.

        The distance (Å, Mol*'s) lands in ``last_result["structuredContent"]["applied"][0]["distance"]``
        and in ``view["measurements"]``; a selector matching several atoms is a
        ``VALIDATION_FAILED`` there, naming the selector (``start``/``end``) and the atom count.
        """
        return self.act([{"op": "measure_distance", "start": start, "end": end}])

    def label(self, selector: Any, text: str) -> PageRequest:
        """Show ``text`` (plain text, at most ``LIMITS["viewerLabelChars"]`` characters) on ``selector``."""
        return self.act([{"op": "label", "selector": selector, "text": text}])

    def clear_labels(self) -> PageRequest:
        """Remove every label (one undoable step)."""
        return self.act([{"op": "clear_labels"}])

    def clear_measurements(self) -> PageRequest:
        """Remove every distance measurement (one undoable step)."""
        return self.act([{"op": "clear_measurements"}])

    def apply_mvs(self, state: Any) -> PageRequest:
        """Draw an MVS state in place of the layers; ``None`` goes back to the layers.

        Parameters
        ----------
        state : dict, str, molviewspec Root or State, or None
            One MolViewSpec state (``{"kind": "single", "root", "metadata"}``). The page
            validates it as a Story (Mol*'s MVS checks; resource hosts), answering
            ``VALIDATION_FAILED`` / ``FORBIDDEN`` located at ``/actions/0/state/...``.

        Raises
        ------
        ViewerControlError
            ``INVALID_INPUT`` for something that is not one MVS state.
        """
        return self.act([{"op": "apply_mvs", "state": _mvs_state(state)}])

    def _control(self, args: dict[str, Any]) -> PageRequest:
        ops = [str(a.get("op")) for a in args["actions"]]
        shown = ", ".join(ops[:4]) + (", …" if len(ops) > 4 else "")
        action = ops[0] if len(ops) == 1 else f"act [{shown}]"
        return self._send_control(args, action + (" (dry run)" if args.get("dryRun") else ""))

    def _handle_page_message(
        self, _widget: Any, content: dict[str, Any], buffers: list[Any]
    ) -> None:
        if isinstance(content, dict) and content.get("type") == "frames":
            if self._served is not None:
                answer, data = frame_reply(self._served, content)
                self.send(answer, data)
            return
        if isinstance(content, dict) and content.get("type") == "mvsx":
            self._archive_answer(content, buffers)
            return
        super()._handle_page_message(_widget, content, buffers)

    def _archive_answer(self, content: dict[str, Any], buffers: list[Any]) -> None:
        """Keep a page's answer to :meth:`to_mvsx`'s request: the first one (an ok one replaces a refusal)."""
        request_id = content.get("id")
        if not isinstance(request_id, str) or request_id not in self._archives:
            return  # not asked, or asked and given up on (timed out)
        kept = self._archives[request_id]
        if kept is not None and "data" in kept:
            return  # a second page's answer
        error = content.get("error")
        if error is not None:
            if kept is None:
                self._archives[request_id] = {"error": error}
            return
        if not buffers:
            self._archives[request_id] = kept or {
                "error": {
                    "code": "VALIDATION_FAILED",
                    "message": "The page answered the .mvsx request with no archive.",
                    "where": "Viewer.to_mvsx",
                    "fix": _RELOAD_FIX,
                    "details": {},
                }
            }
            return
        self._archives[request_id] = {"data": bytes(buffers[0])}

    def _on_result(self, content: dict[str, Any]) -> None:
        """Keep a screenshot's image (the last one) as :attr:`last_screenshot`.

        Raises
        ------
        ViewerControlError
            ``VALIDATION_FAILED`` at ``images`` (not a list) or ``images/<i>/data`` (not base64
            text): the page's answer is kept, :attr:`last_screenshot` is left as it was.
        """
        images = content.get("images")
        if images is None:
            return
        if not isinstance(images, list):
            raise _bad_images("images", f"a {type(images).__name__}, not a list of images")
        shot: bytes | None = None
        for i, image in enumerate(images):
            if isinstance(image, dict) and str(image.get("mimeType", "")).startswith("image/"):
                data = image.get("data")
                try:
                    if not isinstance(data, str):
                        raise TypeError(type(data).__name__)
                    shot = base64.b64decode(data, validate=True)
                except (TypeError, ValueError) as e:  # binascii.Error is a ValueError
                    raise _bad_images(f"images/{i}/data", f"not base64 text ({e})") from None
        if shot is not None:
            self.last_screenshot = shot

    # ------------------------------------------------------------------ trajectories
    @property
    def frames(self) -> int:
        """Frames of the trajectory (``composition.trajectory.frames``); 1 for one structure, 0 before the page read it."""
        if not self.composition:
            return 0
        trajectory = self.composition.get("trajectory")
        return int(trajectory["frames"]) if isinstance(trajectory, dict) else 1

    @property
    def frame(self) -> int:
        """The trajectory frame drawn, 0-based. Setting it sends ``goto_frame`` (as :meth:`goto_frame`)."""
        return int((self.view or {}).get("frame", 0))

    @frame.setter
    def frame(self, value: int) -> None:
        self.goto_frame(value)

    @property
    def playing(self) -> bool:
        """Whether the trajectory is playing."""
        return bool((self.view or {}).get("play"))

    def goto_frame(self, frame: int) -> PageRequest:
        """Draw trajectory frame ``frame`` (0-based); out of range: ``VALIDATION_FAILED`` in :attr:`last_result`."""
        if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
            raise ViewerControlError(
                "INVALID_INPUT",
                f"a frame is an int from 0, not {frame!r}"[:200],
                "frame",
                f"Pass a frame from 0 to {max(self.frames - 1, 0)}.",
                {"frames": self.frames},
            )
        return self.act([{"op": "goto_frame", "frame": frame}])

    def play(self, fps: float = 10, loop: bool = True) -> PageRequest:
        """Play the trajectory at ``fps`` frames per second (0.5 to 60), from the frame drawn; ``loop``: start again after the last."""
        return self.act([{"op": "play", "fps": fps, "loop": bool(loop)}])

    def pause(self) -> PageRequest:
        """Stop playing at the frame drawn."""
        return self.act([{"op": "pause"}])

    def on_change(self, callback: Callable[[ViewerChange], None], remove: bool = False) -> None:
        """Call ``callback(ViewerChange)`` after every change of the Viewer (a frame, an operation).

        Changes by a button, the frame slider, a cell, an agent or playback alike; the callback
        runs in the kernel when the page's new state arrives.
        """
        self._change_callbacks.register_callback(callback, remove=remove)

    def _notify_change(self, _change: dict[str, Any]) -> None:
        last = self.last_change or {}
        self._change_callbacks(
            ViewerChange(
                frame=self.frame,
                playing=self.playing,
                revision=self.revision,
                source=str(last.get("source", "")),
                summary=str(last.get("summary", "")),
            )
        )

    def to_html(self, path: str | os.PathLike[str]) -> int:
        """Write this Viewer as one HTML file that opens anywhere, offline (``file://``, no network).

        The file carries Mol* and the structure (with a trajectory's coordinates) inline, and
        shows the current view: layers, colours, transparency, labels, measurements, camera
        resets and frame (the ``view`` the page last synced; the initial view before it drew).

        Parameters
        ----------
        path : str or PathLike
            A file ending in ``.html`` in an existing folder; replaced whole.

        Returns
        -------
        int
            The file's size, bytes (at most ``limits.exportHtmlBytes``, 64 MiB).

        Raises
        ------
        MolspaceError
            ``INVALID_INPUT`` (not ``.html``, a folder, a missing folder), ``UNSUPPORTED_FORMAT``
            (a Viewer of an MVS state, whose structure the page downloads), ``TOO_LARGE``.
        """
        from ..app.export import export_html
        from ..app.structure import AppFile, app_structure
        from ..contract import manifest

        if self._data is None:
            raise MolspaceError(
                "UNSUPPORTED_FORMAT",
                "This Viewer shows an MVS state, whose structure the page downloads: there is no file to export.",
                "Viewer.to_html",
                "Export a Viewer of a file, text or bytes (molspace.Viewer(path)).",
                {"title": self.title},
            )
        if self._served is not None:
            raise MolspaceError(
                "TOO_LARGE",
                f"This Viewer's {self._served.frames} frames stay in the kernel (served on demand): "
                "an HTML file would carry them all.",
                "Viewer.to_html",
                "Export a Viewer of fewer frames (frames=slice(0, None, 10), or a shorter file).",
                {"frames": self._served.frames},
            )
        name = self.source_name or f"structure.{self.format}"
        coordinates = (
            (
                self.coordinates_format,
                AppFile(self.coordinates_name or "coordinates", bytes(self._coordinates)),
            )
            if self._coordinates
            else None
        )
        title = self.title or name
        meta = {
            manifest()["app"]["structureMeta"]: {
                **app_structure(
                    self.format,
                    AppFile(name, bytes(self._data)),
                    coordinates,
                    title,
                    manifest()["structureFormats"]["binary"],
                ),
                "view": dict(self.view) if self.view else None,
            }
        }
        return export_html(meta, title, path, where="Viewer.to_html")

    def __repr__(self) -> str:
        if self.error:
            return f"<molspace.Viewer {self.title!r}: error {self.error.get('code')}: {self.error.get('message')}>"
        if not self.composition:
            return f"<molspace.Viewer {self.title!r} ({self.format}): not shown yet (display it; the page reads it)>"
        return f"<molspace.Viewer {self.summary}, revision {self.revision}>"


#: What fixes a page answer the kernel cannot read: the page and kernel of one version.
_RELOAD_FIX = "Reload the JupyterLab page so it runs the same molspace version as the kernel."


def _file_to_write(path: str | os.PathLike[str], suffix: str, where: str, example: str) -> Path:
    """``path`` as a file a cell may write: ending in ``suffix``, not a folder, in an existing folder.

    Raises
    ------
    MolspaceError
        ``INVALID_INPUT`` at ``where``, naming what is wrong and an ``example`` name.
    """
    target = Path(path).expanduser()
    bad = (
        f"{str(path)!r} does not end in {suffix}."
        if target.suffix.lower() != suffix
        else f"{str(path)!r} is a folder."
        if target.is_dir()
        else f"The folder of {str(path)!r} does not exist."
        if not target.parent.is_dir()
        else None
    )
    if bad is not None:
        raise MolspaceError(
            "INVALID_INPUT",
            bad,
            where,
            f"Pass a file name ending in {suffix} in an existing folder (e.g. '{example}').",
            {"path": str(path)},
        )
    return target


def _bad_images(where: str, what: str) -> ViewerControlError:
    """The page's screenshot answer at ``where`` is ``what`` (bounded: ``what`` names a type)."""
    return ViewerControlError(
        "VALIDATION_FAILED",
        f"The page's screenshot image is {what[:200]}",
        where,
        "Reload the JupyterLab page so it runs the same molspace version as the kernel, "
        "then take the screenshot again.",
    )
