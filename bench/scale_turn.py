"""Turns for the scale benchmark: one turn in a fresh process against GitHub (`python -m
bench.scale_turn LAST_SLICE_ID`, the storage built from the environment as the CLI builds it:
the GITHUB_* settings and the shared disk cache under HOME), and the closing turn's own time on
a local memory of 10,000 slices against one of 100."""

from __future__ import annotations

import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.bench_turn import Bench
from bench.memory_gen import generate
from core.clock import FixedClock
from core.memory.catalog.rebuild import rebuild_indexes
from core.search import refresh_index
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from functions.compose.backends import build_storage
from functions.settings import load_settings
from tests.fakes.fake_model_server import FakeModelServer

ROUNDS = 7


def clock_after(slice_id: str, **later: float) -> FixedClock:
    """A clock some time after a slice's first minute."""
    clock = FixedClock.at(f"{slice_id[:10]}T{slice_id[11:13]}:{slice_id[13:]}:00.000Z")
    clock.advance(**later)
    return clock


def one_github_turn(last_id: str) -> None:
    """A turn a day after the newest slice: it opens a new slice (the others are closed)."""
    storage = build_storage(load_settings())
    with FakeModelServer() as models:
        result = Bench(storage, clock_after(last_id, days=1), models).turn("Back again: how was the garden?")
    if result["status"] != "done":
        raise SystemExit(f"turn ended {result['status']}")


@dataclass
class ClosingBench:
    """A local memory of `n` slices with its indexes built, ready for closing turns."""

    bench: Bench
    clock: FixedClock

    @classmethod
    def build(cls, n: int, tmp: Path, models: FakeModelServer) -> ClosingBench:
        root = tmp / f"local-{n}"
        ids = generate(root, n)
        storage = LocalStorage(root)
        clock = clock_after(ids[-1], hours=6)
        batch = WriteBatch.open(storage)
        rebuild_indexes(batch, clock.now())
        refresh_index(batch, clock)
        batch.commit("bench: indexes")
        return cls(Bench(storage, clock, models), clock)

    def closing_turn(self, i: int) -> float:
        """Open a slice, let it pass its time cap, and time (ms, non-model) the turn that closes it."""
        self.bench.turn(f"Opening thought {i}.")
        self.clock.advance(minutes=40)  # past the slice's time cap: the next turn closes it
        r = self.bench.turn(f"Back after a break, {i}.")
        self.clock.advance(hours=2)
        return (r["wall"] - r["model"]) * 1000


def closing_turn_ratio() -> None:
    """Print the closing turn's non-model time at 100 and 10,000 local slices.

    The two memories take turns round by round, so a load spike on a shared machine falls on
    both sizes alike; the first round of each only warms the process.
    """
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as models:
        small, large = (
            ClosingBench.build(100, Path(tmp), models),
            ClosingBench.build(10_000, Path(tmp), models),
        )
        times: dict[int, list[float]] = {100: [], 10_000: []}
        for i in range(ROUNDS + 1):
            for n, memory in ((100, small), (10_000, large)):
                ms = memory.closing_turn(i)
                if i:
                    times[n].append(ms)
    a, b = statistics.median(times[100]), statistics.median(times[10_000])
    print(
        f"\n  closing turn (local, non-model, median of {ROUNDS}): {a:.0f} ms at 100 slices, "
        f"{b:.0f} ms at 10,000 — {b / a:.2f}x (target ≤ 1.5x)"
    )


if __name__ == "__main__":
    one_github_turn(sys.argv[1])
