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

from ..contract import MANIFEST_PATH as DEFAULT_MANIFEST_PATH
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
            return (not const_failed, not type_failed, min(len(e.relative_path) for e in errs), -len(errs))

        error = max(branches.values(), key=score)[0]
    return error


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
        error = next(iter(sorted(self._output_validator.iter_errors(structured), key=_error_pointer)), None)
        if error is None:
            return
        pointer = _error_pointer(error) or "/"
        raise MolspaceError(
            "INTERNAL",
            f"`{self.name}` answered from {source} with a result that does not match its output schema "
            f"at {pointer}: {error.message}",
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
        problems = [{"where": _error_pointer(e), "message": e.message} for e in errors]
        first = problems[0]
        allowed = sorted(self.input_schema.get("properties", {}))
        raise MolspaceError(
            "INVALID_INPUT",
            f"Invalid arguments for `{self.name}` at {first['where'] or '(root)'}: {first['message']}",
            first["where"],
            f"Correct the field at {first['where'] or 'the argument root'} to match the `{self.name}` "
            f"inputSchema from tools/list (allowed fields: {', '.join(allowed) or 'none'}).",
            {"tool": self.name, "errors": problems},
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
            except Exception as e:  # noqa: BLE001 - re-raised with location
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

    def get(self, name: str) -> ToolSpec:
        """Return one tool.

        Raises
        ------
        MolspaceError
            ``NOT_FOUND`` at ``/name`` listing the known tool names.
        """
        spec = self.tools.get(name)
        if spec is None:
            known = sorted(self.tools)
            raise MolspaceError(
                "NOT_FOUND",
                f"There is no tool named `{name}`.",
                "/name",
                f"Call one of the tools listed by tools/list: {', '.join(known)}.",
                {"tool": name, "known": known},
            )
        return spec
