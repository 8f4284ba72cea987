"""Waiting inside a cell for the page (molspace/page_wait.py, molspace/page_request.py).

A real ipykernel runs the cells; the test plays the page's side of the widget comm over
the kernel's own channels (``comm_open`` read on iopub, ``comm_msg`` sent on shell to a
subshell), as JupyterLab 4.6's widget manager does with its default *Kernel Comms over
subshells*. ui-tests/tests/workspace.spec.ts and activity.spec.ts run the same path with
the real page, under Run All.
"""

from __future__ import annotations

import base64
import os
import queue
import time
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

from molspace import Viewer
from molspace.errors import PageWaitError

ROOT = Path(__file__).parent.parent
STRUCTURE = ROOT / "tests" / "data" / "2c6e_docked_AKI.pdb"


class KernelAsPage:
    """A real kernel, with the test answering its widgets' comm messages as a page would."""

    def __init__(self) -> None:
        # The kernel imports this checkout's molspace, as the test process does.
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.km, self.kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(ROOT))
        self.kc.control_channel.send(self.kc.session.msg("create_subshell_request", {}))
        self.subshell = self.kc.get_control_msg(timeout=30)["content"]["subshell_id"]
        self.use_subshell = True
        self.comms: dict[str, dict[str, Any]] = {}  # comm_id -> comm_open data
        self.controls: list[tuple[str, dict[str, Any]]] = []  # (comm_id, control message)
        self.archive_requests: list[tuple[str, dict[str, Any]]] = []  # (comm_id, to_mvsx's request)
        self.outputs: list[tuple[str, str]] = []  # (msg_id of the cell, text)

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def run(self, code: str) -> str:
        """Send a cell without waiting for it; returns its msg_id."""
        return self.kc.execute(code)

    def pump(self, until: Any, timeout: float = 30.0) -> None:
        """Read iopub until ``until()`` holds, recording comms, controls and outputs."""
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; outputs so far: {self.outputs}")
            try:
                msg = self.kc.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                continue
            kind, content = msg["msg_type"], msg["content"]
            parent = msg["parent_header"].get("msg_id", "")
            if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
                self.comms[content["comm_id"]] = content["data"]
            elif kind == "comm_msg":
                data = content["data"]
                if data.get("method") == "custom" and data["content"].get("type") == "control":
                    self.controls.append((content["comm_id"], data["content"]))
                elif data.get("method") == "custom" and data["content"].get("type") == "mvsx":
                    self.archive_requests.append((content["comm_id"], data["content"]))
            elif kind == "stream":
                self.outputs.append((parent, content["text"]))
            elif kind == "error":
                self.outputs.append((parent, f"{content['ename']}: {content['evalue']}"))
            elif kind == "status" and content["execution_state"] == "idle":
                self.outputs.append((parent, "<idle>"))

    def drain(self, seconds: float) -> None:
        """Read iopub for ``seconds``, whatever comes."""
        end = time.monotonic() + seconds
        self.pump(lambda: time.monotonic() > end, timeout=seconds + 5)

    def viewer_comm(self) -> str:
        self.pump(
            lambda: any(d["state"].get("_model_name") == "ViewerModel" for d in self.comms.values())
        )
        return next(
            c for c, d in self.comms.items() if d["state"].get("_model_name") == "ViewerModel"
        )

    def send(self, comm_id: str, data: dict[str, Any], buffers: list[bytes] | None = None) -> str:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if self.use_subshell:
            msg["header"]["subshell_id"] = self.subshell
        # as the page's widget manager sends binary buffers: after the message's frames
        self.kc.session.send(self.kc.shell_channel.socket, msg, buffers=buffers or [])
        return msg["header"]["msg_id"]

    def update(self, comm_id: str, state: dict[str, Any]) -> str:
        return self.send(comm_id, {"method": "update", "state": state, "buffer_paths": []})

    def answer(
        self, comm_id: str, content: dict[str, Any], buffers: list[bytes] | None = None
    ) -> None:
        self.send(comm_id, {"method": "custom", "content": content}, buffers)

    def text_of(self, msg_id: str) -> str:
        return "".join(t for p, t in self.outputs if p == msg_id and t != "<idle>")

    def finished(self, msg_id: str) -> bool:
        return (msg_id, "<idle>") in self.outputs


