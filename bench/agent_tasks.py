"""Five ordinary agent tasks through MCP alone, by the official Python SDK client (issue 19).

Run by ``bench/agent_tasks.mjs``, which starts a real Jupyter server with the committed data
under its root and a real JupyterLab page in Chromium (the person: it presses *Save* in an
editor when asked), then runs this script::

    python bench/agent_tasks.py --url http://localhost:8899 --token T --out results/agent_tasks_py.json

The agent has nothing but MCP: ``tools/list`` first, then calls; no file access. For each
task it counts calls, bytes read (text + ``structuredContent``, images apart), an estimate of
tokens (bytes / 4) and wall time; the ``tools/list`` bytes are reported on their own.
Nothing is asserted on time: figures only (``docs/benchmarks.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


def compact(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


class Agent:
    """One MCP session that counts what each task costs."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.calls = 0
        self.bytes = 0
        self.image_bytes = 0
        self.log: list[str] = []

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        result = await self.client.call_tool(tool, args)
        self.calls += 1
        text = "".join(c.text for c in result.content if c.type == "text")
        self.bytes += len(text.encode("utf-8")) + (
            compact(result.structured_content) if result.structured_content else 0
        )
        self.image_bytes += sum(len(c.data) for c in result.content if c.type == "image")
        self.log.append(
            f"{tool}: {'ERROR ' if result.is_error else ''}{text.splitlines()[0][:160] if text else ''}"
        )
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {text[:2000]}")
        return result.structured_content, text


async def task_open_and_focus(a: Agent, state: dict[str, Any]) -> None:
    """Open 1hpv.pdb and focus its inhibitor."""
    sc, _ = await a.call("open", {"path": "data/1hpv.pdb", "title": "1HPV"})
    assert sc is not None
    lig = (sc["composition"] or {}).get("ligands", [])[0]  # the inhibitor: 1HPV's one ligand
    state["viewer"] = sc["viewer"]["target"]
    selector = {
        "label_comp_id": lig["comp_id"],
        "auth_asym_id": lig["auth_asym_id"],
        "auth_seq_id": lig["auth_seq_id"],
    }
    await a.call(
        "act", {"target": state["viewer"], "actions": [{"op": "focus", "selector": selector}]}
    )


async def task_show_story(a: Agent, state: dict[str, Any]) -> None:
    """Show an existing Story file and narrate it step by step."""
    sc, _ = await a.call("open", {"path": "data/1cbs-story.mvsx"})
    assert sc is not None
    story = sc["story"]
    obs, _ = await a.call("story_observe", {"target": story["target"], "limit": 10})
    assert obs is not None
    for _snap in obs["snapshots"][1:3]:
        await a.call("story_control", {"target": story["target"], "action": "next"})


async def task_template_story(a: Agent, state: dict[str, Any]) -> None:
    """Build a 3-step Story about a local structure from a template."""
    await a.call("story_template_list", {"template": "binding-site-tour"})
    await a.call(
        "story_template_create",
        {
            "template": "binding-site-tour",
            "path": "stories/1hpv-tour.mvsx",
            "overwrite": True,
            "assets": ["data/1hpv.pdb"],
            "variables": {
                "title": "HIV-1 protease and its inhibitor",
                "structure_url": "data/1hpv.pdb",
                "format": "pdb",
                "ligand_comp_id": "478",
                "residue_chain": "A",
                "residue_number": 25,
                "residue_label": "Asp25",
                "residue_text": "Asp25 of chain A: the catalytic aspartate.",
            },
            "open": True,
        },
    )


async def task_edit_and_save(a: Agent, state: dict[str, Any]) -> None:
    """Edit a molecule in Ketcher and save it (the person presses Save)."""
    sc, _ = await a.call("ketcher_open", {"path": "data/small01.mol"})
    assert sc is not None
    editor = sc["editor"]["target"]
    sc, _ = await a.call(
        "ketcher_control", {"target": editor, "action": "set_structure", "value": "Oc1ccccc1C(=O)O"}
    )
    await a.call(
        "ketcher_control",
        {
            "target": editor,
            "action": "request_persist",
            "path": "molecules/edited.mol",
            "format": "molfile",
            "overwrite": True,
            "waitMs": 20000,
        },
    )


async def task_table_and_export(a: Agent, state: dict[str, Any]) -> None:
    """Render a results table whose rows focus residues, then export it."""
    viewer = state["viewer"]
    rows = [["ASP 25 A", 2.9], ["ASP 25 B", 3.1], ["GLY 27 A", 3.4]]
    sels = [
        {"auth_asym_id": "A", "auth_seq_id": 25},
        {"auth_asym_id": "B", "auth_seq_id": 25},
        {"auth_asym_id": "A", "auth_seq_id": 27},
    ]
    sc, _ = await a.call(
        "render_panel",
        {
            "panelId": "contacts",
            "title": "Contacts",
            "content": {
                "type": "table",
                "columns": [
                    {"name": "residue"},
                    {"name": "distance", "type": "number", "unit": "Å"},
                ],
                "rows": rows,
                "links": [{"op": "focus", "viewer": viewer, "selector": s} for s in sels],
            },
        },
    )
    await a.call(
        "export", {"target": "contacts", "path": "results/contacts.csv", "overwrite": True}
    )


TASKS: list[tuple[str, Callable[[Agent, dict[str, Any]], Awaitable[None]]]] = [
    ("open 1hpv.pdb, focus its inhibitor", task_open_and_focus),
    ("show an existing Story file, narrate it", task_show_story),
    ("3-step Story about a local structure from a template", task_template_story),
    ("edit a molecule in Ketcher and save it", task_edit_and_save),
    ("table whose rows focus residues, then export it", task_table_and_export),
]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    http = httpx2.AsyncClient(
        headers={"Authorization": f"token {args.token}"}, timeout=httpx2.Timeout(60.0)
    )
    report: dict[str, Any] = {"tasks": []}
    async with (
        http,
        Client(
            streamable_http_client(f"{args.url}/molspace/mcp", http_client=http), mode="legacy"
        ) as client,
    ):
        t0 = time.perf_counter()
        listed = await client.list_tools()
        report["toolsList"] = {
            "tools": len(listed.tools),
            "bytes": compact(
                [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools]
            ),
            "ms": (time.perf_counter() - t0) * 1000,
        }
        state: dict[str, Any] = {}
        first = Agent(client)
        await first.call("status", {})
        report["status"] = {"bytes": first.bytes}
        for name, task in TASKS:
            agent = Agent(client)
            began = time.perf_counter()
            error = None
            try:
                await task(agent, state)
            except Exception as e:  # noqa: BLE001 - a task that fails is reported, the rest still run
                error = str(e)[:1500]
            report["tasks"].append(
                {
                    "task": name,
                    "calls": agent.calls,
                    "bytesRead": agent.bytes,
                    "tokensEstimated": round(agent.bytes / 4),
                    "imageBytes": agent.image_bytes,
                    "ms": (time.perf_counter() - began) * 1000,
                    "error": error,
                    "log": agent.log,
                }
            )
            print(json.dumps(report["tasks"][-1], ensure_ascii=False), flush=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)


if __name__ == "__main__":
    asyncio.run(main())
