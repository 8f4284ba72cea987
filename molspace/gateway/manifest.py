"""The tool manifest generated from the TypeScript contract: argument and result checks.

The gateway lists tools only from ``molspace/contract/manifest.json`` (written by
``scripts/emit-manifest.ts``, read through :mod:`molspace.contract`), validates
arguments against each tool's JSON Schema (draft 2020-12) before relaying, so a
bad call fails with a located ``INVALID_INPUT`` without a round trip to the page,
and checks each page result against the tool's output schema before relaying it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from ..contract import MANIFEST_PATH as DEFAULT_MANIFEST_PATH  # noqa: F401 - re-exported: the packaged manifest
from ..contract import manifest as packaged_manifest
from ..errors import MolspaceError


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


def _quoted(value: Any) -> str:
    """A value as JSON for a message (never a Python repr), cut at ``_QUOTED_CHARS``."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        text = json.dumps(str(value))
    return text if len(text) <= _QUOTED_CHARS else text[: _QUOTED_CHARS - 1] + "…"


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
class _TaggedItem:
    """An item of a tagged union on the way to an error: where it is, its tag, its branch."""

    path: list[Any]
    tag: str
    value: Any
    allowed: list[str] | None  # fields of its branch; None when the tag value is unknown
    tag_values: list[Any]


def _tagged_items(root: dict[str, Any], arguments: Any, path: list[Any]) -> list[_TaggedItem]:
    """The tagged-union items the instance path ``path`` passes through, outermost first."""
    items: list[_TaggedItem] = []
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
                        _TaggedItem(list(path[:depth]), tag, instance[tag], allowed, values)
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


def _problem(error: ValidationError) -> str:
    """What is wrong, as a short sentence with values as JSON (never a Python repr)."""
    v, value, inst = error.validator, error.validator_value, error.instance
    if v == "additionalProperties" and isinstance(inst, dict):
        known = set((error.schema or {}).get("properties", {}))
        extra = sorted(k for k in inst if k not in known)
        return f"unknown field {', '.join(_quoted(k) for k in extra)}"
    if v == "required" and isinstance(inst, dict):
        missing = [n for n in value if n not in inst]
        return f"missing required field {', '.join(_quoted(n) for n in missing)}"
    if v == "type":
        want = " or ".join(value) if isinstance(value, list) else str(value)
        return f"must be {want} (got {_json_type(inst)})"
    if v == "const":
        return f"must be {_quoted(value)} (got {_quoted(inst)})"
    if v == "enum":
        return f"must be one of {', '.join(_quoted(x) for x in value)} (got {_quoted(inst)})"
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
        return f"must be {rel} {_quoted(value)} (got {_quoted(inst)})"
    if v == "pattern":
        return f"must match the pattern {_quoted(value)} (got {_quoted(inst)})"
    if v in ("oneOf", "anyOf"):
        return f"matches none of the allowed forms (got {_json_type(inst)} {_quoted(inst)})"
    return f"fails {v} {_quoted(value)} (got {_quoted(inst)})"


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


