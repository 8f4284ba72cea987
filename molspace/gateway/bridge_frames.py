"""Bridge frames from a page, checked against the contract's wire schema.

A page speaks JSON text frames (``wire.bridge.pageToGateway`` in the manifest,
generated from ``src/contract/bridge.ts``): ``hello``, ``focus``, ``summary``
and ``result``. A frame that does not match is refused with a reason that names
the first problem; a ``hello`` of another bridge protocol closes the socket.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..contract import BRIDGE_CLOSE_CODES
from .schema_errors import json_pointer

#: A JSON escape of a UTF-16 surrogate: JSON allows a lone one, UTF-8 (the MCP reply) does not.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _whole_characters(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD (pairs kept)."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_whole_characters(v) for v in value]
    if isinstance(value, dict):
        return {_whole_characters(k): _whole_characters(v) for k, v in value.items()}
    return value


#: Characters of a frame's invalid value a refusal quotes: the reason is logged and, for a
#: malformed ``result``, told to the agent whose call it fails, so a megabyte value stays out.
_QUOTED_CHARS = 300


def _cut(text: str, limit: int = _QUOTED_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Websocket close code sent to a page speaking another bridge protocol.
CLOSE_UNSUPPORTED_PROTOCOL = BRIDGE_CLOSE_CODES["unsupportedProtocol"]


@dataclass
class FrameRefused(Exception):
    """A page frame that is not part of the bridge protocol.

    Attributes
    ----------
    reason : str
        What is wrong, with the JSON pointer of the first bad field.
    close_code : int or None
        Close the socket with this code (``None``: ignore the frame, keep the socket).
    call_id : str or None
        The ``callId`` of a malformed ``result`` frame, so that its call fails at once.
    """

    reason: str
    close_code: int | None = None
    call_id: str | None = None

    def __str__(self) -> str:
        return self.reason


class BridgeFrames:
    """Parser of page → gateway frames.

    Parameters
    ----------
    schema : dict
        ``wire.bridge.pageToGateway`` of the manifest (JSON Schema 2020-12).
    protocol : int
        The bridge protocol this server speaks (``bridgeProtocol``).
    max_bytes : int
        Largest frame accepted, in bytes of UTF-8 (``limits.bridgeFrameBytes``).
    """

    def __init__(self, schema: dict[str, Any], protocol: int, max_bytes: int) -> None:
        Draft202012Validator.check_schema(schema)
        self._validator = Draft202012Validator(schema)
        # One validator per frame type whose branch names its type alone, so an error is located in it.
        self._by_type: dict[str, Draft202012Validator] = {}
        for branch in schema.get("anyOf", []):
            const = branch.get("properties", {}).get("type", {}).get("const")
            if isinstance(const, str):
                self._by_type[const] = Draft202012Validator(
                    {**branch, "$schema": schema.get("$schema")}
                )
        self.protocol = protocol
        self.max_bytes = max_bytes

    def parse(self, raw: str | bytes) -> dict[str, Any]:
        """Parse and check one frame.

        Returns
        -------
        dict
            The frame, valid against the wire schema.

        Raises
        ------
        FrameRefused
            Binary, oversized, not JSON, not an object, or not matching the schema;
            ``close_code`` is set for a ``hello`` of another protocol.
        """
        if isinstance(raw, bytes):
            raise FrameRefused("binary frames are not part of the bridge protocol")
        size = len(raw.encode("utf-8"))
        if size > self.max_bytes:
            raise FrameRefused(
                f"frame of {size} bytes is larger than the {self.max_bytes}-byte limit"
            )
        try:
            frame = json.loads(raw)
        except ValueError as e:
            raise FrameRefused(f"not JSON ({e})") from None
        if not isinstance(frame, dict):
            raise FrameRefused("not a JSON object")
        if _SURROGATE_ESCAPE.search(raw):
            # A text the page cut inside a character (an emoji): keep the frame, not the half.
            frame = _whole_characters(frame)
        if frame.get("type") == "hello" and frame.get("protocol") != self.protocol:
            raise FrameRefused(
                f"unsupported bridge protocol {_cut(repr(frame.get('protocol')), 60)} (server speaks {self.protocol})",
                CLOSE_UNSUPPORTED_PROTOCOL,
            )
        kind = frame.get("type")
        validator = (
            self._by_type.get(kind, self._validator) if isinstance(kind, str) else self._validator
        )
        error = best_match(validator.iter_errors(frame), key=_relevance)
        if error is not None:
            where = json_pointer(list(error.absolute_path)) or "/"
            call_id = frame.get("callId") if frame.get("type") == "result" else None
            raise FrameRefused(
                f"{_cut(repr(frame.get('type')), 60)} frame invalid at {_cut(where, 200)}: {_cut(error.message)}",
                call_id=call_id if isinstance(call_id, str) else None,
            )
        return frame


def _relevance(error: Any) -> tuple[int, int]:
    """Prefer errors inside the branch whose ``type`` matched (deepest path first)."""
    return (-len(error.absolute_path), 0)
