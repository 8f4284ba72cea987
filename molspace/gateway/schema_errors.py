"""Schema validation errors, located: JSON pointers, tagged-union items, problem text.

How a ``jsonschema`` error on a tool's arguments (or a page's result) becomes the located error
an agent reads (:meth:`~molspace.gateway.manifest.ToolSpec.check_arguments`): the pointer of the
first bad field, the problem said as a sentence (values as JSON), and, inside a tagged-union item
(``op``/``type``/``action``), that item with its tag and its own fields.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import ValidationError


def json_pointer(path: list[Any] | tuple[Any, ...]) -> str:
    """Encode a path of keys/indices as an RFC 6901 JSON pointer.

    Parameters
    ----------
    path : sequence of str or int
        Keys and array indices from the document root, e.g. ``["actions", 0, "kind"]``.

    Returns
    -------
    str
        ``""`` for the root, else ``"/actions/0/kind"`` (``~`` → ``~0``, ``/`` → ``~1``).
    """
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


#: Fields that tell the branches of a tagged union apart (an ``act`` operation's ``op``, a panel
#: content's ``type``, a control's ``action``): an error inside such an item names the item.
UNION_TAGS = ("op", "type", "action")
#: Longest value quoted in a message, characters (JSON, cut with "…").
_QUOTED_CHARS = 60
#: Unknown field names one error lists.
_LISTED_FIELDS = 10


def quoted(value: Any) -> str:
    """A value as JSON for a message (never a Python repr), cut at ``_QUOTED_CHARS``."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        text = json.dumps(str(value))
    return text if len(text) <= _QUOTED_CHARS else text[: _QUOTED_CHARS - 1] + "…"


def bounded(value: Any) -> Any:
    """``value`` as a located error may carry it: a string cut at ``_QUOTED_CHARS``, other values as they are."""
    if isinstance(value, str) and len(value) > _QUOTED_CHARS:
        return value[: _QUOTED_CHARS - 1] + "…"
    return value


def oversized(root: dict[str, Any], arguments: Any) -> tuple[list[Any], str, int, int] | None:
    """The first array over its ``maxItems`` or string over its ``maxLength`` along fixed fields.

    Checked before full validation, so a call of 100,000 items costs one length check, not a
    schema check per item. Follows ``properties`` and ``items`` (not union branches) of ``root``.

    Returns
    -------
    tuple or None
        ``(path, keyword, length, limit)`` of the first such value in document order, else None.
    """

    def walk(schema: Any, value: Any, path: list[Any]) -> tuple[list[Any], str, int, int] | None:
        schema = _resolve(root, schema)
        if not isinstance(schema, dict):
            return None
        branches = _union_branches(root, schema)
        if branches:
            return in_union(branches, value, path)
        if isinstance(value, list):
            limit = schema.get("maxItems")
            if isinstance(limit, int) and len(value) > limit:
                return path, "maxItems", len(value), limit
            items = schema.get("items")
            if isinstance(items, dict):
                for i, v in enumerate(value):
                    found = walk(items, v, [*path, i])
                    if found:
                        return found
        elif isinstance(value, str):
            limit = schema.get("maxLength")
            if isinstance(limit, int) and len(value) > limit:
                return path, "maxLength", len(value), limit
        elif isinstance(value, dict):
            props = schema.get("properties")
            if isinstance(props, dict):
                for k, v in value.items():
                    if k in props:
                        found = walk(props[k], v, [*path, k])
                        if found:
                            return found
        return None

    def in_union(
        branches: list[Any], value: Any, path: list[Any]
    ) -> tuple[list[Any], str, int, int] | None:
        if isinstance(value, list):
            # Over the largest maxItems of every branch that takes an array: too long whichever it is.
            arrays = [b for b in branches if isinstance(b, dict) and b.get("type") == "array"]
            limits = [b["maxItems"] for b in arrays if isinstance(b.get("maxItems"), int)]
            if arrays and len(limits) == len(arrays) and len(value) > max(limits):
                return path, "maxItems", len(value), max(limits)
            return walk(arrays[0], value, path) if len(arrays) == 1 else None
        if isinstance(value, dict):
            # A tagged union: follow the one branch whose `const` fields the value matches.
            matching = [
                b
                for b in branches
                if isinstance(b, dict)
                and any(
                    "const" in (_resolve(root, p) or {}) for p in b.get("properties", {}).values()
                )
                and all(
                    value.get(k) == _resolve(root, p)["const"]
                    for k, p in b.get("properties", {}).items()
                    if isinstance(_resolve(root, p), dict) and "const" in _resolve(root, p)
                )
            ]
            return walk(matching[0], value, path) if len(matching) == 1 else None
        return None

    return walk(root, arguments, [])


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number" if isinstance(value, float) else "integer"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _resolve(root: dict[str, Any], schema: Any) -> Any:
    """Follow local ``$ref`` s (``#/$defs/...``) of ``root``."""
    seen = 0
    while (
        isinstance(schema, dict)
        and isinstance(schema.get("$ref"), str)
        and schema["$ref"].startswith("#")
        and seen < 32
    ):
        node: Any = root
        for part in schema["$ref"][1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, dict) else None
        schema, seen = node, seen + 1
    return schema


