"""``story_schema``: the MolViewSpec authoring reference, from the bundled Mol*'s tree schema.

Answers from ``molspace/contract/mvs-schema.json``, written at build time by
``scripts/emit-mvs-schema.ts`` from Mol*'s ``MVSTreeSchema`` (docs/architecture.md,
"Story authoring"); works without a page.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from ...contract import MANIFEST_PATH
from ...errors import MolspaceError
from .context import GatewayToolAnswer, GatewayToolContext

#: Where the build writes the reference (beside the manifest, shipped in the wheel).
MVS_SCHEMA_PATH = Path(MANIFEST_PATH).with_name("mvs-schema.json")


@cache
def mvs_schema() -> dict[str, Any]:
    """The emitted reference ``{mvsSpec, molstar, rootKind, rules, snapshotMetadata, docs, nodes}``.

    Raises
    ------
    FileNotFoundError
        In a source checkout never built: run ``npm run build:manifest``.
    """
    try:
        return json.loads(MVS_SCHEMA_PATH.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise FileNotFoundError(
            f"{MVS_SCHEMA_PATH} is missing: run `npm run build:manifest`"
        ) from e


def _summary(description: str) -> str:
    """The first sentence of a Mol* node description."""
    first = description.split(". ")[0].strip()
    return first if first.endswith(".") else first + "."


def _not_found(what: str, value: str, where: str, known: list[str]) -> MolspaceError:
    return MolspaceError(
        "NOT_FOUND",
        f"No MVS {what} {value!r}.",
        where,
        f"Use one of: {', '.join(known)}.",
        {what.replace(" ", "_"): value, "known": known},
    )


def _node(schema: dict[str, Any], kind: str, case: str | None) -> dict[str, Any]:
    nodes = schema["nodes"]
    if kind not in nodes:
        raise _not_found("node kind", kind, "/node", list(nodes))
    n = nodes[kind]
    params = n["params"]
    discriminator = None
    fields: list[dict[str, Any]]
    if params["type"] == "simple":
        if case is not None:
            raise MolspaceError(
                "INVALID_INPUT",
                f"Node kind {kind!r} has no cases; `case` applies to union kinds only.",
                "/case",
                "Omit `case` for this node kind.",
                {"node": kind},
            )
        fields = params["fields"]
    else:
        cases = params["cases"]
        discriminator = {
            "name": params["discriminator"],
            "description": params["description"],
            "cases": [{"value": c, "params": [f["name"] for f in fs]} for c, fs in cases.items()],
        }
        if case is None:
            fields = []
        elif case not in cases:
            raise _not_found(f"{kind} {params['discriminator']}", case, "/case", list(cases))
        else:
            fields = cases[case]
    return {
        "kind": kind,
        "description": n["description"],
        "parents": n["parents"],
        "children": n["children"],
        "params": fields,
        "discriminator": discriminator,
        "case": case,
    }


def answer(args: dict[str, Any], ctx: GatewayToolContext) -> GatewayToolAnswer:
    """Answer ``story_schema``.

    Without ``node``: the spec version, every node kind (one line, its parents),
    the tree rules, snapshot metadata fields and documentation links. With
    ``node`` (and, for a union kind, ``case``): its parents, children and params.

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` at ``/node`` (listing the kinds) or ``/case`` (listing the
        cases); ``INVALID_INPUT`` at ``/case`` without ``node`` or for a simple kind.
    """
    schema = mvs_schema()
    node, case = args.get("node"), args.get("case")
    base = {"mvsSpec": schema["mvsSpec"], "molstar": schema["molstar"]}
    if node is None:
        if case is not None:
            raise MolspaceError(
                "INVALID_INPUT",
                "`case` needs `node`.",
                "/case",
                "Pass `node` with `case`, e.g. node=representation, case=cartoon.",
            )
        kinds = [
            {"kind": k, "summary": _summary(n["description"]), "parents": n["parents"]}
            for k, n in schema["nodes"].items()
        ]
        structured = {
            **base,
            "kinds": kinds,
            "rules": schema["rules"],
            "snapshotMetadata": schema["snapshotMetadata"],
            "docs": schema["docs"],
            "node": None,
        }
        text = (
            f"MVS {schema['mvsSpec']} (Mol* {schema['molstar']}): {len(kinds)} node kinds: "
            + ", ".join(k["kind"] for k in kinds)
            + ". Call story_schema with `node` for one kind's params."
        )
        return GatewayToolAnswer(structured, text)
    detail = _node(schema, node, case)
    structured = {
        **base,
        "kinds": None,
        "rules": None,
        "snapshotMetadata": None,
        "docs": None,
        "node": detail,
    }
    if detail["discriminator"] is not None and case is None:
        d = detail["discriminator"]
        text = f"{node}: a union on `{d['name']}` ({', '.join(c['value'] for c in d['cases'])}); pass `case` for its params."
    else:
        text = (
            f"{node}{'/' + case if case else ''}: params "
            + ", ".join(p["name"] + ("" if p["required"] else "?") for p in detail["params"])
            + f"; parents {detail['parents']}; children {detail['children']}."
        )
    return GatewayToolAnswer(structured, text)
