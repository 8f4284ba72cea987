"""Generated inputs for the fuzz tests (issue 23): strategies from the contract, mutations, checks.

Every boundary test draws its inputs here and checks one property of what it got back: success,
or a *located* molspace error (a code of the contract's closed list, a non-empty message and fix,
a ``where``, JSON ``details``) of bounded size. Each input checked is counted by boundary
(:data:`COUNTS`), and each test asserts the count it ran, so "at least 10,000 inputs" is measured,
not assumed.

``MOLSPACE_FUZZ_SCALE`` (default 1) multiplies every example count: ``bench/fuzz_python.py`` runs
the same tests longer, with a random seed.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from molspace.contract import ERROR_CODES, manifest
from molspace.errors import MolspaceError, summary_line

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"
EXAMPLE_DATA = ROOT / "examples" / "data"

#: Multiplies every example count (``bench/fuzz_python.py`` sets it; CI runs 1).
SCALE = max(1, int(os.environ.get("MOLSPACE_FUZZ_SCALE", "1")))
#: ``bench/fuzz_python.py`` draws a new seed each run; CI runs derandomized (the same inputs every time).
RANDOM = os.environ.get("MOLSPACE_FUZZ_RANDOM") == "1"

#: Inputs checked, by boundary (``tools``, ``bridge``, ``story``, ``structure``, ``panel``, ...).
COUNTS: Counter[str] = Counter()


def fuzz_settings(examples: int) -> settings:
    """Settings of one fuzz test: ``examples`` × :data:`SCALE` examples, no deadline, no database."""
    return settings(
        max_examples=examples * SCALE,
        derandomize=not RANDOM,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


# --------------------------------------------------------------------------- the located error

#: Largest located error (its wire form as JSON, bytes) a generated input may cost: a few KiB
#: is what an agent or a cell should ever read about one bad input.
MAX_ERROR_BYTES = 16_384


def check_located(error: BaseException, *, codes: tuple[str, ...] | None = None) -> dict[str, Any]:
    """``error`` is a located molspace error of bounded size; return its wire form.

    The property every refusal keeps: a code of the contract's closed list (one of ``codes`` when
    given), a non-empty one-sentence message and fix, a ``where`` (str), JSON ``details``; the
    whole at most :data:`MAX_ERROR_BYTES` of JSON, and its summary one line.
    """
    assert isinstance(error, MolspaceError), f"not a located error: {type(error).__name__}: {error}"
    wire = error.to_dict()
    assert wire["code"] in ERROR_CODES, wire["code"]
    if codes is not None:
        assert wire["code"] in codes, (wire["code"], codes, wire["message"][:300])
    assert isinstance(wire["message"], str) and wire["message"].strip(), wire
    assert isinstance(wire["fix"], str) and wire["fix"].strip(), wire
    assert isinstance(wire["where"], str), wire
    assert isinstance(wire["details"], dict), wire
    text = json.dumps(wire, allow_nan=False)  # details are JSON (no NaN, no objects)
    size = len(text.encode("utf-8"))
    assert size <= MAX_ERROR_BYTES, f"located error of {size} bytes: {text[:400]}…"
    assert "\n" not in summary_line(wire)
    return wire


def outcome(
    call: Callable[[], Any], boundary: str, *, codes: tuple[str, ...] | None = None
) -> tuple[Any, dict[str, Any] | None]:
    """Run ``call`` once as one input of ``boundary``: ``(result, None)`` or ``(None, located error)``.

    Any exception other than a located :class:`MolspaceError` fails the test (with its type).
    """
    COUNTS[boundary] += 1
    try:
        return call(), None
    except MolspaceError as e:
        return None, check_located(e, codes=codes)


# --------------------------------------------------------------------------- text and JSON values

#: Characters that have broken parsers, pointers and one-line messages before.
ODD_CHARS = (
    "\ud800",  # lone high surrogate (half an emoji)
    "\udfff",  # lone low surrogate
    "\n",
    "\r\n",
    "\u2028",  # line separator
    "\x00",
    "\u202e",  # right-to-left override
    "\ufeff",  # byte order mark
    "\U0001f9ec",  # 🧬 (outside the BMP)
    "e\u0301",  # combining accent
    "~",
    "~1",
    "/",
    "\\",
    '"',
    "'",
    "..",
    "{",
    "%",
    "\t",
)


@cache
def odd_text(max_size: int = 24) -> st.SearchStrategy[str]:
    """Short strings mixing any code point (lone surrogates included) with :data:`ODD_CHARS`."""
    piece = st.one_of(
        st.characters(codec=None, exclude_categories=()),
        st.sampled_from(ODD_CHARS),
    )
    return st.lists(piece, max_size=max_size).map("".join)


@cache
def huge_text() -> st.SearchStrategy[str]:
    """A string far over any ``maxLength`` of the contract (made, not drawn char by char)."""
    return st.tuples(
        st.sampled_from(["x", "é", "\U0001f9ec", "\ud800", "\n"]),
        st.sampled_from([2_001, 70_000, 300_000]),
    ).map(lambda t: t[0] * t[1])


@cache
def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Any JSON value, small, odd strings and extreme numbers included."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        odd_text(),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(odd_text(8), inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


def depth_of(value: Any) -> int:
    """How deep ``value`` nests (a scalar is 0, ``[]`` is 1), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, (list, dict)):
            deepest = max(deepest, level + 1)
            stack.extend(
                (v, level + 1) for v in (node.values() if isinstance(node, dict) else node)
            )
        else:
            deepest = max(deepest, level)
    return deepest


