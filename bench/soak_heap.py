"""Bench-only Jupyter server extension: tracemalloc snapshots of the server on SIGUSR1.

Loaded by ``bench/soak.mjs`` when ``MOLSPACE_SOAK_HEAP_DIR`` is set (the bench puts
``bench/`` on the server's ``sys.path`` and enables this module in the server's config);
never shipped. On load it starts ``tracemalloc`` (25 frames). On each SIGUSR1 the server's
event loop (not the signal handler) collects garbage, takes a snapshot and writes
``heap-<n>.json`` into the directory:

- ``rssMB``, ``tracedMB`` (tracemalloc's current and peak), ``blocks``;
- ``top``: the 40 allocation sites (by line) holding the most memory now;
- ``growth``: the 40 tracebacks whose memory grew the most since the first snapshot
  (size and count now, and their change), each traceback innermost frame first;
- ``types``: object counts by type (``gc.get_objects()``), the 40 that grew most since the
  first snapshot.

The first snapshot is kept in memory as the baseline (it is taken after the soak's warm-up).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

FRAMES = 25
TOP = 40


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _type_name(t: type) -> str:
    # Some classes' __module__ / __qualname__ are descriptors, not strings.
    module = getattr(t, "__module__", None)
    name = getattr(t, "__qualname__", None)
    return f"{module if isinstance(module, str) else '?'}.{name if isinstance(name, str) else '?'}"


def _types() -> Counter[str]:
    return Counter(_type_name(type(o)) for o in gc.get_objects())


def _frames(tb: tracemalloc.Traceback) -> list[str]:
    # A tracemalloc.Traceback iterates oldest call first (Python >= 3.7): reverse it.
    return [f"{fr.filename}:{fr.lineno}" for fr in reversed(list(tb))]


class _Heap:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.n = 0
        self.first: tracemalloc.Snapshot | None = None
        self.first_types: Counter[str] | None = None
        self.t0 = time.monotonic()

    def take(self) -> None:
        gc.collect()
        snap = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)]
        )
        types = _types()
        current, peak = tracemalloc.get_traced_memory()
        record: dict[str, Any] = {
            "n": self.n,
            "seconds": round(time.monotonic() - self.t0, 1),
            "rssMB": round(_rss_mb(), 1),
            "tracedMB": round(current / 2**20, 2),
            "tracedPeakMB": round(peak / 2**20, 2),
            "blocks": len(snap.traces),
            "top": [
                {"where": str(s.traceback[0]), "KiB": round(s.size / 1024, 1), "count": s.count}
                for s in snap.statistics("lineno")[:TOP]
            ],
        }
        if self.first is None:
            self.first = snap
            self.first_types = types
        else:
            diffs = snap.compare_to(self.first, "traceback")
            diffs.sort(key=lambda d: d.size_diff, reverse=True)
            record["growth"] = [
                {
                    "KiB": round(d.size / 1024, 1),
                    "diffKiB": round(d.size_diff / 1024, 1),
                    "count": d.count,
                    "diffCount": d.count_diff,
                    "traceback": _frames(d.traceback),
                }
                for d in diffs[:TOP]
            ]
            assert self.first_types is not None
            grown = {k: types[k] - self.first_types.get(k, 0) for k in types}
            record["types"] = [
                {"type": k, "count": types[k], "diff": v}
                for k, v in sorted(grown.items(), key=lambda kv: kv[1], reverse=True)[:TOP]
            ]
        (self.out / f"heap-{self.n:03d}.json").write_text(json.dumps(record, indent=1))
        self.n += 1


def _load_jupyter_server_extension(serverapp: Any) -> None:
    out = Path(os.environ["MOLSPACE_SOAK_HEAP_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    if not tracemalloc.is_tracing():
        tracemalloc.start(FRAMES)
    heap = _Heap(out)

    def on_signal(signum: int, frame: Any) -> None:
        # In the main thread, between bytecodes of the running loop: only schedule.
        asyncio.get_running_loop().call_soon_threadsafe(heap.take)

    signal.signal(signal.SIGUSR1, on_signal)
    serverapp.log.warning("soak_heap: tracemalloc on (%d frames); SIGUSR1 writes %s", FRAMES, out)
