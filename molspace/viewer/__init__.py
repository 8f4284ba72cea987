"""The kernel side of the Viewer widget kind (``src/viewer/`` in the page).

widget
    :class:`Viewer` (ipywidgets 8): one structure file, its composition and typed operations.
source
    What a cell may pass as a structure: a path under the working directory, text or bytes
    with a format, an RDKit ``Mol`` as SDF, one MVS state; early located refusals.
"""

from .widget import Viewer, ViewerChange

__all__ = ["Viewer", "ViewerChange"]
