"""Story templates: load, list, fill (docs/architecture.md, "Story authoring").

A template is a JSON descriptor in ``templates/`` (shipped as ``molspace/templates``):
``id``, ``title``, ``description``, declared ``variables``, a ``storyboard`` (each
step's purpose and expected evidence), ``caveats``, ``storyTitle`` and ``steps``
with ``{{variable}}`` placeholders. Filling walks the *parsed* JSON and replaces
placeholders in string values only, so a value is always text (or, for a string
that is exactly one placeholder of a numeric variable, a number) and can never
add nodes or keys to the tree.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import MolspaceError

_PACKAGE = Path(__file__).resolve().parent.parent  # molspace/
#: Installed: ``molspace/templates`` (the wheel force-includes ``templates/``); source checkout: ``templates/``.
TEMPLATE_DIRS = (_PACKAGE / "templates", _PACKAGE.parent / "templates")
_PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
#: Catalogue fields of a template (everything but its steps).
SUMMARY_FIELDS = ("id", "title", "description", "variables", "storyboard", "caveats")


def template_dir() -> Path:
    """The directory the templates are read from.

    Raises
    ------
    FileNotFoundError
        If neither the installed nor the source-checkout directory exists.
    """
    for d in TEMPLATE_DIRS:
        if d.is_dir():
            return d
    raise FileNotFoundError(
        f"no Story templates in {', '.join(map(str, TEMPLATE_DIRS))}: reinstall molspace"
    )


@cache
def _load() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(template_dir().glob("*.json")):
        descriptor = json.loads(path.read_text(encoding="utf-8"))
        out[descriptor["id"]] = descriptor
    return out


def templates() -> list[dict[str, Any]]:
    """The catalogue: each template's ``id, title, description, variables, storyboard, caveats``.

    Returns
    -------
    list of dict
        In id order; copies (changing them changes nothing).
    """
    return [{k: copy.deepcopy(t[k]) for k in SUMMARY_FIELDS} for t in _load().values()]


def get(template_id: str, where: str = "/template") -> dict[str, Any]:
    """One template's full descriptor (a copy).

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` at ``where``, listing the template ids.
    """
    found = _load().get(template_id)
    if found is None:
        ids = sorted(_load())
        raise MolspaceError(
            "NOT_FOUND",
            f"No Story template {template_id!r}.",
            where,
            f"Use one of: {', '.join(ids)} (story_template_list).",
            {"template": template_id, "templates": ids},
        )
    return copy.deepcopy(found)


def _invalid(message: str, where: str, fix: str, **details: Any) -> MolspaceError:
    return MolspaceError("INVALID_INPUT", message, where, fix, details)


def _check_values(descriptor: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """Declared variables with defaults applied; every problem is collected, then the first raised with all."""
    declared = {v["name"]: v for v in descriptor["variables"]}
    problems: list[dict[str, str]] = []
    for name in values:
        if name not in declared:
            problems.append(
                {
                    "where": f"/variables/{name}",
                    "message": f"Unknown variable {name!r} for template {descriptor['id']!r}.",
                }
            )
    resolved: dict[str, Any] = {}
    for name, var in declared.items():
        where = f"/variables/{name}"
        if name in values:
            value = values[name]
        elif "default" in var:
            value = var["default"]
        else:
            if var["required"]:
                problems.append(
                    {
                        "where": where,
                        "message": f"Missing required variable {name!r} ({var['description']}).",
                    }
                )
            continue
        kind = var["type"]
        if kind == "string" and not isinstance(value, str):
            problems.append({"where": where, "message": f"{name!r} must be a string."})
            continue
        if kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
            problems.append({"where": where, "message": f"{name!r} must be an integer."})
            continue
        if kind == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))):
            problems.append({"where": where, "message": f"{name!r} must be a number."})
            continue
        if len(str(value)) > int(var["maxLength"]):
            problems.append(
                {
                    "where": where,
                    "message": f"{name!r} is {len(str(value))} characters; the limit is {var['maxLength']}.",
                }
            )
            continue
        resolved[name] = value
    if problems:
        first = problems[0]
        raise _invalid(
            f"{len(problems)} problem(s) with the variables of {descriptor['id']!r}: {first['message']}",
            first["where"],
            "Pass every required variable, only declared ones, each within its maxLength "
            "(story_template_list lists them).",
            problems=problems,
            variables=[
                {k: v[k] for k in ("name", "type", "required", "maxLength")}
                for v in descriptor["variables"]
            ],
        )
    return resolved


def _fill(node: Any, values: dict[str, Any], numeric: set[str]) -> Any:
    if isinstance(node, dict):
        return {k: _fill(v, values, numeric) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, values, numeric) for v in node]
    if isinstance(node, str):
        whole = _PLACEHOLDER.fullmatch(node)
        if whole and whole.group(1) in numeric and whole.group(1) in values:
            return values[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), "")), node)
    return node


def fill(template_id: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """Fill a template into a storyboard ``{title, steps}`` (the input of ``story_create``).

    Parameters
    ----------
    template_id : str
        A template id (:func:`templates`).
    variables : dict, optional
        ``{name: value}``; strings for ``string`` variables, numbers for ``integer``/``number``.

    Returns
    -------
    dict
        ``{"title": str, "steps": [...]}``: placeholders replaced in string values only.

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` at ``/template``; ``INVALID_INPUT`` at ``/variables/<name>`` for an
        unknown, missing, mistyped or too long value (all listed in ``details.problems``).
    """
    descriptor = get(template_id)
    values = _check_values(descriptor, dict(variables or {}))
    numeric = {v["name"] for v in descriptor["variables"] if v["type"] in ("integer", "number")}
    return {
        "title": _fill(descriptor["storyTitle"], values, numeric),
        "steps": _fill(descriptor["steps"], values, numeric),
    }
