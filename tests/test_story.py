"""Kernel-side Story API: sources, read-only page state, control messages, callbacks.

The page side of the same path runs in the Galata tests (ui-tests/).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import traitlets

import molspace
from molspace import Story, StoryControlError, StorySourceError
from molspace.story.source import MAX_STORY_BYTES, normalize_story_source

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "data" / "1cbs-story.mvsx"
KINASE = ROOT / "tests" / "data" / "kinase-story.mvsj"


def sent(story: Story, monkeypatch) -> list[dict]:
    """Capture the custom messages a Story sends to the page."""
    messages: list[dict] = []
    monkeypatch.setattr(story, "send", lambda content, buffers=None: messages.append(content))
    return messages


def page_sets(story: Story, **state) -> None:
    """What the widget manager does with a state message from the page."""
    story.set_state(state)


@pytest.fixture
def kinase_story() -> Story:
    story = Story(KINASE)
    meta = json.loads(KINASE.read_text())["snapshots"]
    page_sets(
        story,
        snapshots=[
            {"index": i, "key": s["metadata"].get("key") or f"snapshot-{i}"}
            for i, s in enumerate(meta)
        ],
        index=0,
    )
    return story


class TestSources:
    def test_mvsx_path_and_bytes(self):
        by_path = normalize_story_source(DEMO)
        assert by_path.format == "mvsx" and by_path.mvsx == DEMO.read_bytes()
        assert normalize_story_source(str(DEMO)).format == "mvsx"
        assert normalize_story_source(DEMO.read_bytes()).format == "mvsx"
        assert normalize_story_source(memoryview(DEMO.read_bytes())).format == "mvsx"

    def test_mvsj_path_text_dict_and_bytes(self):
        text = KINASE.read_text()
        for source in (KINASE, str(KINASE), text, json.loads(text), text.encode()):
            out = normalize_story_source(source)
            assert out.format == "mvsj" and json.loads(out.mvsj)["kind"] == "multiple"

    def test_molviewspec_builder_objects(self):
        import molviewspec as mvs

        b = mvs.create_builder()
        b.download(url="https://example.org/1cbs.cif").parse(format="mmcif").model_structure()
        assert json.loads(normalize_story_source(b).mvsj)["root"]["kind"] == "root"
        assert "root" in json.loads(normalize_story_source(b.get_state()).mvsj)
        states = mvs.States(snapshots=[b.get_snapshot(key="a")], metadata=mvs.GlobalMetadata())
        assert (
            json.loads(normalize_story_source(states).mvsj)["snapshots"][0]["metadata"]["key"]
            == "a"
        )
        assert normalize_story_source(mvs.MVSX(data=states, assets={})).format == "mvsx"
        mvsj = normalize_story_source(mvs.MVSJ(data=states))
        assert (
            mvsj.format == "mvsj"
            and json.loads(mvsj.mvsj)["snapshots"][0]["metadata"]["key"] == "a"
        )

    @pytest.mark.parametrize(
        "source, code, where",
        [
            ("no/such/story.mvsj", "NOT_FOUND", "no/such/story.mvsj"),
            ("{not json", "UNSUPPORTED_FORMAT", "text"),
            ('{"hello": 1}', "UNSUPPORTED_FORMAT", "text"),
            ({"hello": 1}, "UNSUPPORTED_FORMAT", "dict"),
            ({"root": {"kind": "root"}, "x": {1, 2}}, "UNSUPPORTED_FORMAT", "dict"),
            (b"\xff\xfe\x00garbage", "UNSUPPORTED_FORMAT", "bytes"),
            (42, "UNSUPPORTED_FORMAT", "source"),
        ],
    )
    def test_bad_sources_are_located(self, source, code, where):
        with pytest.raises(StorySourceError) as info:
            Story(source)
        err = info.value
        assert (err.code, err.where) == (code, where)
        assert err.fix and err.message
        assert set(err.to_dict()) == {"code", "message", "where", "fix", "details"}

    def test_bad_files(self, tmp_path):
        (tmp_path / "story.pdb").write_text("ATOM")
        (tmp_path / "fake.mvsx").write_text("{}")
        (tmp_path / "dir.mvsj").mkdir()
        for name, code in (
            ("story.pdb", "UNSUPPORTED_FORMAT"),
            ("fake.mvsx", "UNSUPPORTED_FORMAT"),
            ("dir.mvsj", "NOT_FOUND"),
        ):
            with pytest.raises(StorySourceError) as info:
                normalize_story_source(tmp_path / name)
            assert info.value.code == code, name
            assert str(tmp_path / name) in info.value.where

    def test_too_large(self, tmp_path):
        big = tmp_path / "big.mvsx"
        with zipfile.ZipFile(big, "w") as z:
            z.writestr("index.mvsj", "{}")
        with big.open("ab") as f:
            f.truncate(MAX_STORY_BYTES + 1)
        with pytest.raises(StorySourceError) as info:
            normalize_story_source(big)
        assert info.value.code == "TOO_LARGE"
        assert info.value.details["limit"] == MAX_STORY_BYTES


class TestWidget:
    def test_model_names_match_the_page_module(self):
        story = Story(DEMO)
        state = story.get_state()
        assert state["_model_module"] == "molspace" and state["_model_name"] == "StoryModel"
        assert state["_view_name"] == "StoryView"
        assert state["_model_module_version"] == "^" + molspace.__version__
        assert story._mvsx == DEMO.read_bytes() and story._mvsj == ""

    def test_page_state_is_read_only_in_the_kernel(self, kinase_story):
        for name, value in (
            ("index", 3),
            ("key", "x"),
            ("revision", 9),
            ("playing", True),
            ("error", {"code": "X"}),
        ):
            with pytest.raises(traitlets.TraitError, match="read-only"):
                setattr(kinase_story, name, value)
        page_sets(kinase_story, index=4, revision=7)
        assert (kinase_story.index, kinase_story.revision) == (4, 7)

    def test_the_play_owner_is_the_pages_to_set(self, kinase_story):
        # Which page owns the one Play timer (src/story/playback.ts): synced, set by the page only.
        assert kinase_story.trait_metadata("_play_owner", "sync") is True
        with pytest.raises(traitlets.TraitError, match="read-only"):
            kinase_story._play_owner = "some-page"
        page_sets(kinase_story, _play_owner="page-1")
        assert kinase_story._play_owner == "page-1"

    def test_control_sends_typed_operations(self, kinase_story, monkeypatch):
        messages = sent(kinase_story, monkeypatch)
        kinase_story.next()
        kinase_story.previous()
        kinase_story.play()
        kinase_story.pause()
        kinase_story.goto(3)
        kinase_story.goto("intro", expected_revision=2)
        actions = [
            (m["type"], m["action"], m.get("index"), m.get("key"), m.get("expectedRevision"))
            for m in messages
        ]
        assert actions == [
            ("control", "next", None, None, None),
            ("control", "previous", None, None, None),
            ("control", "play", None, None, None),
            ("control", "pause", None, None, None),
            ("control", "goto", 3, None, None),
            ("control", "goto", None, "intro", 2),
        ]
        assert len({m["requestId"] for m in messages}) == len(messages)
        assert kinase_story.last_request_id == messages[-1]["requestId"]

    def test_goto_refuses_what_cannot_apply(self, kinase_story, monkeypatch):
        messages = sent(kinase_story, monkeypatch)
        n = len(kinase_story.snapshots)
        for bad, code in (
            (n, "INVALID_INPUT"),
            (-1, "INVALID_INPUT"),
            ("nope", "NOT_FOUND"),
            (1.5, "INVALID_INPUT"),
            (True, "INVALID_INPUT"),
        ):
            with pytest.raises(StoryControlError) as info:
                kinase_story.goto(bad)
            assert info.value.code == code and info.value.where == "index_or_key"
        assert messages == []

    def test_on_change_sees_every_source(self, kinase_story):
        seen = []
        kinase_story.on_change(seen.append)
        page_sets(
            kinase_story,
            index=1,
            key="b",
            revision=1,
            last_change={"revision": 1, "source": "agent", "summary": "next"},
        )
        page_sets(
            kinase_story,
            index=2,
            key="c",
            revision=2,
            last_change={"revision": 2, "source": "ui", "summary": "next"},
        )
        assert [(c.index, c.revision, c.source) for c in seen] == [(1, 1, "agent"), (2, 2, "ui")]
        kinase_story.on_change(seen.append, remove=True)
        page_sets(kinase_story, revision=3)
        assert len(seen) == 2

    def test_page_results_are_kept(self, kinase_story):
        kinase_story._handle_page_message(
            kinase_story,
            {"type": "result", "requestId": "r", "ok": False, "error": {"code": "NOT_FOUND"}},
            [],
        )
        assert kinase_story.last_result["error"]["code"] == "NOT_FOUND"

    def test_two_pages_answering_one_request_keep_the_first_answer(self, kinase_story):
        # Two pages showing the notebook: should both answer one request, the first answer stands.
        first = {
            "type": "result",
            "requestId": "r1",
            "ok": True,
            "structuredContent": {"story": {"index": 1}},
        }
        second = {
            "type": "result",
            "requestId": "r1",
            "ok": True,
            "structuredContent": {"story": {"index": 2}},
        }
        kinase_story._handle_page_message(kinase_story, first, [])
        kinase_story._handle_page_message(kinase_story, second, [])
        assert kinase_story.last_result is first
        later = {"type": "result", "requestId": "r2", "ok": True, "structuredContent": {}}
        kinase_story._handle_page_message(kinase_story, later, [])
        assert kinase_story.last_result is later
        # A hidden page refused (it could not draw the step); the page that drew it answers ok after.
        refused = {"type": "result", "requestId": "r3", "ok": False, "error": {"code": "TIMEOUT"}}
        drawn = {"type": "result", "requestId": "r3", "ok": True, "structuredContent": {}}
        kinase_story._handle_page_message(kinase_story, refused, [])
        kinase_story._handle_page_message(kinase_story, drawn, [])
        kinase_story._handle_page_message(kinase_story, dict(refused), [])
        assert kinase_story.last_result is drawn

    def test_the_applied_requests_are_set_by_the_pages_only(self, kinase_story):
        page_sets(kinase_story, _applied_requests=["r1"])
        assert kinase_story._applied_requests == ["r1"]
        with pytest.raises(traitlets.TraitError, match="set by the page"):
            kinase_story._applied_requests = []

    def test_the_applied_agent_actions_are_set_by_the_pages_only(self, kinase_story):
        page_sets(kinase_story, _applied_actions=["story_control:a1"])
        assert kinase_story._applied_actions == ["story_control:a1"]
        with pytest.raises(traitlets.TraitError, match="set by the page"):
            kinase_story._applied_actions = []


def test_repr_before_the_page_answered_claims_no_step():
    story = Story(KINASE)
    assert "of 0" not in repr(story) and "not shown yet" in repr(story)
    with story._page_update():
        story.snapshots = [{"index": 0, "key": "a"}, {"index": 1, "key": "b"}]
        story.index = 1
    assert "step 2 of 2" in repr(story)
    with story._page_update():
        story.error = {
            "code": "NOT_FOUND",
            "message": "no 1abc.cif",
            "where": "s0",
            "fix": "x",
            "details": {},
        }
    assert "error NOT_FOUND: no 1abc.cif" in repr(story)


class TestEditSteps:
    """``replace_step`` / ``insert_step``: the ``story_edit`` tool from a cell (the page side: jest, Galata)."""

    STEP = {
        "key": "intro",
        "title": "Edited",
        "description": "From a cell.",
        "root": {"kind": "root"},
    }

    def test_edits_send_story_edit_control_messages(self, kinase_story, monkeypatch):
        messages = sent(kinase_story, monkeypatch)
        keys = [s["key"] for s in kinase_story.snapshots]
        kinase_story.replace_step(keys[1], self.STEP, expected_revision=3)
        kinase_story.insert_step({**self.STEP, "key": "new"}, after=keys[0])
        kinase_story.insert_step({**self.STEP, "key": "last"})
        assert [
            (
                m["type"],
                m["tool"],
                m["edit"],
                m.get("key"),
                m["step"]["key"],
                m.get("expectedRevision"),
            )
            for m in messages
        ] == [
            ("control", "story_edit", "replace", keys[1], "intro", 3),
            ("control", "story_edit", "insert", keys[0], "new", None),
            ("control", "story_edit", "insert", None, "last", None),
        ]
        assert messages[0]["step"] == self.STEP

    def test_molviewspec_objects_become_storyboard_steps(self, kinase_story, monkeypatch):
        import molviewspec as mvs

        messages = sent(kinase_story, monkeypatch)
        b = mvs.create_builder()
        b.download(url="https://example.org/1cbs.cif").parse(format="mmcif").model_structure()
        kinase_story.insert_step({"key": "b", "title": "Builder", "root": b})
        kinase_story.insert_step(b.get_snapshot(key="s", title="Snapshot", linger_duration_ms=500))
        assert messages[0]["step"]["root"]["kind"] == "root"
        assert messages[0]["step"]["root"]["children"][0]["kind"] == "download"
        step = messages[1]["step"]
        assert (step["key"], step["title"], step["linger_duration_ms"], step["root"]["kind"]) == (
            "s",
            "Snapshot",
            500,
            "root",
        )

    @pytest.mark.parametrize(
        "call, code, where",
        [
            (lambda s: s.replace_step("nope", {"key": "x"}), "NOT_FOUND", "key"),
            (lambda s: s.insert_step({"key": "x"}, after="nope"), "NOT_FOUND", "after"),
            (lambda s: s.replace_step(3, {"key": "x"}), "INVALID_INPUT", "key"),
            (lambda s: s.insert_step("not a step"), "INVALID_INPUT", "step"),
            (lambda s: s.insert_step({"key": "x", "root": {1, 2}}), "INVALID_INPUT", "step"),
        ],
    )
    def test_what_cannot_apply_is_refused_in_the_cell(
        self, kinase_story, monkeypatch, call, code, where
    ):
        messages = sent(kinase_story, monkeypatch)
        with pytest.raises(StoryControlError) as info:
            call(kinase_story)
        assert (info.value.code, info.value.where) == (code, where)
        assert info.value.fix
        assert messages == []


def test_the_display_bundle_outlines_the_story_for_readers_without_molspace():
    """A notebook saved before the page answered (or run without a page) lists the steps, claims no step."""
    for source in (KINASE, DEMO):
        bundle = Story(source)._repr_mimebundle_()
        marker = bundle[molspace.contract.STATIC_FALLBACK_MIME]
        assert marker["kind"] == "story" and marker["origin"] == "kernel"
        assert marker["steps"] and all(set(s) == {"key", "title"} for s in marker["steps"])
        text = bundle["text/plain"]
        assert (
            f"{len(marker['steps'])} steps" in text
            and "of 0" not in text
            and "step 1 of" not in text
        )
        assert "application/vnd.jupyter.widget-view+json" in bundle
