"""The Story authoring tools the gateway answers, through the official Python SDK (tools/list first).

``story_schema`` (from Mol*'s MVS tree schema, emitted at build time), ``story_template_list``, and
``story_template_create`` up to its relay of ``story_create`` to a page (a FakePage here; the real
page's validation and writing are in ui-tests/tests/authoring.spec.ts).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gateway_helpers import located_error

from molspace.contract import LIMITS
from molspace.gateway.manifest import DEFAULT_MANIFEST_PATH
from molspace.gateway.tools.story_schema import mvs_schema
from molspace.story import templates as story_templates

MANIFEST = json.loads(DEFAULT_MANIFEST_PATH.read_text(encoding="utf-8"))
TEMPLATE_IDS = {
    "structure-overview",
    "binding-site-tour",
    "docking-pose-comparison",
    "aligned-structure-comparison",
}


def examples(template_id: str) -> dict[str, Any]:
    """Every declared variable at its example value."""
    return {v["name"]: v["example"] for v in story_templates.get(template_id)["variables"]}


def nodes_of(tree: Any) -> list[str]:
    """Kinds of every node of an MVS tree, depth first."""
    out = [tree["kind"]]
    for child in tree.get("children", []):
        out.extend(nodes_of(child))
    return out


def create_answer(args: dict[str, Any]) -> dict[str, Any]:
    """What a page answers to story_create: a valid StoryCreateOutput for the document it got."""
    steps = args["document"]["steps"]
    return {
        "ok": True,
        "structuredContent": {
            "path": args["path"],
            "format": "mvsj",
            "replaced": False,
            "bytes": len(json.dumps(args["document"])),
            "title": args["document"]["title"],
            "snapshotCount": len(steps),
            "steps": [
                {"index": i, "key": s["key"], "title": s["title"]} for i, s in enumerate(steps)
            ],
            "assets": [],
            "story": None,
        },
        "text": f"Created {args['path']}",
    }


# ---------------------------------------------------------------- story_schema
async def test_schema_overview(mcp_client: Any) -> None:
    async with mcp_client() as client:
        result = await client.call_tool("story_schema", {})
    assert result.is_error is False
    sc = result.structured_content
    assert (
        sc["mvsSpec"] == MANIFEST["versions"]["mvsSpec"]
        and sc["molstar"] == MANIFEST["versions"]["molstar"]
    )
    assert [k["kind"] for k in sc["kinds"]] == list(mvs_schema()["nodes"])
    assert all("\n" not in k["summary"] and len(k["summary"]) < 200 for k in sc["kinds"])
    assert next(k for k in sc["kinds"] if k["kind"] == "color")["parents"] == [
        "representation",
        "volume_representation",
    ]
    assert any("unique" in r for r in sc["rules"]) and any("file:" in r for r in sc["rules"])
    assert "linger_duration_ms" in [f["name"] for f in sc["snapshotMetadata"]]
    assert all(d["url"].startswith("https://") for d in sc["docs"])
    assert sc["node"] is None
    assert len(json.dumps(sc)) <= LIMITS["observeOutputBytes"]


async def test_schema_of_a_simple_and_a_union_node(mcp_client: Any) -> None:
    async with mcp_client() as client:
        color = (await client.call_tool("story_schema", {"node": "color"})).structured_content[
            "node"
        ]
        rep = (
            await client.call_tool("story_schema", {"node": "representation"})
        ).structured_content["node"]
        cartoon = (
            await client.call_tool("story_schema", {"node": "representation", "case": "cartoon"})
        ).structured_content
    assert (
        color["parents"] == ["representation", "volume_representation"] and color["children"] == []
    )
    param = next(p for p in color["params"] if p["name"] == "color")
    assert param == {
        "name": "color",
        "type": "ColorName | HexColor",
        "required": False,
        "default": "white",
        "description": param["description"],
    }
    assert param["description"]
    assert rep["params"] == [] and rep["discriminator"]["name"] == "type"
    assert "cartoon" in [c["value"] for c in rep["discriminator"]["cases"]]
    assert "color" in rep["children"] and "component" in rep["parents"]
    assert cartoon["node"]["case"] == "cartoon" and "size_factor" in [
        p["name"] for p in cartoon["node"]["params"]
    ]
    assert cartoon["kinds"] is None and cartoon["rules"] is None


async def test_every_node_and_case_fits_the_output_budget(mcp_client: Any) -> None:
    async with mcp_client() as client:
        for kind, n in mvs_schema()["nodes"].items():
            cases = list(n["params"]["cases"]) if n["params"]["type"] == "union" else [None]
            for case in {None, *cases}:
                args = {"node": kind, **({"case": case} if case else {})}
                result = await client.call_tool("story_schema", args)
                assert result.is_error is False, (args, result)
                assert len(json.dumps(result.structured_content)) <= LIMITS["observeOutputBytes"], (
                    args
                )


@pytest.mark.parametrize(
    ("args", "code", "where", "listed"),
    [
        ({"node": "teleport"}, "NOT_FOUND", "/node", "representation"),
        ({"node": "representation", "case": "wireframe"}, "NOT_FOUND", "/case", "cartoon"),
        ({"case": "cartoon"}, "INVALID_INPUT", "/case", "node"),
        ({"node": "color", "case": "x"}, "INVALID_INPUT", "/case", "Omit"),
    ],
)
async def test_schema_errors_are_located(
    mcp_client: Any, args: dict, code: str, where: str, listed: str
) -> None:
    async with mcp_client() as client:
        err = located_error(await client.call_tool("story_schema", args))
    assert (err["code"], err["where"]) == (code, where)
    assert listed in err["fix"]


# ---------------------------------------------------------------- story_template_list
async def test_template_catalogue(mcp_client: Any) -> None:
    budget = int(json.loads(DEFAULT_MANIFEST_PATH.read_text())["limits"]["observeOutputBytes"])
    async with mcp_client() as client:
        pages, offset = [], 0
        while offset is not None and len(pages) < 10:
            page = (
                await client.call_tool("story_template_list", {"offset": offset} if offset else {})
            ).structured_content
            pages.append(page)
            offset = page["nextOffset"]
        one = (
            await client.call_tool("story_template_list", {"template": "binding-site-tour"})
        ).structured_content
        err = located_error(await client.call_tool("story_template_list", {"template": "nope"}))
        past = located_error(await client.call_tool("story_template_list", {"offset": 99}))
    # The catalogue pages on within the read budget; the pages together list every template once.
    assert len(pages) > 1 and offset is None
    for page in pages:
        assert len(json.dumps(page, separators=(",", ":")).encode()) <= budget
    catalogue = {
        "templates": [t for p in pages for t in p["templates"]],
        "steps": pages[0]["steps"],
    }
    ids = [t["id"] for t in catalogue["templates"]]
    assert len(ids) == len(set(ids)) and set(ids) >= TEMPLATE_IDS
    assert (past["code"], past["where"]) == ("INVALID_INPUT", "/offset") and "nextOffset" in past[
        "fix"
    ]
    assert catalogue["steps"] is None
    for t in catalogue["templates"]:
        assert t["variables"] and t["caveats"] and t["storyboard"]
        assert all(s["purpose"] and s["evidence"] for s in t["storyboard"])
        assert any("not an analysis" in c for c in t["caveats"]), t["id"]
        assert all(v["maxLength"] >= 1 and "example" in v for v in t["variables"])
    assert [t["id"] for t in one["templates"]] == ["binding-site-tour"]
    assert [s["key"] for s in one["steps"]] == ["overview", "binding-site", "key-residue"]
    assert "{{structure_url}}" in json.dumps(one["steps"])
    assert (err["code"], err["where"]) == ("NOT_FOUND", "/template") and "binding-site-tour" in err[
        "fix"
    ]


# ---------------------------------------------------------------- story_template_create
async def test_template_create_fills_and_relays_story_create(
    mcp_client: Any, connect_page: Any
) -> None:
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: create_answer(args) if tool == "story_create" else None
    variables = examples("binding-site-tour")
    async with mcp_client() as client:
        result = await client.call_tool(
            "story_template_create",
            {"template": "binding-site-tour", "path": "s/1hpv.mvsj", "variables": variables},
        )
    assert result.is_error is False, result
    (call,) = page.calls
    assert call["tool"] == "story_create"
    assert (
        call["args"]["path"] == "s/1hpv.mvsj"
        and call["args"]["overwrite"] is False
        and call["args"]["open"] is False
    )
    doc = call["args"]["document"]
    assert doc["title"] == variables["title"]
    assert [s["key"] for s in doc["steps"]] == ["overview", "binding-site", "key-residue"]
    assert "{{" not in json.dumps(doc)
    residue = doc["steps"][2]["root"]["children"][0]["children"][0]["children"][0]["children"][2][
        "params"
    ]["selector"]
    assert residue == {
        "auth_asym_id": "A",
        "auth_seq_id": 25,
    }  # an integer variable fills a whole leaf as a number
    sc = result.structured_content
    assert (
        sc["template"] == "binding-site-tour"
        and sc["snapshotCount"] == 3
        and sc["path"] == "s/1hpv.mvsj"
    )


async def test_template_create_relays_open(mcp_client: Any, connect_page: Any) -> None:
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: create_answer(args)
    async with mcp_client() as client:
        result = await client.call_tool(
            "story_template_create",
            {
                "template": "binding-site-tour",
                "path": "s/1hpv.mvsj",
                "open": True,
                "variables": examples("binding-site-tour"),
            },
        )
    assert result.is_error is False, result
    assert page.calls[0]["args"]["open"] is True


INJECTIONS = [
    '"}]}, {"kind": "download", "params": {"url": "file:///etc/passwd"}}, {"x": "',
    '{"kind": "teleport"}',
    "{{structure_url}}",
    "</script><img src=x onerror=alert(1)>",
]


@pytest.mark.parametrize("value", INJECTIONS)
async def test_a_value_cannot_inject_nodes(mcp_client: Any, connect_page: Any, value: str) -> None:
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: create_answer(args)
    clean = story_templates.fill("binding-site-tour", examples("binding-site-tour"))
    variables = {**examples("binding-site-tour"), "residue_label": value[:80]}
    async with mcp_client() as client:
        result = await client.call_tool(
            "story_template_create",
            {"template": "binding-site-tour", "path": "s/x.mvsj", "variables": variables},
        )
    assert result.is_error is False, result
    doc = page.calls[0]["args"]["document"]
    for got, want in zip(doc["steps"], clean["steps"], strict=True):
        assert nodes_of(got["root"]) == nodes_of(want["root"])  # the same tree shape, node for node
        assert set(got) == set(want)
    label = doc["steps"][2]["root"]["children"][0]["children"][0]["children"][0]["children"][2][
        "children"
    ][1]
    assert label == {"kind": "label", "params": {"text": value[:80]}}  # the value is text, verbatim
    assert doc["steps"][2]["title"] == value[:80]


@pytest.mark.parametrize(
    ("variables", "where", "message"),
    [
        ({"title": "T"}, "/variables/structure_url", "Missing required variable 'structure_url'"),
        (
            {**examples("binding-site-tour"), "colour": "red"},
            "/variables/colour",
            "Unknown variable 'colour'",
        ),
        (
            {**examples("binding-site-tour"), "residue_label": "x" * 81},
            "/variables/residue_label",
            "the limit is 80",
        ),
        (
            {**examples("binding-site-tour"), "residue_number": "25"},
            "/variables/residue_number",
            "must be an integer",
        ),
        (
            {**examples("binding-site-tour"), "residue_chain": 1},
            "/variables/residue_chain",
            "must be a string",
        ),
    ],
)
async def test_bad_variables_are_refused_before_any_page(
    mcp_client: Any, connect_page: Any, variables: dict, where: str, message: str
) -> None:
    page = await connect_page("page-1")
    async with mcp_client() as client:
        err = located_error(
            await client.call_tool(
                "story_template_create",
                {"template": "binding-site-tour", "path": "a.mvsj", "variables": variables},
            )
        )
    assert (err["code"], err["where"]) == ("INVALID_INPUT", where)
    assert message in err["message"]
    assert any(p["where"] == where for p in err["details"]["problems"])
    assert page.calls == []


async def test_unknown_template_and_no_page(mcp_client: Any) -> None:
    async with mcp_client() as client:
        unknown = located_error(
            await client.call_tool("story_template_create", {"template": "nope", "path": "a.mvsj"})
        )
        no_page = located_error(
            await client.call_tool(
                "story_template_create",
                {
                    "template": "binding-site-tour",
                    "path": "a.mvsj",
                    "variables": examples("binding-site-tour"),
                },
            )
        )
    assert (unknown["code"], unknown["where"]) == ("NOT_FOUND", "/template")
    assert no_page["code"] == "NO_PAGE"


async def test_the_page_error_of_story_create_reaches_the_agent_unchanged(
    mcp_client: Any, connect_page: Any
) -> None:
    page = await connect_page("page-1")
    refusal = {
        "code": "FORBIDDEN",
        "message": '"a.mvsj" exists',
        "where": "/overwrite",
        "fix": "Pass overwrite: true.",
        "details": {"path": "a.mvsj"},
    }
    page.handler = lambda tool, args, ctx: {"ok": False, "error": refusal}
    async with mcp_client() as client:
        err = located_error(
            await client.call_tool(
                "story_template_create",
                {
                    "template": "binding-site-tour",
                    "path": "a.mvsj",
                    "variables": examples("binding-site-tour"),
                },
            )
        )
    assert err == refusal


# ---------------------------------------------------------------- molspace.story.templates (no server)
def test_fill_defaults_and_text_placeholders() -> None:
    doc = story_templates.fill("binding-site-tour", examples("binding-site-tour"))
    assert doc["steps"][0]["root"]["children"][0]["children"][0]["params"] == {"format": "pdb"}
    minimal = {
        k: v
        for k, v in examples("binding-site-tour").items()
        if k not in ("format", "overview_text", "site_text")
    }
    filled = story_templates.fill("binding-site-tour", minimal)
    assert filled["steps"][0]["root"]["children"][0]["children"][0]["params"] == {"format": "mmcif"}
    assert filled["steps"][0]["description"].startswith("The whole structure")
    overlay = story_templates.fill("docking-pose-comparison", examples("docking-pose-comparison"))[
        "steps"
    ][2]
    assert overlay["title"] == "ACP and AKI"  # placeholders inside longer text fill as text


def test_every_template_fills_with_its_examples() -> None:
    for t in story_templates.templates():
        doc = story_templates.fill(t["id"], examples(t["id"]))
        assert "{{" not in json.dumps(doc), t["id"]
        assert [s["key"] for s in doc["steps"]] == [s["key"] for s in t["storyboard"]], t["id"]


# ---------------------------------------------------------------- story_template_create: assets and dryRun
async def test_template_create_relays_assets_to_story_create(
    mcp_client: Any, connect_page: Any
) -> None:
    """A template over a local file: the page's story_create packs the assets (ui-tests/tests/openAnything.spec.ts)."""
    page = await connect_page("page-1")
    page.handler = lambda tool, args, ctx: create_answer(args)
    variables = {**examples("structure-overview"), "structure_url": "data/1cbs.cif"}
    assets = ["data/1cbs.cif", {"path": "data/other.pdb", "name": "b.pdb"}]
    async with mcp_client() as client:
        result = await client.call_tool(
            "story_template_create",
            {
                "template": "structure-overview",
                "path": "s/1cbs.mvsx",
                "variables": variables,
                "assets": assets,
            },
        )
    assert result.is_error is False, result
    (call,) = page.calls
    assert call["tool"] == "story_create" and call["args"]["assets"] == assets
    url = call["args"]["document"]["steps"][0]["root"]["children"][0]["params"]["url"]
    assert (
        url == "data/1cbs.cif"
    )  # story_create rewrites it to assets/1cbs.cif when it packs the file


