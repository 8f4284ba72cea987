"""Kernel-side Panel links: DataFrame columns → the contract's ``PanelLink`` per row; bad inputs located.

The click side (act focus / story_control goto through the page's Dispatcher) runs in the
Galata tests (ui-tests/tests/panelLinks.spec.ts).
"""

from __future__ import annotations

import math
import types

import altair as alt
import jsonschema
import pandas as pd
import pytest

from molspace import Panel, PanelContentError
from molspace.contract import manifest
from molspace.panel.content import normalize_panel_content

REA = {"auth_asym_id": "A", "auth_seq_id": 200}


def _render_panel_schema() -> dict:
    return next(t for t in manifest()["tools"] if t["name"] == "render_panel")["inputSchema"]


def _valid(content: dict) -> None:
    jsonschema.validate({"content": content}, _render_panel_schema())


def test_selector_column_focuses_rows_in_a_viewer_and_is_not_shown():
    viewer = types.SimpleNamespace(model_id="v-model")
    df = pd.DataFrame(
        {"site": ["REA", "A", "none"], "sel": [REA, "ligand", math.nan], "score": [-9.0, -7.5, 1.0]}
    )
    content = Panel(df, viewer=viewer, selector_column="sel").content
    assert [c["name"] for c in content["columns"]] == ["site", "score"]
    assert content["links"] == [
        {"op": "focus", "viewer": "v-model", "selector": REA},
        {"op": "focus", "viewer": "v-model", "selector": "ligand"},
        None,
    ]
    _valid(content)


def test_step_column_goes_to_story_steps_nan_is_no_link():
    df = pd.DataFrame({"pose": ["p1", "p2"], "step": ["surface", math.nan]})
    content = normalize_panel_content(df, story="story-id", step_column="step")
    assert content["links"] == [{"op": "goto", "story": "story-id", "key": "surface"}, None]
    assert [c["name"] for c in content["columns"]] == ["pose"]
    _valid(content)


def test_molecule_grid_rows_carry_their_link_and_the_column_is_no_property():
    df = pd.DataFrame({"smiles": ["CCO", "c1ccccc1"], "mw": [46.07, 78.11], "step": ["a", None]})
    content = normalize_panel_content(df, smiles_column="smiles", story="s", step_column="step")
    assert content["molecules"][0]["link"] == {"op": "goto", "story": "s", "key": "a"}
    assert "link" not in content["molecules"][1]
    assert all("step" not in m.get("properties", {}) for m in content["molecules"])
    _valid(content)


def test_list_selectors_pass_through():
    df = pd.DataFrame({"sel": [[{"label_asym_id": "A"}, {"label_asym_id": "B"}]]})
    content = normalize_panel_content(df, viewer="v", selector_column="sel")
    assert content["links"][0]["selector"] == [{"label_asym_id": "A"}, {"label_asym_id": "B"}]


@pytest.mark.parametrize(
    ("kwargs", "where"),
    [
        ({"viewer": "v", "selector_column": "missing"}, "selector_column"),
        ({"selector_column": "sel"}, "viewer"),
        ({"viewer": "v"}, "selector_column"),
        ({"story": "s"}, "step_column"),
        ({"viewer": 3, "selector_column": "sel"}, "viewer"),
        (
            {"viewer": "v", "selector_column": "sel", "story": "s", "step_column": "step"},
            "step_column",
        ),
        ({"story": "s", "step_column": "sel"}, "content/sel/0"),
    ],
)
def test_bad_link_arguments_are_located(kwargs, where):
    df = pd.DataFrame({"sel": [{"auth_seq_id": 1}], "step": ["a"]})
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(df, **kwargs)
    assert e.value.code == "INVALID_INPUT"
    assert e.value.where == where


def test_a_cell_that_is_not_a_selector_is_located_by_row():
    df = pd.DataFrame({"sel": ["ligand", 42]})
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(df, viewer="v", selector_column="sel")
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "content/sel/1")


def test_links_need_a_dataframe():
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content("# notes", viewer="v", selector_column="sel")
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "viewer")


def test_update_sends_the_links(monkeypatch):
    panel = Panel("x")
    messages: list[dict] = []
    monkeypatch.setattr(panel, "send", lambda content, buffers=None: messages.append(content))
    panel.update(pd.DataFrame({"a": [1], "k": ["s1"]}), story="st", step_column="k")
    assert messages[-1]["content"]["links"] == [{"op": "goto", "story": "st", "key": "s1"}]


# ---------------------------------------------------------------- trajectory frames (goto_frame)
def _viewer_read(frames: int, model_id: str = "traj") -> types.SimpleNamespace:
    """A molspace.Viewer as far as links read it: its model, its id and the frames the page read."""
    return types.SimpleNamespace(_model_name="ViewerModel", model_id=model_id, frames=frames)


