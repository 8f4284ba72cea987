"""molspace's workflows as MCP prompts, through the official Python SDK client, and as skill files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from molspace.gateway.manifest import DEFAULT_MANIFEST_PATH
from molspace.gateway.prompts import PROMPT_BYTES, SKILLS_DIR, workflows

TOOLS = {
    t["name"]: t for t in json.loads(DEFAULT_MANIFEST_PATH.read_text(encoding="utf-8"))["tools"]
}
WANTED = {
    "inspect-structure",
    "tell-story",
    "review-molecules",
    "edit-molecule",
    "report-results",
    "check-visually",
}


def test_every_workflow_is_a_bounded_skill_file_that_names_real_tools_and_a_done_check() -> None:
    flows = workflows()
    assert set(flows) == WANTED
    for flow in flows.values():
        assert len(flow.body.encode("utf-8")) <= PROMPT_BYTES, flow.name
        assert "Done when" in flow.body, f"{flow.name}: no check that means done"
        named = set(re.findall(r"`([a-z_]+)[ `]", flow.body))
        tools = {n for n in named if n in TOOLS}
        assert tools, f"{flow.name} names no tool"
        # A backticked word followed by an argument object is a tool call: it must exist.
        calls = set(re.findall(r"`([a-z_]+) \{", flow.body))
        assert calls <= set(TOOLS), f"{flow.name} calls unknown tools {calls - set(TOOLS)}"


def test_a_broken_skill_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "SKILL.md").write_text("---\nname: y\ndescription: d\n---\nbody\n")
    with pytest.raises(ValueError, match=r"x/SKILL.md: name 'y' is not its folder's name 'x'"):
        workflows(tmp_path)
    (tmp_path / "x" / "SKILL.md").write_text("no front matter\n")
    with pytest.raises(ValueError, match="no YAML front matter"):
        workflows(tmp_path)


async def test_prompts_list_and_get(mcp_client: Any) -> None:
    async with mcp_client() as client:
        listed = (await client.list_prompts()).prompts
        assert {p.name for p in listed} == WANTED and all(p.description for p in listed)
        got = await client.get_prompt("edit-molecule")
        assert got.messages[0].role == "user"
        assert "request_persist" in got.messages[0].content.text
        assert got.messages[0].content.text == workflows()["edit-molecule"].body
        with pytest.raises(MCPError) as e:
            await client.get_prompt("no-such-flow")
    assert e.value.error.code == -32602 and "prompts/list" in e.value.error.message
    assert SKILLS_DIR.is_dir()
