"""Kernel-side Panel API: contents from markdown, tables, DataFrames and charts; bounds; typed errors.

The page side of the same path runs in the Galata tests (ui-tests/tests/panels.spec.ts).
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd
import pytest
import traitlets

import molspace
from molspace import Panel, PanelContentError
from molspace.contract import LIMITS, manifest
from molspace.panel.content import normalize_panel_content


def sent(panel: Panel, monkeypatch) -> list[dict]:
    messages: list[dict] = []
    monkeypatch.setattr(panel, "send", lambda content, buffers=None: messages.append(content))
    return messages


class TestContents:
    def test_markdown_from_str(self):
        panel = Panel("**Finding**: the pose is stable.", title="Notes")
        assert panel.content == {"type": "markdown", "markdown": "**Finding**: the pose is stable."}
        assert panel.title == "Notes"

    def test_table_from_dataframe_types_units_and_missing(self):
        df = pd.DataFrame(
            {
                "ligand": ["L1", "L2", None],
                "score": [-7.5, math.nan, -6.1],
                "pose": [1, 2, 3],
                "ok": [True, False, True],
            }
        )
        panel = Panel(df, units={"score": "kcal/mol"})
        content = panel.content
        assert content["type"] == "table"
        assert content["columns"] == [
            {"name": "ligand", "type": "string"},
            {"name": "score", "type": "number", "unit": "kcal/mol"},
            {"name": "pose", "type": "integer"},
            {"name": "ok", "type": "boolean"},
        ]
        assert content["rows"] == [
            ["L1", -7.5, 1, True],
            ["L2", None, 2, False],
            [None, -6.1, 3, True],
        ]

    def test_units_from_dataframe_attrs(self):
        df = pd.DataFrame({"rmsd": [1.2]})
        df.attrs["units"] = {"rmsd": "Å"}
        assert Panel(df).content["columns"] == [{"name": "rmsd", "type": "number", "unit": "Å"}]

    def test_chart_from_vega_lite_dict_and_altair(self):
        spec = {
            "mark": "line",
            "data": {"values": [{"t": 0, "e": -1.0}]},
            "encoding": {"x": {"field": "t"}},
        }
        assert Panel(spec).content == {"type": "chart", "spec": spec}
        chart = (
            alt.Chart(pd.DataFrame({"t": [0, 1], "e": [-1.0, -2.0]}))
            .mark_line()
            .encode(x="t", y="e")
        )
        content = Panel(chart).content
        assert content["type"] == "chart"
        assert "vega-lite/v5" in content["spec"]["$schema"]
        # Altair puts the rows inline, in datasets.
        assert list(content["spec"]["datasets"].values())[0] == [
            {"t": 0, "e": -1.0},
            {"t": 1, "e": -2.0},
        ]

    def test_contract_dict_passes_through(self):
        table = {"type": "table", "columns": [{"name": "a", "type": "number"}], "rows": [[1]]}
        assert Panel(table).content == table

    def test_panel_id(self):
        assert Panel("x", panel_id="scores.v1").panel_id == "scores.v1"
        with pytest.raises(PanelContentError) as err:
            Panel("x", panel_id="no spaces")
        assert err.value.code == "INVALID_INPUT" and err.value.where == "panel_id"


class TestBadInputs:
    def test_unsupported_type(self):
        with pytest.raises(PanelContentError) as err:
            Panel(42)
        assert err.value.code == "UNSUPPORTED_FORMAT" and err.value.where == "content"
        assert err.value.fix

    def test_rows_over_the_bound_is_too_large_naming_the_limit(self):
        n = LIMITS["panelTableRows"] + 1
        with pytest.raises(PanelContentError) as err:
            Panel(pd.DataFrame({"a": range(n)}))
        assert err.value.code == "TOO_LARGE"
        assert err.value.details == {
            "limit": "panelTableRows",
            "max": LIMITS["panelTableRows"],
            "size": n,
        }
        assert "panelTableRows" in err.value.message and "head(" in err.value.fix

    def test_rows_at_the_bound_pass(self):
        n = LIMITS["panelTableRows"]
        assert len(Panel(pd.DataFrame({"a": range(n)})).content["rows"]) == n

    def test_cells_and_markdown_over_their_bounds(self):
        cols = 50
        rows = LIMITS["panelTableCells"] // cols + 1
        with pytest.raises(PanelContentError) as err:
            Panel(pd.DataFrame({f"c{i}": range(rows) for i in range(cols)}))
        assert err.value.details["limit"] == "panelTableCells"
        with pytest.raises(PanelContentError) as err:
            Panel("x" * (LIMITS["panelMarkdownChars"] + 1))
        assert err.value.details["limit"] == "panelMarkdownChars"

    def test_unknown_unit_column(self):
        with pytest.raises(PanelContentError) as err:
            Panel(pd.DataFrame({"a": [1]}), units={"b": "nm"})
        assert err.value.code == "INVALID_INPUT" and err.value.where == "units"

    def test_malformed_contract_dicts(self):
        with pytest.raises(PanelContentError) as err:
            Panel({"type": "table", "columns": "a"})
        assert err.value.code == "INVALID_INPUT"
        with pytest.raises(PanelContentError) as err:
            Panel({"type": "chart", "spec": None})
        assert err.value.where == "content/spec"
        with pytest.raises(PanelContentError) as err:
            normalize_panel_content({"mark": "bar", "data": {"values": [{"a": float("nan")}]}})
        assert err.value.code == "INVALID_INPUT"


class TestPageState:
    def test_page_owned_traits_are_read_only(self):
        panel = Panel("x")
        with pytest.raises(traitlets.TraitError, match="read-only"):
            panel.revision = 3
        with pytest.raises(traitlets.TraitError, match="update"):
            panel._content = {"type": "markdown", "markdown": "y"}
        panel.set_state({"revision": 2, "ready": True})
        assert panel.revision == 2 and panel.ready

    def test_update_sends_a_control_message(self, monkeypatch):
        panel = Panel("x")
        messages = sent(panel, monkeypatch)
        request = panel.update(
            pd.DataFrame({"a": [1.5]}), title="T", expected_revision=1, action_id="a1"
        )
        assert messages == [
            {
                "type": "control",
                "requestId": request.id,
                "content": {
                    "type": "table",
                    "columns": [{"name": "a", "type": "number"}],
                    "rows": [[1.5]],
                },
                "title": "T",
                "expectedRevision": 1,
                "actionId": "a1",
            }
        ]
        panel._handle_page_message(
            panel, {"type": "result", "requestId": request.id, "ok": True}, []
        )
        assert panel.last_result["requestId"] == request.id and request.ok

    def test_update_refuses_a_bad_content_in_the_cell(self, monkeypatch):
        panel = Panel("x")
        messages = sent(panel, monkeypatch)
        with pytest.raises(PanelContentError):
            panel.update(object())
        assert messages == []

    def test_the_control_message_is_render_panel_input(self):
        """What update() sends, plus target, is valid render_panel input per the manifest."""
        import jsonschema

        tool = next(t for t in manifest()["tools"] if t["name"] == "render_panel")
        panel = Panel("x")
        captured: list[dict] = []
        panel.send = lambda content, buffers=None: captured.append(content)  # type: ignore[method-assign]
        panel.update("# new", title="N", expected_revision=0)
        args = {k: v for k, v in captured[0].items() if k not in ("type", "requestId")}
        jsonschema.validate({**args, "target": "model-1"}, tool["inputSchema"])


class TestStaticFallback:
    def test_markdown_table_and_chart_fallbacks(self):
        md = Panel("**bold**", title="T")._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in md
        assert md["text/markdown"] == "**T**\n\n**bold**"
        table = Panel(
            pd.DataFrame({"name": ["<script>alert(1)</script>"], "x": [1.0]}), units={"x": "nm"}
        )
        html = table._repr_mimebundle_()["text/html"]
        assert "<script>" not in html and "&lt;script&gt;" in html and "<th>x (nm)</th>" in html
        spec = {"mark": "bar", "data": {"values": []}}
        assert Panel(spec)._repr_mimebundle_()["application/vnd.vegalite.v5+json"] == spec


def test_exported():
    assert molspace.Panel is Panel and "Panel" in molspace.__all__


def test_the_display_bundle_marks_the_panel_for_the_pre_save_hook():
    """docs/architecture.md, "Static fallback in saved notebooks": the hook knows the output is a panel's."""
    from molspace.contract import STATIC_FALLBACK_MIME

    bundle = Panel("**bold** <script>x</script>", title="Notes")._repr_mimebundle_()
    assert bundle[STATIC_FALLBACK_MIME] == {
        "kind": "panel",
        "origin": "kernel",
        "title": "Notes",
        "summary": bundle["text/plain"],
    }
    assert bundle["text/markdown"].endswith("**bold** <script>x</script>")
