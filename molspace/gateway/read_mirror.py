"""The gateway's copy of one page's read mirror (``docs/architecture.md``, "Read mirror").

A page pushes ``reads`` frames: the answers its own read-tool handlers give
now for the arguments agents use without paging (``{}`` and ``{target}``),
whenever one changes, and before the ``result`` of any call that changed
one. The gateway answers those calls from here, without waiting for the
page's main thread (which software WebGL can hold for hundreds of ms per
frame); any other call, or one the mirror has no answer for, is relayed.

Answers are the page's own, byte for byte. The one field the page cannot
know is ``pages`` (the gateway's page list, in ``observe``): the page
computed it with ``pages: []`` and says how large that answer is and
whether its read budget cut it; the gateway fills the list in, and relays
instead when the filled answer would not have fit the page's budget.
"""

from __future__ import annotations

import json
from typing import Any


def read_key(tool: str, args: dict[str, Any], defaults: dict[str, Any]) -> str:
    """One key per call: the tool and its arguments without ``pageId`` and without defaults.

    Parameters
    ----------
    tool : str
        Tool name.
    args : dict
        Validated call arguments (or the page's mirrored arguments).
    defaults : dict
        The input schema's property defaults (``ToolSpec.defaults``): an
        argument equal to its default is the same call as one without it.

    Returns
    -------
    str
        ``"<tool> <JSON of the remaining arguments, sorted keys>"``.
    """
    kept = {
        k: v for k, v in args.items() if k != "pageId" and not (k in defaults and defaults[k] == v)
    }
    return f"{tool} {json.dumps(kept, sort_keys=True, separators=(',', ':'), ensure_ascii=False)}"


def json_bytes(value: Any) -> int:
    """UTF-8 bytes of ``value`` as JavaScript's ``JSON.stringify`` writes it (no spaces)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


class ReadMirror:
    """The mirrored answers of one connected page.

    Parameters
    ----------
    budget : int
        The page's read budget, bytes of JSON (``limits.observeOutputBytes``).
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._answers: dict[str, dict[str, Any]] = {}

    def __len__(self) -> int:
        return len(self._answers)

    def apply(self, frame: dict[str, Any], defaults_of: Any) -> None:
        """Take one ``reads`` frame (already checked against the wire schema).

        Parameters
        ----------
        frame : dict
            ``{type: "reads", set: [MirroredRead], drop: [{tool, args}]}``.
        defaults_of : callable
            ``tool name -> input defaults`` (unknown tools: ``None``, the entry is ignored).
        """
        for entry in frame["drop"]:
            defaults = defaults_of(entry["tool"])
            if defaults is not None:
                self._answers.pop(read_key(entry["tool"], entry["args"], defaults), None)
        for entry in frame["set"]:
            defaults = defaults_of(entry["tool"])
            if defaults is not None:
                self._answers[read_key(entry["tool"], entry["args"], defaults)] = entry

    def answer(
        self,
        tool: str,
        args: dict[str, Any],
        defaults: dict[str, Any],
        page_infos: list[dict[str, Any]],
    ) -> dict[str, Any] | None:
        """The page's answer to this call, or ``None`` when it must be relayed.

        Parameters
        ----------
        tool, args, defaults
            As for :func:`read_key`.
        page_infos : list of dict
            ``PageInfo`` of every connected page, as a relayed call's context carries them.

        Returns
        -------
        dict or None
            ``{"structuredContent", "text"}`` as the page's ``result`` frame would carry them.
        """
        entry = self._answers.get(read_key(tool, args, defaults))
        if entry is None:
            return None
        structured = entry["structuredContent"]
        filled = entry.get("pages")
        if filled is not None:
            # The page computed it with `pages: []` (2 bytes of JSON); same keys, same order.
            size = filled["bytes"] - 2 + json_bytes(page_infos)
            if not filled["complete"] or size > self.budget:
                return None  # the page's budget would have listed fewer widgets: relay
            structured = {k: (page_infos if k == "pages" else v) for k, v in structured.items()}
        return {"structuredContent": structured, "text": entry["text"]}
