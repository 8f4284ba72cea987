"""Located errors (docs/architecture.md, "Located errors"), shared by the kernel side and the MCP gateway.

Every failure an agent or a notebook user can meet carries a code from the
contract's closed list, a one-sentence message, *where* it failed (a JSON
pointer into the arguments, a page id, a path, a URL), a *fix* to act on, and
free-form ``details``: the ``LocatedError`` shape of the contract (``src/contract/errors.ts``).
"""

from __future__ import annotations

import json
from typing import Any

from .contract import ERROR_CODES


class MolspaceError(Exception):
    """A located, agent-readable failure: of a tool call, a cell's call, or a Story source.

    Parameters
    ----------
    code : str
        One of :data:`ERROR_CODES`.
    message : str
        What failed, in one sentence (non-empty).
    where : str
        Where it failed: a JSON pointer into the arguments (``"/action"``), a
        page id, a widget id or a URL. ``""`` means the call as a whole.
    fix : str
        What would make the call succeed (non-empty).
    details : dict, optional
        Extra machine-readable facts (JSON-serialisable), default ``{}``.

    Raises
    ------
    ValueError
        If ``code`` is not in :data:`ERROR_CODES` or ``message``/``fix`` is empty.
    """

    def __init__(
        self,
        code: str,
        message: str,
        where: str,
        fix: str,
        details: dict[str, Any] | None = None,
    ) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}; expected one of {ERROR_CODES}")
        if not message or not fix:
            raise ValueError("a MolspaceError needs a non-empty message and fix")
        # Bounded whatever it quotes (a 20,000-character variable name, every problem of a long
        # list): a refusal's size does not grow with its input, as on the page (issue 23).
        message = _bounded(message, _TEXT_CHARS)
        where = _bounded(where, _QUOTE_CHARS)
        fix = _bounded(fix, _TEXT_CHARS)
        super().__init__(f"{code}: {message} (at {where or 'the call'}). Fix: {fix}")
        self.code = code
        self.message = message
        self.where = where
        self.fix = fix
        self.details: dict[str, Any] = _bounded_value(dict(details or {}), 0)

    def to_dict(self) -> dict[str, Any]:
        """Return the wire form ``{code, message, where, fix, details}``.

        Returns
        -------
        dict
            The ``LocatedError`` object of the contract (``errorSchema`` in the
            manifest).
        """
        return {
            "code": self.code,
            "message": self.message,
            "where": self.where,
            "fix": self.fix,
            "details": self.details,
        }

    @classmethod
    def from_dict(cls, data: Any, *, where_default: str = "") -> MolspaceError:
        """Rebuild a located error from its wire form, tolerating a malformed one.

        Parameters
        ----------
        data : Any
            Expected to be a ``{code, message, where, fix, details}`` mapping
            (as sent by a page in a failed ``result`` frame).
        where_default : str
            ``where`` to use if the mapping has none.

        Returns
        -------
        MolspaceError
            The same error, or an ``INTERNAL`` error describing why ``data``
            was not a valid located error.
        """
        if (
            isinstance(data, dict)
            and data.get("code") in ERROR_CODES
            and isinstance(data.get("message"), str)
            and data["message"].strip()
            and isinstance(data.get("fix"), str)
            and data["fix"].strip()
        ):
            where = data.get("where")
            details = data.get("details")
            return cls(
                data["code"],
                _bounded(data["message"], 400),
                _bounded(where, 200) if isinstance(where, str) else where_default,
                _bounded(data["fix"], 300),
                _bounded_details(details) if isinstance(details, dict) else {},
            )
        return cls(
            "INTERNAL",
            "The page answered with a malformed error object.",
            where_default,
            "Reload the JupyterLab page so it runs the same molspace version as the server.",
            {"received": _bounded(repr(data), 200)},
        )


#: The most bytes of a page error's ``details`` (as JSON) kept; larger ones are summarised. With
#: the message, ``where`` and ``fix`` cut to 400, 200 and 300 characters, an error rebuilt from a
#: page's stays within a few KiB, whatever the page sent.
_DETAILS_BYTES = 4_096


#: The longest ``message`` and ``fix``, and the longest ``where`` and string in ``details``, of any
#: located error (characters); the most items of a list, or keys of a dict, in ``details``. The
#: page's ``MolspaceError`` (``src/contract/errors.ts``) has the same bounds.
_TEXT_CHARS = 2_000
_QUOTE_CHARS = 1_000
_DETAIL_ITEMS = 100


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded_value(value: Any, depth: int) -> Any:
    """``value`` with long strings cut and long lists and dicts shortened (JSON data only)."""
    if isinstance(value, str):
        return _bounded(value, _QUOTE_CHARS)
    if isinstance(value, (list, tuple, dict)) and depth > 8:
        return "…"
    if isinstance(value, (list, tuple)):
        return [_bounded_value(v, depth + 1) for v in value[:_DETAIL_ITEMS]]
    if isinstance(value, dict):
        items = list(value.items())[:_DETAIL_ITEMS]
        return {
            (_bounded(k, _QUOTE_CHARS) if isinstance(k, str) else k): _bounded_value(v, depth + 1)
            for k, v in items
        }
    return value


def _bounded_details(details: dict[str, Any]) -> dict[str, Any]:
    try:
        size = len(json.dumps(details, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return {"cut": True, "received": _bounded(repr(details), 200)}
    return details if size <= _DETAILS_BYTES else {"cut": True, "bytes": size}


def summary_line(error: dict[str, Any]) -> str:
    """A located error as one line: ``"<CODE> at <where>: <message>. Fix: <fix>"``.

    Parameters
    ----------
    error : dict
        ``{code, message, where, fix, ...}`` (the wire form of :class:`MolspaceError`).

    Returns
    -------
    str
        One line whatever the error holds (runs of whitespace, newlines included, become one
        space: a field name in ``where`` may contain a newline); `` at <where>`` only when
        ``where`` is not empty.
    """
    where = f" at {' '.join(str(error['where']).split())}" if error.get("where") else ""
    message = " ".join(str(error["message"]).split()).rstrip(".")
    fix = " ".join(str(error["fix"]).split())
    return f"{error['code']}{where}: {message}. Fix: {fix}"


class StorySourceError(MolspaceError, ValueError):
    """A Story source that cannot be read (bad type, path, format or size)."""


class StoryControlError(MolspaceError, ValueError):
    """A Story control call that cannot apply (unknown key, index out of range)."""


class PanelContentError(MolspaceError, ValueError):
    """A report panel content that cannot be shown (bad type, over a bound, malformed)."""


class StructureSourceError(MolspaceError, ValueError):
    """A Viewer source that cannot be a structure (bad type, path, format, size or content)."""


class ViewerControlError(MolspaceError, ValueError):
    """A Viewer operation that cannot be sent (not a list of operations, an unknown op)."""


class KetcherControlError(MolspaceError, ValueError):
    """A Ketcher editor operation that cannot be sent (bad type, over a bound, unknown format)."""


class PageWaitError(MolspaceError, RuntimeError):
    """A wait inside a cell for the page that ended without the answer (``TIMEOUT``, ``NO_PAGE``)."""
