"""What the owners' checks (core/memory/owners/, issue 29) add to `maintain` and to a turn, side by
side in one run: 100 / 1,000 / 10,000 slices, each with core.md, agent.md and previously.md (and a
picture in every 20th), in a local folder.

"Without" switches every owner check off at once: maintenance's re-check of the slice files
(`refresh_slice_checks`) and of the authored files outside the slices (`damaged_authored`), the
card read through its owner (`live_card`, `card_text`: the cap, UTF-8 and the snapshot fallback)
and the derived files' guarded update (`update_derived`: one read before the queued change) —
each replaced by the plain read or update it wraps.

maintain: each pass opens the folder afresh, as `previously maintain` in a new process does, and
runs `run_maintenance(use_model=False)`. turn: an ordinary turn appended to the open slice against
the fake model server; its non-model time (wall time minus the time spent waiting on the model).
The two arms alternate (so drift in the shared machine's load hits both alike), each repeated,
and the medians and their ratio are printed side by side. Also: the slice-file check alone on an
unchanged memory, after one folder changed, and on its first pass (no record yet: every file read).
`python -m bench slice_checks`; BENCH_SLICE_CHECKS_SIZES=100,1000 picks sizes,
BENCH_SLICE_CHECKS_REPEAT the repeats (default 5; 3 at 10,000 slices).
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

import core.jobs.maintain as maintain_module
import core.memory.catalog.weave as weave_module
import core.turn.evolving as evolving_module
import core.turn.prompting as prompting_module
import core.turn.steps.analyze as analyze_module
from bench.bench_turn import Bench
from bench.memory_gen import generate
from core.clock import FixedClock
from core.jobs.maintain import run_maintenance
from core.memory import paths
from core.memory.owners.card import LiveCard
from core.memory.owners.slice_files import recorded_damage, refresh_slice_checks
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.images import jpeg
from tests.functional.turn_support import make_harness

SIZES = (100, 1_000, 10_000)
T = TypeVar("T")
REPEAT = int(os.environ.get("BENCH_SLICE_CHECKS_REPEAT", "5"))
# maintain's clock moves this much between passes (the scheduled run's 15 minutes): on a local
# folder each pass then also compares the file stamps of the quarter of the folders due.
CADENCE = timedelta(minutes=15)
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
    past = time.time() - 3600  # written an hour ago, as a memory's files were: out of the racy window
    for folder, _, files in os.walk(root):
        for name in files:
            os.utime(Path(folder) / name, (past, past))
        os.utime(folder, (past, past))
    last = paths.parse_slice_id(ids[-1]).started
    assert last is not None
    return ids, last + timedelta(days=2)  # nothing active: nothing to close


def _storage(root: Path) -> LocalStorage:
    """The memory as `previously maintain` opens it: with its folder times kept between
    processes in the cache folder (functions/compose/backends.py; core/storage/folder_memo.py)."""
    return LocalStorage(root, folder_memo=root.parent / f"{root.name}.folders.json")


def _maintain(root: Path, now: datetime) -> float:
    deps = make_harness(_storage(root), FixedClock(now), None).deps  # a fresh folder view
    start = time.perf_counter()
    report = run_maintenance(deps, use_model=False)
    elapsed = time.perf_counter() - start
    assert report.stopped is None and report.damaged == [], report.damaged
    return elapsed


def _check(root: Path, now: datetime) -> float:
    batch = WriteBatch.open(_storage(root))
    start = time.perf_counter()
    assert refresh_slice_checks(batch, now) == []
    elapsed = time.perf_counter() - start
    batch.commit("bench: checks")
    return elapsed


def _page(root: Path) -> float:
    """What GET /api/state adds: reading the record back (and each named file's token)."""
    start = time.perf_counter()
    assert recorded_damage(_storage(root).snapshot()) == []
    return time.perf_counter() - start


def _plain_card(view: Any) -> LiveCard:
    return LiveCard(view.read(paths.CARD))


def _plain_text(view: Any) -> str | None:
    return cast("str | None", view.read(paths.CARD))


def _plain_update(batch: Any, path: paths.MemoryPath, fn: Callable[[str | None], str | None]) -> None:
    batch.update(path, fn)


# (module, attribute, stand-in): every owner check the turn and maintain run, and the plain
# read or update it wraps.
_OFF: list[tuple[Any, str, Any]] = [
    (maintain_module, "refresh_slice_checks", lambda batch, now=None: []),
    (maintain_module, "damaged_authored", lambda view: []),
    (maintain_module, "card_text", _plain_text),
    (evolving_module, "card_text", _plain_text),
    (evolving_module, "live_card", _plain_card),
    (prompting_module, "live_card", _plain_card),
    (analyze_module, "live_card", _plain_card),
    (weave_module, "update_derived", _plain_update),
]


def _without_checks(fn: Callable[[], T]) -> T:
    real = [(module, name, getattr(module, name)) for module, name, _ in _OFF]
    for module, name, stand_in in _OFF:
        setattr(module, name, stand_in)
    try:
        return fn()
    finally:
        for module, name, value in real:
            setattr(module, name, value)


def _turns(root: Path, now: datetime, fake: FakeModelServer, repeat: int) -> tuple[list[float], list[float]]:
    """Non-model seconds of ordinary turns on the open slice, with and without the checks, alternately."""
    bench = Bench(_storage(root), FixedClock(now), fake)
    assert bench.turn("Let's plan the garden.")["status"] == "done"  # opens the slice
    with_checks: list[float] = []
    without: list[float] = []
    for i in range(repeat):
        r = bench.turn(f"A thought, number {i}.")
        with_checks.append(r["wall"] - r["model"])
        r = _without_checks(partial(bench.turn, f"Another thought, number {i}."))
        without.append(r["wall"] - r["model"])
    return with_checks, without


def _measure(count: int, fake: FakeModelServer) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="bench-slice-checks-"))
    repeat = REPEAT if count < 10_000 else min(REPEAT, 3)
    try:
        ids, now = _memory(root, count)
        _maintain(root, now)  # indexes, search index and the record: the steady state
        _maintain(root, now)
        with_check, without = [], []
        passes = iter(now + CADENCE * n for n in range(1, 1000))  # a pass each CADENCE, as cron
        for _ in range(repeat):
            with_check.append(_maintain(root, next(passes)))
            without.append(_without_checks(lambda: _maintain(root, next(passes))))
        unchanged = statistics.median(_check(root, next(passes)) for _ in range(REPEAT))
        page = statistics.median(_page(root) for _ in range(REPEAT))
        (root / paths.agent_md(ids[len(ids) // 2]).value).write_text("## Cognition x\n", encoding="utf-8")
        one_changed = _check(root, next(passes))
        (root / paths.SLICE_CHECKS_JSON.value).unlink()
        first = _check(root, next(passes))
        turn_with, turn_without = _turns(root, now, fake, repeat)
        return {
            "with": statistics.median(with_check),
            "without": statistics.median(without),
            "turn with": statistics.median(turn_with),
            "turn without": statistics.median(turn_without),
            "check": unchanged,
            "page": page,
            "one changed": one_changed,
            "first": first,
            "record": (root / paths.SLICE_CHECKS_JSON.value).stat().st_size,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)
        root.parent.joinpath(f"{root.name}.folders.json").unlink(missing_ok=True)


def main() -> None:
    wanted = os.environ.get("BENCH_SLICE_CHECKS_SIZES")
    sizes = tuple(int(s) for s in wanted.split(",")) if wanted else SIZES
    with FakeModelServer() as fake:
        rows = {count: _measure(count, fake) for count in sizes}
    print(f"owner checks on and off, unchanged local memory, medians ({datetime.now(UTC):%F})")
    head = ("slices", "maintain off", "on", "ratio", "turn off", "on", "ratio")
    widths = (8, 13, 10, 7, 10, 8, 7)
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, widths, strict=True)))
    for count, r in rows.items():
        print(
            f"{count:>8,} {r['without'] * 1000:>11.0f}ms {r['with'] * 1000:>8.0f}ms "
            f"{r['with'] / r['without']:>6.2f}x "
            f"{r['turn without'] * 1000:>8.0f}ms {r['turn with'] * 1000:>6.0f}ms "
            f"{r['turn with'] / r['turn without']:>6.2f}x"
        )
    more = ("slices", "check", "1 changed", "first", "record", "page")
    print(" ".join(f"{h:>{w}}" for h, w in zip(more, (8, 9, 10, 9, 9, 8), strict=True)))
    for count, r in rows.items():
        print(
            f"{count:>8,} {r['check'] * 1000:>7.1f}ms {r['one changed'] * 1000:>8.1f}ms "
            f"{r['first'] * 1000:>7.0f}ms {r['record'] / 1000:>7.0f}KB {r['page'] * 1000:>6.1f}ms"
        )
    print("turn: an ordinary turn on the open slice, non-model time (wall minus model waits);")
    print("check: the slice-file check alone on the unchanged memory (its own folder listing")
    print("included; maintain lists the slices anyway); 1 changed: one folder's agent.md rewritten;")
    print("first: no record yet (every agent.md, previously.md and picture read once);")
    print("page: what GET /api/state adds (checked.json read back)")


if __name__ == "__main__":
    main()
