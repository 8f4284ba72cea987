"""``describe``: one tool's full schema, guide and examples, or one part of it, from the manifest.

``tools/list`` gives every tool in brief (docs/architecture.md, "The contract"); this
tool returns what was left out, on demand: the full input schema the gateway validates
against, the guide, the error codes and examples; with ``part``, one branch of a tagged
union (an ``act`` op, a ``render_panel`` content type, ...) or ``"output"``, the
``structuredContent`` schema. Every answer stays within ``limits.observeOutputBytes``.
"""

from __future__ import annotations

import json
from typing import Any

from ...errors import MolspaceError
from ..manifest import Manifest
from .context import GatewayToolAnswer, GatewayToolContext

#: The part that names the tool's output (``structuredContent``) schema.
OUTPUT_PART = "output"


def _size(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _holds(value: Any, tag: str, tag_value: str) -> bool:
    """Whether ``value`` has, at any depth, an object whose ``tag`` is ``tag_value``."""
    if isinstance(value, dict):
        return value.get(tag) == tag_value or any(_holds(v, tag, tag_value) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, tag, tag_value) for v in value)
    return False


def describe(manifest: Manifest, name: str, part: str | None, budget: int) -> dict[str, Any]:
    """The ``describe`` answer for one tool (and part), within ``budget`` bytes of JSON.

    Parameters
    ----------
    manifest : Manifest
        The tool manifest.
    name : str
        Tool name.
    part : str or None
        A tag value of one of the tool's tagged unions (``spec.parts``), ``"output"``, or None.
    budget : int
        Most bytes (UTF-8 JSON) of the answer (``limits.observeOutputBytes``).

    Returns
    -------
    dict
        The contract's ``DescribeOutput``.

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` at ``/tool`` (unknown tool, naming the known ones) or at ``/part``
        (unknown part, naming the tool's parts).
    """
    spec = manifest.get(name, where="/tool")
    parts = [*spec.parts, OUTPUT_PART]
    answer: dict[str, Any] = {
        "tool": spec.name,
        "part": part,
        "description": spec.description,
        "guide": spec.guide,
        "parts": parts,
        "inputSchema": None,
        "outputSchema": None,
        "examples": [],
        "errors": list(spec.errors),
        "note": None,
    }
    if part is None:
        answer["inputSchema"] = spec.input_schema
        answer["examples"] = list(spec.examples)
    elif part == OUTPUT_PART:
        answer["outputSchema"] = spec.output_schema
    elif part in spec.parts:
        entry = spec.parts[part]
        answer["inputSchema"] = entry["schema"]
        answer["examples"] = [e for e in spec.examples if _holds(e, str(entry["tag"]), part)]
        where = entry["at"] or "the arguments"
        answer["note"] = (
            f"The schema of the value at {where} whose `{entry['tag']}` is {json.dumps(part)}."
        )
    else:
        raise MolspaceError(
            "NOT_FOUND",
            f"`{spec.name}` has no part named {json.dumps(part)}.",
            "/part",
            f"Pass one of {', '.join(json.dumps(p) for p in parts)}, or omit part for the whole tool.",
            {"tool": spec.name, "part": part, "parts": parts},
        )
    # Within the read budget: fewer examples first, then the listed schema instead of the full one.
    while _size(answer) > budget and len(answer["examples"]) > 1:
        answer["examples"] = answer["examples"][:-1]
        answer["note"] = "Some examples were left out; describe one part for its own."
    if _size(answer) > budget and part is None:
        answer["inputSchema"] = spec.listed_input_schema
        answer["note"] = (
            f"The full input schema is over {budget} bytes: this is the listed one. "
            f"Describe one part ({', '.join(json.dumps(p) for p in spec.parts)}) for its full schema."
        )
    if _size(answer) > budget:
        answer["guide"] = (
            answer["guide"][: max(0, len(answer["guide"]) - (_size(answer) - budget) - 40)] + " …"
        )
    return answer


def answer(args: dict[str, Any], ctx: GatewayToolContext) -> GatewayToolAnswer:
    """Answer ``describe``: the structured answer, and the same as JSON text (agents read text)."""
    if ctx.manifest is None:
        raise MolspaceError(
            "INTERNAL",
            "The gateway has no manifest to describe tools from.",
            "",
            "Restart the Jupyter server; if it persists, reinstall molspace.",
            {},
        )
    budget = int(ctx.manifest.limits["observeOutputBytes"])
    structured = describe(ctx.manifest, str(args["tool"]), args.get("part"), budget)
    head = f"{structured['tool']}" + (f" part {structured['part']}" if structured["part"] else "")
    return GatewayToolAnswer(
        structured, head + ":\n" + json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    )
