"""Links of a :class:`molspace.Panel`: from DataFrame columns, or per value of a chart's data.

A row of a table, a molecule of a grid, or a value of a chart's inline data
(``spec["data"]["values"]``) may carry one link, the contract's ``PanelLink``:
a click on it in the page runs, through the page's Dispatcher as a ``ui``
call, ``act`` ``{"op": "focus", "selector": ...}`` or ``{"op": "goto_frame",
"frame": ...}`` on a Viewer, or ``story_control`` ``goto`` on a Story
(docs/architecture.md, "Report panels"). From a cell, name the widget and the
column (for a chart: the field of its data values) that holds, per row, the
MolViewSpec component selector, the trajectory frame or the Story step key::

    molspace.Panel(df, viewer=v, selector_column="site")
    molspace.Panel(df, viewer=v, frame_column="frame")
    molspace.Panel(df, story=s, step_column="step")
    molspace.Panel(rmsd_chart, viewer=v, frame_column="frame")
    molspace.Panel(chart, links=[{"op": "goto_frame", "viewer": v, "frame": 0}, None])

A selector or step column is not shown (it is the link, not data); a frame
column is (the frame number is data). A row whose cell is missing
(``None``/NaN) has no link.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import PanelContentError

#: The link arguments of a content, each naming the widget its column needs.
_COLUMNS = (
    ("selector_column", "viewer"),
    ("frame_column", "viewer"),
    ("step_column", "story"),
)

#: The page model each link target must be, and its Python class.
_KINDS = {"viewer": ("ViewerModel", "Viewer"), "story": ("StoryModel", "Story")}


def _target_id(widget: Any, target: str, where: str) -> str:
    """The widget id of a link target (``target``: ``viewer`` or ``story``) given as a
    molspace widget or its id; a molspace widget of another kind is refused at ``where``."""
    model, kind = _KINDS[target]
    if isinstance(widget, str) and widget:
        return widget
    model_name = getattr(widget, "_model_name", None)
    if isinstance(model_name, str) and model_name != model:
        raise PanelContentError(
            "INVALID_INPUT",
            f"the {target} of a link must be a molspace.{kind}; this is a {type(widget).__name__}",
            where,
            f"Pass the molspace.{kind} the links act on (or its widget id).",
            {"type": type(widget).__name__},
        )
    model_id = getattr(widget, "model_id", None)
    if isinstance(model_id, str) and model_id:
        return model_id
    raise PanelContentError(
        "INVALID_INPUT",
        f"the {target} of a link must be a molspace widget or its widget id, not a {type(widget).__name__}",
        where,
        f"Pass the molspace.{kind} itself, or the id observe lists for it.",
    )


def _known_frames(widget: Any) -> int:
    """Frames of a molspace.Viewer the page has read (0: unknown, e.g. a widget id)."""
    if getattr(widget, "_model_name", None) != "ViewerModel":
        return 0
    frames = getattr(widget, "frames", 0)
    return frames if isinstance(frames, int) else 0


def _quoted(value: Any, chars: int = 80) -> str:
    """``repr(value)``, cut to ``chars`` characters: a message quotes what it was given, bounded."""
    text = repr(value)
    return text if len(text) <= chars else text[: chars - 1] + "…"


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
        f"{_quoted(value)} is not a MolViewSpec component selector",
        where,
        "Use a static selector ('ligand', 'polymer', ...), an expression dict "
        "({'label_asym_id': 'A', 'beg_auth_seq_id': 10, 'end_auth_seq_id': 20}) or a list of them.",
    )


def _frame(value: Any, where: str, frames: int) -> int:
    """A 0-based trajectory frame: an int (NumPy ints, and floats that are whole, as a
    DataFrame column with a missing value holds them), below ``frames`` when known (> 0)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        frame = int(value)
    elif isinstance(value, float) and value.is_integer():
        frame = int(value)
    else:
        raise PanelContentError(
            "INVALID_INPUT",
            f"{_quoted(value)} is not a trajectory frame (an int from 0)",
            where,
            "Use whole frame numbers, 0-based (v.frames gives the count).",
            {"type": type(value).__name__},
        )
    if frame < 0:
        raise PanelContentError(
            "INVALID_INPUT",
            f"frame {frame} is negative; frames count from 0",
            where,
            "Use frame numbers from 0 (v.frames gives the count).",
            {"frame": frame},
        )
    if frames > 0 and frame >= frames:
        raise PanelContentError(
            "VALIDATION_FAILED",
            f"frame {frame} is out of range: the Viewer has {frames} frames (0-{frames - 1})",
            where,
            f"Use frames from 0 to {frames - 1}.",
            {"frame": frame, "frames": frames},
        )
    return frame