@pytest.fixture(scope="module")
def page():
    kernel = KernelAsPage()
    kernel.run(
        "import molspace\nfrom IPython.display import display\n"
        f"v = molspace.Viewer({str(STRUCTURE)!r}, title='AKI')\ndisplay(v)"
    )
    try:
        yield kernel
    finally:
        kernel.close()


def test_a_request_waits_for_the_answer_and_later_cells_run_after_it(page):
    comm = page.viewer_comm()
    waiting = page.run("r = v.focus('ligand').wait(timeout=30)\nprint('WAITED', v.revision, r)")
    after = page.run("print('AFTER', v.revision)")  # queued behind it, as under Run All
    page.pump(lambda: len(page.controls) >= 1)
    _, control = page.controls[-1]
    assert control["actions"] == [{"op": "focus", "selector": "ligand"}]
    page.drain(0.5)  # the cell is still waiting: neither cell has printed
    assert page.text_of(waiting) == "" and page.text_of(after) == ""
    update = page.update(comm, {"revision": 7})
    page.answer(
        comm,
        {
            "type": "result",
            "requestId": control["requestId"],
            "ok": True,
            "structuredContent": {"revision": 7},
            "text": "Focused 21 atoms.",
        },
    )
    page.pump(lambda: page.finished(after))
    # The update got its own idle status while the cell ran: ipywidgets' sync throttle in the
    # page waits for it before it sends the next state.
    assert page.outputs.index((update, "<idle>")) < page.outputs.index((waiting, "<idle>"))
    assert (
        page.text_of(waiting)
        == "WAITED 7 <molspace.Viewer 'AKI': focus: done: Focused 21 atoms.>\n"
    )
    assert page.text_of(after) == "AFTER 7\n"
    order = [p for p, t in page.outputs if t != "<idle>" and p in (waiting, after)]
    assert order == [waiting, after]


def test_a_refusal_is_raised_in_the_cell_as_the_widgets_error(page):
    comm = page.viewer_comm()
    before = len(page.controls)
    cell = page.run("v.set_color('ligand', 'red').wait(timeout=30)")
    page.pump(lambda: len(page.controls) > before)
    _, control = page.controls[-1]
    error = {
        "code": "REVISION_CONFLICT",
        "message": "the Viewer is at revision 8, not 7",
        "where": "/expectedRevision",
        "fix": "Observe again.",
        "details": {},
    }
    page.answer(
        comm, {"type": "result", "requestId": control["requestId"], "ok": False, "error": error}
    )
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell).startswith(
        "ViewerControlError: REVISION_CONFLICT: the Viewer is at revision 8, not 7 (at /expectedRevision)"
    )


def test_save_png_writes_the_screenshot_the_page_answers_and_refuses_bad_paths_unsent(
    page, tmp_path
):
    comm = page.viewer_comm()
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    out = tmp_path / "frame.png"
    before = len(page.controls)
    cell = page.run(f"print('SAVED', v.save_png({str(out)!r}, timeout=30))")
    page.pump(lambda: len(page.controls) > before)
    _, control = page.controls[-1]
    assert control["actions"] == [{"op": "screenshot", "format": "png"}]
    page.answer(
        comm,
        {
            "type": "result",
            "requestId": control["requestId"],
            "ok": True,
            "structuredContent": {"revision": 7},
            "text": "Screenshot 1x1.",
            "images": [{"mimeType": "image/png", "data": base64.b64encode(png).decode()}],
        },
    )
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell) == f"SAVED {len(png)}\n"
    assert out.read_bytes() == png

    sent = len(page.controls)
    for bad, said in [
        (tmp_path / "frame.jpg", "does not end in .png"),
        (tmp_path / "missing" / "frame.png", "does not exist"),
        (tmp_path, "does not end in .png"),
    ]:
        cell = page.run(f"v.save_png({str(bad)!r})")
        page.pump(lambda cell=cell: page.finished(cell))
        assert "INVALID_INPUT" in page.text_of(cell) and said in page.text_of(cell)
    assert len(page.controls) == sent


