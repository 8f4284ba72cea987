"""Static fallbacks of molspace widgets in saved notebooks (docs/architecture.md, "Static fallback in saved notebooks").

A page sends a ``fallback`` frame (``src/contract/staticFallback.ts``) for a
notebook widget once its view settles: a bounded PNG and the state a reader
needs. :class:`FallbackStore` keeps the newest frame per model id, bounded in
bytes. :func:`apply_fallbacks`, run by the contents manager's pre-save hook
(:class:`FallbackSaveHook`), writes them into the outputs of the notebook being
saved, beside the widget view:

- ``image/png`` (with its width and height in the output's metadata),
- ``text/plain`` (the summary),
- ``text/html``: the image and the summary, every string escaped, no script
  (what nbconvert and nbviewer show); panels: their table, molecule list or
  markdown (rendered by mistune with raw HTML escaped and harmful links dropped),
- ``application/vnd.molspace.static+json`` (:data:`STATIC_MIME`): the state,
  e.g. a Story's ``index``, ``key`` and steps.

The live notebook in the page is not touched (setting its output data would
redraw the widget). An output the server has no newer frame for keeps what the
saved file already holds, so a notebook reopened without a kernel and saved
again keeps its fallbacks.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from ..contract import LIMITS, STATIC_FALLBACK_MIME

log = logging.getLogger(__name__)

#: The ipywidgets widget-view output mime type (what marks a widget output).
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
#: Carries a widget's fallback state in its output; marks the output as molspace's.
STATIC_MIME = STATIC_FALLBACK_MIME
#: Mime types this module writes (and carries over from the saved file).
FALLBACK_MIMES = ("image/png", "text/plain", "text/html", STATIC_MIME)

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class FallbackRefused(ValueError):
    """A ``fallback`` frame the schema accepted but whose content is wrong (e.g. the bytes are not a PNG).

    Attributes
    ----------
    where : str
        JSON pointer of the bad field in the frame, e.g. ``/png``.
    """

    def __init__(self, message: str, where: str) -> None:
        super().__init__(f"'fallback' frame invalid at {where}: {message}")
        self.where = where


def check_frame(frame: Mapping[str, Any]) -> int:
    """Check what the wire schema cannot: the PNG decodes, is a PNG, and fits; panel content fits.

    Parameters
    ----------
    frame : mapping
        A ``fallback`` frame already valid against ``wire.bridge.pageToGateway``.

    Returns
    -------
    int
        The frame's size as stored, in bytes (PNG bytes + JSON of the rest).

    Raises
    ------
    FallbackRefused
        At ``/png`` (not base64, not a PNG, over ``LIMITS.staticFallbackPngBytes``) or
        ``/content`` (over ``LIMITS.staticFallbackContentBytes``).
    """
    size = 0
    png = frame.get("png")
    if png is not None:
        try:
            raw = base64.b64decode(png, validate=True)
        except (binascii.Error, ValueError) as e:
            raise FallbackRefused(f"not base64 ({e})", "/png") from None
        if not raw.startswith(_PNG_SIGNATURE):
            raise FallbackRefused("not a PNG (no PNG signature)", "/png")
        if len(raw) > LIMITS["staticFallbackPngBytes"]:
            raise FallbackRefused(
                f"PNG of {len(raw)} bytes is over staticFallbackPngBytes ({LIMITS['staticFallbackPngBytes']})",
                "/png",
            )
        size += len(raw)
    content = frame.get("content")
    if content is not None:
        n = len(json.dumps(content).encode("utf-8"))
        if n > LIMITS["staticFallbackContentBytes"]:
            raise FallbackRefused(
                f"content of {n} bytes is over staticFallbackContentBytes ({LIMITS['staticFallbackContentBytes']})",
                "/content",
            )
        size += n
    return size + len(json.dumps(frame.get("state", {})).encode("utf-8"))


class FallbackStore:
    """The newest ``fallback`` frame of each widget, by model id, bounded in bytes.

    Parameters
    ----------
    max_bytes : int
        Total size kept (``LIMITS.staticFallbackStoreBytes``); the least recently
        sent frames are dropped first.
    """

    def __init__(self, max_bytes: int = LIMITS["staticFallbackStoreBytes"]) -> None:
        self.max_bytes = int(max_bytes)
        self._frames: OrderedDict[str, tuple[dict[str, Any], int]] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def bytes(self) -> int:
        """Bytes held now."""
        return self._bytes

    def put(self, frame: Mapping[str, Any]) -> None:
        """Keep ``frame`` as the newest of its model id.

        Raises
        ------
        FallbackRefused
            See :func:`check_frame`; nothing is stored.
        """
        size = check_frame(frame)
        model_id = str(frame["modelId"])
        old = self._frames.pop(model_id, None)
        if old is not None:
            self._bytes -= old[1]
        self._frames[model_id] = (dict(frame), size)
        self._bytes += size
        while self._bytes > self.max_bytes and self._frames:
            _, (_, dropped) = self._frames.popitem(last=False)
            self._bytes -= dropped

    def get(self, model_id: str) -> dict[str, Any] | None:
        """The newest frame of ``model_id``, or ``None``."""
        entry = self._frames.get(model_id)
        return None if entry is None else entry[0]


# ---------------------------------------------------------------------- bundles
def _markdown_html(text: str) -> str:
    """Markdown as HTML with raw HTML escaped and javascript:/data:/file: links dropped (mistune)."""
    import mistune

    return str(mistune.create_markdown(escape=True, plugins=["table", "strikethrough"])(text))


def _figure(png: str | None, width: int | None, height: int | None, summary: str) -> str:
    caption = f'<figcaption style="white-space: pre-wrap">{html.escape(summary)}</figcaption>'
    if not png:
        return f'<figure class="molspace-static-fallback">{caption}</figure>'
    size = "".join(f' {k}="{int(v)}"' for k, v in (("width", width), ("height", height)) if v)
    alt = html.escape(summary.split("\n", 1)[0], quote=True)
    # png matched the contract's base64 pattern and decoded as a PNG: no quote or markup in it.
    return f'<figure class="molspace-static-fallback"><img src="data:image/png;base64,{png}"{size} alt="{alt}">{caption}</figure>'


def fallback_bundle(frame: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The output data and metadata a ``fallback`` frame adds to its widget's output.

    Parameters
    ----------
    frame : mapping
        A checked ``fallback`` frame (see :func:`check_frame`).

    Returns
    -------
    (data, metadata) : tuple of dict
        ``data``: ``text/plain``, ``text/html``, :data:`STATIC_MIME`, and
        ``image/png`` when the frame has one; panels also their own static
        bundle (markdown, table or molecule list as HTML; a chart's Vega-Lite
        spec). ``metadata``: ``{"image/png": {"width", "height"}}`` or empty.
    """
    state = dict(frame["state"])
    summary = str(state.get("summary", ""))
    png = frame.get("png")
    data: dict[str, Any] = {"text/plain": summary, STATIC_MIME: {**state, "origin": "page"}}
    metadata: dict[str, Any] = {}
    if png:
        data["image/png"] = png
        metadata["image/png"] = {k: int(frame[k]) for k in ("width", "height") if frame.get(k)}
    content = frame.get("content")
    if state.get("kind") == "panel" and isinstance(content, Mapping):
        from ..panel import (
            static_fallback as panel_static_fallback,
        )  # the kernel's own; imports ipywidgets

        panel = panel_static_fallback(content, str(state.get("title", "")))
        if "text/markdown" in panel:
            panel["text/html"] = _markdown_html(panel["text/markdown"])
        if content.get("type") == "chart":
            panel["text/html"] = _figure(png, frame.get("width"), frame.get("height"), summary)
        data.update(panel)
    else:
        data["text/html"] = _figure(png, frame.get("width"), frame.get("height"), summary)
    if "text/html" in data:
        data["text/html"] = f'<div class="molspace-static-fallback">{data["text/html"]}</div>'
    return data, metadata


