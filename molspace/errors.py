"""Located errors raised on the kernel side.

Each carries the fields of molspace's wire error (DESIGN.md §3):
``code``, ``message``, ``where``, ``fix`` and ``details``.
"""

from __future__ import annotations

from typing import Any


class MolspaceError(Exception):
    """A located molspace error.

    Parameters
    ----------
    code : str
        One of the contract's error codes (``INVALID_INPUT``, ``NOT_FOUND``,
        ``UNSUPPORTED_FORMAT``, ``TOO_LARGE``, ``VALIDATION_FAILED``, ...).
    message : str
        What failed.
    where : str
        Where it failed: an argument name, a path, a snapshot key.
    fix : str
        What would make it succeed.
    details : dict, optional
        Machine-readable facts (limits, known keys, ...).
    """

    def __init__(self, code: str, message: str, where: str, fix: str, details: dict[str, Any] | None = None):
        super().__init__(f"{code}: {message} (at {where}). Fix: {fix}")
        self.code = code
        self.message = message
        self.where = where
        self.fix = fix
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        """The wire shape ``{code, message, where, fix, details}``."""
        return {
            "code": self.code,
            "message": self.message,
            "where": self.where,
            "fix": self.fix,
            "details": self.details,
        }


class StorySourceError(MolspaceError, ValueError):
    """A Story source that cannot be read (bad type, path, format or size)."""


class StoryControlError(MolspaceError, ValueError):
    """A Story control call that cannot apply (unknown key, index out of range)."""
