"""``story_template_list`` and ``story_template_create`` (docs/architecture.md, "Story authoring").

The catalogue and the filling are :mod:`molspace.story.templates` (string values
only, bounded, missing and unknown variables refused); ``story_template_create``
then relays ``story_create`` to a page through :class:`~molspace.gateway.pages.ConnectedPages`,
so the page validates the filled Story with the same bundled Mol* as any other.
"""

from __future__ import annotations

import json
from typing import Any

from ...contract import LIMITS
from ...errors import MolspaceError
from ...story import templates as story_templates
from .context import GatewayToolAnswer, GatewayToolContext


def list_answer(args: dict[str, Any], ctx: GatewayToolContext) -> GatewayToolAnswer:
    """Answer ``story_template_list``: the catalogue; with ``template``, also its steps.

    The catalogue is listed from ``offset`` for as many templates as fit the read budget
    (``limits.observeOutputBytes`` of JSON, at least one); ``nextOffset`` says where the
    rest begins (null when none is left).

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` at ``/template``, listing the ids; ``INVALID_INPUT`` at ``/offset``
        past the end of the catalogue.
    """
    catalogue = story_templates.templates()
    template = args.get("template")
    offset = int(args.get("offset") or 0)
    steps = None
    if template is not None:
        steps = story_templates.get(template)["steps"]
        catalogue = [t for t in catalogue if t["id"] == template]
    if offset > 0 and offset >= len(catalogue):
        raise MolspaceError(
            "INVALID_INPUT",
            f"offset {offset} is past the end of the {len(catalogue)} template(s) listed.",
            "/offset",
            "Omit offset to start over, or pass the nextOffset of the previous story_template_list call.",
            {"offset": offset, "templates": len(catalogue)},
        )
    budget = int(LIMITS["observeOutputBytes"])
    listed: list[dict[str, Any]] = []
    for entry in catalogue[offset:]:
        candidate = {"templates": [*listed, entry], "nextOffset": 0, "steps": steps}
        if (
            listed
            and len(
                json.dumps(candidate, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            )
            > budget
        ):
            break
        listed.append(entry)
    end = offset + len(listed)
    next_offset = end if end < len(catalogue) else None
    ids = ", ".join(t["id"] for t in listed)
    text = (
        f"{len(listed)} Story template(s): {ids}."
        + (
            f" {len(catalogue) - end} more: call again with offset {next_offset}."
            if next_offset is not None
            else ""
        )
        + (
            ""
            if steps is not None
            else " Pass `template` for its steps; fill one with story_template_create."
        )
    )
    return GatewayToolAnswer({"templates": listed, "nextOffset": next_offset, "steps": steps}, text)


async def create_answer(args: dict[str, Any], ctx: GatewayToolContext) -> GatewayToolAnswer:
    """Answer ``story_template_create``: fill the template, then ``story_create`` in the page.

    ``assets`` are relayed to ``story_create`` unchanged, so they are packed (and
    ``*_url`` values naming them rewritten) exactly as ``story_create`` does. With
    ``dryRun`` nothing is written and no page is asked: the filled document comes
    back as compact JSON text, paged (:func:`fill_answer`).

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` / ``INVALID_INPUT`` from filling (before any page is asked);
        ``INVALID_INPUT`` at ``/path`` (no path without ``dryRun``) or ``/open``
        (``open`` with ``dryRun``); then whatever ``story_create`` returns
        (``NO_PAGE``, ``VALIDATION_FAILED``, ``FORBIDDEN`` for an existing file or a
        path or asset outside the root, ``NOT_FOUND`` / ``TOO_LARGE`` for an asset,
        ``UNSUPPORTED_FORMAT`` for assets with an ``.mvsj`` path, ``TIMEOUT``).
    """
    document = story_templates.fill(args["template"], args.get("variables") or {})
    if args.get("dryRun"):
        if args.get("open"):
            raise MolspaceError(
                "INVALID_INPUT",
                "dryRun writes nothing, so there is no Story to open.",
                "/open",
                "Drop open, or drop dryRun (and pass path) to create and show the Story.",
                {},
            )
        return fill_answer(args["template"], document, int(args.get("offset") or 0))
    if args.get("path") is None:
        raise MolspaceError(
            "INVALID_INPUT",
            "story_template_create needs path to write the Story (or dryRun: true to fill only).",
            "/path",
            'Pass path, e.g. "stories/my-story.mvsj" (or .mvsx with assets), or dryRun: true.',
            {},
        )
    relay = {
        "path": args["path"],
        "overwrite": bool(args.get("overwrite", False)),
        "open": bool(args.get("open", False)),
        "document": document,
    }
    if args.get("assets"):
        relay["assets"] = list(args["assets"])
    if args.get("pageId") is not None:
        relay["pageId"] = args["pageId"]
    result = await ctx.pages.call(
        "story_create", relay, how_to_connect=ctx.how_to_connect, client=ctx.client
    )
    structured = {**result["structuredContent"], "template": args["template"]}
    return GatewayToolAnswer(structured, f"From template {args['template']}: {result['text']}")


def fill_answer(template: str, document: dict[str, Any], offset: int) -> GatewayToolAnswer:
    """The ``dryRun`` answer: the filled document as compact JSON text from ``offset``.

    The page of text is the longest that keeps ``structuredContent`` within the read
    budget (``LIMITS["observeOutputBytes"]`` bytes of JSON); ``nextOffset`` continues it
    (``null``: the whole document was sent). Concatenated pages parse as the document.

    Raises
    ------
    MolspaceError
        ``INVALID_INPUT`` at ``/offset`` past the end of the document.
    """
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    total = len(text)
    if offset > total or (offset == total and total > 0):
        raise MolspaceError(
            "INVALID_INPUT",
            f"offset {offset} is past the end of the filled document ({total} characters).",
            "/offset",
            "Pass offset 0, or the nextOffset of the previous answer.",
            {"offset": offset, "documentChars": total},
        )
    steps = document.get("steps") or []
    base = {
        "template": template,
        "dryRun": True,
        "title": str(document.get("title", "")),
        "snapshotCount": len(steps),
        "steps": [
            {"index": i, "key": str(s.get("key", "")), "title": str(s.get("title", ""))}
            for i, s in enumerate(steps[: int(LIMITS["authoringStepsListed"])])
        ],
        "documentChars": total,
    }
    budget = int(LIMITS["observeOutputBytes"])

    def page(end: int) -> dict[str, Any]:
        return {**base, "document": text[offset:end], "nextOffset": end if end < total else None}

    def size(end: int) -> int:
        return len(json.dumps(page(end), separators=(",", ":"), ensure_ascii=False).encode("utf-8"))

    lo, hi = offset + 1, total  # the longest end whose page fits; at least one character
    if size(hi) > budget:
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if size(mid) <= budget:
                lo = mid
            else:
                hi = mid - 1
        end = lo
    else:
        end = total
    structured = page(end)
    rest = (
        ""
        if end >= total
        else f" Characters {offset}-{end}; call again with offset: {end} for the rest."
    )
    text_line = (
        f'Filled template {template} (dryRun: nothing written): "{base["title"]}", {len(steps)} step(s), '
        f"{total} characters of JSON in structuredContent.document.{rest} "
        "Create it with story_template_create (path, no dryRun) or story_create {path, document}."
    )
    return GatewayToolAnswer(structured, text_line)