def test_to_mvsx_asks_the_page_for_the_archive_and_writes_the_bytes_it_answers(page, tmp_path):
    comm = page.viewer_comm()
    archive = b"PK\x03\x04 an .mvsx from the page \x00\xff"
    out = tmp_path / "view.mvsx"
    before = len(page.archive_requests)
    cell = page.run(f"print('SAVED', v.to_mvsx({str(out)!r}, timeout=30))")
    page.pump(lambda: len(page.archive_requests) > before)
    asked_on, request = page.archive_requests[-1]
    assert asked_on == comm and set(request) == {"type", "id"}
    # An answer to a request the kernel did not make changes nothing.
    page.answer(comm, {"type": "mvsx", "id": "not-asked"}, [b"other"])
    page.drain(0.3)
    assert not out.exists() and page.text_of(cell) == ""
    page.answer(comm, {"type": "mvsx", "id": request["id"], "bytes": len(archive)}, [archive])
    # A second page's answer to the same request is dropped: the first one is written.
    page.answer(comm, {"type": "mvsx", "id": request["id"], "bytes": 5}, [b"later"])
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell) == f"SAVED {len(archive)}\n"
    assert out.read_bytes() == archive


def test_to_mvsx_raises_the_pages_refusal_located_and_refuses_bad_paths_unsent(page, tmp_path):
    comm = page.viewer_comm()
    out = tmp_path / "broken.mvsx"
    before = len(page.archive_requests)
    cell = page.run(f"v.to_mvsx({str(out)!r}, timeout=30)")
    page.pump(lambda: len(page.archive_requests) > before)
    _, request = page.archive_requests[-1]
    error = {
        "code": "VALIDATION_FAILED",
        "message": 'Viewer "m1" shows no structure to export (VALIDATION_FAILED: Mol* could not parse it).',
        "where": "/target",
        "fix": "Export a Viewer that shows its structure.",
        "details": {},
    }
    page.answer(comm, {"type": "mvsx", "id": request["id"], "error": error})
    page.pump(lambda: page.finished(cell))
    text = page.text_of(cell)
    assert text.startswith(
        'ViewerControlError: VALIDATION_FAILED: Viewer "m1" shows no structure'
    ), text
    assert "(at Viewer.to_mvsx)" in text and not out.exists()

    sent = len(page.archive_requests)
    for bad, said in [
        (tmp_path / "view.mvsj", "does not end in .mvsx"),
        (tmp_path / "missing" / "view.mvsx", "does not exist"),
        (tmp_path, "does not end in .mvsx"),
    ]:
        cell = page.run(f"v.to_mvsx({str(bad)!r})")
        page.pump(lambda cell=cell: page.finished(cell))
        assert "INVALID_INPUT" in page.text_of(cell) and said in page.text_of(cell)
        assert "(at Viewer.to_mvsx)" in page.text_of(cell)
    folder = tmp_path / "a.mvsx"
    folder.mkdir()
    cell = page.run(f"v.to_mvsx({str(folder)!r})")
    page.pump(lambda: page.finished(cell))
    assert "INVALID_INPUT" in page.text_of(cell) and "is a folder" in page.text_of(cell)
    cell = page.run(f"v.to_mvsx({str(out)!r}, timeout=0)")
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell).startswith("PageWaitError: INVALID_INPUT")
    page.drain(0.3)
    assert len(page.archive_requests) == sent


def test_to_mvsx_with_no_page_answering_is_a_located_timeout_and_a_late_answer_is_dropped(
    page, tmp_path
):
    comm = page.viewer_comm()
    out = tmp_path / "late.mvsx"
    before = len(page.archive_requests)
    cell = page.run(f"v.to_mvsx({str(out)!r}, timeout=0.5)")
    page.pump(lambda: page.finished(cell))
    text = page.text_of(cell)
    assert text.startswith(
        "PageWaitError: TIMEOUT: the page's .mvsx archive did not come within 0.5 s"
    ), text
    assert "(at molspace.Viewer 'AKI'.to_mvsx)" in text
    _, request = page.archive_requests[before]
    page.answer(comm, {"type": "mvsx", "id": request["id"], "bytes": 4}, [b"late"])
    cell = page.run("print(v._archives)")
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell) == "{}\n" and not out.exists()


