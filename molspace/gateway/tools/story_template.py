"""``story_template_list`` and ``story_template_create`` (docs/architecture.md, "Story authoring").

The catalogue and the filling are :mod:`molspace.story_templates` (string values
only, bounded, missing and unknown variables refused); ``story_template_create``
then relays ``story_create`` to a page through :class:`~molspace.gateway.pages.ConnectedPages`,
so the page validates the filled Story with the same bundled Mol* as any other.
"""

from __future__ import annotations

from typing import Any

from ... import story_templates
from .context import GatewayToolAnswer, GatewayToolContext


def list_answer(args: dict[str, Any], ctx: GatewayToolContext) -> GatewayToolAnswer:
    """Answer ``story_template_list``: the catalogue; with ``template``, also its steps.

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` at ``/template``, listing the ids.
    """
    catalogue = story_templates.templates()
    template = args.get("template")
    steps = None
    if template is not None:
        steps = story_templates.get(template)["steps"]
        catalogue = [t for t in catalogue if t["id"] == template]
    ids = ", ".join(t["id"] for t in catalogue)
    text = f"{len(catalogue)} Story template(s): {ids}." + (
        "" if steps is not None else " Pass `template` for its steps; fill one with story_template_create."
    )
    return GatewayToolAnswer({"templates": catalogue, "steps": steps}, text)


async def create_answer(args: dict[str, Any], ctx: GatewayToolContext) -> GatewayToolAnswer:
    """Answer ``story_template_create``: fill the template, then ``story_create`` in the page.

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` / ``INVALID_INPUT`` from filling (before any page is asked);
        then whatever ``story_create`` returns (``NO_PAGE``, ``VALIDATION_FAILED``,
        ``FORBIDDEN`` for an existing file or a path outside the root, ``TIMEOUT``).
    """
    document = story_templates.fill(args["template"], args.get("variables") or {})
    relay = {
        "path": args["path"],
        "overwrite": bool(args.get("overwrite", False)),
        "open": bool(args.get("open", False)),
        "document": document,
    }
    if args.get("pageId") is not None:
        relay["pageId"] = args["pageId"]
    result = await ctx.pages.call("story_create", relay, how_to_connect=ctx.how_to_connect, client=ctx.client)
    structured = {**result["structuredContent"], "template": args["template"]}
    return GatewayToolAnswer(structured, f"From template {args['template']}: {result['text']}")
