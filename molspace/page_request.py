"""One control request a cell sent to the page, and the page's answer once it came.

Every control call of a molspace widget (``viewer.focus(...)``, ``story.goto(...)``,
``editor.set_molecule(...)``, ``panel.update(...)``) returns a :class:`PageRequest`. A cell
shows it as what happened ("sent", "done: ...", "refused: ..."), and
:meth:`PageRequest.wait` waits inside the cell for the page's answer (docs/architecture.md,
"Waiting for the page in a cell").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import MolspaceError
from .page_wait import wait_for_page

if TYPE_CHECKING:
    from .page_widget import PageWidget

#: Characters of the page's one-line answer a request's repr shows.
_SHOWN_CHARS = 200


def _cut(text: str, limit: int = _SHOWN_CHARS) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class PageRequest:
    """A control request sent to the page (``requestId`` :attr:`id`) and, once it came, its answer.

    Attributes
    ----------
    id : str
        The message's ``requestId`` (32 hex digits), as in ``widget.last_request_id``.
    action : str
        What was asked, e.g. ``"focus"``, ``"goto 'binding-site'"``.
    """

    __slots__ = ("id", "action", "_widget")

    def __init__(self, widget: PageWidget, request_id: str, action: str) -> None:
        self.id = request_id
        self.action = action
        self._widget = widget

    @property
    def answer(self) -> dict[str, Any] | None:
        """The page's ``result`` message for this request (images left out), or None before it came."""
        return self._widget._answer(self.id)

    @property
    def done(self) -> bool:
        """True once the page answered (applied or refused)."""
        return self.answer is not None

    @property
    def ok(self) -> bool | None:
        """True if the page applied the request, False if it refused it, None before it answered."""
        answer = self.answer
        return None if answer is None else answer.get("ok") is True

    @property
    def result(self) -> dict[str, Any] | None:
        """The applied request's ``structuredContent`` (as the matching MCP tool returns), else None."""
        answer = self.answer
        return answer.get("structuredContent") if answer and answer.get("ok") is True else None

    @property
    def error(self) -> MolspaceError | None:
        """The page's located refusal, as the widget's error class, else None."""
        answer = self.answer
        if answer is None or answer.get("ok") is True:
            return None
        return self._widget._control_error_from(answer.get("error"))

    def wait(self, timeout: float = 30.0) -> PageRequest:
        """Wait inside this cell until the page answers; return this request, applied.

        The page's state updates that came before the answer are applied first, so the
        widget's traits read the new state when this returns. Cells queued after this one
        (*Run All*) run after it.

        Parameters
        ----------
        timeout : float
            Seconds to wait, in (0, 600].

        Returns
        -------
        PageRequest
            ``self``, with :attr:`ok` True.

        Raises
        ------
        MolspaceError
            The page's refusal, as the widget's error class (``ViewerControlError``,
            ``StoryControlError``, ``KetcherControlError``, ``PanelContentError``), e.g.
            ``REVISION_CONFLICT`` or ``VALIDATION_FAILED`` located in the call's arguments.
        PageWaitError
            ``TIMEOUT`` if no answer came within ``timeout`` (no page shows the widget, or it
            is still loading); ``NO_PAGE`` outside a Jupyter kernel; ``INVALID_INPUT`` for a
            bad ``timeout``.
        """
        widget = self._widget
        wait_for_page(
            lambda: self.done,
            timeout=timeout,
            what=f"the page's answer to {self.action}",
            where=f"{widget._label()}: {self.action}",
            fix="Show the widget in an open JupyterLab page (make it a cell's last line, or "
            "display(widget)), wait for it to load, or pass a longer timeout",
        )
        error = self.error
        if error is not None:
            raise error
        return self

    def __repr__(self) -> str:
        label = f"{self._widget._label()}: {self.action}"
        answer = self.answer
        if answer is None:
            return f"<{label}: sent; .wait() waits for the page's answer in this cell>"
        if answer.get("ok") is True:
            text = answer.get("text")
            shown = f": {_cut(text)}" if isinstance(text, str) and text else ""
            return f"<{label}: done{shown}>"
        error = self.error
        assert error is not None
        where = f" (at {error.where})" if error.where else ""
        return f"<{label}: refused: {error.code}: {_cut(error.message)}{where}>"
