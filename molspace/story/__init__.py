"""The kernel side of the Story widget kind (``src/story/`` in the page).

widget
    :class:`Story` (ipywidgets 8) and :class:`StoryChange`.
source
    What a cell may pass as a Story: MVSJ, dict, path, MVSX, molviewspec objects.
templates
    Story templates: catalogue and filling (the agent tools use the same).
archive
    ``.mvsx`` with assets from a cell, the tool's rules.
stories
    ``molspace.stories``: templates, validation (molviewspec) and writing from a cell.
"""

from . import stories
from .widget import Story, StoryChange

__all__ = ["Story", "StoryChange", "stories"]
