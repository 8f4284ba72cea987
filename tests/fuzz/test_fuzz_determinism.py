"""The fuzz tests draw the same inputs in every run, whatever else the run imports (issue 23).

A derandomized test's inputs must not depend on which other tests were selected: Hypothesis draws
some values from constants in the source of local modules loaded so far, which ``tests/conftest.py``
turns off. Here a strategy of the fuzz tests is drawn from, a local module full of constants is
imported, and the same test draws again: the inputs must be the same.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from fuzz_inputs import from_schema, odd_text
from hypothesis import given, settings
from hypothesis import strategies as st

from molspace.contract import manifest

N = 300


def _draws(strategy: st.SearchStrategy[Any]) -> list[Any]:
    seen: list[Any] = []

    @settings(max_examples=N, derandomize=True, database=None, deadline=None)
    @given(strategy)
    def draw(value: Any) -> None:
        seen.append(value)

    draw()
    return seen


def test_inputs_do_not_depend_on_the_modules_a_run_imported(tmp_path: Path) -> None:
    schema = next(t for t in manifest()["tools"] if t["name"] == "ketcher_control")["inputSchema"]
    strategy = st.tuples(
        odd_text(),
        st.integers(),
        st.floats(allow_nan=False),
        st.binary(),
        from_schema(schema, schema),
    )
    before = _draws(strategy)
    # A module such as another test's import would bring in: strings, numbers and bytes to pick from.
    consts = "\n".join(
        f"C{i} = ({i * 7919}, {i}.25, 'constant {i} of another module', b'b{i}')"
        for i in range(200)
    )
    (tmp_path / "molspace_fuzz_other_module.py").write_text(consts + "\n")
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.import_module("molspace_fuzz_other_module")
        after = _draws(strategy)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("molspace_fuzz_other_module", None)
    assert len(before) == len(after) == N
    assert repr(before) == repr(after)
