"""The kernel side of the report panel widget kind (``src/panel/`` in the page).

widget
    :class:`Panel` (ipywidgets 8) and its static fallback bundle (:func:`static_fallback`,
    also what the gateway writes into a saved notebook).
content
    What a cell may pass: str, DataFrame, Altair chart, Vega-Lite dict, molecules.
molecules
    Molecule-grid content: SMILES, RDKit ``Mol`` objects, a DataFrame with a molecule column.
links
    Row, grid-cell and chart-value links (a Viewer selector or frame, or a Story step) from a
    DataFrame's columns, a chart's data fields, or a list.
"""

from .widget import Panel, static_fallback

__all__ = ["Panel", "static_fallback"]
