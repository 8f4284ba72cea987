"""The molspace contract as Python reads it: the manifest generated from ``src/contract``.

``scripts/emit-manifest.ts`` writes ``manifest.json`` beside this file at build
time from the zod schemas (see ``docs/architecture.md``, "The contract"). The
kernel side and the gateway read from it, and keep no copies of their own:

- :data:`ERROR_CODES` — the closed list of located-error codes;
- :data:`LIMITS` — shared bounds (bytes, characters, counts), e.g.
  ``LIMITS["storySourceBytes"]``;
- :data:`BRIDGE_CLOSE_CODES` — the close codes the gateway sends a page;
- :func:`manifest` — the whole document: ``tools`` (name, description, runs,
  inputSchema, outputSchema, annotations, errors), ``wire`` (JSON Schemas of the
  bridge frames and kernel messages), ``versions``, ``instructions``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

#: Where the build writes the manifest (shipped in the wheel).
MANIFEST_PATH = Path(__file__).resolve().parent / "manifest.json"


@cache
def manifest() -> dict[str, Any]:
    """The packaged manifest, read once.

    Returns
    -------
    dict
        The parsed ``manifest.json``.

    Raises
    ------
    FileNotFoundError
        In a source checkout that was never built: run ``npm run build:manifest``.
    """
    try:
        text = MANIFEST_PATH.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise FileNotFoundError(
            f"{MANIFEST_PATH} is missing: molspace was not built. Run `npm run build:manifest` "
            "(or `pip install .`, which builds it)."
        ) from e
    return json.loads(text)


#: The closed list of error codes (``errorCodes`` of the manifest).
ERROR_CODES: tuple[str, ...] = tuple(manifest()["errorCodes"])

#: Shared limits (``limits`` of the manifest; bytes, characters or counts as named).
LIMITS: dict[str, int] = dict(manifest()["limits"])

#: Structure formats the Viewer reads: ``formats`` (names), ``extensions`` (ext -> format), ``binary``.
STRUCTURE_FORMATS: dict[str, Any] = dict(manifest()["structureFormats"])

#: Websocket close codes the gateway sends a page (``replaced``, ``unsupportedProtocol``, ``pageIdTaken``).
BRIDGE_CLOSE_CODES: dict[str, int] = dict(manifest()["bridgeCloseCodes"])

#: The output mime type of a widget's static fallback state (docs/architecture.md, "Static fallback in saved notebooks").
STATIC_FALLBACK_MIME: str = str(manifest()["staticFallbackMime"])

__all__ = [
    "BRIDGE_CLOSE_CODES",
    "STATIC_FALLBACK_MIME",
    "ERROR_CODES",
    "LIMITS",
    "MANIFEST_PATH",
    "STRUCTURE_FORMATS",
    "manifest",
]