def test_to_mvsx_of_frames_on_demand_is_too_large_unsent(tmp_path):
    from molspace.viewer.frames import FrameSource

    class Served(FrameSource):
        frames, atoms, format, name = 5000, 10, "dcd", "run.dcd"

    v = Viewer(STRUCTURE, title="AKI")
    v._served = Served()
    sent: list[Any] = []
    v.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    with pytest.raises(Exception) as e:
        v.to_mvsx(tmp_path / "md.mvsx")
    assert (e.value.code, e.value.where) == ("TOO_LARGE", "Viewer.to_mvsx")  # type: ignore[attr-defined]
    assert e.value.details == {"frames": 5000} and sent == []  # type: ignore[attr-defined]


def test_wait_ready_returns_once_the_page_reports_ready_and_raises_its_error(page):
    comm = page.viewer_comm()
    cell = page.run(
        "print('WAITING', flush=True)\nv.wait_ready(timeout=30)\nprint('READY', v.ready, v.summary)"
    )
    page.pump(lambda: "WAITING" in page.text_of(cell))  # the cell is in its wait now
    page.update(comm, {"ready": True, "summary": "AKI: 1 model"})
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell) == "WAITING\nREADY True AKI: 1 model\n"
    error = {
        "code": "VALIDATION_FAILED",
        "message": "Mol* could not parse the PDB file",
        "where": "source",
        "fix": "Check the file.",
        "details": {},
    }
    failed = page.update(comm, {"error": error})
    page.pump(lambda: page.finished(failed))  # the kernel holds the error before the cell asks
    cell = page.run("v.wait_ready(timeout=30)")
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell).startswith(
        "ViewerControlError: VALIDATION_FAILED: Mol* could not parse"
    )


def test_a_wait_with_no_answer_is_a_located_timeout_and_the_kernel_goes_on(page):
    page.viewer_comm()
    cell = page.run("r = v.reset_camera()\nr.wait(timeout=0.5)")
    page.pump(lambda: page.finished(cell))
    text = page.text_of(cell)
    assert text.startswith(
        "PageWaitError: TIMEOUT: the page's answer to reset_camera did not come within 0.5 s"
    )
    assert "(at molspace.Viewer 'AKI': reset_camera)" in text
    cell = page.run("print(r)")
    page.pump(lambda: page.finished(cell))
    assert page.text_of(cell) == (
        "<molspace.Viewer 'AKI': reset_camera: sent; .wait() waits for the page's answer in this cell>\n"
    )


def test_without_comms_over_subshells_a_wait_times_out_naming_the_setting(page):
    comm = page.viewer_comm()
    page.use_subshell = False  # JupyterLab's Kernel Comms over subshells turned off
    try:
        before = len(page.controls)
        cell = page.run("v.clear_labels().wait(timeout=2)")
        page.pump(lambda: len(page.controls) > before)
        _, control = page.controls[-1]
        page.answer(comm, {"type": "result", "requestId": control["requestId"], "ok": True})
        page.pump(lambda: page.finished(cell))
        text = page.text_of(cell)
        assert text.startswith("PageWaitError: TIMEOUT"), text
        assert "Kernel Comms over subshells" in text
        cell = page.run("print(v.last_result['requestId'] == v.last_request_id)")
        page.pump(lambda: page.finished(cell))
        assert page.text_of(cell) == "True\n"  # the answer arrived once the cell ended
    finally:
        page.use_subshell = True


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), 601, "5", True, None])
def test_a_bad_timeout_is_refused_before_anything_is_sent(timeout):
    v = Viewer(STRUCTURE)
    request = v.focus("ligand")
    with pytest.raises(PageWaitError) as e:
        request.wait(timeout=timeout)
    assert e.value.code == "INVALID_INPUT" and e.value.where.endswith("(timeout=...)")


def test_outside_a_kernel_waiting_is_a_located_no_page():
    v = Viewer(STRUCTURE, title="AKI")
    with pytest.raises(PageWaitError) as e:
        v.wait_ready(timeout=1)
    assert e.value.code == "NO_PAGE" and e.value.where == "molspace.Viewer 'AKI'.wait_ready"
    assert "later cell" in e.value.fix
