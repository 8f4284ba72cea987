"""The kernel side of the Story widget (ipywidgets 8).

A :class:`Story` shows a MolViewSpec Story in a Mol* viewer in the page.
Its state lives in the page; this object mirrors it as read-only synced
traits and sends typed ``story_control`` operations (never JavaScript) to
the page's Dispatcher, the same operations an agent's MCP calls become.
"""

from __future__ import annotations

import io
import json
import lzma
import os
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import traitlets
from ipywidgets import CallbackDispatcher
from traitlets import Bool, Bytes, Dict, Int, List, Unicode

from .._version import MODULE_NAME, MODULE_VERSION_RANGE
from ..contract import LIMITS
from ..errors import StoryControlError
from ..page_request import PageRequest
from ..page_widget import PageWidget
from .source import MAX_STORY_BYTES, normalize_story_source

#: Traits only the page may change; the kernel reads them.
_PAGE_OWNED = (
    "title",
    "snapshots",
    "index",
    "key",
    "playing",
    "revision",
    "ready",
    "error",
    "last_change",
    "_play_owner",
)


@dataclass(frozen=True)
class StoryChange:
    """A change of a Story's position or playback, as seen by :meth:`Story.on_change`.

    Attributes
    ----------
    index : int
        0-based snapshot index now shown.
    key : str
        Its snapshot key.
    playing : bool
    revision : int
        The Story's revision after the change.
    source : str
        Who changed it: ``"ui"`` (a button), ``"kernel"`` (a cell), ``"agent"`` (MCP), ``"play"``.
    summary : str
    """

    index: int
    key: str
    playing: bool
    revision: int
    source: str
    summary: str