def test_frame_column_goes_to_frames_and_stays_shown():
    # A missing frame makes the column float: whole floats are frames, NaN is no link.
    df = pd.DataFrame({"frame": [0, 5, math.nan], "rmsd": [0.0, 1.25, 2.0]})
    content = Panel(df, viewer=_viewer_read(10), frame_column="frame").content
    assert [c["name"] for c in content["columns"]] == ["frame", "rmsd"]
    assert content["links"] == [
        {"op": "goto_frame", "viewer": "traj", "frame": 0},
        {"op": "goto_frame", "viewer": "traj", "frame": 5},
        None,
    ]
    assert all(isinstance(link["frame"], int) for link in content["links"] if link)
    _valid(content)


def test_frame_column_of_a_grid_links_each_molecule():
    df = pd.DataFrame({"smiles": ["CCO", "C"], "frame": [3, 4]})
    content = normalize_panel_content(df, smiles_column="smiles", viewer="v", frame_column="frame")
    assert [m["link"] for m in content["molecules"]] == [
        {"op": "goto_frame", "viewer": "v", "frame": 3},
        {"op": "goto_frame", "viewer": "v", "frame": 4},
    ]
    _valid(content)


@pytest.mark.parametrize(
    ("frames", "code", "where"),
    [
        ([0, 2.5], "INVALID_INPUT", "content/frame/1"),
        ([0, -1], "INVALID_INPUT", "content/frame/1"),
        (["3"], "INVALID_INPUT", "content/frame/0"),
        ([True], "INVALID_INPUT", "content/frame/0"),
        ([0, 9, 10], "VALIDATION_FAILED", "content/frame/2"),
    ],
)
def test_bad_frames_are_located_by_row(frames, code, where):
    df = pd.DataFrame({"frame": pd.Series(frames, dtype=object)})
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(df, viewer=_viewer_read(10), frame_column="frame")
    assert (e.value.code, e.value.where) == (code, where)
    if code == "VALIDATION_FAILED":
        assert e.value.details == {"frame": 10, "frames": 10}


def test_a_frame_past_the_end_passes_while_the_page_has_not_read_the_viewer():
    # frames 0: the page has not read it yet (or a widget id was given): the page checks when it renders.
    df = pd.DataFrame({"frame": [500]})
    for viewer in (_viewer_read(0), "v-id"):
        assert (
            normalize_panel_content(df, viewer=viewer, frame_column="frame")["links"][0]["frame"]
            == 500
        )


@pytest.mark.parametrize(
    "not_a_viewer",
    [
        types.SimpleNamespace(_model_name="StoryModel", model_id="s"),
        types.SimpleNamespace(_model_name="PanelModel", model_id="p"),
    ],
)
def test_a_link_to_a_widget_that_is_not_a_viewer_is_refused(not_a_viewer):
    df = pd.DataFrame({"frame": [1]})
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(df, viewer=not_a_viewer, frame_column="frame")
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "viewer")
    assert "molspace.Viewer" in e.value.message


def test_a_real_panel_as_viewer_is_refused():
    with pytest.raises(PanelContentError) as e:
        Panel(pd.DataFrame({"frame": [1]}), viewer=Panel("notes"), frame_column="frame")
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "viewer")


@pytest.mark.parametrize(
    ("kwargs", "where"),
    [
        ({"frame_column": "frame"}, "viewer"),
        ({"viewer": "v", "frame_column": "nope"}, "frame_column"),
        ({"viewer": "v", "frame_column": "frame", "selector_column": "frame"}, "frame_column"),
        ({"story": "s", "frame_column": "frame", "step_column": "frame"}, "step_column"),
        ({"links": [None]}, "links"),
    ],
)
def test_bad_frame_arguments_are_located(kwargs, where):
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(pd.DataFrame({"frame": [1]}), **kwargs)
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", where)


# ---------------------------------------------------------------- chart links
RMSD = pd.DataFrame({"frame": [0, 1, 2, 3], "rmsd": [0.0, 1.5, 1.5, 2.25]})


def _rmsd_spec(n: int = 3) -> dict:
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "data": {"values": [{"frame": i, "rmsd": i / 2} for i in range(n)]},
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "frame", "type": "quantitative"},
            "y": {"field": "rmsd", "type": "quantitative"},
        },
    }


def test_an_altair_chart_links_its_points_to_frames_by_its_frame_field():
    chart = alt.Chart(RMSD).mark_line(point=True).encode(x="frame", y="rmsd")
    content = Panel(chart, viewer=_viewer_read(98), frame_column="frame").content
    # Altair's named dataset is inlined: the links follow data.values, in the DataFrame's row order.
    assert content["spec"]["data"] == {"values": RMSD.to_dict("records")}
    assert "datasets" not in content["spec"]
    assert content["links"] == [
        {"op": "goto_frame", "viewer": "traj", "frame": i} for i in range(4)
    ]
    _valid(content)


