"""Links of a :class:`molspace.Panel` built from a pandas DataFrame.

A row of a table (or a molecule of a grid) may carry one link, the
contract's ``PanelLink``: a click on it in the page runs, through the page's
Dispatcher as a ``ui`` call, ``act`` ``{"op": "focus", "selector": ...}`` on a
Viewer or ``story_control`` ``goto`` on a Story (docs/architecture.md,
"Report panels"). From a cell, name the widget and the column that holds, per
row, the MolViewSpec component selector or the Story step key::

    molspace.Panel(df, viewer=v, selector_column="site")
    molspace.Panel(df, story=s, step_column="step")

The link column is not shown as a column (or property); a row whose cell is
missing (``None``/NaN) has no link.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import PanelContentError


def _target_id(widget: Any, arg: str) -> str:
    if isinstance(widget, str) and widget:
        return widget
    model_id = getattr(widget, "model_id", None)
    if isinstance(model_id, str) and model_id:
        return model_id
    raise PanelContentError(
        "INVALID_INPUT",
        f"{arg}= must be a molspace widget or its widget id, not a {type(widget).__name__}",
        arg,
        f"Pass the molspace.{'Viewer' if arg == 'viewer' else 'Story'} itself, or the id observe lists for it.",
    )


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _selector(value: Any, where: str) -> Any:
    """A cell's MVS component selector: a static name, an expression dict, or a list of them."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, dict) and value:
        return dict(value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
        return [dict(v) for v in value]
    raise PanelContentError(
        "INVALID_INPUT",
        f"{value!r} is not a MolViewSpec component selector",
        where,
        "Use a static selector ('ligand', 'polymer', ...), an expression dict "
        "({'label_asym_id': 'A', 'beg_auth_seq_id': 10, 'end_auth_seq_id': 20}) or a list of them.",
    )


def split_links(
    df: Any,
    *,
    viewer: Any = None,
    selector_column: str | None = None,
    story: Any = None,
    step_column: str | None = None,
) -> tuple[Any, list[dict[str, Any] | None] | None]:
    """Take the link column out of ``df`` and make one link per row.

    Parameters
    ----------
    df : pandas.DataFrame
    viewer : molspace.Viewer or str, optional
        The Viewer (or its widget id) whose focus ``selector_column`` sets.
    selector_column : str, optional
        Column of MolViewSpec component selectors (str, dict or list of dicts), one per row.
    story : molspace.Story or str, optional
        The Story (or its widget id) whose step ``step_column`` goes to.
    step_column : str, optional
        Column of snapshot keys (str), one per row.

    Returns
    -------
    (pandas.DataFrame, list or None)
        ``df`` without the link column, and the links in row order
        (``None`` for a row without one); ``(df, None)`` when no link is asked for.

    Raises
    ------
    PanelContentError
        ``INVALID_INPUT`` (where: the argument, or ``content/<column>/<row>``)
        for a column the DataFrame lacks, a column without its widget (or the
        reverse), both kinds at once, a cell that is not a selector / key.
    """
    if selector_column is None and step_column is None:
        for arg, value in (("viewer", viewer), ("story", story)):
            if value is not None:
                needed = "selector_column" if arg == "viewer" else "step_column"
                raise PanelContentError(
                    "INVALID_INPUT",
                    f"{arg}= names a link target but {needed}= is missing",
                    needed,
                    f"Pass {needed}='<column>'.",
                )
        return df, None
    if selector_column is not None and step_column is not None:
        raise PanelContentError(
            "INVALID_INPUT",
            "a row carries one link: selector_column= and step_column= were both given",
            "step_column",
            "Show one Panel per link kind, or pick one.",
        )
    column = selector_column if selector_column is not None else step_column
    arg = "selector_column" if selector_column is not None else "step_column"
    if column not in df.columns:
        names = [str(c) for c in df.columns]
        raise PanelContentError(
            "INVALID_INPUT",
            f"{arg}={column!r} is not a column of the DataFrame",
            arg,
            f"Use one of: {', '.join(names[:20])}.",
            {"column": str(column), "columns": names[:50]},
        )
    links: list[dict[str, Any] | None] = []
    if selector_column is not None:
        target = _target_id(viewer, "viewer")
        for i, value in enumerate(df[column]):
            where = f"content/{column}/{i}"
            links.append(
                None
                if _missing(value)
                else {"op": "focus", "viewer": target, "selector": _selector(value, where)}
            )
    else:
        target = _target_id(story, "story")
        for i, value in enumerate(df[column]):
            if _missing(value):
                links.append(None)
            elif isinstance(value, str) and value:
                links.append({"op": "goto", "story": target, "key": value})
            else:
                raise PanelContentError(
                    "INVALID_INPUT",
                    f"row {i} of {column!r} is {value!r}, not a Story step key",
                    f"content/{column}/{i}",
                    "Use the snapshot keys the Story lists (story.snapshots).",
                )
    return df.drop(columns=[column]), links
