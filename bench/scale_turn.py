"""Turns for the scale benchmark: one turn in a fresh process against GitHub (`python -m
bench.scale_turn LAST_SLICE_ID`, the GITHUB_* settings from the environment), and the closing
turn's own time on a local memory of 10,000 slices against one of 100."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench.bench_turn import Bench
from bench.memory_gen import generate
from core.clock import FixedClock
from core.memory.catalog.rebuild import rebuild_indexes
from core.search import refresh_index
from core.storage.base import WriteBatch
from core.storage.github import GitHubStorage
from core.storage.local import LocalStorage
from tests.fakes.fake_model_server import FakeModelServer

ROUNDS = 3


def clock_after(slice_id: str, **later: float) -> FixedClock:
    """A clock some time after a slice's first minute."""
    clock = FixedClock.at(f"{slice_id[:10]}T{slice_id[11:13]}:{slice_id[13:]}:00.000Z")
    clock.advance(**later)
    return clock


def one_github_turn(last_id: str) -> None:
    """A turn a day after the newest slice: it opens a new slice (the others are closed)."""
    storage = GitHubStorage(
        os.environ["GITHUB_REPO"],
        os.environ["GITHUB_TOKEN"],
        branch=os.environ.get("GITHUB_BRANCH"),
        api_url=os.environ["GITHUB_API_URL"],
    )
    with FakeModelServer() as models:
        result = Bench(storage, clock_after(last_id, days=1), models).turn("Back again: how was the garden?")
    if result["status"] != "done":
        raise SystemExit(f"turn ended {result['status']}")


def closing_turn_ms(n: int, tmp: Path, models: FakeModelServer) -> float:
    """Median non-model time of a turn that closes a slice (time cap) and opens the next."""
    root = tmp / f"local-{n}"
    ids = generate(root, n)
    storage = LocalStorage(root)
    clock = clock_after(ids[-1], hours=6)
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, clock.now())
    refresh_index(batch, clock)
    batch.commit("bench: indexes")
    bench = Bench(storage, clock, models)
    own = []
    for i in range(ROUNDS + 1):
        bench.turn(f"Opening thought {i}.")
        clock.advance(minutes=40)  # past the slice's time cap: the next turn closes it
        r = bench.turn(f"Back after a break, {i}.")
        if i:  # the first round warms the process
            own.append(r["wall"] - r["model"])
        clock.advance(hours=2)
    return statistics.median(own) * 1000


def closing_turn_ratio() -> None:
    """Print the closing turn's non-model time at 100 and 10,000 local slices."""
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as models:
        small = closing_turn_ms(100, Path(tmp), models)
        large = closing_turn_ms(10_000, Path(tmp), models)
    print(
        f"\n  closing turn (local, non-model, median of {ROUNDS}): {small:.0f} ms at 100 slices, "
        f"{large:.0f} ms at 10,000 — {large / small:.2f}x (target ≤ 1.5x)"
    )


if __name__ == "__main__":
    one_github_turn(sys.argv[1])