def test_an_altair_dataset_a_layer_names_too_is_kept():
    base = alt.Chart(RMSD)
    chart = base.mark_line().encode(x="frame", y="rmsd") + base.mark_point().encode(
        x="frame", y="rmsd"
    )
    spec = chart.to_dict()
    spec["layer"][1]["data"] = dict(spec["data"])  # a layer names the same dataset
    content = normalize_panel_content(spec, viewer="v", frame_column="frame")
    assert len(content["spec"]["data"]["values"]) == 4
    assert list(content["spec"]["datasets"]) == [spec["data"]["name"]]


def test_a_chart_dict_takes_links_widgets_given_as_widgets():
    links = [
        None,
        {"op": "goto_frame", "viewer": _viewer_read(3), "frame": 2},
        {"op": "focus", "viewer": "v", "selector": "ligand"},
    ]
    content = normalize_panel_content(_rmsd_spec(), links=links)
    assert content["links"] == [
        None,
        {"op": "goto_frame", "viewer": "traj", "frame": 2},
        {"op": "focus", "viewer": "v", "selector": "ligand"},
    ]
    _valid(content)
    # fewer links than values: the rest have none
    assert normalize_panel_content(_rmsd_spec(), links=[None])["links"] == [None]


@pytest.mark.parametrize(
    ("links", "code", "where"),
    [
        ([None, None, None, None], "INVALID_INPUT", "links/3"),
        ([{"op": "goto_frame", "viewer": "v", "frame": -2}], "INVALID_INPUT", "links/0/frame"),
        (
            [None, {"op": "goto_frame", "viewer": "v", "frame": 1.5}],
            "INVALID_INPUT",
            "links/1/frame",
        ),
        ([{"op": "goto_frame", "viewer": "v", "frame": "1"}], "INVALID_INPUT", "links/0/frame"),
        (
            [{"op": "goto_frame", "viewer": _viewer_read(2), "frame": 2}],
            "VALIDATION_FAILED",
            "links/0/frame",
        ),
        (
            [
                {
                    "op": "goto_frame",
                    "viewer": types.SimpleNamespace(_model_name="StoryModel", model_id="s"),
                    "frame": 0,
                }
            ],
            "INVALID_INPUT",
            "links/0/viewer",
        ),
        ([{"op": "goto_frame", "viewer": 7, "frame": 0}], "INVALID_INPUT", "links/0/viewer"),
        ([{"op": "goto_frame", "frame": 0}], "INVALID_INPUT", "links/0/viewer"),
        (
            [{"op": "goto_frame", "viewer": "v", "frame": 0, "selector": "ligand"}],
            "INVALID_INPUT",
            "links/0/selector",
        ),
        ([{"op": "jump", "viewer": "v"}], "INVALID_INPUT", "links/0/op"),
        ([{"op": ["goto_frame"], "viewer": "v"}], "INVALID_INPUT", "links/0/op"),
        ([3], "INVALID_INPUT", "links/0"),
        ({"op": "goto_frame"}, "INVALID_INPUT", "links"),
        ([{"op": "goto", "story": "s", "key": ""}], "INVALID_INPUT", "links/0/key"),
    ],
)
def test_bad_chart_links_are_located(links, code, where):
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(_rmsd_spec(3), links=links)
    assert (e.value.code, e.value.where) == (code, where)


def test_chart_links_need_inline_values_and_one_way_of_giving_them():
    url = {**_rmsd_spec(), "data": {"url": "rmsd.csv"}}
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(url, links=[None])
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "links")
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(url, viewer="v", frame_column="frame")
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "frame_column")
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(_rmsd_spec(), links=[None], viewer="v", frame_column="frame")
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "links")
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content(_rmsd_spec(), viewer="v", frame_column="time")
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "frame_column")
    assert e.value.details["fields"] == ["frame", "rmsd"]
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content("# notes", links=[None])
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "links")


def test_a_chart_content_dict_with_links_is_checked_too():
    content = {
        "type": "chart",
        "spec": _rmsd_spec(2),
        "links": [None, {"op": "goto_frame", "viewer": "v", "frame": 1}],
    }
    assert normalize_panel_content(content)["links"][1]["frame"] == 1
    with pytest.raises(PanelContentError) as e:
        normalize_panel_content({**content, "links": [None, None, None]})
    assert (e.value.code, e.value.where) == ("INVALID_INPUT", "content/links/2")


def test_update_sends_chart_links(monkeypatch):
    panel = Panel("x")
    messages: list[dict] = []
    monkeypatch.setattr(panel, "send", lambda content, buffers=None: messages.append(content))
    panel.update(_rmsd_spec(2), links=[{"op": "goto_frame", "viewer": "v", "frame": 1}])
    assert messages[-1]["content"]["links"] == [{"op": "goto_frame", "viewer": "v", "frame": 1}]
