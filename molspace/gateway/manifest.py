"""The tool manifest generated from the TypeScript contract: argument and result checks.

The gateway lists tools only from ``molspace/contract/manifest.json`` (written by
``scripts/emit-manifest.ts``, read through :mod:`molspace.contract`), validates
arguments against each tool's JSON Schema (draft 2020-12) before relaying, so a
bad call fails with a located ``INVALID_INPUT`` without a round trip to the page,
and checks each page result against the tool's output schema before relaying it.
How a schema error is located and said is :mod:`molspace.gateway.schema_errors`'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from ..contract import MANIFEST_PATH as DEFAULT_MANIFEST_PATH  # noqa: F401 - re-exported: the packaged manifest
from ..contract import manifest as packaged_manifest
from ..errors import MolspaceError
from .schema_errors import (
    bounded,
    error_pointer,
    json_pointer,
    leaf_error,
    leaf_errors,
    oversized,
    problem,
    quoted,
    tagged_items,
)

#: Schema errors read from one call (the rest are not enumerated: a call of 100,000 bad items
#: costs what 200 cost) and listed in ``details.errors``.
_SCANNED_ERRORS = 200
_LISTED_ERRORS = 20
#: Characters of a JSON pointer quoted in an error (a field name can be any string).
_POINTER_CHARS = 200


def _short_pointer(where: str) -> str:
    return where if len(where) <= _POINTER_CHARS else where[: _POINTER_CHARS - 1] + "…"


def _shown(where: str) -> str:
    """A JSON pointer as a message says it: characters that are not printable (a newline in a
    field name) as JSON escapes, so a message stays one line."""
    if where.isprintable():
        return where
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in where)


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
    app : str
        The MCP App (``ui://`` resource) a host shows the result in, or ``""`` (``src/contract/app.ts``).
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
    app: str = ""
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
            iter(sorted(self._output_validator.iter_errors(structured), key=error_pointer)), None
        )
        if error is None:
            return
        pointer = error_pointer(error) or "/"
        raise MolspaceError(
            "INTERNAL",
            f"`{self.name}` answered from {source} with a result that does not match its output schema "
            f"at {pointer}: {problem(leaf_error(error))}",
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
            (a list of ``{where, message}``, at most 20; ``details.errorCount`` says how many
            were found, counting at most 200). Values and field names are quoted cut short, so
            the error stays small whatever the call held.
        """
        too_long = oversized(self.input_schema, arguments)
        if too_long is not None:
            big, keyword, length, limit = too_long
            where = _short_pointer(json_pointer(big))
            unit = "items" if keyword == "maxItems" else "characters"
            raise MolspaceError(
                "INVALID_INPUT",
                f"Invalid arguments for `{self.name}` at {where}: has {length} {unit}; at most {limit} allowed ({keyword}).",
                where,
                f"Send at most {limit} {unit} at {where} (split the work into several calls).",
                {
                    "tool": self.name,
                    "errors": [
                        {
                            "where": where,
                            "message": f"has {length} {unit}; at most {limit} allowed ({keyword})",
                        }
                    ],
                    "errorCount": 1,
                },
            )
        errors = sorted(
            islice(self._validator.iter_errors(arguments), _SCANNED_ERRORS),
            key=lambda e: (error_pointer(e), str(e.message)),
        )
        if not errors:
            return
        problems = [
            {"where": _short_pointer(error_pointer(e)), "message": problem(leaf_error(e))}
            for e in errors
        ]
        first = problems[0]
        located = first["where"]
        where = _shown(located)
        path = [
            int(p) if p.isdigit() else p.replace("~1", "/").replace("~0", "~")
            for p in where.split("/")[1:]
        ]
        items = tagged_items(self.input_schema, arguments, path)
        details: dict[str, Any] = {
            "tool": self.name,
            "errors": problems[:_LISTED_ERRORS],
            "errorCount": len(problems),
        }
        if items:
            # The error lies in one item of a tagged union (an `act` operation, panel content, ...):
            # name that item, its tag and its own fields, not the tool's top-level ones.
            item = items[-1]
            at = _shown(json_pointer(item.path))
            index = next((p for p in reversed(item.path) if isinstance(p, int)), None)
            named = f"{item.tag} {quoted(item.value)}" + (
                f" (item {index} of {json_pointer(item.path[:-1])})"
                if index is not None
                else f" at {at}"
            )
            details.update(
                {
                    "item": at,
                    "tag": item.tag,
                    "tagValue": bounded(item.value),
                    "allowed": item.allowed,
                }
            )
            if item.allowed is None or located == json_pointer([*item.path, item.tag]):
                message = f"Invalid arguments for `{self.name}` at {where}: {item.tag} {quoted(item.value)} is not one of the known values."
                fix = f"Set {at}/{item.tag} to one of: {', '.join(quoted(v) for v in item.tag_values)}."
                details["allowed"] = None
                details["tagValues"] = item.tag_values
            else:
                leaves = [leaf for e in errors for leaf in leaf_errors(e)]
                inside = [{"where": error_pointer(x), "message": problem(x)} for x in leaves]
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
                fix += f" describe {{tool: {quoted(self.name)}, part: {quoted(item.value)}}} gives its schema and an example."
            raise MolspaceError("INVALID_INPUT", message, located, fix, details)
        allowed = sorted(self.input_schema.get("properties", {}))
        raise MolspaceError(
            "INVALID_INPUT",
            f"Invalid arguments for `{self.name}` at {where or '(root)'}: {first['message']}.",
            located,
            f"Correct the field at {where or 'the argument root'} (allowed fields: {', '.join(allowed) or 'none'}); "
            f"describe {{tool: {quoted(self.name)}}} gives the full schema.",
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
        #: The MCP App: ``{extension, mimeType, viewer, partPrefix, structureMeta, structure}``.
        self.app: dict[str, Any] = dict(data.get("app") or {})
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
                    app=str(entry.get("app") or ""),
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