def _link_column(
    columns: Mapping[str, str | None], targets: Mapping[str, Any]
) -> tuple[str, str] | None:
    """The one link argument given, as ``(argument, column)``, or None; refuses a widget without
    its column, a column without its widget, or two link kinds."""
    given = [(arg, col) for arg, col in columns.items() if col is not None]
    if len(given) > 1:
        raise PanelContentError(
            "INVALID_INPUT",
            f"a row carries one link: {given[0][0]}= and {given[1][0]}= were both given",
            given[1][0],
            "Show one Panel per link kind, or pick one.",
        )
    if not given:
        for target in ("viewer", "story"):
            if targets.get(target) is not None:
                needed = [a for a, t in _COLUMNS if t == target]
                raise PanelContentError(
                    "INVALID_INPUT",
                    f"{target}= names a link target but no {' or '.join(needed)}= was given",
                    needed[0],
                    f"Pass {' or '.join(f'{a}=<column>' for a in needed)}.",
                )
        return None
    arg, column = given[0]
    target = dict(_COLUMNS)[arg]
    if targets.get(target) is None:
        raise PanelContentError(
            "INVALID_INPUT",
            f"{arg}= makes links to a {target.title()}, but {target}= is missing",
            target,
            f"Pass {target}=<the molspace.{target.title()}>.",
        )
    return arg, str(column)


def _links_from_cells(
    cells: Iterable[Any], arg: str, column: str, widget: Any, where: str
) -> list[dict[str, Any] | None]:
    """One link (or None for a missing cell) per cell of ``column``."""
    links: list[dict[str, Any] | None] = []
    if arg == "step_column":
        story = _target_id(widget, "story", "story")
        for i, value in enumerate(cells):
            if _missing(value):
                links.append(None)
            elif isinstance(value, str) and value:
                links.append({"op": "goto", "story": story, "key": value})
            else:
                raise PanelContentError(
                    "INVALID_INPUT",
                    f"row {i} of {_quoted(column)} is {_quoted(value)}, not a Story step key",
                    f"{where}/{i}",
                    "Use the snapshot keys the Story lists (story.snapshots).",
                )
        return links
    viewer = _target_id(widget, "viewer", "viewer")
    frames = _known_frames(widget)
    for i, value in enumerate(cells):
        if _missing(value):
            links.append(None)
        elif arg == "frame_column":
            links.append(
                {
                    "op": "goto_frame",
                    "viewer": viewer,
                    "frame": _frame(value, f"{where}/{i}", frames),
                }
            )
        else:
            links.append(
                {"op": "focus", "viewer": viewer, "selector": _selector(value, f"{where}/{i}")}
            )
    return links


def split_links(
    df: Any,
    *,
    viewer: Any = None,
    selector_column: str | None = None,
    story: Any = None,
    step_column: str | None = None,
    frame_column: str | None = None,
) -> tuple[Any, list[dict[str, Any] | None] | None]:
    """Make one link per row of ``df`` from one of its columns.

    Parameters
    ----------
    df : pandas.DataFrame
        ``n`` rows.
    viewer : molspace.Viewer or str, optional
        The Viewer (or its widget id) whose focus ``selector_column`` sets or whose frame
        ``frame_column`` goes to.
    selector_column : str, optional
        Column of MolViewSpec component selectors (str, dict or list of dicts), one per row.
    frame_column : str, optional
        Column of 0-based trajectory frames (ints; whole floats, as a column with a missing
        value holds them, are read as ints), one per row. Below ``viewer.frames`` when the
        page has read the Viewer.
    story : molspace.Story or str, optional
        The Story (or its widget id) whose step ``step_column`` goes to.
    step_column : str, optional
        Column of snapshot keys (str), one per row.

    Returns
    -------
    (pandas.DataFrame, list or None)
        ``df`` without a selector or step column (a frame column stays: it is data), and the
        ``n`` links in row order (``None`` for a row without one); ``(df, None)`` when no
        link is asked for.

    Raises
    ------
    PanelContentError
        ``INVALID_INPUT`` (where: the argument, or ``content/<column>/<row>``) for a column
        the DataFrame lacks, a column without its widget (or the reverse), two link kinds at
        once, a widget of another kind (a Story as ``viewer=``), a cell that is not a
        selector / key / frame (not an int, or negative); ``VALIDATION_FAILED`` at
        ``content/<column>/<row>`` for a frame the Viewer does not have.
    """
    found = _link_column(
        {
            "selector_column": selector_column,
            "frame_column": frame_column,
            "step_column": step_column,
        },
        {"viewer": viewer, "story": story},
    )
    if found is None:
        return df, None
    arg, column = found
    if column not in df.columns:
        names = [str(c)[:80] for c in df.columns[:50]]
        raise PanelContentError(
            "INVALID_INPUT",
            f"{arg}={_quoted(column)} is not a column of the DataFrame",
            arg,
            f"Use one of: {', '.join(names[:20])}.",
            {"column": column[:80], "columns": names},
        )
    widget = story if arg == "step_column" else viewer
    links = _links_from_cells(df[column], arg, column, widget, f"content/{column}")
    return (df if arg == "frame_column" else df.drop(columns=[column])), links


