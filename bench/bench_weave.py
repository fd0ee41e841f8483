"""The full weave of a 10,000-slice local memory vs simply parsing its frontmatter; and `check`.

Budget (ARCHITECTURE §10): the weave from scratch within 1.5x of python-frontmatter parsing
every core.md. Both sides read the files from disk; rounds are interleaved and the best of
each is kept, so a busy machine slows both alike.
"""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import frontmatter

from bench.memory_gen import generate
from core.memory import paths
from core.memory.check import check_memory
from core.memory.rebuild import RebuildReport, rebuild_indexes
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage

N = 10_000
ROUNDS = 3
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _parse_all(files: list[Path]) -> float:
    start = time.perf_counter()
    for file in files:
        frontmatter.loads(file.read_text(encoding="utf-8"))
    return time.perf_counter() - start


def _weave(storage: LocalStorage) -> tuple[float, RebuildReport]:
    start = time.perf_counter()
    batch = WriteBatch.open(storage)
    report = rebuild_indexes(batch, NOW)
    batch.commit("bench: weave")
    return time.perf_counter() - start, report


def _forget_indexes(root: Path) -> None:
    """Remove every derived file so the next weave starts from scratch again."""
    for path in (paths.CATALOG_JSON, paths.TIMELINE_MD, paths.STRANDS_JSON):
        (root / str(path)).unlink(missing_ok=True)
    for monthly in root.glob("memory/episodic/slices/*/*/_index.json"):
        monthly.unlink()


def _peak_weave_mb(storage: LocalStorage) -> float:
    tracemalloc.start()
    rebuild_indexes(WriteBatch.open(storage), NOW)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="previously-bench-weave-"))
    try:
        start = time.perf_counter()
        generate(root, N)
        files = sorted(root.glob("memory/episodic/slices/*/*/*/*/timeline/core.md"))
        print(f"generated {len(files)} slices in {time.perf_counter() - start:.1f} s ({root})")
        storage = LocalStorage(root)
        _parse_all(files)  # warm the page cache for both sides
        baseline, ours = [], []
        for _ in range(ROUNDS):
            baseline.append(_parse_all(files))
            _forget_indexes(root)
            seconds, report = _weave(storage)
            ours.append(seconds)
        index_mb = (root / str(paths.CATALOG_JSON)).stat().st_size / 1e6
        start = time.perf_counter()
        checked = check_memory(storage.snapshot(), NOW)
        check_s = time.perf_counter() - start
        peak = _peak_weave_mb(storage)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    best_base, best_ours = min(baseline), min(ours)
    print(f"python-frontmatter, every core.md: {best_base:.2f} s")
    print(f"weave from scratch (read, strands, catalog, {report.months} months, write): {best_ours:.2f} s")
    print(f"ratio: {best_ours / best_base:.2f}x (budget 1.5x)")
    print(f"catalog: {report.catalog.total} entries, index.json {index_mb:.1f} MB")
    print(f"peak Python memory during a weave: {peak:.0f} MB; process max RSS {_max_rss_mb():.0f} MB")
    print(f"check: {check_s:.2f} s for {checked.files} files, {len(checked.findings)} findings")


def _max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
