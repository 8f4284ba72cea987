"""Generated widget comm messages from the page (issue 23): what each widget's kernel side accepts.

A page talks to a widget's kernel object in two ways: state updates (``update`` messages, read by
:meth:`PageWidget.set_state`) and ``result`` messages answering a cell's control request (read by
``_handle_page_message``, each kind's ``_on_result``, :class:`PageRequest` and ``wait``). Both are
drawn from the contract (each kind's synced-state schema, ``wire.kernel.pageToKernel``), valid and
near-valid (one field anywhere changed: another type, odd unicode, huge strings and arrays, deep
nesting, a field dropped or added), and as any JSON; the real ``Story``, ``Viewer``, ``Ketcher``
and ``Panel`` objects (ipywidgets with its dummy comm outside a kernel) read them.

Property: a message is taken, or refused with a located error of bounded size, nothing else
raises; a refused state update changes no trait; a result changes no trait, is kept as the
request's answer (at most 256 kept), and what a cell reads of it (``PageRequest`` ``ok``,
``error``, ``repr``, ``wait``; ``wait_ready``) is an answer or a located error of bounded size;
the Viewer's ``last_screenshot`` changes only for a well-formed image.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from fuzz_inputs import (
    COUNTS,
    TEST_DATA,
    batches,
    check_located,
    from_schema,
    fuzz_settings,
    json_values,
    outcome,
)
from hypothesis import given
from hypothesis import strategies as st

from molspace import Ketcher, Panel, Story, Viewer
from molspace.contract import manifest
from molspace.errors import MolspaceError
from molspace.page_request import PageRequest
from molspace.page_widget import PageWidget

INPUTS = 10_000
#: Inputs one example gives (one drawn message and its mutations): drawing a whole widget state
#: costs more than reading it, so each draw is used 16 times.
BATCH = 16
#: Longest ``repr`` of a request a cell may show (the page's text is cut to 200 characters).
MAX_REPR = 2_000

_PDB = (TEST_DATA / "2c6e_docked_AKI.pdb").read_text()
_MVSJ = (TEST_DATA / "1cbs.mvsj").read_text()
KINDS = ("story", "viewer", "ketcher", "panel")


def _widget(kind: str) -> PageWidget:
    if kind == "story":
        return Story(_MVSJ)
    if kind == "viewer":
        return Viewer(_PDB, format="pdb")
    if kind == "ketcher":
        return Ketcher("CCO")
    return Panel({"type": "markdown", "markdown": "# fuzz"})


def _state(w: PageWidget) -> dict[str, Any]:
    """Every synced trait of ``w`` (what a refused message must leave as it was)."""
    return w.get_state()


# --------------------------------------------------------------------------- state updates


def _updates(kind: str) -> st.SearchStrategy[list[Any]]:
    """Partial state updates of ``kind``: drawn from its synced-state schema, then mutated."""
    schema = manifest()["widgets"][kind]["state"]
    full = from_schema(schema, schema)
    partial = st.tuples(full, st.integers(min_value=1, max_value=2**16)).map(
        lambda t: (
            {k: v for i, (k, v) in enumerate(sorted(t[0].items())) if (t[1] >> i) & 1 or i > 15}
            if isinstance(t[0], dict)
            else t[0]
        )
    )
    return batches(partial, BATCH)


_UPDATES = st.one_of(
    *(st.tuples(st.just(k), _updates(k)) for k in KINDS),
    st.tuples(st.sampled_from(KINDS), st.lists(json_values(), min_size=BATCH, max_size=BATCH)),
)


@fuzz_settings(INPUTS // BATCH)
@given(_UPDATES)
def test_page_state_updates_are_taken_or_refused_located(drawn: tuple[str, list[Any]]) -> None:
    kind, updates = drawn
    w = _widget(kind)
    changes: list[Any] = []
    if isinstance(w, (Story, Ketcher)):
        w.on_change(changes.append)  # the kernel's change callbacks run on the page's update
    for update in updates:
        before = _state(w)
        _, error = outcome(lambda u=update: w.set_state(u), "comm state")
        if error is not None:
            assert _state(w) == before, f"a refused update changed {kind}: {error['message']}"
            continue
        assert isinstance(update, dict)
        for name, value in update.items():
            if name in w.keys:
                assert w.get_state(name)[name] == value, name
        # What a cell reads of it: its repr, and wait_ready (outside a kernel: NO_PAGE).
        assert isinstance(repr(w), str)
        _, waited = outcome(lambda: w.wait_ready(timeout=0.01), "comm state (wait_ready)")
        if waited is not None and w.error is None:
            assert waited["code"] == "NO_PAGE" or getattr(w, "ready", False), waited


def test_page_state_updates_count() -> None:
    assert COUNTS["comm state"] >= INPUTS, COUNTS


# --------------------------------------------------------------------------- results

_RESULT = manifest()["wire"]["kernel"]["pageToKernel"]
#: A few request ids, so that answers to the same request (a second page's) are drawn too.
_IDS = ("r1", "r2", "r3")


def _with_id(result: Any, n: int) -> Any:
    if isinstance(result, dict) and "requestId" in result:
        return {**result, "requestId": _IDS[n % len(_IDS)]}
    return result


_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfuzz").decode()
_IMAGES = st.one_of(
    st.just([{"mimeType": "image/png", "data": _PNG}]),
    st.lists(
        st.fixed_dictionaries(
            {
                "mimeType": st.sampled_from(["image/png", "image/jpeg", "text/plain", "image/"]),
                "data": st.one_of(
                    st.just(_PNG),
                    st.sampled_from(["", "!!!", "abc", "====", "QUJD\n", "é", "\ud800", _PNG[:-1]]),
                    json_values(2),
                ),
            }
        ),
        max_size=4,
    ),
    json_values(3),
)
_RESULTS = st.tuples(
    st.sampled_from(KINDS),
    st.one_of(
        batches(
            st.tuples(from_schema(_RESULT, _RESULT), st.integers(0, 2), _IMAGES).map(
                lambda t: (
                    {**_with_id(t[0], t[1]), "images": t[2]}
                    if t[0].get("ok") is True and t[1] == 0
                    else _with_id(t[0], t[1])
                )
            ),
            BATCH,
        ),
        st.lists(json_values(), min_size=BATCH, max_size=BATCH),
    ),
)


@fuzz_settings(INPUTS // BATCH)
@given(_RESULTS)
def test_page_results_are_answers_or_located_refusals(drawn: tuple[str, list[Any]]) -> None:
    kind, results = drawn
    w = _widget(kind)
    for result in results:
        before = _state(w)
        shot = getattr(w, "last_screenshot", None)
        _, error = outcome(lambda r=result: w._handle_page_message(w, r, []), "comm result")
        assert _state(w) == before, "a result changed the widget's synced state"
        assert len(w._answers) <= PageWidget._ANSWERED_MEMORY
        if isinstance(w, Viewer):
            if error is not None:
                assert w.last_screenshot == shot, "a refused result changed last_screenshot"
            elif w.last_screenshot != shot:
                images = result["images"]
                assert any(
                    base64.b64encode(w.last_screenshot or b"").decode() == i["data"]
                    for i in images
                    if isinstance(i, dict)
                )
        request_id = result.get("requestId") if isinstance(result, dict) else None
        if not isinstance(request_id, str):
            continue
        request = PageRequest(w, request_id, "fuzz")
        assert request.done
        assert len(repr(request)) <= MAX_REPR
        assert isinstance(json.dumps(request.answer, default=repr), str)
        if request.ok:
            assert request.error is None
        else:
            refusal = request.error
            assert refusal is not None
            check_located(refusal)
            _, waited = outcome(lambda r=request: r.wait(timeout=0.01), "comm result (wait)")
            assert waited is not None and waited["code"] == refusal.code


def test_page_results_count() -> None:
    assert COUNTS["comm result"] >= INPUTS, COUNTS


def test_viewer_screenshot_of_malformed_data_is_refused_located() -> None:
    """Found by the fuzzer: ``base64.b64decode`` raised on a non-string or badly padded ``data``,
    and set an empty screenshot for ``"!!!"``; a non-list ``images`` was read letter by letter."""
    v = Viewer(_PDB, format="pdb")
    good = {"type": "result", "requestId": "a", "ok": True, "structuredContent": {}, "text": ""}
    v._handle_page_message(v, {**good, "images": [{"mimeType": "image/png", "data": _PNG}]}, [])
    shot = v.last_screenshot
    assert shot is not None and shot.startswith(b"\x89PNG")
    for n, images in enumerate(
        (
            [{"mimeType": "image/png", "data": 5}],
            [{"mimeType": "image/png", "data": "abc"}],
            [{"mimeType": "image/png", "data": "!!!"}],
            "xyz",
            {"mimeType": "image/png"},
        )
    ):
        try:
            v._handle_page_message(v, {**good, "requestId": f"b{n}", "images": images}, [])
        except MolspaceError as e:
            check_located(e)
            assert e.where.startswith("images")
        else:
            raise AssertionError(f"images {images!r} were taken")
        assert v.last_screenshot == shot
        assert PageRequest(v, f"b{n}", "screenshot").ok is True  # the answer itself is kept


def test_state_update_the_kernel_cannot_hold_is_refused_whole() -> None:
    """Found by the fuzzer: a value of the wrong type escaped as a ``TraitError`` (after the
    update was echoed to the pages, the traits before it set and then rolled back)."""
    v = Viewer(_PDB, format="pdb")
    try:
        v.set_state({"title": "new", "revision": "x"})
    except MolspaceError as e:
        assert check_located(e)["where"] == "/revision"
    else:
        raise AssertionError("a str revision was taken")
    assert (v.title, v.revision) == ("text", 0)


def test_page_text_in_errors_is_bounded() -> None:
    """Found by the fuzzer: a 300,000-character title (set by the page) came back whole in every
    error naming the widget, and a page's error was quoted whole (or taken with a blank message)."""
    k = Ketcher("CCO")
    k.set_state({"title": "é" * 300_000, "error": {"code": "TIMEOUT", "message": " ", "fix": "x"}})
    for call in (lambda: k.wait_ready(timeout=0.01), lambda: k.set_structure("CC").wait(0.01)):
        try:
            call()
        except MolspaceError as e:
            check_located(e)
    k.set_state({"error": {"code": "TIMEOUT", "message": "m" * 300_000, "fix": "f", "where": ""}})
    try:
        k.wait_ready(timeout=0.01)
    except MolspaceError as e:
        assert check_located(e)["code"] == "TIMEOUT"