def _leaf_errors(error: ValidationError) -> list[ValidationError]:
    """Every error of the union branch the value was meant for (e.g. a missing and an unknown field)."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        inner = _union_error(error)
        if inner is not None:
            siblings = [
                e
                for e in error.context
                if e.relative_schema_path[0] == inner.relative_schema_path[0]
            ]
            return [leaf for e in siblings for leaf in _leaf_errors(e)]
    return [_leaf_error(error)]


def _leaf_error(error: ValidationError) -> ValidationError:
    """The error :func:`_error_pointer` points at (inside a union, the branch's own error)."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        inner = _union_error(error)
        if inner is not None:
            return _leaf_error(inner)
    return _branch_error(error)


def _error_pointer(error: ValidationError) -> str:
    """Point at the offending field of one jsonschema error, not just its parent."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        inner = _union_error(error)
        if inner is not None:
            return _error_pointer(inner)
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


@dataclass
class ToolSpec:
    """One tool of the manifest.

    Attributes
    ----------
    name : str
        MCP tool name (stable).
    description : str
        Human/agent readable description.
    runs : str
        ``"page"`` (relayed to a JupyterLab page) or ``"gateway"`` (answered here).
    input_schema, output_schema : dict
        JSON Schema 2020-12 objects.
    annotations : dict
        MCP tool annotations (``title``, ``readOnlyHint``, ...).
    errors : tuple of str
        Error codes the tool can return (the contract's ``errors``).
    mirrored : bool
        A read tool the gateway may answer from a page's read mirror (``read_mirror.py``).
    listed_input_schema : dict
        The brief input schema ``tools/list`` gives (tagged unions folded, nested detail left
        to ``describe``; ``src/contract/jsonSchema.ts`` ``listedJsonSchema``). Accepts every
        argument object ``input_schema`` accepts; calls are validated against ``input_schema``.
    parts : dict
        Each tagged-union branch of the input by tag value: ``{at, tag, schema}``.
    guide : str
        Usage notes beyond ``description`` (``describe``).
    examples : tuple of dict
        Argument objects that call the tool well (``describe``).
    """

    name: str
    description: str
    runs: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    annotations: dict[str, Any]
    errors: tuple[str, ...] = ()
    mirrored: bool = False
    listed_input_schema: dict[str, Any] = field(default_factory=dict)
    parts: dict[str, Any] = field(default_factory=dict)
    guide: str = ""
    examples: tuple[dict[str, Any], ...] = ()
    _validator: Draft202012Validator = field(init=False, repr=False)
    _output_validator: Draft202012Validator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        Draft202012Validator.check_schema(self.input_schema)
        Draft202012Validator.check_schema(self.output_schema)
        self._validator = Draft202012Validator(self.input_schema)
        self._output_validator = Draft202012Validator(self.output_schema)

    @property
    def defaults(self) -> dict[str, Any]:
        """The input schema's property defaults, by argument name."""
        props = self.input_schema.get("properties", {})
        return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}

    @property
    def replayable(self) -> bool:
        """Whether calls carry an ``actionId`` that the gateway replays (it is in the input schema)."""
        return "actionId" in self.input_schema.get("properties", {})

    @property
    def has_replayed_field(self) -> bool:
        """Whether the output has a ``replayed`` flag to set on a replayed result."""
        return "replayed" in self.output_schema.get("properties", {})

    def check_output(self, structured: dict[str, Any], *, source: str) -> None:
        """Check a result against the tool's output schema before it reaches an agent.

        Clients validate ``structuredContent`` against the listed ``outputSchema`` and
        throw on a mismatch, so a page of another molspace version must not reach them.

        Parameters
        ----------
        structured : dict
            The ``structuredContent`` to relay.
        source : str
            Who produced it (a page id), for ``where``.

        Raises
        ------
        MolspaceError
            ``INTERNAL`` at ``source``, naming the first bad field.
        """
        error = next(
            iter(sorted(self._output_validator.iter_errors(structured), key=_error_pointer)), None
        )
        if error is None:
            return
        pointer = _error_pointer(error) or "/"
        raise MolspaceError(
            "INTERNAL",
            f"`{self.name}` answered from {source} with a result that does not match its output schema "
            f"at {pointer}: {_problem(_leaf_error(error))}",
            source,
            "Reload the JupyterLab page so it runs the same molspace version as the server.",
            {"tool": self.name, "pointer": pointer},
        )

    def check_arguments(self, arguments: dict[str, Any]) -> None:
        """Validate call arguments against the tool's input schema.

        Parameters
        ----------
        arguments : dict
            The ``arguments`` of an MCP ``tools/call`` request.

        Raises
        ------
        MolspaceError
            ``INVALID_INPUT`` with ``where`` = JSON pointer of the first bad
            field (document order) and every problem in ``details.errors``
            (a list of ``{where, message}``).
        """
        errors = sorted(
            self._validator.iter_errors(arguments),
            key=lambda e: (_error_pointer(e), str(e.message)),
        )
        if not errors:
            return
        problems = [
            {"where": _error_pointer(e), "message": _problem(_leaf_error(e))} for e in errors
        ]
        first = problems[0]
        where = first["where"]
        path = [
            int(p) if p.isdigit() else p.replace("~1", "/").replace("~0", "~")
            for p in where.split("/")[1:]
        ]
        items = _tagged_items(self.input_schema, arguments, path)
        details: dict[str, Any] = {"tool": self.name, "errors": problems}
        if items:
            # The error lies in one item of a tagged union (an `act` operation, panel content, ...):
            # name that item, its tag and its own fields, not the tool's top-level ones.
            item = items[-1]
            at = json_pointer(item.path)
            index = next((p for p in reversed(item.path) if isinstance(p, int)), None)
            named = f"{item.tag} {_quoted(item.value)}" + (
                f" (item {index} of {json_pointer(item.path[:-1])})"
                if index is not None
                else f" at {at}"
            )
            details.update(
                {"item": at, "tag": item.tag, "tagValue": item.value, "allowed": item.allowed}
            )
            if item.allowed is None or where == json_pointer([*item.path, item.tag]):
                message = f"Invalid arguments for `{self.name}` at {where}: {item.tag} {_quoted(item.value)} is not one of the known values."
                fix = f"Set {at}/{item.tag} to one of: {', '.join(_quoted(v) for v in item.tag_values)}."
                details["allowed"] = None
                details["tagValues"] = item.tag_values
            else:
                leaves = [leaf for e in errors for leaf in _leaf_errors(e)]
                inside = [{"where": _error_pointer(x), "message": _problem(x)} for x in leaves]
                inside = [
                    p for p in inside if p["where"].startswith(at + "/") or p["where"] == at
                ] or [first]
                said = "; ".join(dict.fromkeys(p["message"] for p in inside[:3]))
                message = f"Invalid arguments for `{self.name}` at {where}: {named}: {said}."
                fields = ", ".join(item.allowed)
                fix = f"{named} takes only: {fields}. Correct the field at {where}"
                fix += (
                    " (add it)."
                    if "missing required" in first["message"]
                    else " (rename or remove it)."
                    if "unknown field" in first["message"]
                    else "."
                )
                fix += f" describe {{tool: {_quoted(self.name)}, part: {_quoted(item.value)}}} gives its schema and an example."
            raise MolspaceError("INVALID_INPUT", message, where, fix, details)
        allowed = sorted(self.input_schema.get("properties", {}))
        raise MolspaceError(
            "INVALID_INPUT",
            f"Invalid arguments for `{self.name}` at {where or '(root)'}: {first['message']}.",
            where,
            f"Correct the field at {where or 'the argument root'} (allowed fields: {', '.join(allowed) or 'none'}); "
            f"describe {{tool: {_quoted(self.name)}}} gives the full schema.",
            details,
        )


class Manifest:
    """The parsed contract manifest.

    Parameters
    ----------
    data : dict
        The manifest JSON object (``versions``, ``instructions``, ``errorCodes``,
        ``errorSchema``, ``limits``, ``wire``, ``tools``).

    Raises
    ------
    ValueError
        If a tool entry lacks a field or has an invalid input schema.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.versions: dict[str, Any] = dict(data["versions"])
        self.instructions: str = data["instructions"]
        self.error_codes: list[str] = list(data["errorCodes"])
        self.bridge_protocol: int = int(data["bridgeProtocol"])
        self.limits: dict[str, int] = dict(data["limits"])
        self.wire: dict[str, Any] = data["wire"]
        self.tools: dict[str, ToolSpec] = {}
        for entry in data["tools"]:
            try:
                spec = ToolSpec(
                    name=entry["name"],
                    description=entry["description"],
                    runs=entry["runs"],
                    input_schema=entry["inputSchema"],
                    output_schema=entry["outputSchema"],
                    annotations=entry.get("annotations") or {},
                    errors=tuple(entry.get("errors") or ()),
                    mirrored=bool(entry.get("mirrored", False)),
                    listed_input_schema=entry.get("listedInputSchema") or entry["inputSchema"],
                    parts=dict(entry.get("parts") or {}),
                    guide=str(entry.get("guide") or ""),
                    examples=tuple(entry.get("examples") or ()),
                )
            except Exception as e:
                raise ValueError(f"manifest tool {entry.get('name')!r} is invalid: {e}") from e
            self.tools[spec.name] = spec

    @classmethod
    def load(cls, path: str | Path | None = None) -> Manifest:
        """Read and parse a manifest file.

        Parameters
        ----------
        path : str or Path, optional
            Defaults to the packaged manifest (:data:`DEFAULT_MANIFEST_PATH`).

        Returns
        -------
        Manifest

        Raises
        ------
        FileNotFoundError
            If the file is missing (run ``npm run build:manifest``).
        """
        if not path:
            return cls(packaged_manifest())
        with Path(path).open(encoding="utf-8") as f:
            return cls(json.load(f))

    def get(self, name: str, where: str = "/name") -> ToolSpec:
        """Return one tool.

        Parameters
        ----------
        name : str
            Tool name.
        where : str
            Where the name came from: ``/name`` of a ``tools/call``, ``/tool`` of ``describe``.

        Raises
        ------
        MolspaceError
            ``NOT_FOUND`` at ``where`` listing the known tool names (as JSON strings).
        """
        spec = self.tools.get(name)
        if spec is None:
            known = sorted(self.tools)
            raise MolspaceError(
                "NOT_FOUND",
                f"There is no tool named `{name}`.",
                where,
                f"Pass one of the tools tools/list names: {', '.join(json.dumps(k) for k in known)}.",
                {"tool": name, "known": known},
            )
        return spec
