"""Schema bounds say what the code applies: every ``maxItems``/``maxLength``/``maximum`` of a tool's
input schema in the manifest agrees with the limit its description states and, for the limits the
page and kernel enforce, with the contract's ``LIMITS`` entry (issue 19: ``ketcher_control``
declared 4,000,000 where its text and the code said 256 atoms and 64 KiB).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from molspace.contract import LIMITS
from molspace.gateway.manifest import DEFAULT_MANIFEST_PATH

MANIFEST = json.loads(DEFAULT_MANIFEST_PATH.read_text(encoding="utf-8"))
TOOLS = {t["name"]: t for t in MANIFEST["tools"]}
BOUNDS = ("maxItems", "maxLength", "maximum")

#: (tool, pointer of the property, keyword) -> the LIMITS entry the code applies there.
APPLIED = {
    ("ketcher_control", "/value", "maxLength"): "ketcherInlineBytes",  # TOO_LARGE beyond, in bytes
    ("ketcher_control", "/atoms", "maxItems"): "ketcherHighlightAtoms",
    ("ketcher_open", "/value", "maxLength"): "ketcherInlineBytes",
    ("act", "/actions", "maxItems"): "actActions",
    ("open", "/text", "maxLength"): "viewerInlineTextChars",
    ("story_create", "/assets", "maxItems"): "storyAssets",
    ("observe", "/limit", "maximum"): "maxWidgetsPerPage",
    ("story_observe", "/limit", "maximum"): "maxSnapshotsPerPage",
}


def _resolve(root: dict[str, Any], schema: Any) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        node: Any = root
        for part in schema["$ref"].lstrip("#").split("/")[1:]:
            node = node[part]
        schema = node
    return schema


def bounds(
    root: dict[str, Any], schema: Any, pointer: str = "", depth: int = 0
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (pointer, subschema) of an input schema, unions and items walked, refs resolved."""
    schema = _resolve(root, schema)
    if not isinstance(schema, dict) or depth > 12:
        return
    yield pointer, schema
    for key in ("oneOf", "anyOf", "allOf"):
        for branch in schema.get(key, []):
            yield from bounds(root, branch, pointer, depth + 1)
    for name, prop in schema.get("properties", {}).items():
        yield from bounds(root, prop, f"{pointer}/{name}", depth + 1)
    if isinstance(schema.get("items"), dict):
        yield from bounds(root, schema["items"], f"{pointer}/<i>", depth + 1)


def stated(description: str) -> list[int]:
    """The numbers a description gives as limits: "at most 256", "at most 65536 bytes"."""
    return [
        int(n.replace(",", "").replace("_", ""))
        for n in re.findall(r"at most (\d[\d,_]*)(?![\d.])", description)
    ]


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_description_limits_match_schema_bounds(tool: str) -> None:
    schema = TOOLS[tool]["inputSchema"]
    for pointer, sub in bounds(schema, schema):
        numbers = stated(sub.get("description", ""))
        declared = {sub[k] for k in BOUNDS if k in sub}
        if not declared:
            continue  # a limit only the code applies (TOO_LARGE), e.g. a panel's markdown characters
        for n in numbers:
            assert n in declared, (
                f"{tool} {pointer or '/'}: the description says at most {n}, the schema declares "
                f"{', '.join(f'{k} {sub[k]}' for k in BOUNDS if k in sub) or 'no bound'}"
            )


@pytest.mark.parametrize(("tool", "pointer", "keyword"), sorted(APPLIED))
def test_schema_bounds_are_the_applied_limits(tool: str, pointer: str, keyword: str) -> None:
    schema = TOOLS[tool]["inputSchema"]
    found = dict(bounds(schema, schema))
    assert pointer in found, f"{tool} has no field {pointer}"
    assert found[pointer].get(keyword) == LIMITS[APPLIED[(tool, pointer, keyword)]], (
        f"{tool} {pointer} declares {keyword} {found[pointer].get(keyword)}, "
        f"the code applies LIMITS.{APPLIED[(tool, pointer, keyword)]} = {LIMITS[APPLIED[(tool, pointer, keyword)]]}"
    )


def test_no_declared_bound_above_what_one_call_may_carry() -> None:
    """A bound larger than the request body limit is no bound an agent can meet: it hides the real one."""
    ceiling = 1024 * 1024  # c.MolspaceGateway.max_request_bytes default
    for tool, spec in TOOLS.items():
        schema = spec["inputSchema"]
        for pointer, sub in bounds(schema, schema):
            for k in ("maxItems", "maxLength"):
                if k in sub:
                    assert sub[k] <= ceiling, (
                        f"{tool} {pointer}: {k} {sub[k]} exceeds what one request carries ({ceiling} bytes)"
                    )
