"""Static fallbacks of saved notebooks: the store, the pre-save hook's pure function, the frames, a real save.

docs/architecture.md, "Static fallback in saved notebooks".
"""

from __future__ import annotations

import base64
import copy
import json
import struct
import zlib
from typing import Any

import nbformat
import pytest
from gateway_helpers import wait_for
from nbconvert import HTMLExporter

from molspace.contract import LIMITS, STATIC_FALLBACK_MIME, manifest
from molspace.gateway.bridge_frames import BridgeFrames, FrameRefused
from molspace.gateway.static_fallback import (
    WIDGET_VIEW_MIME,
    FallbackRefused,
    FallbackStore,
    apply_fallbacks,
    check_frame,
    fallback_bundle,
    saved_fallbacks,
)

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> str:
    """A real PNG (RGB, one colour), base64."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(
        b"IDAT", zlib.compress(raw)
    )
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b"")).decode()


def frame(
    model_id: str = "m1",
    kind: str = "viewer",
    summary: str = "Viewer: 1cbs (pdb): 1 model",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "type": "fallback",
        "modelId": model_id,
        "state": {
            "kind": kind,
            "revision": 2,
            "title": "t",
            "summary": summary,
            **extra.pop("state", {}),
        },
        **extra,
    }


def widget_output(model_id: str, **data: Any) -> dict[str, Any]:
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {
            "text/plain": "<molspace.Viewer ...>",
            WIDGET_VIEW_MIME: {"version_major": 2, "version_minor": 0, "model_id": model_id},
            **data,
        },
    }


def notebook(*outputs: dict[str, Any]) -> dict[str, Any]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# notes"),
        nbformat.v4.new_code_cell("x", outputs=list(outputs)),
    ]
    return json.loads(json.dumps(nb))


def outputs(nb: dict[str, Any]) -> list[dict[str, Any]]:
    return nb["cells"][1]["outputs"]


# --------------------------------------------------------------------------- pure function
def test_a_molspace_output_gets_png_summary_html_and_state() -> None:
    store = FallbackStore()
    store.put(frame(png=png(), width=4, height=3))
    nb = notebook(widget_output("m1"))
    assert apply_fallbacks(nb, store.get) == 1
    out = outputs(nb)[0]
    assert base64.b64decode(out["data"]["image/png"]).startswith(b"\x89PNG")
    assert out["data"]["text/plain"] == "Viewer: 1cbs (pdb): 1 model"
    assert out["data"][STATIC_FALLBACK_MIME]["origin"] == "page"
    assert out["data"][STATIC_FALLBACK_MIME]["revision"] == 2
    assert out["metadata"]["image/png"] == {"width": 4, "height": 3}
    assert 'src="data:image/png;base64,' in out["data"]["text/html"]
    assert (
        out["data"][WIDGET_VIEW_MIME]["model_id"] == "m1"
    )  # the widget view stays first for JupyterLab


def test_other_outputs_and_unknown_widgets_are_untouched() -> None:
    store = FallbackStore()
    store.put(frame(png=png()))
    plain = {"output_type": "stream", "name": "stdout", "text": "hi\n"}
    html = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"text/html": "<b>x</b>", "text/plain": "x"},
    }
    other_widget = widget_output("not-molspace")
    error = {"output_type": "error", "ename": "E", "evalue": "v", "traceback": []}
    nb = notebook(plain, html, other_widget, error)
    before = copy.deepcopy(nb)
    assert apply_fallbacks(nb, store.get) == 0
    assert nb == before


def test_hostile_strings_stay_inert_in_the_html() -> None:
    store = FallbackStore()
    store.put(frame("v", summary=HOSTILE, png=png()))
    store.put(
        frame(
            "p",
            kind="panel",
            summary="Panel",
            content={
                "type": "markdown",
                "markdown": f"# T\n\n{HOSTILE}\n\n[x](javascript:alert(1))",
            },
        )
    )
    store.put(
        frame(
            "t",
            kind="panel",
            summary="Panel",
            state={"title": HOSTILE},
            content={
                "type": "table",
                "columns": [{"name": HOSTILE, "type": "string"}],
                "rows": [[HOSTILE]],
            },
        )
    )
    nb = notebook(widget_output("v"), widget_output("p"), widget_output("t"))
    assert apply_fallbacks(nb, store.get) == 3
    for out in outputs(nb):
        page = out["data"]["text/html"]
        assert "<script" not in page and "onerror=" not in page.replace(
            "onerror=alert(1)&gt;", ""
        ), page
        assert "<img src=x" not in page and "javascript:" not in page
        assert "&lt;script&gt;" in page
    assert outputs(nb)[0]["data"]["text/plain"] == HOSTILE  # plain text is shown as text


def test_a_kernel_markdown_panel_gets_escaped_html_without_a_frame() -> None:
    out = widget_output(
        "k",
        **{
            "text/markdown": f"**bold** {HOSTILE}",
            STATIC_FALLBACK_MIME: {"kind": "panel", "origin": "kernel"},
        },
    )
    nb = notebook(out)
    assert apply_fallbacks(nb, FallbackStore().get) == 1
    page = outputs(nb)[0]["data"]["text/html"]
    assert "<strong>bold</strong>" in page and "<script" not in page and "&lt;script&gt;" in page


def test_what_the_file_holds_is_kept_when_the_server_has_nothing_newer() -> None:
    store = FallbackStore()
    store.put(
        frame(png=png(rgb=(1, 2, 3)), state={"index": 2, "key": "site", "count": 3}, kind="story")
    )
    first = notebook(widget_output("m1"))
    apply_fallbacks(first, store.get)
    on_disk = json.loads(json.dumps(first))

    # The page saves its live model (which never held the fallback) after the server restarted.
    live = notebook(widget_output("m1"))
    assert apply_fallbacks(live, FallbackStore().get, lambda: saved_fallbacks(on_disk)) == 1
    assert outputs(live)[0]["data"] == outputs(on_disk)[0]["data"]
    assert outputs(live)[0]["data"][STATIC_FALLBACK_MIME]["index"] == 2

    # Reopened: the page's model holds the file's fallback; nothing newer, nothing read, nothing changed.
    reopened = json.loads(json.dumps(on_disk))
    read: list[int] = []
    assert apply_fallbacks(reopened, FallbackStore().get, lambda: read.append(1) or {}) == 0
    assert reopened == on_disk and not read

    # A newer frame replaces it.
    store.put(
        frame(png=png(rgb=(9, 9, 9)), state={"index": 0, "key": "intro", "count": 3}, kind="story")
    )
    apply_fallbacks(reopened, store.get)
    assert outputs(reopened)[0]["data"][STATIC_FALLBACK_MIME]["index"] == 0
    assert outputs(reopened)[0]["data"]["image/png"] != outputs(on_disk)[0]["data"]["image/png"]


def test_the_store_is_bounded_in_bytes_least_recently_sent_dropped_first() -> None:
    image = png(64, 64)
    one = check_frame(frame("a", png=image))
    store = FallbackStore(max_bytes=one * 2 + 10)
    store.put(frame("a", png=image))
    store.put(frame("b", png=image))
    store.put(frame("a", png=image))  # a is now the most recent
    store.put(frame("c", png=image))
    assert store.get("b") is None and store.get("a") is not None and store.get("c") is not None
    assert store.bytes <= store.max_bytes and len(store) == 2


@pytest.mark.parametrize(
    ("bad", "where", "why"),
    [
        ({"png": base64.b64encode(b"GIF89a" + b"\x00" * 20).decode()}, "/png", "not a PNG"),
        ({"png": "iVBORw0KGgo*"}, "/png", "not base64"),
        (
            {
                "png": base64.b64encode(
                    base64.b64decode(png()) + b"\x00" * LIMITS["staticFallbackPngBytes"]
                ).decode()
            },
            "/png",
            "staticFallbackPngBytes",
        ),
        (
            {
                "content": {
                    "type": "markdown",
                    "markdown": "x" * (LIMITS["staticFallbackContentBytes"] + 1),
                }
            },
            "/content",
            "staticFallbackContentBytes",
        ),
    ],
)
def test_a_frame_whose_content_is_wrong_is_refused_located(
    bad: dict[str, Any], where: str, why: str
) -> None:
    store = FallbackStore()
    with pytest.raises(FallbackRefused) as e:
        store.put(frame(**bad))
    assert e.value.where == where and why in str(e.value)
    assert len(store) == 0


@pytest.fixture
def frames() -> BridgeFrames:
    return BridgeFrames(
        manifest()["wire"]["bridge"]["pageToGateway"],
        manifest()["bridgeProtocol"],
        LIMITS["bridgeFrameBytes"],
    )


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        ({"png": "AAAA"}, "/png"),
        ({"state": {"kind": "viewer", "revision": 0, "title": "t"}}, "/state"),
        (
            {"state": {"kind": "activity", "revision": 0, "title": "t", "summary": "s"}},
            "/state/kind",
        ),
        (
            {
                "state": {
                    "kind": "viewer",
                    "revision": 0,
                    "title": "t",
                    "summary": "s" * (LIMITS["staticFallbackTextChars"] + 1),
                }
            },
            "/state/summary",
        ),
        ({"width": LIMITS["staticFallbackWidth"] + 1}, "/width"),
        ({"modelId": ""}, "/modelId"),
        ({"content": {"type": "table", "columns": [], "rows": []}}, "/content"),
    ],
)
def test_malformed_fallback_frames_are_refused_with_a_located_reason(
    frames: BridgeFrames, bad: dict[str, Any], where: str
) -> None:
    with pytest.raises(FrameRefused) as e:
        frames.parse(json.dumps({**frame(png=png()), **bad}))
    assert f"'fallback' frame invalid at {where}" in str(e.value)
    assert frames.parse(json.dumps(frame(png=png())))["modelId"] == "m1"


def test_nbconvert_html_shows_the_image_and_summary_and_no_script() -> None:
    store = FallbackStore()
    store.put(frame("v", summary=f"Viewer: 1cbs\n{HOSTILE}", png=png(8, 8)))
    store.put(
        frame("p", kind="panel", summary="Panel", content={"type": "markdown", "markdown": HOSTILE})
    )
    nb = notebook(widget_output("v"), widget_output("p"))
    apply_fallbacks(nb, store.get)
    body, _ = HTMLExporter().from_notebook_node(nbformat.from_dict(nb))
    assert f'src="data:image/png;base64,{store.get("v")["png"]}"' in body
    assert "Viewer: 1cbs" in body
    assert 'alert("x")</script>' not in body and "<img src=x" not in body


def test_a_panel_chart_keeps_its_vega_lite_spec_beside_the_image() -> None:
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "mark": "bar",
        "data": {"values": []},
    }
    data, _ = fallback_bundle(
        frame(
            "c", kind="panel", summary="Panel", png=png(), content={"type": "chart", "spec": spec}
        )
    )
    assert (
        data["application/vnd.vegalite.v5+json"] == spec
        and "data:image/png;base64," in data["text/html"]
    )


# --------------------------------------------------------------------------- a real server
async def test_a_frame_from_a_page_is_written_into_the_saved_notebook(
    connect_page: Any, gateway: Any, jp_fetch: Any, jp_root_dir: Any
) -> None:
    page = await connect_page("p1")
    await page.send(frame("m-real", png=png(), width=4, height=3))
    await page.send(
        frame("m-bad", png="iVBORw0KGgoAAAA")
    )  # matches the pattern, is no PNG: ignored, socket kept
    await wait_for(lambda: gateway.fallbacks.get("m-real") is not None)
    nb = notebook(widget_output("m-real"), widget_output("m-bad"))
    r = await jp_fetch(
        "api",
        "contents",
        "fb.ipynb",
        method="PUT",
        body=json.dumps({"type": "notebook", "content": nb}),
    )
    assert r.code in (200, 201)
    saved = nbformat.read(jp_root_dir / "fb.ipynb", as_version=4)
    real, bad = outputs(saved)
    assert real["data"]["image/png"] == frame(png=png())["png"] and real["data"][
        "text/plain"
    ].startswith("Viewer:")
    assert "image/png" not in bad["data"] and gateway.fallbacks.get("m-bad") is None

    # The server forgets (a restart); the page saves its live model again: the file keeps the fallback.
    gateway.fallbacks._frames.clear()
    await jp_fetch(
        "api",
        "contents",
        "fb.ipynb",
        method="PUT",
        body=json.dumps({"type": "notebook", "content": nb}),
    )
    again = nbformat.read(jp_root_dir / "fb.ipynb", as_version=4)
    assert outputs(again)[0]["data"]["image/png"] == real["data"]["image/png"]
