"""molspace: a molecular workspace in JupyterLab shared by notebook cells and AI agents.

- :class:`Story` — a Mol* viewer playing a MolViewSpec Story (ipywidgets 8).
- :class:`Panel` — a report panel: markdown, a table or a Vega-Lite chart (ipywidgets 8).
- :mod:`molspace.stories` — Story templates, validation (molviewspec) and writing from a cell.
- :class:`Viewer` — a Mol* viewer of one structure file, with its composition and typed operations.
- :class:`Ketcher` — the Ketcher chemical editor, revision-checked, shared with agents.
- :class:`PageRequest` — what a control call returns; ``.wait()`` waits for the page in the cell.
- The Jupyter server extension ``molspace`` — an MCP gateway at ``{base_url}molspace/mcp``.
"""

import sys as _sys

from ._version import __version__
from .errors import (
    KetcherControlError,
    MolspaceError,
    PageWaitError,
    PanelContentError,
    StoryControlError,
    StorySourceError,
    StructureSourceError,
    ViewerControlError,
)
from .gateway._entry import (  # noqa: F401 - Jupyter Server finds the extension here
    _jupyter_server_extension_points,
    _load_jupyter_server_extension,
)
from .ketcher import Ketcher, KetcherChange
from .page_request import PageRequest
from .panel import Panel
from .story import Story, StoryChange, stories
from .viewer import Viewer, ViewerChange

# ``import molspace.stories`` as before the Story modules moved into molspace/story/.
_sys.modules[f"{__name__}.stories"] = stories

__all__ = [
    "Story",
    "StoryChange",
    "MolspaceError",
    "PageRequest",
    "PageWaitError",
    "StorySourceError",
    "StoryControlError",
    "__version__",
    "Panel",
    "PanelContentError",
    "stories",
    "Viewer",
    "ViewerChange",
    "StructureSourceError",
    "ViewerControlError",
    "Ketcher",
    "KetcherChange",
    "KetcherControlError",
]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the prebuilt JupyterLab extension lives in the installed package."""
    return [{"src": "labextension", "dest": "molspace"}]