class Story(PageWidget):
    """A MolViewSpec Story played in a Mol* viewer.

    Parameters
    ----------
    source : str, os.PathLike, dict, bytes, or molviewspec object
        MVSJ text, a path to an ``.mvsj``/``.mvsx`` file, a dict, MVSX bytes,
        or a ``molviewspec`` ``Root``/``State``/``States``/``MVSX``.
    **kwargs
        Passed to :class:`ipywidgets.DOMWidget` (e.g. ``layout``).

    Raises
    ------
    molspace.errors.StorySourceError
        When ``source`` cannot be a Story (see :func:`molspace.story.source.normalize_story_source`).

    Notes
    -----
    ``index``, ``key``, ``snapshots``, ``playing``, ``revision``, ``ready`` and
    ``error`` are set by the page (read-only here). ``error`` is ``None`` or a
    located error dict ``{code, message, where, fix, details}``. Control
    methods return at once; the page applies the step and the traits update
    when the kernel next processes messages (after the cell finishes).

    Examples
    --------
    >>> story = Story("examples/data/1cbs-story.mvsx")   # doctest: +SKIP
    >>> story.next(); story.goto("ligand")                # doctest: +SKIP
    """

    _control_error = StoryControlError

    _model_name = Unicode("StoryModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)
    _view_name = Unicode("StoryView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)

    _mvsj = Unicode("").tag(sync=True)
    _mvsx = Bytes(None, allow_none=True).tag(sync=True)

    title = Unicode("", help="Story title (MVS global metadata).").tag(sync=True)
    snapshots = List(
        Dict(), help="Bounded snapshot metadata: index, key, title, description, durations."
    ).tag(sync=True)
    index = Int(0, help="0-based index of the snapshot shown.").tag(sync=True)
    key = Unicode("", help="Key of the snapshot shown.").tag(sync=True)
    playing = Bool(False).tag(sync=True)
    revision = Int(0, help="Advanced by every change of position or playback.").tag(sync=True)
    ready = Bool(False, help="True once the current snapshot is rendered.").tag(sync=True)
    # Which page owns the one Play timer when several pages show this Story (the page's id; "" when paused).
    _play_owner = Unicode("").tag(sync=True)

    _fallback_kind = "story"

    def _fallback_state(self) -> dict[str, Any]:
        """Title and step list from the source, for a notebook saved before (or without) the page."""
        if self.snapshots or self.error:
            return {"title": self.title, "summary": repr(self)}
        title, steps = _outline(self._mvsj, self._mvsx)
        listed = "; ".join(f"{i + 1}. {s['title'] or s['key']}" for i, s in enumerate(steps))
        return {
            "title": title,
            "summary": f"molspace Story {title!r}: {len(steps)} steps"
            + (f": {listed}" if steps else ""),
            "steps": steps,
        }

    def __init__(self, source: Any, **kwargs: Any):
        normalized = normalize_story_source(source)
        self._change_callbacks = CallbackDispatcher()
        self.source_format = normalized.format
        super().__init__(_mvsj=normalized.mvsj, _mvsx=normalized.mvsx, **kwargs)
        self.observe(self._notify_change, names=["revision"])
        self._constructed = True

    # ------------------------------------------------------------------ read-only page state
    @traitlets.validate(*_PAGE_OWNED)
    def _page_owned(self, proposal: dict[str, Any]) -> Any:
        return self._page_owned_value(
            proposal, "use story.goto(index_or_key), next(), previous(), play() or pause()."
        )

    # ------------------------------------------------------------------ control
    def next(self) -> PageRequest:
        """Step to the next snapshot (stays at the last one); ``.wait()`` waits until it is drawn."""
        return self._control("next")

    def previous(self) -> PageRequest:
        """Step to the previous snapshot (stays at the first one); ``.wait()`` waits until it is drawn."""
        return self._control("previous")

    def play(self) -> PageRequest:
        """Play the Story from the current step (from the start when at the last one)."""
        return self._control("play")

    def pause(self) -> PageRequest:
        """Pause playback."""
        return self._control("pause")

    def goto(self, index_or_key: int | str, *, expected_revision: int | None = None) -> PageRequest:
        """Show one snapshot.

        Parameters
        ----------
        index_or_key : int or str
            0-based snapshot index, or snapshot key (MVS snapshot metadata ``key``).
        expected_revision : int, optional
            Refuse (REVISION_CONFLICT, reported in ``last_result``) if the Story moved since.

        Returns
        -------
        PageRequest
            Shown in a cell as what happened; ``.wait()`` waits until the page has drawn the
            step (raising its refusal as :class:`StoryControlError`). The page's answer (the
            contract's kernel result) also lands in :attr:`last_result`; :attr:`last_request_id`
            names the request.

        Raises
        ------
        StoryControlError
            ``INVALID_INPUT`` for an index out of range or a wrong type,
            ``NOT_FOUND`` for an unknown key (when the snapshots are known).
        """
        extra: dict[str, Any] = {}
        if expected_revision is not None:
            extra["expectedRevision"] = int(expected_revision)
        if isinstance(index_or_key, bool) or not isinstance(index_or_key, (int, str)):
            raise StoryControlError(
                "INVALID_INPUT",
                f"goto takes an int index or a str key, not {type(index_or_key).__name__}",
                "index_or_key",
                "Pass a 0-based index or a snapshot key (see story.snapshots).",
            )
        n = len(self.snapshots)
        if isinstance(index_or_key, int):
            if index_or_key < 0 or (n and index_or_key >= n):
                raise StoryControlError(
                    "INVALID_INPUT",
                    f"index {index_or_key} is out of range; the Story has {n} snapshots",
                    "index_or_key",
                    f"Use an index from 0 to {max(n - 1, 0)}.",
                    {"index": index_or_key, "count": n},
                )
            return self._control("goto", index=index_or_key, **extra)
        keys = [s.get("key") for s in self.snapshots]
        if keys and index_or_key not in keys:
            raise StoryControlError(
                "NOT_FOUND",
                f"no snapshot with key {index_or_key!r}",
                "index_or_key",
                f"Use one of: {', '.join(map(repr, keys[:20]))}{' ...' if len(keys) > 20 else ''}.",
                {"key": index_or_key, "keys": keys[:50]},
            )
        return self._control("goto", key=index_or_key, **extra)

    def replace_step(
        self, key: str, step: Any, *, expected_revision: int | None = None
    ) -> PageRequest:
        """Replace the step ``key`` with ``step``: the same edit as the agent tool ``story_edit``.

        Parameters
        ----------
        key : str
            Key of the step to replace (MVS snapshot metadata ``key``).
        step : dict or molviewspec Snapshot
            A storyboard step ``{key, title, description, root, linger_duration_ms?}``; ``root``
            may be a molviewspec builder or node. A molviewspec ``Snapshot`` is taken as its
            metadata and root.
        expected_revision : int, optional
            Refuse (REVISION_CONFLICT, in ``last_result``) if the Story changed since.

        The page validates the whole edited Story with Mol* (as ``story_create``), shows the
        step, and advances ``revision`` once; ``snapshots`` follow. Its answer lands in
        :attr:`last_result` (``VALIDATION_FAILED`` lists every issue, located under ``/step``).
        An ``.mvsx`` Story is refused there (``UNSUPPORTED_FORMAT``): edit its ``index.mvsj``.
        The returned :class:`PageRequest`'s ``.wait()`` raises that refusal in the cell.

        Raises
        ------
        StoryControlError
            ``NOT_FOUND`` for an unknown key (when the snapshots are known), ``INVALID_INPUT``
            for a key that is not a str, or a step that is not a dict or Snapshot of JSON data.
        """
        self._check_key(key, "key")
        return self._edit("replace", step, key, expected_revision)

    def insert_step(
        self, step: Any, *, after: str | None = None, expected_revision: int | None = None
    ) -> PageRequest:
        """Insert ``step`` after the step ``after`` (default: at the end), as ``story_edit`` does.

        Parameters and errors as :meth:`replace_step` (``after`` is checked like ``key``).
        """
        if after is not None:
            self._check_key(after, "after")
        return self._edit("insert", step, after, expected_revision)

    def _check_key(self, key: Any, where: str) -> None:
        keys = [s.get("key") for s in self.snapshots]
        if not isinstance(key, str) or not key:
            raise StoryControlError(
                "INVALID_INPUT",
                f"{where} must be a step key (str), not {type(key).__name__}",
                where,
                "Pass a key of story.snapshots.",
            )
        if keys and key not in keys:
            raise StoryControlError(
                "NOT_FOUND",
                f"no step with key {key!r}",
                where,
                f"Use one of: {', '.join(map(repr, keys[:20]))}{' ...' if len(keys) > 20 else ''}.",
                {"key": key, "keys": keys[:50]},
            )

    def _edit(
        self, edit: str, step: Any, key: str | None, expected_revision: int | None
    ) -> PageRequest:
        fields: dict[str, Any] = {"tool": "story_edit", "edit": edit, "step": _step_dict(step)}
        if key is not None:
            fields["key"] = key
        if expected_revision is not None:
            fields["expectedRevision"] = int(expected_revision)
        target = f" {key!r}" if key is not None else ""
        return self._send_control(fields, f"{edit}_step{target}")

    def on_change(self, callback: Callable[[StoryChange], None], remove: bool = False) -> None:
        """Call ``callback(StoryChange)`` after every change of position or playback.

        Changes by a button, a cell or an agent alike; the callback runs in the
        kernel when the page's new state arrives.
        """
        self._change_callbacks.register_callback(callback, remove=remove)

    def _control(self, action: str, **args: Any) -> PageRequest:
        target = args.get("key", args.get("index"))
        label = action if target is None else f"{action} {target!r}"
        return self._send_control({"action": action, **args}, label)

    def _notify_change(self, _change: dict[str, Any]) -> None:
        last = self.last_change or {}
        event = StoryChange(
            index=self.index,
            key=self.key,
            playing=self.playing,
            revision=self.revision,
            source=str(last.get("source", "")),
            summary=str(last.get("summary", "")),
        )
        self._change_callbacks(event)

    def to_html(self, path: str | os.PathLike[str]) -> int:
        """Write this Story as one HTML file that opens anywhere (``file://``, no network needed).

        The file carries Mol*, the Story (its ``.mvsx`` assets too) and the Story's controls
        (Previous / Play / Next, step title and text, shown as text) inline. Data the Story
        downloads by URL still comes from those hosts; a ``.mvsx`` with its files is whole offline.

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
            ``INVALID_INPUT`` (not ``.html``, a folder, a missing folder), ``TOO_LARGE``.
        """
        from ..app.export import export_html
        from ..app.structure import AppFile, app_file_json
        from ..contract import manifest

        if self._mvsx:
            kind, data = "mvsx", bytes(self._mvsx)
        else:
            kind, data = "mvsj", self._mvsj.encode("utf-8")
        title = self.title or _outline(self._mvsj, self._mvsx)[0] or "molspace Story"
        file = app_file_json(AppFile(f"story.{kind}", data), kind == "mvsx")
        meta = {manifest()["app"]["storyMeta"]: {"format": kind, "file": file, "title": title}}
        return export_html(meta, title, path, where="Story.to_html")

    def __repr__(self) -> str:
        n = len(self.snapshots)
        if self.error:
            where = f"{self.error.get('code')}: {self.error.get('message')}"
            return f"<molspace.Story {self.title!r}: error {where}>"
        if n == 0:
            return f"<molspace.Story {self.title!r}: not shown yet (display it; the page reports its steps)>"
        return f"<molspace.Story {self.title!r}: step {self.index + 1} of {n}, revision {self.revision}>"


def _outline(mvsj: str, mvsx: bytes | None) -> tuple[str, list[dict[str, str]]]:
    """Title and first steps (``LIMITS.staticFallbackSteps``, ``{key, title}``) of an MVS source; empty if unreadable."""
    try:
        if mvsx:
            with zipfile.ZipFile(io.BytesIO(mvsx)) as z:
                # Never inflated past the Story limit (a zip bomb): its declared size first, then
                # at most that much asked for, so zlib is never asked for more (an entry that
                # declares less than it inflates to fails its CRC check instead).
                index = z.getinfo("index.mvsj")
                if index.file_size > MAX_STORY_BYTES:
                    return "", []
                with z.open(index) as entry:
                    mvsj = entry.read(index.file_size).decode("utf-8")
        data = json.loads(mvsj)
    except (
        OSError,
        EOFError,
        KeyError,
        ValueError,
        RecursionError,
        NotImplementedError,  # a compression method or zip version zipfile does not read
        RuntimeError,  # an encrypted entry
        zlib.error,
        lzma.LZMAError,
        zipfile.BadZipFile,
    ):
        return "", []
    if not isinstance(data, dict):
        return "", []
    given_meta, given_snaps = data.get("metadata"), data.get("snapshots")
    meta: dict[str, Any] = given_meta if isinstance(given_meta, dict) else {}
    snaps: list[Any] = (
        given_snaps if data.get("kind") == "multiple" and isinstance(given_snaps, list) else [data]
    )
    steps = []
    for i, snap in enumerate(snaps[: LIMITS["staticFallbackSteps"]]):
        given = snap.get("metadata") if isinstance(snap, dict) else None
        m: dict[str, Any] = given if isinstance(given, dict) else {}
        steps.append(
            {"key": str(m.get("key") or i)[:200], "title": str(m.get("title") or "")[:200]}
        )
    return str(meta.get("title") or "")[:200], steps


def _dump(value: Any) -> Any:
    """A molviewspec object (a node, or a builder: its state's root) as JSON data."""
    if hasattr(value, "get_state") and callable(value.get_state):
        return json.loads(value.get_state().model_dump_json(exclude_none=True))["root"]
    if hasattr(value, "model_dump_json"):
        return json.loads(value.model_dump_json(exclude_none=True))
    return value


def _step_dict(step: Any) -> dict[str, Any]:
    """A storyboard step from a dict (its ``root`` may be a molviewspec object) or a molviewspec Snapshot."""
    if hasattr(step, "model_dump_json") and hasattr(step, "root") and hasattr(step, "metadata"):
        data = _dump(step)
        return {**(data.get("metadata") or {}), "root": data.get("root")}
    if not isinstance(step, dict):
        raise StoryControlError(
            "INVALID_INPUT",
            f"a step is a dict or a molviewspec Snapshot, not {type(step).__name__}",
            "step",
            "Pass {'key': ..., 'title': ..., 'description': ..., 'root': {...}}.",
        )
    out = dict(step)
    if "root" in out:
        out["root"] = _dump(out["root"])
    try:
        json.dumps(out)
    except (TypeError, ValueError) as e:
        raise StoryControlError(
            "INVALID_INPUT",
            f"the step is not JSON data: {e}",
            "step",
            "Use only dicts, lists, strings, numbers, booleans and None.",
        ) from None
    return out
