"""Generated bridge frames (issue 23): what a page sends the gateway over its websocket, from the
contract's ``wire.bridge.pageToGateway`` schema, valid and near-valid, as JSON text, cut short,
with lone-surrogate escapes, as random text and as binary.

Property: :class:`BridgeFrames` accepts a frame valid against the schema, or refuses it with a
:class:`FrameRefused` whose reason is bounded (it reaches the log and, for a malformed ``result``,
the agent); no other exception. Then the bridge handler's own code (``BridgeHandler._handle``)
runs each frame against a registry with one page and one pending call: no exception escapes, and
a refused frame changes nothing (but for a malformed ``result`` naming the pending call, which
fails that call at once, by design).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from fuzz_inputs import COUNTS, batches, from_schema, fuzz_settings, odd_text
from hypothesis import given
from hypothesis import strategies as st

from molspace.contract import manifest
from molspace.gateway.bridge_frames import CLOSE_UNSUPPORTED_PROTOCOL, BridgeFrames, FrameRefused
from molspace.gateway.handlers import BridgeHandler
from molspace.gateway.manifest import Manifest
from molspace.gateway.pages import ConnectedPages
from molspace.gateway.static_fallback import FallbackStore

SCHEMA = manifest()["wire"]["bridge"]["pageToGateway"]
PROTOCOL = int(manifest()["bridgeProtocol"])
#: A smaller frame limit than ``bridgeFrameBytes`` (16 MiB), so that "over the limit" is drawn
#: often and cheaply; the code path is the same.
MAX_BYTES = 65_536
FRAMES = BridgeFrames(SCHEMA, PROTOCOL, MAX_BYTES)
MIRRORED = {t.name: t.defaults for t in Manifest.load().tools.values() if t.mirrored}
INPUTS = 10_000
#: Longest refusal reason: it is logged and, for a `result`, said to the agent.
MAX_REASON = 1_000
PENDING = "call-1"

_valid = from_schema(SCHEMA, SCHEMA).map(
    lambda f: {**f, "callId": PENDING} if f.get("type") == "result" else f
)


def _text(frame: Any) -> str:
    """A frame as a page sends it: JSON text, lone surrogates as ``\\udXXX`` escapes."""
    return json.dumps(frame, ensure_ascii=True)


def _texts(frames: list[Any]) -> list[str | bytes]:
    """Each frame as JSON text; the last also cut short, one with half an emoji."""
    texts: list[str | bytes] = [_text(f) for f in frames]
    whole = _text(frames[-1])
    return [*texts, whole[: len(whole) * 2 // 3], _text(frames[-2]).replace("a", "\\ud83d", 1)]


def _lists(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(strategy, min_size=4, max_size=4)


#: A batch of raw frames: a valid frame and its mutations as JSON text (:func:`batches`), or
#: random text (as tornado hands it over: decoded UTF-8, so no lone surrogate but escaped ones),
#: bytes, or odd JSON.
RAW = st.one_of(
    batches(_valid).map(_texts),
    batches(_valid).map(_texts),
    _lists(
        odd_text(60).map(lambda s: s.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
    ),
    _lists(st.binary(max_size=64)),
    _lists(
        st.sampled_from(
            ["null", "[]", "1", '"hello"', "{}", '{"type": null}', "x" * (MAX_BYTES + 1)]
        )
    ),
)


class _Socket:
    """The bridge handler's own methods on a stand-in for its websocket."""

    _handle = BridgeHandler._handle
    _ignore = BridgeHandler._ignore

    def __init__(self, pages: ConnectedPages) -> None:
        self.pages = pages
        self.frames = FRAMES
        self.fallbacks = FallbackStore()
        self.log = LOG
        self.page: Any = None
        self.closed: tuple[int, str] | None = None
        self.sent: list[dict[str, Any]] = []
        self.identity_provider = self
        self.current_user = "fuzz"

    def get_token(self, _handler: Any) -> None:
        return None

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def send_json(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def close_connection(self, code: int, reason: str) -> None:
        self.page = None
        self.close(code, reason)


LOG = logging.getLogger("molspace.fuzz.bridge")
LOG.addHandler(logging.NullHandler())
LOG.propagate = False
LOOP = asyncio.new_event_loop()


def _connected() -> tuple[_Socket, Any]:
    socket = _Socket(ConnectedPages(mirrored=MIRRORED))
    hello = {
        "type": "hello",
        "protocol": PROTOCOL,
        "pageId": "page-1",
        "version": "0",
        "focused": True,
        "widgets": 1,
    }
    socket._handle(json.dumps(hello))
    page = socket.page
    page.pending[PENDING] = LOOP.create_future()
    page.pending_tools[PENDING] = "observe"
    return socket, page


def _state(socket: _Socket, page: Any) -> Any:
    return (
        [(p.page_id, p.widgets, p.has_focus, p.focus_seq) for p in socket.pages.ordered],
        {k: f.done() for k, f in page.pending.items()},
        len(page.mirror),
        len(socket.fallbacks),
        socket.fallbacks.bytes,
        socket.closed,
        socket.page is page,
    )


def test_generated_frames_are_accepted_or_refused_with_a_bounded_reason() -> None:
    before = COUNTS["bridge"]

    @fuzz_settings(INPUTS // 5)
    @given(RAW)
    def check(batch: list[str | bytes]) -> None:
        for raw in batch:
            _check_frame(raw)

    check()
    assert COUNTS["bridge"] - before >= INPUTS


def _check_frame(raw: str | bytes) -> None:
    COUNTS["bridge"] += 1
    try:
        frame = FRAMES.parse(raw)
    except FrameRefused as refused:
        assert len(refused.reason) <= MAX_REASON, refused.reason[:300]
        assert refused.close_code in (None, CLOSE_UNSUPPORTED_PROTOCOL)
        closes = refused.close_code is not None
        refused_frame = refused.close_code is None
    else:
        assert isinstance(frame, dict) and isinstance(frame.get("type"), str)
        refused_frame = closes = False
    socket, page = _connected()
    before_state = _state(socket, page)
    socket._handle(raw)  # the handler's own code: nothing may escape it
    if closes:  # a `hello` of another protocol closes the socket, and does nothing else
        assert socket.closed is not None and socket.closed[0] == CLOSE_UNSUPPORTED_PROTOCOL
        assert _state(socket, page)[:5] == before_state[:5]
    if refused_frame:
        after = _state(socket, page)
        if after != before_state:
            # a malformed `result` naming the pending call fails it at once; nothing else changes
            assert isinstance(raw, str) and '"result"' in raw, (before_state, after)
            assert page.pending[PENDING].done()
            error = page.pending[PENDING].result()
            assert error.code == "INTERNAL" and len(error.message) <= 2 * MAX_REASON
            assert after[0] == before_state[0] and after[2:] == before_state[2:]
