"""What the page's arrival costs: `GET /api/timeline`, `/api/state` and `/api/strands` at 100,
1,000 and 10,000 slices (a local memory woven by `rebuild_indexes`, the API over fakes):
the first request (nothing kept yet), the median of the next ones, and the bytes sent."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.memory_gen import generate
from core.memory.catalog.rebuild import rebuild_indexes
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from tests.functional.api_env import make_env

SIZES = (100, 1_000, 10_000)
ROUTES = ("/api/timeline", "/api/state?tz=UTC", "/api/strands", "/api/strands?counts=true")
REPEAT = 7
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _memory(root: Path, count: int) -> LocalStorage:
    generate(root, count)
    storage = LocalStorage(root)
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, NOW)
    batch.commit("bench: rebuild")
    return storage


def _measure(count: int) -> dict[str, tuple[float, float, int]]:
    root = Path(tempfile.mkdtemp(prefix="bench-arrival-"))
    try:
        client = make_env(storage=_memory(root, count)).client
        out = {}
        for route in ROUTES:
            times, size = [], 0
            for _ in range(REPEAT):
                start = time.perf_counter()
                r = client.get(route)
                times.append(time.perf_counter() - start)
                assert r.status_code == 200, (route, r.text[:200])
                size = len(r.content)
            out[route] = (times[0], statistics.median(times[1:]), size)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    results = {n: _measure(n) for n in SIZES}
    print(f"{'route':28} " + " ".join(f"{n:>26,}" for n in SIZES))
    for route in ROUTES:
        cells = []
        for n in SIZES:
            first, median, size = results[n][route]
            cells.append(f"{first * 1000:7.0f} / {median * 1000:5.1f} ms {size / 1024:6.1f} KB")
        print(f"{route:28} " + " ".join(f"{c:>26}" for c in cells))
    print("(first request / median of the next ones, and the body's size)")
    small, big = SIZES[0], SIZES[-1]
    for route in ROUTES:
        ratio = results[big][route][1] / max(results[small][route][1], 1e-9)
        kb = results[big][route][2] / 1024
        line = f"{ratio:4.1f}× the median (target ≤ 3×), {kb:.0f} KB (≤ 100)"
        print(f"{route:28} {big:,} / {small:,} slices: {line}")


if __name__ == "__main__":
    main()