def _tag_values(root: dict[str, Any], branch: Any, tag: str) -> list[Any]:
    """The values of ``tag`` a union branch takes (its ``const`` or ``enum``)."""
    prop = (
        _resolve(root, (_resolve(root, branch) or {}).get("properties", {}).get(tag))
        if isinstance(_resolve(root, branch), dict)
        else None
    )
    if not isinstance(prop, dict):
        return []
    if "const" in prop:
        return [prop["const"]]
    return list(prop.get("enum", []))


def _union_branches(root: dict[str, Any], schema: Any) -> list[Any]:
    """The branches of a ``oneOf``/``anyOf`` schema, nested unions flattened, refs resolved."""
    schema = _resolve(root, schema)
    if not isinstance(schema, dict):
        return []
    out: list[Any] = []
    for key in ("oneOf", "anyOf"):
        for b in schema.get(key, []):
            b = _resolve(root, b)
            inner = _union_branches(root, b)
            out.extend(inner if inner else [b])
    return out


@dataclass
class TaggedItem:
    """An item of a tagged union on the way to an error: where it is, its tag, its branch."""

    path: list[Any]
    tag: str
    value: Any
    allowed: list[str] | None  # fields of its branch; None when the tag value is unknown
    tag_values: list[Any]


def tagged_items(root: dict[str, Any], arguments: Any, path: list[Any]) -> list[TaggedItem]:
    """The tagged-union items the instance path ``path`` passes through, outermost first."""
    items: list[TaggedItem] = []
    schema: Any = root
    instance: Any = arguments
    for depth in range(len(path) + 1):
        schema = _resolve(root, schema)
        branches = _union_branches(root, schema)
        if branches and isinstance(instance, dict):
            for tag in UNION_TAGS:
                values = [v for b in branches for v in _tag_values(root, b, tag)]
                if values and isinstance(instance.get(tag), str):
                    chosen = next(
                        (b for b in branches if instance[tag] in _tag_values(root, b, tag)), None
                    )
                    allowed = (
                        sorted(chosen.get("properties", {})) if isinstance(chosen, dict) else None
                    )
                    items.append(
                        TaggedItem(list(path[:depth]), tag, instance[tag], allowed, values)
                    )
                    schema = chosen if chosen is not None else schema
                    break
            else:
                # an untagged union: the branch of the instance's type, if only one
                typed = [
                    b
                    for b in branches
                    if isinstance(b, dict)
                    and b.get("type") == _json_type(instance).replace("integer", "number")
                ]
                typed = typed or [
                    b
                    for b in branches
                    if isinstance(b, dict) and b.get("type") == _json_type(instance)
                ]
                schema = typed[0] if len(typed) == 1 else None
        elif branches:
            typed = [
                b for b in branches if isinstance(b, dict) and b.get("type") == _json_type(instance)
            ]
            schema = typed[0] if len(typed) == 1 else None
        if depth == len(path) or not isinstance(schema, dict):
            break
        key = path[depth]
        if isinstance(instance, dict) and isinstance(key, str):
            schema = schema.get("properties", {}).get(key, schema.get("additionalProperties"))
            instance = instance.get(key)
        elif isinstance(instance, list) and isinstance(key, int) and 0 <= key < len(instance):
            prefix = schema.get("prefixItems") or []
            schema = prefix[key] if key < len(prefix) else schema.get("items")
            instance = instance[key]
        else:
            break
    return items


