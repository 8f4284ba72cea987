"""Generated Story sources on the kernel side (issue 23): MVSJ documents from the repository's real
Stories with one field mutated (as a dict and as text), the text cut and its bytes flipped, random
bytes, and the real ``.mvsx`` archives cut, flipped, and rebuilt as zip bombs (an entry declaring
or inflating to far more than the Story limit), with entry names that climb out (``../``, absolute)
and duplicate entries.

Property: :func:`normalize_story_source` gives a Story source or a located
:class:`StorySourceError`; the Story's outline (what a saved notebook shows, read from the archive
in the kernel) is a bounded title and step list, never an exception; an archive is never inflated
past the Story limit, in bounded time and memory; nothing is written.
"""

from __future__ import annotations

import io
import json
import random
import time
import tracemalloc
import zipfile
from typing import Any

from fuzz_inputs import (
    COUNTS,
    EXAMPLE_DATA,
    TEST_DATA,
    batches,
    damaged_copies,
    fuzz_settings,
    outcome,
)
from hypothesis import given
from hypothesis import strategies as st

from molspace.story.source import MAX_STORY_BYTES, normalize_story_source
from molspace.story.widget import _outline

INPUTS = 10_000
DOCUMENTS = [
    json.loads((TEST_DATA / name).read_text(encoding="utf-8"))
    for name in ("1cbs.mvsj", "kinase-story.mvsj")
]
ARCHIVES = [(TEST_DATA / "1h9t.mvsx").read_bytes(), (EXAMPLE_DATA / "1cbs-story.mvsx").read_bytes()]


def _zip(entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return buffer.getvalue()


def _declaring(archive: bytes, name: str, size: int) -> bytes:
    """``archive`` with the uncompressed size ``name`` declares (local and central headers) set to ``size``."""
    data = bytearray(archive)
    encoded = name.encode()
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(sig)
        while at >= 0:
            name_at = at + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(encoded)] == encoded:
                data[at + offset : at + offset + 4] = (size & 0xFFFFFFFF).to_bytes(4, "little")
            at = data.find(sig, at + 4)
    return bytes(data)


INDEX = json.dumps(DOCUMENTS[0]).encode()
#: More than the Story limit of spaces after a valid document: deflates to about 0.1% of it.
BOMB = _zip([("index.mvsj", INDEX + b" " * (MAX_STORY_BYTES + 1_000_000))])
ODD_ARCHIVES = [
    BOMB,
    _declaring(BOMB, "index.mvsj", 1_000),  # says 1 kB, inflates to 51 MB
    _declaring(BOMB, "index.mvsj", 0xFFFFFFFF),  # says 4 GiB
    _zip([("../../index.mvsj", INDEX), ("/etc/passwd", b"x"), ("assets/../../x.cif", b"x")]),
    _zip([("index.mvsj", INDEX), ("index.mvsj", b'{"root": 1}')]),  # duplicate entries
    _zip([("index.mvsj", b"\xff\xfe not utf-8")]),
    _zip([("index.mvsj", b"[" * 100_000)]),
    _zip([("index.mvsj", INDEX)], zipfile.ZIP_STORED),
    _zip([("index.mvsj", INDEX)], zipfile.ZIP_BZIP2),
    _zip([("index.mvsj", INDEX)], zipfile.ZIP_LZMA),
    _zip([("other.mvsj", INDEX)]),
    b"PK\x03\x04",
]
#: Compression methods zipfile cannot read (shrink, implode, AES): set in the headers.
for method in (1, 6, 99):
    ODD_ARCHIVES.append(
        _zip([("index.mvsj", INDEX)], zipfile.ZIP_STORED)
        .replace(
            b"PK\x03\x04\x14\x00\x00\x00\x00\x00",
            b"PK\x03\x04\x14\x00\x00\x00" + bytes([method, 0]),
            1,
        )
        .replace(
            b"PK\x01\x02\x14\x03\x14\x00\x00\x00\x00\x00",
            b"PK\x01\x02\x14\x03\x14\x00\x00\x00" + bytes([method, 0]),
            1,
        )
    )
ODD_ARCHIVES.append(
    ODD_ARCHIVES[-1].replace(b"\x14\x00\x00\x00", b"\x14\x00\x01\x00", 1)
)  # encrypted flag


#: Texts a cell may pass that are not Stories: deep JSON, a long non-path, odd paths.
ODD_TEXTS = [
    '{"root": ' + "[" * 100_000,
    "{" + "x" * 300_000,
    "x" * 300_000,
    "../" * 2_000,
    "~nobody-here/x.mvsj",
    "a\x00b.mvsj",
    "/",
    "",
]


def _check(source: Any) -> None:
    started = time.perf_counter()
    story, _ = outcome(lambda: normalize_story_source(source), "story")
    if story is not None:
        title, steps = outcome(lambda: _outline(story.mvsj, story.mvsx), "story")[0]
        assert isinstance(title, str) and len(title) <= 200
        assert isinstance(steps, list) and len(steps) <= 50
    assert time.perf_counter() - started < 5, "a Story source took over 5 s"


#: The real Stories and three mutations of each drawn one (:func:`batches`).
_documents_strategy = batches(st.sampled_from(DOCUMENTS), 4)


def test_generated_story_documents_and_archives_are_read_or_refused_located() -> None:
    before = COUNTS["story"]

    @fuzz_settings(INPUTS // 30)
    @given(_documents_strategy, st.sampled_from(ARCHIVES + ODD_ARCHIVES), st.integers(0, 2**32))
    def check(documents: list[Any], archive: bytes, seed: int) -> None:
        for doc in documents:
            _check(doc)  # a dict
            try:
                text = json.dumps(doc)
            except (TypeError, ValueError):
                continue
            _check(text)
            for damaged in damaged_copies(text.encode(), random.Random(seed)):
                _check(damaged)
        _check(archive)
        _check(rng_text := ODD_TEXTS[seed % len(ODD_TEXTS)])
        _check(rng_text.encode())
        for damaged in damaged_copies(archive[:200_000], random.Random(seed)):
            _check(damaged)

    check()
    assert COUNTS["story"] - before >= INPUTS


def test_an_archive_is_never_inflated_past_the_story_limit() -> None:
    for archive in ODD_ARCHIVES:
        tracemalloc.start()
        try:
            _check(archive)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < MAX_STORY_BYTES // 4, f"reading an archive held {peak} bytes"