async def test_too_many_assets_are_refused_before_any_page(
    mcp_client: Any, connect_page: Any
) -> None:
    page = await connect_page("page-1")
    too_many = [f"data/{i}.cif" for i in range(LIMITS["storyAssets"] + 1)]
    async with mcp_client() as client:
        err = located_error(
            await client.call_tool(
                "story_template_create",
                {
                    "template": "structure-overview",
                    "path": "s.mvsx",
                    "variables": examples("structure-overview"),
                    "assets": too_many,
                },
            )
        )
    assert (err["code"], err["where"]) == ("INVALID_INPUT", "/assets")
    assert page.calls == []


def full_document(pages: list[dict[str, Any]]) -> dict[str, Any]:
    """The filled document from its dryRun pages, in order."""
    return json.loads("".join(p["document"] for p in pages))


async def test_dry_run_returns_the_filled_document_and_asks_no_page(
    mcp_client: Any, connect_page: Any
) -> None:
    page = await connect_page("page-1")
    variables = examples("binding-site-tour")
    async with mcp_client() as client:
        result = await client.call_tool(
            "story_template_create",
            {"template": "binding-site-tour", "variables": variables, "dryRun": True},
        )
    assert result.is_error is False, result
    sc = result.structured_content
    assert page.calls == []  # nothing relayed, so nothing written
    assert (
        sc["dryRun"] is True and sc["template"] == "binding-site-tour" and sc["nextOffset"] is None
    )
    assert json.loads(sc["document"]) == story_templates.fill("binding-site-tour", variables)
    assert sc["documentChars"] == len(sc["document"]) and sc["snapshotCount"] == 3
    assert [s["key"] for s in sc["steps"]] == ["overview", "binding-site", "key-residue"]
    assert "path" not in sc and "nothing written" in result.content[0].text
    assert len(json.dumps(sc, separators=(",", ":")).encode()) <= LIMITS["observeOutputBytes"]


