"""Fix texts name only tools and fields that exist (issue 19, items 2 and 5).

A static scan of every string literal in ``src/`` (TypeScript, tests aside) and ``molspace/`` (Python),
and of every description in the manifest, for what an agent would follow literally:

- a tool-like name (``*_observe``, ``*_control``, ``*_create``, ...) is a tool of the manifest;
- ``tool {field: ...}`` / ``tool {field}`` names fields the tool's input schema declares;
- ``tool some_value`` (e.g. ``ketcher_control set_structure``, ``act apply_mvs``) names a field or an
  ``op``/``action``/enum value the tool's input schema declares;
- ``tool lists X, Y and Z`` names lists (arrays) the tool's output schema has (``viewer_observe lists
  residues`` was false: it lists chains and ligands, with residue counts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from molspace.gateway.manifest import DEFAULT_MANIFEST_PATH

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = json.loads(DEFAULT_MANIFEST_PATH.read_text(encoding="utf-8"))
TOOLS: dict[str, dict[str, Any]] = {t["name"]: t for t in MANIFEST["tools"]}
TOOL_NAMES = "|".join(sorted(TOOLS, key=len, reverse=True))

STRING = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`""")
TOOL_LIKE = re.compile(
    r"\b([a-z]+_(?:observe|control|create|open|list|schema|validate|edit|export|panel))\b"
)
WITH_FIELDS = re.compile(rf"\b({TOOL_NAMES})\s*\{{([^}}]*)\}}")
WITH_VALUE = re.compile(rf"\b({TOOL_NAMES})\s+([a-z]+_[a-z_]+)\b")
LISTS = re.compile(rf"\b({TOOL_NAMES}) lists ([a-z ,]+)")
NOT_NOUNS = {
    "it",
    "them",
    "too",
    "for",
    "each",
    "the",
    "and",
    "error",
    "story",
    "a",
    "an",
    "its",
    "their",
    "all",
    "every",
}


def source_strings() -> Iterator[tuple[str, str]]:
    """(where, text) of every string literal of the page and Python sources, and every manifest text."""
    files = [p for p in (ROOT / "src").rglob("*.ts") if "__tests__" not in p.parts]
    files += list((ROOT / "molspace").rglob("*.py"))
    for path in sorted(files):
        text = path.read_text(encoding="utf-8")
        for m in STRING.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            yield f"{path.relative_to(ROOT)}:{line}", m.group(0)[1:-1]

    def walk(node: Any, where: str) -> Iterator[tuple[str, str]]:
        if isinstance(node, str):
            yield where, node
        elif isinstance(node, dict):
            for k, v in node.items():
                yield from walk(v, f"{where}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from walk(v, f"{where}/{i}")

    for tool in MANIFEST["tools"]:
        yield from walk(
            {"description": tool["description"], "inputSchema": tool["inputSchema"]},
            f"manifest:{tool['name']}",
        )
    yield "manifest:instructions", MANIFEST["instructions"]


def _resolve(root: dict[str, Any], schema: Any) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        node: Any = root
        for part in schema["$ref"].lstrip("#").split("/")[1:]:
            node = node[part]
        schema = node
    return schema


def schema_nodes(root: dict[str, Any], schema: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    schema = _resolve(root, schema)
    if not isinstance(schema, dict) or depth > 14:
        return
    yield schema
    for key in ("oneOf", "anyOf", "allOf"):
        for b in schema.get(key, []):
            yield from schema_nodes(root, b, depth + 1)
    for prop in schema.get("properties", {}).values():
        yield from schema_nodes(root, prop, depth + 1)
    if isinstance(schema.get("items"), dict):
        yield from schema_nodes(root, schema["items"], depth + 1)


def input_fields(tool: str) -> set[str]:
    """Every property name anywhere in the tool's input schema (top level and inside operations)."""
    schema = TOOLS[tool]["inputSchema"]
    return {name for node in schema_nodes(schema, schema) for name in node.get("properties", {})}


def input_values(tool: str) -> set[str]:
    """Every const / enum string of the tool's input schema (ops, actions, formats)."""
    schema = TOOLS[tool]["inputSchema"]
    out: set[str] = set()
    for node in schema_nodes(schema, schema):
        if isinstance(node.get("const"), str):
            out.add(node["const"])
        out.update(v for v in node.get("enum", []) if isinstance(v, str))
    return out


def output_lists(tool: str) -> set[str] | None:
    """Names of array-valued properties of the tool's output schema (None: no output schema listed)."""
    schema = TOOLS[tool].get("outputSchema") or {}
    if not schema.get("properties"):
        return None
    out: set[str] = set()
    for node in schema_nodes(schema, schema):
        for name, prop in node.get("properties", {}).items():
            kinds = [_resolve(schema, b) for b in [prop, *_resolve(schema, prop).get("anyOf", [])]]
            if any(isinstance(k, dict) and k.get("type") == "array" for k in kinds):
                out.add(name)
    return out


def problems_of(where: str, text: str) -> list[str]:
    """What is wrong with the tool and field names one text gives an agent."""
    out: list[str] = []
    for m in TOOL_LIKE.finditer(text):
        if m.group(1) not in TOOLS:
            out.append(f"{where}: names a tool `{m.group(1)}` that does not exist")
    for m in WITH_FIELDS.finditer(text):
        tool, inner = m.group(1), m.group(2)
        keys = re.findall(r"(?:^|[,{\s])([A-Za-z_]\w*)\s*:", inner) or re.findall(
            r"^\s*([A-Za-z_]\w*)\s*$", inner
        )
        for key in keys:
            if key not in input_fields(tool):
                out.append(f"{where}: `{tool} {{{key}...}}` but {tool} declares no field {key!r}")
    for m in WITH_VALUE.finditer(text):
        tool, word = m.group(1), m.group(2)
        if word not in input_fields(tool) and word not in input_values(tool):
            out.append(f"{where}: `{tool} {word}` but {tool} declares no field or value {word!r}")
    for m in LISTS.finditer(text):
        tool = m.group(1)
        lists = output_lists(tool)
        if lists is None:
            continue
        words = [w for w in re.split(r"[ ,]+", m.group(2)) if w and w not in NOT_NOUNS]
        for w in words[:4]:
            if w.endswith("s") and w not in lists:
                out.append(
                    f"{where}: `{tool} lists {w}` but its output has no list {w!r} (lists: {sorted(lists)})"
                )
            if not w.endswith("s"):
                break  # the noun phrase ended
    return out


def test_the_scan_reads_sources_and_the_manifest() -> None:
    texts = list(source_strings())
    assert any(w.startswith("src/") for w, _ in texts) and any(
        w.startswith("molspace/") for w, _ in texts
    )
    assert any(w.startswith("manifest:") for w, _ in texts)
    assert sum(1 for _, t in texts if TOOL_LIKE.search(t)) > 20  # fix texts naming tools were found


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("Call viewer_list to see them.", "does not exist"),
        ('Drive it with story_control {target: "x", bogus: 1}.', "no field 'bogus'"),
        ("Draw first (ketcher_control set_structur).", "no field or value 'set_structur'"),
        ("Use chains that exist; viewer_observe lists residues and ligands.", "no list 'residues'"),
    ],
)
def test_the_scan_catches_each_kind_of_wrong_name(text: str, bad: str) -> None:
    assert any(bad in p for p in problems_of("sample", text)), problems_of("sample", text)


def test_every_named_tool_and_field_exists() -> None:
    problems = [p for where, text in source_strings() for p in problems_of(where, text)]
    assert problems == []
