"""One turn's own cost: non-model time on a 10,000-slice local memory, and GitHub requests per turn.

The fake model server answers at once, and the time spent inside model calls is measured and
subtracted, so the figures are the turn machinery alone (storage, indexes, prompt, events).
Against the GitHub stand-in: requests per route and commits of a cold and a warm ordinary
turn (target: at most one tree listing, only changed blobs, two commits).
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.memory_gen import generate
from core.clock import FixedClock, SequentialIds, iso
from core.llm.registry import ModelRegistry, ProviderConfig, default_client
from core.llm.types import ModelClient, ModelRequest, StreamEvent
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.paths import SLICES
from core.search import refresh_index
from core.storage.base import Storage, WriteBatch
from core.storage.local import LocalStorage
from core.turn.deps import TurnDeps
from core.turn.events import TERMINAL_TYPES, Event
from core.turn.local_service import LocalTurnService
from core.turn.runstore import MemoryRunStore
from core.turn.service import TurnInput
from core.turn.sink import RunStoreSinks
from tests.fakes.brain import ANALYZER, CONSOLIDATOR, MARKER, Brain, analysis
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer

LOCAL_SLICES = 10_000
GITHUB_SLICES = 2_000
WARM_TURNS = 5


class TimedClient:
    """A model client that adds up the time spent waiting for the model."""

    def __init__(self, inner: ModelClient, total: list[float]) -> None:
        self.inner = inner
        self.total = total
        self.lock = threading.Lock()

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        events = iter(self.inner.stream(request))
        while True:
            start = time.perf_counter()
            try:
                event = next(events)
            except StopIteration:
                return
            finally:
                with self.lock:
                    self.total[0] += time.perf_counter() - start
            yield event


class TimedRuns(MemoryRunStore):
    """A run store that notes when the turn's terminal event arrives (what the user waits for)."""

    ended_at = 0.0

    def append(self, turn_id: str, events: list[Event]) -> list[Event]:
        stored = super().append(turn_id, events)
        if any(e["type"] in TERMINAL_TYPES for e in events):
            self.ended_at = time.perf_counter()
        return stored


class Bench:
    """A turn service over `storage` with a timed fake model."""

    def __init__(self, storage: Storage, clock: FixedClock, fake: FakeModelServer) -> None:
        self.model_seconds = [0.0]
        registry = ModelRegistry(
            ProviderConfig(openai_base_url=fake.openai_base_url),
            clock=clock,
            client_factory=lambda p: TimedClient(default_client(p), self.model_seconds),
            sleep=lambda _: None,
        )
        runs = self.runs = TimedRuns()
        self.deps = TurnDeps(storage, clock, SequentialIds(), runs, registry, RunStoreSinks(runs))
        self.service = LocalTurnService(self.deps)
        self.brain = Brain.install(fake)
        self.brain.reports[ANALYZER] = analysis(["garden"])
        self.brain.reports[CONSOLIDATOR] = {"merges": []}
        self.brain.reports[MARKER] = {"focus": "A focus", "summary": "A summary."}
        self.brain.reports["finish"] = {"reasoning": "Nothing new.", "summary": ""}
        self.clock = clock

    def turn(self, message: str) -> dict[str, Any]:
        """Run one turn; its wall time, model time and status."""
        self.model_seconds[0] = 0.0
        self.brain.main("Sure — noted.")
        start = time.perf_counter()
        state = self.service.run(TurnInput(message, timezone="Europe/Lisbon"), timeout=600)
        wall = time.perf_counter() - start
        self.clock.advance(minutes=2)
        return {
            "status": state.status,
            "wall": wall,
            "reply": self.runs.ended_at - start,
            "model": self.model_seconds[0],
            "calls": sum(e["type"] == "model.call" for e in state.events),
        }


def _row(label: str, r: dict[str, Any]) -> str:
    own = (r["wall"] - r["model"]) * 1000
    ms = [r["reply"] * 1000, r["wall"] * 1000, r["model"] * 1000, own]
    return f"  {label:40} " + " ".join(f"{m:>9.0f}" for m in ms) + f" {r['calls']:>6}   {r['status']}"


def bench_local(tmp: Path, fake: FakeModelServer) -> None:
    """Non-model time of turns on a 10,000-slice local memory with its indexes built."""
    root = tmp / "local"
    t0 = time.perf_counter()
    ids = generate(root, LOCAL_SLICES)
    storage = LocalStorage(root)
    last = ids[-1]
    clock = FixedClock.at(f"{last[:10]}T{last[11:13]}:{last[13:]}:00.000Z")
    clock.advance(hours=6)
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, clock.now())
    refresh_index(batch, clock)
    batch.commit("bench: indexes")
    print(f"memory: {LOCAL_SLICES} slices, indexes built in {time.perf_counter() - t0:.0f} s")
    bench = Bench(storage, clock, fake)
    print(f"  {'turn':40} {'reply ms':>9} {'all ms':>9} {'model ms':>9} {'non-model':>9} {'calls':>6}")
    print(
        "  (reply: until turn.done; all: including the after step; non-model: all minus model time;"
        " calls: model requests, main + worker)"
    )
    print(_row("1st turn (new slice, cold process)", bench.turn("Let's plan the garden.")))
    warm = [bench.turn(f"Another thought, number {i}.") for i in range(WARM_TURNS)]
    for i, r in enumerate(warm, 2):
        print(_row(f"turn {i} (same slice)", r))
    own = [r["wall"] - r["model"] for r in warm]
    print(f"  ordinary turn, non-model: median {statistics.median(own) * 1000:.0f} ms")
    bench.clock.advance(minutes=40)
    print(_row("closing turn (time cap; all = with after)", bench.turn("Back after a break.")))


def bench_github(tmp: Path, fake_models: FakeModelServer) -> None:
    """Requests per route and commits of ordinary turns against the GitHub stand-in."""
    src = tmp / "gh-src"
    ids = generate(src, GITHUB_SLICES)
    found = (src / str(SLICES)).rglob("*.md")
    files = {str(p.relative_to(src)): p.read_text(encoding="utf-8") for p in found}
    last = ids[-1]
    clock = FixedClock.at(f"{last[:10]}T{last[11:13]}:{last[13:]}:00.000Z")
    clock.advance(hours=6)
    with FakeGitHub(tmp / "bench.git", seed=files) as fake:
        setup = fake.client(branch="main")
        batch = WriteBatch.open(setup)
        rebuild_indexes(batch, clock.now())
        batch.commit("bench: indexes")
        bench = Bench(fake.client(branch="main"), clock, fake_models)
        print(f"memory: {GITHUB_SLICES} slices on the GitHub stand-in ({len(files)} files)")
        for label, message in (("cold process, new slice", "Hello!"), ("warm, same slice", "And one more.")):
            fake.reset_counts()
            commits_before = len(fake.log())
            r = bench.turn(message)
            counts = Counter(fake.counts)
            commits = len(fake.log()) - commits_before
            print(f"  {label}: {sum(counts.values())} requests, {commits} commits, {r['wall'] * 1000:.0f} ms")
            for route, n in sorted(counts.items()):
                print(f"      {route:32} ×{n}")
        print(f"  (clock at {iso(clock.now())})")


def main() -> None:
    """Print both measurements."""
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as fake:
        bench_local(Path(tmp), fake)
        print()
        bench_github(Path(tmp), fake)


__all__ = ["main"]
