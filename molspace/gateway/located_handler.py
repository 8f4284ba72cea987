"""What molspace's REST endpoints share (docs/architecture.md, "Gateway"): Jupyter's authorizer
asked for one action on the handler's ``auth_resource``, and a refusal answered as a located
error, ``{"error": {code, message, where, fix, details}}``, with the HTTP status of its code.
"""

from __future__ import annotations

import json

from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import JupyterHandler

from ..errors import MolspaceError


class LocatedErrorHandler(JupyterHandler):
    """A Jupyter handler whose refusals are located errors.

    Subclasses set ``auth_resource`` (Jupyter's authorization resource, e.g. ``"contents"``) and
    ``status_by_code`` (error code → HTTP status; any other code is 400).
    """

    auth_resource: str
    status_by_code: dict[str, int] = {}

    async def _allowed(self, action: str) -> bool:
        """Whether the current user may ``action`` (``"read"``, ``"write"``, ``"execute"``) on
        ``auth_resource``."""
        return bool(
            await ensure_async(
                self.authorizer.is_authorized(self, self.current_user, action, self.auth_resource)
            )
        )

    def _fail(self, error: MolspaceError) -> None:
        """Finish the request with ``error`` as JSON."""
        self.set_status(self.status_by_code.get(error.code, 400))
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": error.to_dict()}))
