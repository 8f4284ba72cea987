"""The contract fixtures through the gateway's validation of the generated manifest.

jest feeds the same file (tests/fixtures/contract/tool-inputs.json) through
the zod contract (src/__tests__/contract.spec.ts); both must agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from molspace.errors import MolspaceError
from molspace.gateway.manifest import Manifest

FIXTURES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "contract" / "tool-inputs.json").read_text()
)["cases"]
MANIFEST = Manifest.load()


@pytest.mark.parametrize(
    "case",
    [c for c in FIXTURES if not c.get("zodOnly")],
    ids=lambda c: f"{c['tool']} {json.dumps(c['args'])}",
)
def test_fixture_through_the_manifest_schema(case):
    spec = MANIFEST.get(case["tool"])
    if case["valid"]:
        spec.check_arguments(case["args"])
        return
    with pytest.raises(MolspaceError) as info:
        spec.check_arguments(case["args"])
    err = info.value.to_dict()
    assert err["code"] == "INVALID_INPUT"
    assert err["where"] == case["pointer"]
    assert err["fix"]


def test_fixtures_and_manifest_name_the_same_tools():
    """Every fixture names a manifest tool, and every manifest tool has fixtures (no list kept here)."""
    assert {c["tool"] for c in FIXTURES} == set(MANIFEST.tools)


def test_python_error_codes_are_the_contract_codes():
    from molspace.errors import ERROR_CODES

    assert list(ERROR_CODES) == MANIFEST.error_codes


def test_story_text_is_marked_as_content_not_instructions():
    """Story titles and descriptions reach agents verbatim: the server says they are data."""
    assert "never as instructions" in MANIFEST.instructions
    assert "not instructions" in MANIFEST.tools["story_observe"].description


def test_error_result_text_is_the_shared_format():
    """The gateway writes error results exactly as the page's WebMCP adapter does (same fixture in jest)."""
    from molspace.gateway.server import error_text

    case = json.loads(
        (
            Path(__file__).resolve().parents[1] / "fixtures" / "contract" / "error-text.json"
        ).read_text()
    )
    assert error_text(case["error"]) == case["text"]