# --------------------------------------------------------------------- notebooks
def _widget_outputs(nb: Mapping[str, Any]):
    """``(model_id, output)`` of every widget-view output of a notebook (nbformat 4 dict)."""
    for cell in nb.get("cells") or []:
        if not isinstance(cell, Mapping) or cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs") or []:
            if not isinstance(output, MutableMapping) or output.get("output_type") not in (
                "display_data",
                "execute_result",
            ):
                continue
            data = output.get("data")
            view = data.get(WIDGET_VIEW_MIME) if isinstance(data, Mapping) else None
            model_id = view.get("model_id") if isinstance(view, Mapping) else None
            if isinstance(model_id, str) and model_id:
                yield model_id, output


def _from_page(data: Mapping[str, Any]) -> bool:
    marker = data.get(STATIC_MIME)
    return isinstance(marker, Mapping) and marker.get("origin") == "page"


def saved_fallbacks(nb: Mapping[str, Any]) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """The page fallbacks a saved notebook holds: ``{model_id: (data, metadata)}`` of :data:`FALLBACK_MIMES`."""
    out: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for model_id, output in _widget_outputs(nb):
        data = output["data"]
        if _from_page(data):
            meta = output.get("metadata") if isinstance(output.get("metadata"), Mapping) else {}
            out[model_id] = (
                {k: data[k] for k in FALLBACK_MIMES if k in data},
                {"image/png": meta["image/png"]}
                if isinstance(meta.get("image/png"), Mapping)
                else {},
            )
    return out


