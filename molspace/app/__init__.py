"""The molspace MCP App on the server side: its ``ui://`` resources and the structure a result carries.

The App itself is ``src/app/`` (built into ``static/``); a host that renders MCP Apps
(extension ``io.modelcontextprotocol/ui``) shows it in the agent's chat. See
``docs/architecture.md``, "MCP App".
"""

from .depiction import depiction_answer
from .export import html_export_answer, html_export_path
from .panel import panel_answer, panel_meta_beside_page, relayed_depictions
from .resources import AppResources
from .structure import AppFiles, app_meta_beside_page, app_structure, structure_answer

__all__ = [
    "AppFiles",
    "AppResources",
    "app_meta_beside_page",
    "app_structure",
    "depiction_answer",
    "html_export_answer",
    "html_export_path",
    "panel_answer",
    "panel_meta_beside_page",
    "relayed_depictions",
    "structure_answer",
]