def problem(error: ValidationError) -> str:
    """What is wrong, as a short sentence with values as JSON (never a Python repr)."""
    v, value, inst = error.validator, error.validator_value, error.instance
    if v == "additionalProperties" and isinstance(inst, dict):
        known = set((error.schema or {}).get("properties", {}))
        extra = sorted(k for k in inst if k not in known)
        listed = ", ".join(quoted(k) for k in extra[:_LISTED_FIELDS])
        more = f" and {len(extra) - _LISTED_FIELDS} more" if len(extra) > _LISTED_FIELDS else ""
        return f"unknown field {listed}{more}"
    if v == "required" and isinstance(inst, dict):
        missing = [n for n in value if n not in inst]
        return f"missing required field {', '.join(quoted(n) for n in missing)}"
    if v == "type":
        want = " or ".join(value) if isinstance(value, list) else str(value)
        return f"must be {want} (got {_json_type(inst)})"
    if v == "const":
        return f"must be {quoted(value)} (got {quoted(inst)})"
    if v == "enum":
        return f"must be one of {', '.join(quoted(x) for x in value)} (got {quoted(inst)})"
    if v in ("maxLength", "minLength") and isinstance(inst, str):
        return f"is {len(inst)} characters; {'at most' if v == 'maxLength' else 'at least'} {value} allowed ({v})"
    if v in ("maxItems", "minItems") and isinstance(inst, list):
        return f"has {len(inst)} items; {'at most' if v == 'maxItems' else 'at least'} {value} allowed ({v})"
    if v in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
        rel = {
            "maximum": "at most",
            "minimum": "at least",
            "exclusiveMaximum": "below",
            "exclusiveMinimum": "above",
        }[v]
        return f"must be {rel} {quoted(value)} (got {quoted(inst)})"
    if v == "pattern":
        return f"must match the pattern {quoted(value)} (got {quoted(inst)})"
    if v in ("oneOf", "anyOf"):
        return f"matches none of the allowed forms (got {_json_type(inst)} {quoted(inst)})"
    return f"fails {v} {quoted(value)} (got {quoted(inst)})"


def _union_error(error: ValidationError) -> ValidationError | None:
    """The error inside a failed union that says what is wrong (e.g. a tagged union's content).

    Branches whose ``const`` does not match (the wrong tag) are set aside; if
    one branch is left, its first error; if none is left, the tag itself.
    """
    branches: dict[int, list[ValidationError]] = {}
    for e in error.context or []:
        branches.setdefault(int(e.relative_schema_path[0]), []).append(e)
    tagged = {i: es for i, es in branches.items() if not any(e.validator == "const" for e in es)}
    if len(tagged) == 1:
        return sorted(next(iter(tagged.values())), key=lambda e: list(map(str, e.absolute_path)))[0]
    if not tagged:
        consts = [e for es in branches.values() for e in es if e.validator == "const"]
        if consts and len({tuple(e.absolute_path) for e in consts}) == 1:
            return consts[0]
    return None


def _branch_error(error: ValidationError) -> ValidationError:
    """For a ``oneOf``/``anyOf`` failure, the error of the branch the value was meant for.

    A branch is preferred when its discriminator (a ``const``) matched and its
    types matched, then by how deep its first error lies: e.g. ``{"op": "focus"}``
    without ``selector`` is named at ``selector`` (the ``focus`` branch), not at
    ``op`` (every other branch).
    """
    while error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for e in error.context:
            branches.setdefault(e.schema_path[0] if e.schema_path else 0, []).append(e)

        def score(errs: list[ValidationError]) -> tuple[int, int, int, int]:
            const_failed = any(e.validator == "const" for e in errs)
            type_failed = any(e.validator == "type" and not e.relative_path for e in errs)
            return (
                not const_failed,
                not type_failed,
                min(len(e.relative_path) for e in errs),
                -len(errs),
            )

        error = max(branches.values(), key=score)[0]
    return error


def leaf_errors(error: ValidationError) -> list[ValidationError]:
    """Every error of the union branch the value was meant for (e.g. a missing and an unknown field)."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        inner = _union_error(error)
        if inner is not None:
            siblings = [
                e
                for e in error.context
                if e.relative_schema_path[0] == inner.relative_schema_path[0]
            ]
            return [leaf for e in siblings for leaf in leaf_errors(e)]
    return [leaf_error(error)]


def leaf_error(error: ValidationError) -> ValidationError:
    """The error :func:`error_pointer` points at (inside a union, the branch's own error)."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        inner = _union_error(error)
        if inner is not None:
            return leaf_error(inner)
    return _branch_error(error)


def error_pointer(error: ValidationError) -> str:
    """Point at the offending field of one jsonschema error, not just its parent."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        inner = _union_error(error)
        if inner is not None:
            return error_pointer(inner)
    # Otherwise the branch the value was meant for (a matching discriminator, then the deepest error).
    error = _branch_error(error)
    path = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        missing = [name for name in error.validator_value if name not in instance]
        if missing:
            return json_pointer([*path, missing[0]])
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set((error.schema or {}).get("properties", {}))
        extra = sorted(k for k in instance if k not in known)
        if extra:
            return json_pointer([*path, extra[0]])
    return json_pointer(path)
