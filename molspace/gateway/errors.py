"""Located tool errors of the gateway: the package-wide :class:`~molspace.errors.MolspaceError`.

``ToolError`` is the name the gateway uses for it, after the contract's
``ToolError`` shape ``{code, message, where, fix, details}``.
"""

from __future__ import annotations

from ..errors import ERROR_CODES, MolspaceError

ToolError = MolspaceError

__all__ = ["ERROR_CODES", "ToolError"]
