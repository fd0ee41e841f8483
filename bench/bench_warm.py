"""Search through the index a server keeps open, against reopening it and against the CLI's kept one.

`/api/search` and MCP `search`/`recall` ask `WarmIndex.open(snapshot)` per request
(core/search/warm.py): it checks versions and folder times and reloads only what changed. The
CLI's batch recall opens the index once. Side by side in one run, at 100 / 1,000 / 10,000
slices of `bench/memory_gen.py` on a folder, per question (CPU ms, p50 / p95):

    python -m bench warm
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.bench_recall import CLOCK, build_here, questions
from bench.memory_gen import _WORDS, generate
from core.search import open_index
from core.search.warm import WarmIndex
from core.storage.local import LocalStorage

SIZES = (100, 1_000, 10_000)


def _cpu(ask: Callable[[str], object], qs: list[str]) -> tuple[float, float]:
    times = []
    for q in qs:
        started = time.thread_time()
        ask(q)
        times.append((time.thread_time() - started) * 1000)
    ordered = sorted(times)
    return statistics.median(ordered), ordered[max(0, round(0.95 * len(ordered)) - 1)]


def measure(root: Path) -> dict[str, tuple[float, float]]:
    storage = LocalStorage(root)
    qs = questions(list(_WORDS))[:60]
    kept = open_index(storage.snapshot())
    warm = WarmIndex()
    warm.open(storage.snapshot())  # a server's first question loads it
    time.sleep(2.1)  # past the two-second window in which a just-written folder is read again
    return {
        "reopen": _cpu(lambda q: open_index(storage.snapshot()).search(q, 10, CLOCK.now()), qs),
        "warm": _cpu(lambda q: warm.open(storage.snapshot()).search(q, 10, CLOCK.now()), qs),
        "kept (CLI)": _cpu(lambda q: kept.search(q, 10, CLOCK.now()), qs),
    }


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            root = Path(tmp) / str(size)
            generate(root, size)
            build_here(root)
            rows.append((size, measure(root)))
    columns = ("slices", "reopen p50/p95", "warm p50/p95", "kept p50/p95", "warm/kept p50")
    print(" | ".join(f"{c:>15}" for c in columns))
    for size, m in rows:
        cells = " | ".join(f"{m[k][0]:6.1f} /{m[k][1]:6.1f}" for k in ("reopen", "warm", "kept (CLI)"))
        print(f"{size:>7,} | {cells} | {m['warm'][0] / m['kept (CLI)'][0]:.2f}×")


if __name__ == "__main__":
    main()
