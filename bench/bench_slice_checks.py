"""What checking the slice files other than core.md for damage (core/memory/owners/slice_files.py)
adds to `maintain` on an undamaged, unchanged memory: 100 / 1,000 / 10,000 slices, each with
core.md, agent.md and previously.md (and a picture in every 20th), in a local folder.

Each pass opens the folder afresh, as `previously maintain` in a new process does (no file
version is remembered), and runs `run_maintenance(use_model=False)` with the check and with it
left out, alternately; the medians and their ratio are printed side by side. Also: the check alone
on an unchanged memory, after one folder changed, and on its first pass (no record yet: every
file is read). `python -m bench slice_checks`; BENCH_SLICE_CHECKS_SIZES=100,1000 picks sizes.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import core.jobs.maintain as maintain_module
from bench.memory_gen import generate
from core.clock import FixedClock
from core.jobs.maintain import run_maintenance
from core.memory import paths
from core.memory.owners.slice_files import recorded_damage, refresh_slice_checks
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from tests.fakes.images import jpeg
from tests.functional.turn_support import make_harness

SIZES = (100, 1_000, 10_000)
REPEAT = 5
AGENT_MD = (
    "## Cognition {sid} — {sid}T10:00:00.000Z\n\n### Thinking\n" + "Weighing what was said. " * 60 + "\n"
)
SNAPSHOT = "# Previously On\n\n## Identity\n" + "- Lives by the sea and likes early trains.\n" * 25


def _memory(root: Path, count: int) -> tuple[list[str], datetime]:
    ids = generate(root, count)
    picture = jpeg()
    for n, sid in enumerate(ids):
        (root / paths.agent_md(sid).value).write_text(AGENT_MD.format(sid=sid), encoding="utf-8")
        (root / paths.card_snapshot(sid).value).write_text(SNAPSHOT, encoding="utf-8")
        if n % 20 == 0:
            image = root / (paths.slice_dir(sid) / "images/t1-1.jpg").value
            image.parent.mkdir(parents=True, exist_ok=True)
            image.write_bytes(picture)
    last = paths.parse_slice_id(ids[-1]).started
    assert last is not None
    return ids, last + timedelta(days=2)  # nothing active: nothing to close


def _maintain(root: Path, now: datetime) -> float:
    deps = make_harness(LocalStorage(root), FixedClock(now), None).deps  # a fresh folder view
    start = time.perf_counter()
    report = run_maintenance(deps, use_model=False)
    elapsed = time.perf_counter() - start
    assert report.stopped is None and report.damaged == [], report.damaged
    return elapsed


def _check(root: Path) -> float:
    batch = WriteBatch.open(LocalStorage(root))
    start = time.perf_counter()
    assert refresh_slice_checks(batch) == []
    elapsed = time.perf_counter() - start
    batch.commit("bench: checks")
    return elapsed


def _page(root: Path) -> float:
    """What GET /api/state adds: reading the record back (and each named file's token)."""
    start = time.perf_counter()
    assert recorded_damage(LocalStorage(root).snapshot()) == []
    return time.perf_counter() - start


def _without_check(fn: Callable[[], float]) -> float:
    real = maintain_module.refresh_slice_checks
    maintain_module.refresh_slice_checks = lambda batch: []  # type: ignore[assignment]
    try:
        return fn()
    finally:
        maintain_module.refresh_slice_checks = real


def _measure(count: int) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="bench-slice-checks-"))
    try:
        ids, now = _memory(root, count)
        _maintain(root, now)  # indexes, search index and the record: the steady state
        _maintain(root, now)
        with_check, without = [], []
        # Alternate, so drift in the machine's load hits both alike.
        for _ in range(REPEAT if count < 10_000 else 3):
            with_check.append(_maintain(root, now))
            without.append(_without_check(lambda: _maintain(root, now)))
        unchanged = statistics.median(_check(root) for _ in range(REPEAT))
        page = statistics.median(_page(root) for _ in range(REPEAT))
        (root / paths.agent_md(ids[len(ids) // 2]).value).write_text("## Cognition x\n", encoding="utf-8")
        one_changed = _check(root)
        (root / paths.SLICE_CHECKS_JSON.value).unlink()
        first = _check(root)
        return {
            "with": statistics.median(with_check),
            "without": statistics.median(without),
            "check": unchanged,
            "page": page,
            "one changed": one_changed,
            "first": first,
            "record": (root / paths.SLICE_CHECKS_JSON.value).stat().st_size,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    wanted = os.environ.get("BENCH_SLICE_CHECKS_SIZES")
    sizes = tuple(int(s) for s in wanted.split(",")) if wanted else SIZES
    rows = {count: _measure(count) for count in sizes}
    print(f"maintain --no-model, unchanged local memory, fresh folder view, medians ({datetime.now(UTC):%F})")
    head = ("slices", "without", "with", "ratio", "check", "1 changed", "first", "record", "page")
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, (8, 10, 10, 7, 9, 10, 9, 9, 8), strict=True)))
    for count, r in rows.items():
        print(
            f"{count:>8,} {r['without'] * 1000:>8.0f}ms {r['with'] * 1000:>8.0f}ms "
            f"{r['with'] / r['without']:>6.2f}x "
            f"{r['check'] * 1000:>7.1f}ms {r['one changed'] * 1000:>8.1f}ms {r['first'] * 1000:>7.0f}ms "
            f"{r['record'] / 1000:>7.0f}KB {r['page'] * 1000:>6.1f}ms"
        )
    print("check: the new check alone on the unchanged memory (its own folder listing included;")
    print("maintain lists the slices anyway); 1 changed: one folder's agent.md rewritten;")
    print("first: no record yet (every agent.md, previously.md and picture read once);")
    print("page: what GET /api/state adds (checked.json read back)")


if __name__ == "__main__":
    main()