def _inline_dataset(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with a top-level named dataset (Altair's ``data: {"name"}`` + ``datasets``)
    moved into ``data.values``, so links can follow its values by index."""
    data = spec.get("data")
    datasets = spec.get("datasets")
    if not (isinstance(data, Mapping) and isinstance(datasets, Mapping)):
        return spec
    name = data.get("name")
    if not isinstance(name, str) or set(data) != {"name"} or name not in datasets:
        return spec
    out = {**spec, "data": {"values": datasets[name]}}
    rest = {k: v for k, v in datasets.items() if k != name}
    if _names_dataset({k: v for k, v in out.items() if k != "datasets"}, name):
        return out  # a layer names it too: keep it there
    if rest:
        out["datasets"] = rest
    else:
        del out["datasets"]
    return out


def _names_dataset(node: Any, name: str) -> bool:
    if isinstance(node, Mapping):
        if node.get("name") == name and "values" not in node:
            return True
        return any(_names_dataset(v, name) for v in node.values())
    if isinstance(node, list):
        return any(_names_dataset(v, name) for v in node)
    return False


def _chart_values(spec: Mapping[str, Any], arg: str) -> list[Any]:
    data = spec.get("data")
    values = data.get("values") if isinstance(data, Mapping) else None
    if not isinstance(values, list):
        raise PanelContentError(
            "INVALID_INPUT",
            "chart links follow spec['data']['values'] by index; this chart has no such list",
            arg,
            "Give the chart its rows inline (an Altair chart of a DataFrame, or data={'values': [...]}).",
        )
    return values


def _checked_link(link: Any, where: str) -> dict[str, Any] | None:
    """One given link: None, or a ``PanelLink`` dict (its widget may be given as the widget)."""
    if link is None:
        return None
    if not isinstance(link, Mapping):
        raise PanelContentError(
            "INVALID_INPUT",
            f"a link is a dict or None, not a {type(link).__name__}",
            where,
            "Pass {'op': 'goto_frame', 'viewer': v, 'frame': 3}, {'op': 'focus', 'viewer': v, "
            "'selector': ...} or {'op': 'goto', 'story': s, 'key': ...}.",
        )
    fields = {
        "goto_frame": ("viewer", "frame"),
        "focus": ("viewer", "selector"),
        "goto": ("story", "key"),
    }
    op = link.get("op")
    if not isinstance(op, str) or op not in fields:
        raise PanelContentError(
            "INVALID_INPUT",
            f"link op {_quoted(op)} is not one of goto_frame, focus, goto",
            f"{where}/op",
            "Use op 'goto_frame' (a Viewer's frame), 'focus' (a Viewer's selection) or 'goto' (a Story's step).",
        )
    wanted = fields[op]
    for key in link:
        if key != "op" and key not in wanted:
            raise PanelContentError(
                "INVALID_INPUT",
                f"a {op} link has no field {_quoted(key)}",
                f"{where}/{key}" if isinstance(key, str) and len(key) <= 64 else where,
                f"Give op, {', '.join(wanted)}.",
            )
    for key in wanted:
        if key not in link:
            raise PanelContentError(
                "INVALID_INPUT",
                f"a {op} link needs {key!r}",
                f"{where}/{key}",
                f"Give op, {', '.join(wanted)}.",
            )
    target, value = wanted
    widget = link[target]
    out: dict[str, Any] = {"op": op, target: _target_id(widget, target, f"{where}/{target}")}
    if op == "goto_frame":
        out["frame"] = _frame(link["frame"], f"{where}/frame", _known_frames(widget))
    elif op == "focus":
        out["selector"] = _selector(link["selector"], f"{where}/selector")
    elif isinstance(link["key"], str) and link["key"]:
        out["key"] = link["key"]
    else:
        raise PanelContentError(
            "INVALID_INPUT",
            f"{_quoted(link['key'])} is not a Story step key",
            f"{where}/key",
            "Use the snapshot keys the Story lists (story.snapshots).",
        )
    return out


def chart_links(
    spec: Mapping[str, Any],
    *,
    links: Sequence[Any] | None = None,
    viewer: Any = None,
    selector_column: str | None = None,
    story: Any = None,
    step_column: str | None = None,
    frame_column: str | None = None,
    where: str = "links",
) -> tuple[dict[str, Any], list[dict[str, Any] | None] | None]:
    """Links of a chart, one per value of its inline data (``spec["data"]["values"]``).

    A click on a mark drawn from value ``i`` follows ``links[i]``. An Altair chart keeps its
    data as a named dataset (``data: {"name"}`` + ``datasets``); when links are asked for,
    that dataset moves into ``data.values``, so the indices are the DataFrame's row order.

    Parameters
    ----------
    spec : mapping
        A Vega-Lite v5 spec with ``m`` inline data values.
    links : sequence of (dict or None), optional
        At most ``m`` ``PanelLink`` dicts (``{"op": "goto_frame", "viewer", "frame"}``,
        ``{"op": "focus", "viewer", "selector"}``, ``{"op": "goto", "story", "key"}``; the
        widget may be given as the widget) or ``None``, by value index.
    viewer, selector_column, frame_column, story, step_column : optional
        Instead of ``links``: the field of each data value holding its selector, frame or
        step key (as for a DataFrame, :func:`split_links`; the field stays in the data).
    where : str
        Where a bad ``links`` item is located (``links``, or ``content/links`` for a
        content dict).

    Returns
    -------
    (dict, list or None)
        The spec (its named dataset inlined when links are asked for) and at most ``m``
        links; ``(spec, None)`` when no link is asked for.

    Raises
    ------
    PanelContentError
        ``INVALID_INPUT`` at ``links`` (or the column argument) for a chart without a
        ``data.values`` list, ``links`` with a column too, a link that is not a dict or
        ``None``; at ``<where>/<m>`` for more links than values; at ``<where>/<i>/<field>``
        for a bad link (unknown op or field, a frame that is not an int from 0, a widget of
        another kind); at the column argument for a field no value has, and at
        ``content/<field>/<i>`` for a bad value. ``VALIDATION_FAILED`` at the frame for a
        frame the Viewer (read by the page) does not have.
    """
    found = _link_column(
        {
            "selector_column": selector_column,
            "frame_column": frame_column,
            "step_column": step_column,
        },
        {"viewer": viewer, "story": story},
    )
    if links is None and found is None:
        return dict(spec), None
    if links is not None and found is not None:
        raise PanelContentError(
            "INVALID_INPUT",
            f"links= and {found[0]}= were both given; a value carries one link",
            where,
            f"Pass links= or {found[0]}=, not both.",
        )
    inlined = _inline_dataset(dict(spec))
    values = _chart_values(inlined, where if found is None else found[0])
    if found is not None:
        arg, field = found
        if not any(isinstance(v, Mapping) and field in v for v in values):
            fields = sorted(
                {str(k)[:80] for v in values[:100] if isinstance(v, Mapping) for k in v}
            )
            raise PanelContentError(
                "INVALID_INPUT",
                f"{arg}={_quoted(field)} is not a field of the chart's data values",
                arg,
                f"Use one of: {', '.join(fields[:20])}.",
                {"field": field[:80], "fields": fields[:50]},
            )
        cells = [v.get(field) if isinstance(v, Mapping) else None for v in values]
        widget = story if arg == "step_column" else viewer
        return inlined, _links_from_cells(cells, arg, field, widget, f"content/{field}")
    if isinstance(links, (str, bytes, Mapping)) or not isinstance(links, Sequence):
        raise PanelContentError(
            "INVALID_INPUT",
            f"links= is a list (one link or None per data value), not a {type(links).__name__}",
            where,
            "Pass a list, e.g. [{'op': 'goto_frame', 'viewer': v, 'frame': i} for i in range(n)].",
        )
    if len(links) > len(values):
        raise PanelContentError(
            "INVALID_INPUT",
            f"{len(links)} links for {len(values)} data values; a link belongs to the value of its index",
            f"{where}/{len(values)}",
            "Pass at most one link per data value, in order (None for a value without one).",
            {"links": len(links), "values": len(values)},
        )
    return inlined, [_checked_link(link, f"{where}/{i}") for i, link in enumerate(links)]
