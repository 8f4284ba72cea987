"""The kernel side that every molspace widget shares (docs/architecture.md, "The kernel is a client too").

A molspace widget's state lives in the page. Its kernel object mirrors that
state as synced traits the page alone may set, and sends typed ``control``
messages (never JavaScript) that the page's Dispatcher runs like an agent's
calls; the page answers each with a ``result`` message.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import ipywidgets as widgets
import traitlets

from .contract import STATIC_FALLBACK_MIME


class PageWidget(widgets.DOMWidget):
    """Base of the molspace widgets: page-owned traits, control messages, results.

    Subclasses guard their page-owned traits with
    ``@traitlets.validate(*names)`` returning :meth:`_page_owned_value`, and
    set ``self._constructed = True`` at the end of ``__init__``.

    Attributes
    ----------
    last_request_id : str or None
        ``requestId`` of the last control message sent.
    last_result : dict or None
        The page's last ``result`` message ``{type, requestId, ok, structuredContent | error, text}``.
        With several pages showing the notebook, one page applies and answers each request
        (``_applied_requests``); should two answer, the first one is kept (a later ``ok`` one
        replaces a refusal: e.g. a hidden page that could not draw the step).
    """

    #: The most recent ``requestId``\ s some page applied (set by the pages, never by a cell):
    #: a page that finds a request here does not apply it again (src/kernel/appliedRequests.ts).
    _applied_requests = traitlets.List(traitlets.Unicode()).tag(sync=True)
    # Synced by every kind (the shared part of src/contract/widgetState.ts); set by the page.
    error = traitlets.Dict(
        default_value=None,
        allow_none=True,
        help="Located error {code, message, where, fix, details} or None.",
    ).tag(sync=True)
    last_change = traitlets.Dict(
        default_value=None, allow_none=True, help="The last change: {revision, source, summary}."
    ).tag(sync=True)

    #: How many answered ``requestId``\ s the kernel remembers to drop a second page's answer.
    _ANSWERED_MEMORY = 256

    def __init__(self, **kwargs: Any):
        self._from_page = False
        self.last_result: dict[str, Any] | None = None
        self.last_request_id: str | None = None
        self._answered: dict[str, bool] = {}  # requestId -> whether the kept answer is ok
        super().__init__(**kwargs)
        self.on_msg(self._handle_page_message)

    @traitlets.validate("_applied_requests")
    def _applied_by_page(self, proposal: dict[str, Any]) -> Any:
        return self._page_owned_value(proposal, "the pages record the requests they applied.")

    def set_state(self, sync_data: dict[str, Any]) -> None:  # called for messages from the page
        with self._page_update():
            super().set_state(sync_data)

    @contextlib.contextmanager
    def _page_update(self) -> Iterator[None]:
        previous, self._from_page = getattr(self, "_from_page", False), True
        try:
            yield
        finally:
            self._from_page = previous

    def _page_owned_value(self, proposal: dict[str, Any], instead: str) -> Any:
        """The proposed value of a page-owned trait, if the page (or the constructor) sets it.

        Raises
        ------
        traitlets.TraitError
            When a cell sets it: ``"<Class>.<name> is set by the page and is read-only here; <instead>"``.
        """
        name = proposal["trait"].name.lstrip("_")
        if getattr(self, "_constructed", False) and not getattr(self, "_from_page", True):
            raise traitlets.TraitError(
                f"{type(self).__name__}.{name} is set by the page and is read-only here; {instead}"
            )
        return proposal["value"]

    def _send_control(self, fields: dict[str, Any]) -> str:
        """Send one ``control`` message ``{type, requestId, **fields}``; returns its ``requestId``."""
        request_id = uuid.uuid4().hex
        self.last_request_id = request_id
        self.send({"type": "control", "requestId": request_id, **fields})
        return request_id

    def _handle_page_message(
        self, _widget: Any, content: dict[str, Any], _buffers: list[Any]
    ) -> None:
        if isinstance(content, dict) and content.get("type") == "result":
            request_id = content.get("requestId")
            if isinstance(request_id, str):
                ok = content.get("ok") is True
                if request_id in self._answered and (self._answered[request_id] or not ok):
                    return  # a second page's answer to a request already answered (an ok one replaces a refusal)
                self._answered[request_id] = ok
                while len(self._answered) > self._ANSWERED_MEMORY:
                    del self._answered[next(iter(self._answered))]
            self.last_result = content
            self._on_result(content)

    def _on_result(self, result: dict[str, Any]) -> None:
        """A subclass's extra handling of a page ``result`` (default: none)."""

    # ------------------------------------------------------------------ static fallback
    #: The widget kind a saved notebook shows a static fallback for, or None
    #: (docs/architecture.md, "Static fallback in saved notebooks").
    _fallback_kind: str | None = None

    def _fallback_state(self) -> dict[str, Any]:
        """What the kernel knows at display time for a reader (title, summary; a Story's steps)."""
        return {"title": str(getattr(self, "title", "")), "summary": repr(self)}

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        """The widget view, marked as molspace's (``application/vnd.molspace.static+json``) for the pre-save hook."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None or self._fallback_kind is None:
            return bundle
        state = self._fallback_state()
        return {
            **bundle,
            "text/plain": state["summary"],
            STATIC_FALLBACK_MIME: {"kind": self._fallback_kind, "origin": "kernel", **state},
        }
