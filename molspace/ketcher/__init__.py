"""The kernel side of the Ketcher widget kind (``src/ketcher/`` in the page).

widget
    :class:`Ketcher` (ipywidgets 8): what a cell may pass (:func:`structure_text`), the
    read-only mirrored structure, ``set_structure``/``highlight``/``clear``, ``to_viewer``.
embedding
    3D coordinates for a drawn molecule (RDKit ETKDG + MMFF94), for ``to_viewer`` and the
    gateway's ``molspace/embed3d``.
"""

from .widget import Ketcher, KetcherChange, structure_text

__all__ = ["Ketcher", "KetcherChange", "structure_text"]
