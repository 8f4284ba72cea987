"""Tools the gateway answers itself (``runs: 'gateway'`` in the contract).

Each module here answers one tool; :data:`GATEWAY_TOOLS` maps the contract's
tool name to it. Page tools are not here: the page's Dispatcher runs them (see
``docs/architecture.md``, "Where a new tool goes").
"""

from __future__ import annotations

from . import describe, status, story_schema, story_template
from .context import GatewayToolAnswer, GatewayToolContext, GatewayToolHandler

#: Handlers of the gateway-answered tools, keyed by contract tool name.
GATEWAY_TOOLS: dict[str, GatewayToolHandler] = {
    "status": status.answer,
    "describe": describe.answer,
    "story_schema": story_schema.answer,
    "story_template_list": story_template.list_answer,
    "story_template_create": story_template.create_answer,
}

__all__ = ["GATEWAY_TOOLS", "GatewayToolAnswer", "GatewayToolContext", "GatewayToolHandler"]
