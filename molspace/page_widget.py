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
from .errors import MolspaceError
from .page_request import PageRequest
from .page_wait import keep_page_messages_on_their_subshell, wait_for_page

#: What fixes a state update the kernel cannot hold: the page and kernel of one version.
_RELOAD = "Reload the JupyterLab page so it runs the same molspace version as the kernel."


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


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

    Control calls return a :class:`~molspace.page_request.PageRequest`: shown in a cell as
    what happened, with ``.wait()`` to wait for the page's answer inside the cell;
    :meth:`wait_ready` waits for the page to show the widget.
    """

    #: The most recent ``requestId``\ s some page applied (set by the pages, never by a cell):
    #: a page that finds a request here does not apply it again (src/kernel/appliedRequests.ts).
    _applied_requests = traitlets.List(traitlets.Unicode()).tag(sync=True)
    #: Agents' calls (``tool:actionId``) some page applied, sent with the changes they made: a
    #: page reloaded before its answer reached the gateway leaves them here, and the reloaded page
    #: answers the agent's retry as replayed (src/kernel/appliedRequests.ts).
    _applied_actions = traitlets.List(traitlets.Unicode()).tag(sync=True)
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

    #: The error class a refusal from the page is raised as (``PageRequest.wait``, ``wait_ready``).
    _control_error: type[MolspaceError] = MolspaceError

    def __init__(self, **kwargs: Any):
        self._from_page = False
        self.last_result: dict[str, Any] | None = None
        self.last_request_id: str | None = None
        # requestId -> the kept answer, images left out
        self._answers: dict[str, dict[str, Any]] = {}
        super().__init__(**kwargs)
        keep_page_messages_on_their_subshell(self.comm)
        self.on_msg(self._handle_page_message)

    @traitlets.validate("_applied_requests", "_applied_actions")
    def _applied_by_page(self, proposal: dict[str, Any]) -> Any:
        return self._page_owned_value(proposal, "the pages record the requests they applied.")

    def set_state(self, sync_data: dict[str, Any]) -> None:  # called for messages from the page
        """Apply the page's state update, whole, or refuse it whole.

        Raises
        ------
        MolspaceError
            ``VALIDATION_FAILED`` at ``/<trait>`` for a value the trait cannot hold (checked
            before anything is set or echoed, so a refused update changes nothing).
        """
        with self._page_update():
            self._check_page_state(sync_data)
            super().set_state(sync_data)

    def _check_page_state(self, sync_data: Any) -> None:
        if not isinstance(sync_data, dict):
            raise MolspaceError(
                "VALIDATION_FAILED",
                f"The page sent a state update that is a {type(sync_data).__name__}, not an object",
                "",
                _RELOAD,
            )
        traits = self.traits()
        for name, value in sync_data.items():
            if name not in self.keys:
                continue
            from_json = self.trait_metadata(name, "from_json", self._trait_from_json)
            try:
                traits[name]._validate(self, from_json(value, self))
            except (traitlets.TraitError, TypeError, ValueError) as e:
                raise MolspaceError(
                    "VALIDATION_FAILED",
                    f"The page sent {name} = {_cut(repr(value))}, which {type(self).__name__} "
                    f"cannot hold: {_cut(str(e))}",
                    f"/{name}",
                    _RELOAD,
                    {"trait": name},
                ) from None

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

    def _send_control(self, fields: dict[str, Any], action: str) -> PageRequest:
        """Send one ``control`` message ``{type, requestId, **fields}``; ``action`` says what it asks."""
        request_id = uuid.uuid4().hex
        self.last_request_id = request_id
        self.send({"type": "control", "requestId": request_id, **fields})
        return PageRequest(self, request_id, action)

    def _answer(self, request_id: str) -> dict[str, Any] | None:
        """The kept answer to ``request_id`` (the last :data:`_ANSWERED_MEMORY` answers), or None."""
        return self._answers.get(request_id)

    def _label(self) -> str:
        """How errors and requests name this widget: ``molspace.Viewer 'title'``."""
        title = str(getattr(self, "title", "") or self.model_id)
        return f"molspace.{type(self).__name__} {_cut(title, 80)!r}"  # the page sets title

    def _control_error_from(self, data: Any) -> MolspaceError:
        """The page's located error ``data`` as :attr:`_control_error`."""
        e = MolspaceError.from_dict(data, where_default=self._label())
        return self._control_error(e.code, e.message, e.where, e.fix, e.details)

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait inside this cell until a page shows the widget (``ready``) or reports its error.

        Under *Run All*, a cell after the one that shows a widget runs before the page has
        loaded it; ``widget.wait_ready()`` first makes its traits read the page's state.

        Parameters
        ----------
        timeout : float
            Seconds to wait, in (0, 600].

        Raises
        ------
        MolspaceError
            The widget's error (``error`` trait) as its error class, e.g. a Story that does not
            validate or a structure Mol* cannot parse.
        PageWaitError
            ``TIMEOUT`` if no page showed it within ``timeout``; ``NO_PAGE`` outside a Jupyter
            kernel; ``INVALID_INPUT`` for a bad ``timeout``.
        """
        wait_for_page(
            lambda: bool(getattr(self, "ready", False)) or self.error is not None,
            timeout=timeout,
            what=f"the page's view of {self._label()}",
            where=f"{self._label()}.wait_ready",
            fix="Show the widget first (make it a cell's last line, or display(widget)) in an "
            "open JupyterLab page, or pass a longer timeout",
        )
        if self.error is not None:
            raise self._control_error_from(self.error)

    def _handle_page_message(
        self, _widget: Any, content: dict[str, Any], _buffers: list[Any]
    ) -> None:
        if isinstance(content, dict) and content.get("type") == "result":
            request_id = content.get("requestId")
            if isinstance(request_id, str):
                ok = content.get("ok") is True
                kept = self._answers.get(request_id)
                if kept is not None and (kept.get("ok") is True or not ok):
                    return  # a second page's answer to a request already answered (an ok one replaces a refusal)
                self._answers.pop(request_id, None)
                self._answers[request_id] = {k: v for k, v in content.items() if k != "images"}
                while len(self._answers) > self._ANSWERED_MEMORY:
                    del self._answers[next(iter(self._answers))]
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
