"""MCP prompts: molspace's workflows, from the skill files shipped in ``molspace/skills/``.

Each workflow is one ``molspace/skills/<name>/SKILL.md``: YAML front matter (``name``,
``description``) and a short Markdown body naming the tools in order and the checks that
mean "done". The same files serve clients that read skills (copy the folder into the
client's skills directory) and MCP clients (``prompts/list``, ``prompts/get``: one user
message holding the body). Bounded: a body over :data:`PROMPT_BYTES` fails the test suite,
not an agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

#: Where the skill files are (inside the installed package).
SKILLS_DIR = Path(__file__).resolve().parent.parent / "skills"
#: Most bytes (UTF-8) of one workflow's body.
PROMPT_BYTES = 2048


@dataclass(frozen=True)
class Workflow:
    """One workflow: its name, one-line description and Markdown body."""

    name: str
    description: str
    body: str


def _read(path: Path) -> Workflow:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise ValueError(f"{path}: no YAML front matter (a first line '---')")
    head, sep, body = text[4:].partition("\n---\n")
    if not sep:
        raise ValueError(f"{path}: the front matter is not closed by a '---' line")
    meta = yaml.safe_load(head) or {}
    if (
        not isinstance(meta, dict)
        or not isinstance(meta.get("name"), str)
        or not isinstance(meta.get("description"), str)
    ):
        raise ValueError(f"{path}: the front matter needs string 'name' and 'description'")
    if meta["name"] != path.parent.name:
        raise ValueError(
            f"{path}: name {meta['name']!r} is not its folder's name {path.parent.name!r}"
        )
    return Workflow(meta["name"], meta["description"], body.strip() + "\n")


def workflows(directory: Path = SKILLS_DIR) -> dict[str, Workflow]:
    """Every workflow by name, in name order.

    Raises
    ------
    ValueError
        A skill file without well-formed front matter, naming the file.
    """
    found = [_read(p) for p in sorted(directory.glob("*/SKILL.md"))]
    return {w.name: w for w in found}