def apply_fallbacks(
    nb: MutableMapping[str, Any],
    newest: Callable[[str], Mapping[str, Any] | None],
    saved: Callable[[], Mapping[str, tuple[dict[str, Any], dict[str, Any]]]] = dict,
) -> int:
    """Write static fallbacks into the widget outputs of ``nb``, in place.

    Parameters
    ----------
    nb : dict
        The notebook being saved (nbformat 4 as JSON data).
    newest : callable
        ``model_id -> fallback frame or None`` (:meth:`FallbackStore.get`).
    saved : callable
        Called at most once, when an output has neither a newer frame nor a page
        fallback of its own: the fallbacks of the file on disk (:func:`saved_fallbacks`).

    Returns
    -------
    int
        Outputs changed. Outputs that are not widget views, widgets the server
        has no frame for and the file had no fallback for, and everything else
        in the notebook are left as they are. A molspace panel output with only
        a markdown fallback (written by the kernel) gets it as escaped HTML.
    """
    changed = 0
    disk: Mapping[str, tuple[dict[str, Any], dict[str, Any]]] | None = None
    for model_id, output in _widget_outputs(nb):
        data = output["data"]
        frame = newest(model_id)
        if frame is not None:
            add, meta = fallback_bundle(frame)
        elif _from_page(data):
            continue  # the notebook already holds the page's fallback
        else:
            if disk is None:
                disk = saved()
            if model_id in disk:
                add, meta = disk[model_id]
            elif _is_panel(data) and "text/markdown" in data and "text/html" not in data:
                add, meta = {"text/html": _markdown_html(str(data["text/markdown"]))}, {}
            else:
                continue
        data.update(add)
        if meta:
            metadata = output.get("metadata")
            if not isinstance(metadata, MutableMapping):
                metadata = output["metadata"] = {}
            metadata.update(meta)
        changed += 1
    return changed


def _is_panel(data: Mapping[str, Any]) -> bool:
    marker = data.get(STATIC_MIME)
    return isinstance(marker, Mapping) and marker.get("kind") == "panel"


class FallbackSaveHook:
    """The contents manager's pre-save hook (``register_pre_save_hook``): :func:`apply_fallbacks` on notebooks.

    Parameters
    ----------
    store : FallbackStore
        Where the pages' frames are kept.
    """

    def __init__(self, store: FallbackStore) -> None:
        self.store = store

    def __call__(
        self, model: dict[str, Any], path: str, contents_manager: Any, **kwargs: Any
    ) -> None:
        """Add fallbacks to ``model["content"]`` when ``model`` is a notebook; never fails the save."""
        if model.get("type") != "notebook" or not isinstance(model.get("content"), MutableMapping):
            return
        try:
            n = apply_fallbacks(
                model["content"], self.store.get, lambda: self._saved(path, contents_manager)
            )
        except Exception:
            log.exception("molspace: static fallbacks not written into %s", path)
            return
        if n:
            log.debug("molspace: static fallbacks written into %d output(s) of %s", n, path)

    @staticmethod
    def _saved(
        path: str, contents_manager: Any
    ) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        """Fallbacks of the file as it is on disk (file-backed contents managers; else none)."""
        get_os_path = getattr(contents_manager, "_get_os_path", None)
        if get_os_path is None:
            return {}
        try:
            os_path = get_os_path(path)
            if not os.path.isfile(os_path):
                return {}
            import nbformat  # multiline strings as one string, as a page sends them

            with open(os_path, encoding="utf-8") as f:
                return saved_fallbacks(nbformat.read(f, as_version=4))
        except (OSError, ValueError):
            return {}