async def test_dry_run_pages_a_long_document_within_the_read_budget(mcp_client: Any) -> None:
    # Long descriptions (each within its maxLength), with quotes and non-ASCII that JSON escapes or widens.
    long_text = ('Å "quoted" ' * 200)[:2000]
    variables = {
        **examples("binding-site-tour"),
        "overview_text": long_text,
        "site_text": long_text,
        "residue_text": long_text,
    }
    pages = []
    async with mcp_client() as client:  # no page connected: dryRun needs none
        offset = 0
        while offset is not None:
            result = await client.call_tool(
                "story_template_create",
                {
                    "template": "binding-site-tour",
                    "variables": variables,
                    "dryRun": True,
                    "offset": offset,
                },
            )
            assert result.is_error is False, result
            sc = result.structured_content
            assert (
                len(json.dumps(sc, separators=(",", ":"), ensure_ascii=False).encode())
                <= LIMITS["observeOutputBytes"]
            )
            pages.append(sc)
            offset = sc["nextOffset"]
        past = located_error(
            await client.call_tool(
                "story_template_create",
                {
                    "template": "binding-site-tour",
                    "variables": variables,
                    "dryRun": True,
                    "offset": pages[0]["documentChars"],
                },
            )
        )
    assert len(pages) > 1
    assert full_document(pages) == story_templates.fill("binding-site-tour", variables)
    assert (past["code"], past["where"]) == ("INVALID_INPUT", "/offset") and "nextOffset" in past[
        "fix"
    ]


@pytest.mark.parametrize(
    ("args", "where", "fix"),
    [
        ({"dryRun": True, "open": True, "path": "a.mvsj"}, "/open", "Drop open"),
        ({}, "/path", "dryRun: true"),
    ],
)
async def test_dry_run_and_path_misuse_is_located(
    mcp_client: Any, connect_page: Any, args: dict, where: str, fix: str
) -> None:
    page = await connect_page("page-1")
    async with mcp_client() as client:
        err = located_error(
            await client.call_tool(
                "story_template_create",
                {
                    "template": "binding-site-tour",
                    "variables": examples("binding-site-tour"),
                    **args,
                },
            )
        )
    assert (err["code"], err["where"]) == ("INVALID_INPUT", where) and fix in err["fix"]
    assert page.calls == []
