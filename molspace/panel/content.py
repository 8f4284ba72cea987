"""What a cell may show in a :class:`molspace.Panel`, as the contract's ``PanelContent``.

- ``str`` → markdown (``{"type": "markdown", "markdown": ...}``);
- a pandas ``DataFrame`` → a table (columns typed from their dtypes, units from
  ``units=`` or ``df.attrs["units"]``; NaN/NaT → ``None``);
- an Altair chart (any object with ``to_dict()`` giving a Vega-Lite dict) or a
  Vega-Lite ``dict`` → a chart (data inline), its data values optionally linked
  (``links=``, or ``viewer=`` + ``frame_column=``: :mod:`molspace.panel.links`);
- a list of SMILES strings or RDKit molecules, or a DataFrame with
  ``smiles_column=`` or an RDKit molecule column → a molecule grid
  (:mod:`molspace.panel.molecules`);
- a ``dict`` with ``"type"`` of ``"markdown"``, ``"table"``, ``"chart"`` or ``"molecules"`` → as is.

Bounds are the contract's (``LIMITS["panel*"]``, read from the manifest); over
one: :class:`~molspace.errors.PanelContentError` ``TOO_LARGE`` naming the
limit; nothing is cut. The page checks the rest (cell types, the Vega-Lite
schema) and reports it as the panel's ``error`` (docs/architecture.md,
"Report panels").
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from ..contract import LIMITS
from ..errors import PanelContentError
from .links import chart_links, split_links
from .molecules import (
    check_molecules,
    is_rdkit_mol,
    molecules_from_dataframe,
    molecules_from_list,
    too_large,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

_TYPES = ("markdown", "table", "chart", "molecules")


def _is_dataframe(obj: Any) -> bool:
    # pandas is optional: recognise a DataFrame without importing pandas.
    return type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pandas")


class ContentOptions(TypedDict, total=False):
    """What a cell may say of its content besides the content: the keywords of
    :class:`molspace.Panel`, :meth:`molspace.Panel.update` and :func:`normalize_panel_content`,
    listed here once (each ``None`` when not given; see :func:`normalize_panel_content`)."""

    units: Mapping[str, str] | None
    smiles_column: str | None
    molecule_column: str | None
    name_column: str | None
    page_size: int | None
    viewer: Any
    selector_column: str | None
    story: Any
    step_column: str | None
    frame_column: str | None
    links: Sequence[Any] | None


#: The names of :class:`ContentOptions`, in order.
CONTENT_OPTIONS: tuple[str, ...] = tuple(ContentOptions.__annotations__)


def check_content_options(options: Mapping[str, Any], function: str) -> None:
    """Refuse a keyword that is not a content option, as Python refuses an unknown keyword.

    Raises
    ------
    TypeError
        ``<function>() got an unexpected keyword argument '<name>'``.
    """
    for name in options:
        if name not in CONTENT_OPTIONS:
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}")


def normalize_panel_content(content: Any, **options: Unpack[ContentOptions]) -> dict[str, Any]:
    """Turn what a cell passes into the contract's ``PanelContent`` dict.

    Parameters
    ----------
    content : str, pandas.DataFrame, altair chart, or dict
        See the module docstring.
    **options
        The :class:`ContentOptions`, keywords only, each optional:

        units : mapping of str to str, optional
            Tables from a DataFrame: unit of each column by name (e.g. ``{"score": "kcal/mol"}``).
        smiles_column, molecule_column, name_column : str, optional
            Molecule grids from a DataFrame: the column of SMILES or of RDKit
            molecules (default: the first RDKit molecule column, if any), and the
            column naming each molecule.
        page_size : int, optional
            Molecule grids: molecules per page (default 24).
        viewer, selector_column, frame_column, story, step_column : optional
            DataFrames (and charts, whose data values have the field): one link per
            row, a click on which focuses the row's MVS component selector (column
            ``selector_column``) in ``viewer``, goes to the row's trajectory frame
            (column ``frame_column``, ints from 0) of ``viewer``, or goes to the
            row's step key (column ``step_column``) of ``story``
            (:mod:`molspace.panel.links`).
        links : sequence of (dict or None), optional
            Charts only: one ``PanelLink`` dict or ``None`` per value of the chart's
            inline data, by index (at most as many as values); a click on a mark
            drawn from value ``i`` follows ``links[i]``.

    Returns
    -------
    dict
        ``{"type": "markdown" | "table" | "chart" | "molecules", ...}``, JSON-serialisable.

    Raises
    ------
    PanelContentError
        ``UNSUPPORTED_FORMAT`` for another type, ``TOO_LARGE`` over a bound
        (``details["limit"]`` names it), ``INVALID_INPUT`` for a malformed dict or a
        bad link argument (located at the argument, ``links/<i>/...`` or
        ``content/<column>/<row>``), ``VALIDATION_FAILED`` for a frame the Viewer
        does not have (:mod:`molspace.panel.links`).
    """
    check_content_options(options, "normalize_panel_content")
    link_args: dict[str, Any] = {
        k: options.get(k)
        for k in ("viewer", "selector_column", "story", "step_column", "frame_column")
    }
    given_links = options.get("links")
    page_size = options.get("page_size")
    if _is_dataframe(content):
        if given_links is not None:
            raise PanelContentError(
                "INVALID_INPUT",
                "links= links a chart's data values; a DataFrame's rows take their links from a column",
                "links",
                "Pass frame_column=, selector_column= or step_column= (with viewer= / story=).",
            )
        content, links = split_links(content, **link_args)
        return _with_links(
            _from_dataframe(
                content,
                options.get("units"),
                options.get("smiles_column"),
                options.get("molecule_column"),
                options.get("name_column"),
                page_size,
            ),
            links,
        )
    spec = _chart_spec(content)
    if spec is not None:
        spec, links = chart_links(spec, links=given_links, **link_args)
        chart = _chart(spec)
        return chart if links is None else _json({**chart, "links": links})
    given = [k for k, v in {**link_args, "links": given_links}.items() if v is not None]
    if given:
        raise PanelContentError(
            "INVALID_INPUT",
            f"{given[0]}= attaches links to the rows of a DataFrame; this content is a {type(content).__name__}",
            given[0],
            "Pass a DataFrame or a chart, or put 'links' (tables) / 'link' (molecules) in a PanelContent dict.",
        )
    if isinstance(content, str):
        return _markdown(content)
    if isinstance(content, (list, tuple)):
        if content and all(isinstance(m, str) or is_rdkit_mol(m) or m is None for m in content):
            return molecules_from_list(content, page_size=page_size)
        raise PanelContentError(
            "UNSUPPORTED_FORMAT",
            "a Panel shows a list only as a molecule grid: a list of SMILES strings or RDKit molecules",
            "content",
            "Pass a non-empty list of SMILES strings or RDKit Mols.",
            {"types": sorted({type(m).__name__ for m in content})[:10]},
        )
    if isinstance(content, Mapping):
        return _checked(dict(content))
    raise PanelContentError(
        "UNSUPPORTED_FORMAT",
        f"a Panel cannot show a {type(content).__name__}",
        "content",
        "Pass markdown text (str), a pandas DataFrame, an Altair chart, a Vega-Lite dict, or a list of SMILES / RDKit Mols.",
        {"type": type(content).__name__},
    )


def _chart_spec(content: Any) -> dict[str, Any] | None:
    """The Vega-Lite spec of a chart a cell passes (a spec dict, or an Altair chart's
    ``to_dict()``), or None for any other content."""
    if isinstance(content, Mapping):
        return None if content.get("type") in _TYPES else dict(content)
    if isinstance(content, (str, list, tuple)):
        return None
    to_dict = getattr(content, "to_dict", None)
    if callable(to_dict):
        spec = to_dict()
        if isinstance(spec, Mapping):
            return dict(spec)
    return None


def _with_links(
    content: dict[str, Any], links: list[dict[str, Any] | None] | None
) -> dict[str, Any]:
    if links is None:
        return content
    if content["type"] == "table":
        return {**content, "links": links}
    molecules = [
        m if link is None else {**m, "link": link}
        for m, link in zip(content["molecules"], links, strict=False)
    ]
    return _json({**content, "molecules": molecules})


def _from_dataframe(
    content: Any,
    units: Mapping[str, str] | None,
    smiles_column: str | None,
    molecule_column: str | None,
    name_column: str | None,
    page_size: int | None,
) -> dict[str, Any]:
    if (
        smiles_column is not None
        or molecule_column is not None
        or any(is_rdkit_mol(v) for c in content.columns for v in content[c].head(5))
    ):
        return molecules_from_dataframe(
            content,
            smiles_column=smiles_column,
            molecule_column=molecule_column,
            name_column=name_column,
            page_size=page_size,
        )
    return table_from_dataframe(content, units=units)


def _markdown(text: str) -> dict[str, Any]:
    if len(text) > LIMITS["panelMarkdownChars"]:
        raise too_large(
            "the markdown length in characters",
            len(text),
            "panelMarkdownChars",
            "content",
            "Shorten the text.",
        )
    return {"type": "markdown", "markdown": text}


def _checked(content: dict[str, Any]) -> dict[str, Any]:
    kind = content["type"]
    if kind == "molecules":
        return _json(check_molecules(content))
    if kind == "markdown":
        if not isinstance(content.get("markdown"), str):
            raise PanelContentError(
                "INVALID_INPUT",
                "a markdown content needs a str 'markdown'",
                "content/markdown",
                "Pass the text.",
            )
        return _markdown(content["markdown"])
    if kind == "table":
        columns, rows = content.get("columns"), content.get("rows")
        if not isinstance(columns, list) or not isinstance(rows, list):
            raise PanelContentError(
                "INVALID_INPUT",
                "a table content needs lists 'columns' and 'rows'",
                "content",
                "Pass {'type': 'table', 'columns': [{'name', 'type', 'unit'}...], 'rows': [[...], ...]}.",
            )
        _check_table_size(len(columns), len(rows))
        return _json(content)
    spec = content.get("spec")
    if not isinstance(spec, Mapping):
        raise PanelContentError(
            "INVALID_INPUT",
            "a chart content needs a dict 'spec'",
            "content/spec",
            "Pass a Vega-Lite spec.",
        )
    if content.get("links") is None:
        return _chart(dict(spec))
    spec, links = chart_links(spec, links=content["links"], where="content/links")
    return _json({**_chart(spec), "links": links})


def _check_table_size(columns: int, rows: int) -> None:
    if columns > LIMITS["panelTableColumns"]:
        raise too_large(
            "the number of columns",
            columns,
            "panelTableColumns",
            "content/columns",
            "Select fewer columns.",
        )
    if rows > LIMITS["panelTableRows"]:
        raise too_large(
            "the number of rows",
            rows,
            "panelTableRows",
            "content/rows",
            f"Pass at most {LIMITS['panelTableRows']} rows, e.g. df.head({LIMITS['panelTableRows']}) or "
            "df.nsmallest(n, column); nothing is cut for you.",
        )
    if rows * columns > LIMITS["panelTableCells"]:
        raise too_large(
            "the number of cells (rows x columns)",
            rows * columns,
            "panelTableCells",
            "content/rows",
            "Pass fewer rows or columns.",
        )


def _chart(spec: dict[str, Any]) -> dict[str, Any]:
    content = _json({"type": "chart", "spec": spec})
    size = len(json.dumps(content["spec"]).encode("utf-8"))
    if size > LIMITS["panelChartSpecBytes"]:
        raise too_large(
            "the chart spec in bytes of JSON",
            size,
            "panelChartSpecBytes",
            "content/spec",
            "Aggregate the data first.",
        )
    return content


def _json(value: dict[str, Any]) -> dict[str, Any]:
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise PanelContentError(
            "INVALID_INPUT",
            f"the content is not JSON: {e}",
            "content",
            "Use str, int, float (finite), bool, None, lists and dicts only.",
        ) from e


def _column_type(dtype: Any) -> str:
    kind = getattr(dtype, "kind", "O")
    return {"b": "boolean", "i": "integer", "u": "integer", "f": "number"}.get(kind, "string")


def _cell(value: Any, kind: str) -> Any:
    if value is None:
        return None
    try:
        if value != value:  # NaN, NaT, pd.NA
            return None
    except (TypeError, ValueError):
        return None
    if kind == "boolean":
        return bool(value)
    if kind == "integer":
        return int(value)
    if kind == "number":
        f = float(value)
        return f if math.isfinite(f) else None
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def table_from_dataframe(df: Any, *, units: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A table content from a pandas DataFrame.

    Parameters
    ----------
    df : pandas.DataFrame
        Column names become column names (as str); dtypes give the column
        types (bool → boolean, int → integer, float → number, others → string).
    units : mapping, optional
        Unit per column name; default ``df.attrs.get("units", {})``.

    Raises
    ------
    PanelContentError
        ``TOO_LARGE`` over ``panelTableRows``, ``panelTableColumns`` or ``panelTableCells``.
    """
    rows_n, cols_n = df.shape
    _check_table_size(cols_n, rows_n)
    units = dict(units if units is not None else df.attrs.get("units", {}))
    names = [str(c) for c in df.columns]
    unknown = sorted(set(units) - set(names))
    if unknown:
        raise PanelContentError(
            "INVALID_INPUT",
            f"units name columns the DataFrame does not have: {', '.join(unknown)}",
            "units",
            f"Use column names: {', '.join(names[:20])}.",
            {"unknown": unknown},
        )
    kinds = [_column_type(t) for t in df.dtypes]
    columns = []
    for name, kind in zip(names, kinds, strict=True):
        column: dict[str, Any] = {"name": name, "type": kind}
        if name in units:
            column["unit"] = str(units[name])
        columns.append(column)
    rows = [
        [_cell(v, k) for v, k in zip(row, kinds, strict=True)]
        for row in df.itertuples(index=False, name=None)
    ]
    return {"type": "table", "columns": columns, "rows": rows}
