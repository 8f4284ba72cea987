"""Generated Viewer structure sources and panel contents on the kernel side (issue 23).

Structures: the repository's real files (PDB, mmCIF, BCIF, SDF, MOL, MOL2, XYZ, GRO, PDBQT) cut at
a point, with bytes flipped and binary written in, as bytes and as text with their format, with
an odd format; one MVS state (``tests/data/1cbs.mvsj``) with one field mutated. Panels: the
contract's ``render_panel`` content examples (markdown, table, Vega-Lite chart, molecules) with
one field mutated, odd and huge markdown, SMILES lists, and CSV text (a table made from it with
pandas, as a cell does) cut and damaged.

Property: a source or content, or a located :class:`StructureSourceError` /
:class:`PanelContentError` of bounded size; nothing else raises.
"""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pandas as pd
from fuzz_inputs import (
    COUNTS,
    TEST_DATA,
    batches,
    damaged_copies,
    fuzz_settings,
    odd_string,
    outcome,
)
from hypothesis import given
from hypothesis import strategies as st

from molspace.contract import manifest
from molspace.panel.content import normalize_panel_content, table_from_dataframe
from molspace.viewer.source import EXTENSIONS, normalize_structure_source

INPUTS = 10_000
STRUCTURES = [
    (p.read_bytes()[:60_000], EXTENSIONS[p.suffix.lstrip(".").lower()])
    for p in sorted((TEST_DATA / "structures").iterdir())
    if p.suffix.lstrip(".").lower() in EXTENSIONS
]
STATE = json.loads((TEST_DATA / "1cbs.mvsj").read_text(encoding="utf-8"))
CONTENTS = [
    e["content"]
    for t in manifest()["tools"]
    if t["name"] == "render_panel"
    for e in t["examples"]
    if "content" in e
]
CSV = "smiles,name,score\nCCO,ethanol,-1.5\nc1ccccc1O,phenol,2\nCC(=O)O,acetic acid,\n"


def _structure(source: Any, fmt: Any = None) -> None:
    outcome(lambda: normalize_structure_source(source, fmt), "structure")


def _panel(content: Any) -> None:
    outcome(lambda: normalize_panel_content(content), "panel")


@fuzz_settings(INPUTS // 16)
@given(
    st.sampled_from(STRUCTURES),
    batches(st.just(STATE), 3),
    st.integers(0, 2**32),
)
def _check_structures(structure: tuple[bytes, str], states: list[Any], seed: int) -> None:
    rng = random.Random(seed)
    data, fmt = structure
    for damaged in [data, *damaged_copies(data, rng), rng.choice([b"", b" \n\t", b"\x00"])]:
        _structure(damaged, fmt)
        _structure(damaged.decode("utf-8", "replace") + "\n", fmt)
        _structure(damaged, rng.choice([None, "", "PDB", "cif ", odd_string(rng, 8), 3]))
    for state in states:
        _structure(state)
        _structure(json.dumps(state))


def test_generated_structure_sources_are_read_or_refused_located() -> None:
    before = COUNTS["structure"]
    _check_structures()
    assert COUNTS["structure"] - before >= INPUTS


@fuzz_settings(INPUTS // 12)
@given(
    batches(st.sampled_from(CONTENTS), 8),
    st.integers(0, 2**32),
)
def _check_panels(contents: list[Any], seed: int) -> None:
    rng = random.Random(seed)
    for content in contents:
        _panel(content)
    _panel(odd_string(rng, 200))
    _panel([odd_string(rng, 12) for _ in range(rng.randint(0, 5))])
    for text in damaged_copies(CSV.encode(), rng):
        try:
            frame = pd.read_csv(io.StringIO(text.decode("utf-8", "replace")))
        except (ValueError, pd.errors.ParserError):
            continue  # pandas refuses it: no table reaches molspace
        COUNTS["panel"] += 1
        try:
            table_from_dataframe(frame)
        except Exception as e:  # noqa: BLE001 - the property: only a located error
            from fuzz_inputs import check_located

            check_located(e)


def test_generated_panel_contents_are_shown_or_refused_located() -> None:
    before = COUNTS["panel"]
    _check_panels()
    assert COUNTS["panel"] - before >= INPUTS
