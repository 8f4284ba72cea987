"""Kernel-side Panel links: DataFrame columns → the contract's ``PanelLink`` per row; bad inputs located.

The click side (act focus / story_control goto through the page's Dispatcher) runs in the
Galata tests (ui-tests/tests/panelLinks.spec.ts).
"""

from __future__ import annotations

import math
import types

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
