"""Story authoring from a notebook cell: ``molspace.stories`` (docs/architecture.md, "Story authoring").

The same templates as the agent tools (``story_template_list`` / ``story_template_create``),
filled the same way (:mod:`molspace.story.templates`), written as ``.mvsj``::

    from molspace import stories
    stories.templates()                                   # the catalogue
    doc = stories.fill("binding-site-tour", {...})        # a storyboard {title, steps}
    f = stories.create("stories/1hpv.mvsj", doc)          # validate (molviewspec), write
    molspace.Story(f.path)                                # show it; the page validates with Mol*

Validation here uses the ``molviewspec`` package's own pydantic models (node kinds, metadata
shape); Mol*'s full check of every param runs in the page (``story_validate``, or showing the
Story with :class:`molspace.Story`, which reports every issue in ``story.error``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import MolspaceError
from . import archive as story_archive
from . import templates as story_templates

#: Linger of a storyboard step that gives none, ms (as the page's storyboard conversion).
DEFAULT_LINGER_MS = 4000
_STEP_METADATA = (
    "key",
    "title",
    "description",
    "description_format",
    "linger_duration_ms",
    "transition_duration_ms",
)


@dataclass(frozen=True)
class StoryCheck:
    """The outcome of :func:`validate`.

    Attributes
    ----------
    valid : bool
    issues : list of dict
        Each ``{snapshotIndex, key, path, message, fix}`` (as ``story_validate`` lists them).
    """

    valid: bool
    issues: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class StoryFile:
    """A Story written by :func:`create`: ``path``, ``title``, ``keys`` (step keys in order), ``replaced``."""

    path: Path
    title: str
    keys: list[str]
    replaced: bool


def templates() -> list[dict[str, Any]]:
    """The template catalogue: ``id, title, description, variables, storyboard, caveats`` of each."""
    return story_templates.templates()


def fill(template: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """Fill a template into a storyboard ``{title, steps}``; see :func:`molspace.story.templates.fill`.

    Raises
    ------
    MolspaceError
        ``NOT_FOUND`` (template), ``INVALID_INPUT`` (missing, unknown, mistyped or too long values).
    """
    return story_templates.fill(template, variables)


def to_mvs(document: Any) -> dict[str, Any]:
    """Multi-state MVS from a storyboard ``{title, steps}``, an MVS dict, or a molviewspec ``States``.

    Raises
    ------
    MolspaceError
        ``UNSUPPORTED_FORMAT`` for anything else.
    """
    if hasattr(document, "model_dump"):
        document = json.loads(document.model_dump_json(exclude_none=True))
    if not isinstance(document, dict):
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            f"A Story document is a dict, not {type(document).__name__}.",
            "document",
            "Pass a storyboard {title, steps} or multi-state MVS (a dict, or molviewspec States).",
        )
    if "steps" not in document:
        return document
    snapshots = []
    for step in document.get("steps") or []:
        step = step if isinstance(step, dict) else {}
        metadata = {
            "linger_duration_ms": DEFAULT_LINGER_MS,
            **{k: step[k] for k in _STEP_METADATA if k in step},
        }
        snapshots.append({"root": step.get("root"), "metadata": metadata})
    metadata = {"version": "1", "timestamp": datetime.now(timezone.utc).isoformat()}
    if isinstance(document.get("title"), str):
        metadata["title"] = document["title"]
    return {"kind": "multiple", "metadata": metadata, "snapshots": snapshots}


def validate(document: Any) -> StoryCheck:
    """Check a Story with molviewspec's models, listing every issue, located.

    Raises
    ------
    MolspaceError
        ``UNSUPPORTED_FORMAT`` when molviewspec is not installed (``pip install molspace[molviewspec]``).
    """
    try:
        from molviewspec import States
        from pydantic import ValidationError
    except ImportError as e:
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            "Validating in Python needs the molviewspec package.",
            "document",
            "pip install 'molspace[molviewspec]', or validate in the page with story_validate.",
        ) from e
    mvs = to_mvs(document)
    try:
        States.model_validate(mvs)
    except ValidationError as e:
        issues = []
        for err in e.errors():
            loc = list(err["loc"])
            index = (
                loc[1]
                if len(loc) > 1 and loc[0] == "snapshots" and isinstance(loc[1], int)
                else None
            )
            rest = loc[2:] if index is not None else loc
            snaps = mvs.get("snapshots") or []
            snap = (
                snaps[index]
                if index is not None and index < len(snaps) and isinstance(snaps[index], dict)
                else {}
            )
            key = (
                (snap.get("metadata") or {}).get("key")
                if isinstance(snap.get("metadata"), dict)
                else None
            )
            issues.append(
                {
                    "snapshotIndex": index,
                    "key": key if isinstance(key, str) else None,
                    "path": "/".join(str(p) for p in rest),
                    "message": err["msg"],
                    "fix": "Correct this field (story_schema lists node kinds and params).",
                }
            )
        return StoryCheck(False, issues)
    return StoryCheck(True, [])


def create(
    path: str | Path,
    document: Any = None,
    *,
    template: str | None = None,
    variables: dict[str, Any] | None = None,
    overwrite: bool = False,
    assets: Iterable[Any] | None = None,
) -> StoryFile:
    """Validate a Story (a document, or a template filled with ``variables``) and write it as ``.mvsj``
    or, with ``assets``, as ``.mvsx`` (see :mod:`molspace.story.archive`).

    Parameters
    ----------
    path : str or Path
        Where to write, relative to the kernel's working directory; must end in ``.mvsj``.
    document : dict or molviewspec States, optional
        A storyboard or multi-state MVS; or give ``template`` (and ``variables``) instead.
    overwrite : bool
        Replace an existing file (default: refuse).
    assets : list of str, Path or {"path", "name"}, optional
        ``.mvsx`` only: files under the working directory packed as ``assets/<name>``; a
        ``url``/``uri`` equal to an asset's path (or ``assets/<name>``) is rewritten to it.

    Raises
    ------
    MolspaceError
        ``INVALID_INPUT`` (neither or both of document and template), ``UNSUPPORTED_FORMAT``
        (not ``.mvsj``/``.mvsx``, or assets with ``.mvsj``), ``FORBIDDEN`` at ``overwrite`` (the
        file exists), ``VALIDATION_FAILED`` (every issue in ``details.issues``, including relative
        URLs no asset matches), the errors of :func:`fill` and of
        :func:`molspace.story.archive.plan_assets` (located at ``assets/<i>``).
    """
    if (document is None) == (template is None):
        raise MolspaceError(
            "INVALID_INPUT",
            "Give exactly one of document or template.",
            "document",
            "Pass a storyboard/MVS document, or template= and variables=.",
        )
    if template is not None:
        document = fill(template, variables)
    target = Path(path)
    archive = target.suffix.lower() == ".mvsx"
    if target.suffix.lower() != ".mvsj" and not archive:
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            f"{target} does not end with .mvsj or .mvsx.",
            "path",
            "Name the file .mvsj, or .mvsx to pack assets.",
        )
    if assets and not archive:
        raise MolspaceError(
            "UNSUPPORTED_FORMAT",
            f"an .mvsj file cannot hold assets ({target}).",
            "assets",
            f"Name the file {target.with_suffix('.mvsx').name} to pack them, or reference them by https URL.",
        )
    check = validate(document)
    if not check.valid:
        first = check.issues[0]
        raise MolspaceError(
            "VALIDATION_FAILED",
            f"{len(check.issues)} issue(s) in the Story: {first['path']}: {first['message']}",
            "document",
            first["fix"],
            {"issues": check.issues},
        )
    replaced = target.exists()
    if replaced and not overwrite:
        raise MolspaceError(
            "FORBIDDEN",
            f"{target} exists; create does not overwrite it.",
            "overwrite",
            "Pass overwrite=True to replace it, or choose another path.",
            {"path": str(target)},
        )
    mvs = to_mvs(document)
    if archive:
        planned = story_archive.plan_assets(assets or [], Path.cwd())
        issues = story_archive.rewrite_references(mvs, planned)
        if issues:
            first = issues[0]
            raise MolspaceError(
                "VALIDATION_FAILED",
                f"{len(issues)} issue(s) in the Story: {first['path']}: {first['message']}",
                "document",
                first["fix"],
                {"issues": issues},
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(story_archive.zip_story(mvs, planned))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(mvs, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    snaps = mvs["snapshots"]
    return StoryFile(
        target,
        str(mvs["metadata"].get("title", "")),
        [s["metadata"].get("key", "") for s in snaps],
        replaced,
    )