def nested(depth: int) -> Any:
    """A list nested ``depth`` deep (``[[[...]]]``)."""
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


# --------------------------------------------------------------------------- from a JSON Schema


def resolve(root: dict[str, Any], schema: Any) -> Any:
    """Follow local ``$ref``s of ``root``."""
    for _ in range(32):
        if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
            return schema
        node: Any = root
        for part in schema["$ref"].lstrip("#").split("/")[1:]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        schema = node
    return schema


_SAFE_TEXT = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789 _-.:/", max_size=12)


#: One strategy per subschema object and depth, with the subschema itself: keeping it alive keeps
#: its ``id`` from being reused by another (temporary) schema, which would otherwise be handed this
#: strategy, so that which schemas a run had built before (which tests ran) changed the draws.
_SCHEMA_STRATEGIES: dict[tuple[int, int], tuple[Any, st.SearchStrategy[Any]]] = {}


def from_schema(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values the JSON Schema ``schema`` describes (:func:`_from_schema`), one strategy a subschema."""
    key = (id(schema), depth)
    if key not in _SCHEMA_STRATEGIES:
        _SCHEMA_STRATEGIES[key] = (schema, _from_schema(schema, root, depth))
    return _SCHEMA_STRATEGIES[key][1]


def _from_schema(schema: Any, root: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    """Values the JSON Schema ``schema`` (2020-12, the keywords the contract emits) describes.

    Mostly valid: strings short, arrays of at most 3 items, numbers within their bounds; a
    ``pattern`` is drawn from its regular expression. Deep or unusual schemas give up to any
    JSON value (then the value may be invalid, which is still a fair input).
    """
    schema = resolve(root, schema)
    if schema is True or schema == {} or schema is None:
        return json_values(4)
    if not isinstance(schema, dict):
        return st.none()
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return st.one_of([from_schema(b, root, depth + 1) for b in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, root, depth) for k in kind])
    if kind == "object" or "properties" in schema:
        if depth > 6:
            return st.just({})
        props = schema.get("properties") or {}
        required = [k for k in schema.get("required") or [] if k in props]
        optional = {
            k: from_schema(v, root, depth + 1) for k, v in props.items() if k not in required
        }
        base = st.fixed_dictionaries(
            {k: from_schema(props[k], root, depth + 1) for k in required}, optional=optional
        )
        extra = schema.get("additionalProperties")
        if not props and extra not in (None, False):
            return st.dictionaries(_SAFE_TEXT, from_schema(extra, root, depth + 1), max_size=3)
        return base
    if kind == "array":
        if depth > 6:
            return st.just([])
        low = int(schema.get("minItems", 0))
        high = max(low, min(int(schema.get("maxItems", 3)), low + 3))
        items = schema.get("items", {})
        return st.lists(from_schema(items, root, depth + 1), min_size=low, max_size=high)
    if kind == "string":
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", low + 12))
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(
                lambda s: low <= len(s) <= high
            )
        return st.text(
            alphabet="abcdefghijklmnopqrstuvwxyz0123456789 _-.",
            min_size=low,
            max_size=max(low, min(high, low + 12)),
        )
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1000))
        high = schema.get("maximum", low + 1000 if isinstance(low, (int, float)) else 1000)
        low, high = math.ceil(low), math.floor(min(high, low + 10_000))
        if "exclusiveMinimum" in schema:
            low += 1
        if kind == "integer":
            return st.integers(min_value=low, max_value=max(low, high))
        return st.floats(min_value=low, max_value=max(low, high), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return json_values(4)


# --------------------------------------------------------------------------- near-valid mutations


def _paths(value: Any, path: tuple[Any, ...] = (), limit: int = 64) -> list[tuple[Any, ...]]:
    """Every path into ``value`` (root first), at most ``limit``."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            if len(out) >= limit:
                break
            out.extend(_paths(v, (*path, k), limit - len(out)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if len(out) >= limit:
                break
            out.extend(_paths(v, (*path, i), limit - len(out)))
    return out[:limit]


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


#: Nesting depths a mutation tries: up to what MCP's transport parses (the SDK refuses JSON
#: nested deeper than 200 with its own 400 parse error before a tool sees it).
NESTING = (50, 150, 199)


def _mutations(current: Any) -> st.SearchStrategy[Any]:
    """What one field may become: a value of another type, an odd or huge string, a huge array,
    an extreme number, deep nesting; for an object, a field dropped or one unknown added."""
    options: list[st.SearchStrategy[Any]] = [_any_mutation()]
    if isinstance(current, dict):
        if current:
            options.append(
                st.sampled_from(sorted(current, key=str)).map(
                    lambda k: {kk: vv for kk, vv in current.items() if kk != k}
                )
            )
        options.append(
            st.tuples(_odd_key(), json_values(3)).map(lambda kv: {**current, kv[0]: kv[1]})
        )
    if isinstance(current, str):
        options.append(st.sampled_from(list(ODD_CHARS)).map(lambda c: current + c))
    if isinstance(current, list) and current:
        options.append(st.just(current * 60))
    return st.one_of(options)


@cache
def _any_mutation() -> st.SearchStrategy[Any]:
    return st.one_of(
        json_values(6),
        odd_text(),
        huge_text(),
        st.sampled_from([None, True, 0, -1, 2**53, 2**64, -(2**63), 1e308, -0.0, 0.5, "", [], {}]),
        st.sampled_from([10, 51, 5_000, 100_000]).map(lambda n: [0] * n),
        st.sampled_from(NESTING).map(nested),
    )


@cache
def _odd_key() -> st.SearchStrategy[str]:
    return st.one_of(odd_text(12), st.sampled_from(["a\nb", "~1/", "__proto__", "x" * 5000]))


@st.composite
def near_valid(draw: st.DrawFn, valid: Any) -> Any:
    """``valid`` with one field (anywhere in it) mutated by :func:`_mutations`."""
    paths = _paths(valid)
    path = draw(st.sampled_from(paths))
    current: Any = valid
    for p in path:
        current = current[p]
    return _replace(valid, path, draw(_mutations(current)))


def contract_tools() -> list[dict[str, Any]]:
    """The contract's tools (the manifest built from ``src/contract``)."""
    return list(manifest()["tools"])


# --------------------------------------------------------------------------- cheap batches

#: Inputs one Hypothesis example gives (:func:`batches`): one drawn value and its mutations.
BATCH = 8
_POOL: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    2**53,
    2**64,
    -(2**63),
    1e308,
    -0.0,
    0.5,
    "",
    [],
    {},
    [None],
    {"": None},
)


def odd_string(rng: random.Random, max_size: int = 24) -> str:
    """Like :func:`odd_text`, from ``rng``: any code point (lone surrogates included) and :data:`ODD_CHARS`."""
    out = []
    for _ in range(rng.randint(0, max_size)):
        if rng.random() < 0.5:
            out.append(rng.choice(ODD_CHARS))
        else:
            out.append(
                chr(
                    rng.choice(
                        [rng.randint(0, 0x7F), rng.randint(0x80, 0xFFFF), rng.randint(0, 0x10FFFF)]
                    )
                )
            )
    return "".join(out)


def damaged_copies(data: bytes, rng: random.Random) -> list[bytes]:
    """``data`` cut at a point, with bits flipped, and with a run of NULs, random bytes or a BOM-like
    run written in: the damage a copy, a download or a disk does to a real file."""
    flipped = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(flipped))
        flipped[i] ^= 1 << rng.randrange(8)
    written = bytearray(data)
    at = rng.randrange(len(written))
    written[at : at + 16] = rng.choice([b"\x00" * 16, rng.randbytes(16), b"\xff\xfe\xfd\xfc" * 4])
    return [data[: rng.randrange(len(data) + 1)], bytes(flipped), bytes(written)]


def mutate(valid: Any, rng: random.Random) -> Any:
    """``valid`` with one field (anywhere in it) changed as :func:`near_valid` does, from ``rng``
    (no Hypothesis draws: a batch of mutations costs one example)."""
    path = rng.choice(_paths(valid))
    current: Any = valid
    for p in path:
        current = current[p]
    choices = ["pool", "odd", "huge", "array", "nested", "json"]
    if isinstance(current, dict):
        choices += ["drop", "add", "add"] if current else ["add", "add"]
    if isinstance(current, str):
        choices += ["suffix", "suffix"]
    if isinstance(current, list) and current:
        choices.append("repeat")
    how = rng.choice(choices)
    new: Any
    if how == "pool":
        new = rng.choice(_POOL)
    elif how == "odd":
        new = odd_string(rng)
    elif how == "huge":
        new = rng.choice(["x", "é", "\U0001f9ec", "\ud800", "\n"]) * rng.choice(
            [2_001, 70_000, 300_000]
        )
    elif how == "array":
        new = [0] * rng.choice([10, 51, 5_000, 100_000])
    elif how == "nested":
        new = nested(rng.choice(NESTING))
    elif how == "json":
        new = rng.choice(
            [[odd_string(rng, 6)], {odd_string(rng, 6): rng.choice(_POOL)}, rng.uniform(-1e9, 1e9)]
        )
    elif how == "drop":
        key = rng.choice(sorted(current, key=str))
        new = {k: v for k, v in current.items() if k != key}
    elif how == "add":
        key = rng.choice([odd_string(rng, 12), "a\nb", "~1/", "__proto__", "x" * 5000])
        new = {**current, key: rng.choice(_POOL)}
    elif how == "suffix":
        new = current + rng.choice(ODD_CHARS)
    else:
        new = current * 60
    return _replace(valid, path, new)


def batches(valid: st.SearchStrategy[Any], size: int = BATCH) -> st.SearchStrategy[list[Any]]:
    """One value drawn from ``valid`` and ``size - 1`` mutations of it (:func:`mutate`), seeded
    by the example: reproducible, and ``size`` inputs for the cost of one draw."""
    return st.tuples(valid, st.integers(min_value=0, max_value=2**32 - 1)).map(
        lambda t: [t[0], *(mutate(t[0], random.Random(t[1] * 131 + i)) for i in range(size - 1))]
    )
