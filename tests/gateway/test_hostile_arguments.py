"""Arguments built to hurt the gateway, through the official Python SDK: each is one small located
INVALID_INPUT, whatever size the call was, and the error text keeps its two-line format.

Found by a generated-input run from outside (issue "Faults and bad inputs"): 10,000 bad `act` items
took seconds of the server's event loop and a 670 kB error; a 200 kB value came back whole; a field
name with a newline split the summary line.
"""

from __future__ import annotations

from typing import Any

import pytest
from gateway_helpers import located_error

#: Bytes of an error result's text that a hostile call may cost an agent to read.
SMALL_ERROR = 4096


def error_size(result: Any) -> int:
    return len(result.content[0].text.encode("utf-8"))


@pytest.mark.parametrize(
    ("arguments", "where", "said", "fix"),
    [
        # Too long is said from the length alone (the items are never checked one by one).
        (
            {"actions": [0] * 100_000},
            "/actions",
            "has 100000 items; at most 50 allowed",
            "Send at most 50 items at /actions",
        ),
        (
            {"actions": [{"op": "focus", "selector": [{"label_asym_id": "A"}] * 30_000}]},
            "/actions/0/selector",
            "has 30000 items; at most 50 allowed",
            "Send at most 50 items at /actions/0/selector",
        ),
        (
            {
                "actions": [
                    {"op": "focus", "selector": "ligand", **{f"k{i}": i for i in range(20_000)}}
                ]
            },
            "/actions/0/k0",
            "and 19990 more",
            "takes only",
        ),
        (
            {"actions": [{"op": "x" * 200_000}]},
            "/actions/0/op",
            "is not one of the known values",
            '"focus"',
        ),
    ],
    ids=["100k-items", "30k-selector-items-in-a-union", "20k-unknown-fields", "200kB-tag-value"],
)
async def test_a_huge_call_is_one_small_located_error(
    mcp_client: Any, arguments: dict[str, Any], where: str, said: str, fix: str
) -> None:
    async with mcp_client() as client:
        result = await client.call_tool("act", arguments)
        err = located_error(result)
        assert err["code"] == "INVALID_INPUT" and err["where"] == where, err
        assert said in err["message"], err["message"]
        assert fix in err["fix"], err["fix"]
        assert error_size(result) < SMALL_ERROR, error_size(result)
        assert len(err["details"]["errors"]) <= 20
        # The server is still there for the next call.
        status = await client.call_tool("status", {})
        assert status.is_error is False


@pytest.mark.parametrize("name", ["a\nb", "a\r\nb", "a\u2028b"])
async def test_a_field_name_with_a_line_break_keeps_the_error_on_two_lines(
    mcp_client: Any, name: str
) -> None:
    async with mcp_client() as client:
        result = await client.call_tool("status", {name: 1})
    err = located_error(result)  # summary line, newline, JSON: fails on a third line
    assert err["code"] == "INVALID_INPUT" and err["where"] == f"/{name}"
    assert len(result.content[0].text.split("\n")) == 2
