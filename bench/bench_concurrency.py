"""Turns side by side, and the save step's cost against the archive's size.

1. 16 clients at once against a model that takes 0.5 s per call, default settings (a slice
   closes at its turn cap during the run): the in-process service holds no lock across a model
   call (only the model-free save step is ordered) and the close passes run after the closing
   turn's answer, so throughput should be at least 8× one client's and the slowest answer
   within 3× the model's time.
2. The save + analyze steps' non-model time (everything before the main model answers) on
   memories of growing size: it should stay flat, since a turn never lists or parses the whole
   archive (a new slice rewrites the catalog once; that row is shown apart).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.bench_turn import TimedClient
from bench.memory_gen import generate
from core.clock import FixedClock, RandomIds
from core.llm.registry import ModelRegistry, ProviderConfig, default_client
from core.memory.catalog.rebuild import rebuild_indexes
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from core.turn.deps import TurnDeps
from core.turn.local_service import LocalTurnService
from core.turn.runstore import MemoryRunStore
from core.turn.service import TurnInput
from core.turn.sink import RunStoreSinks
from core.turn.steps import STEP_TABLE
from tests.fakes.brain import ANALYZER, Brain, analysis
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply

MODEL_SECONDS = 0.5
CLIENTS = 16
TURNS_PER_CLIENT = 3
SIZES = (100, 1_000, 5_000)
# The memory lives in RAM when it can: a local commit fsyncs every file, and on a busy disk the
# fsyncs (not the turn machinery) would set the pace.
SCRATCH = "/dev/shm" if Path("/dev/shm").is_dir() else None


class SlowBrain(Brain):
    """Every answer takes MODEL_SECONDS while `slow`, as a real provider would."""

    slow = True

    def __call__(self, request: RecordedRequest) -> Reply:
        reply = super().__call__(request)
        if self.slow:
            reply = dataclasses.replace(reply, delay=MODEL_SECONDS)
        return reply


def service_over(root: Path, clock: FixedClock, fake: FakeModelServer) -> LocalTurnService:
    registry = ModelRegistry(
        ProviderConfig(openai_base_url=fake.openai_base_url), clock=clock, sleep=lambda _: None
    )
    runs = MemoryRunStore()
    deps = TurnDeps(LocalStorage(root), clock, RandomIds(), runs, registry, RunStoreSinks(runs))
    return LocalTurnService(deps)


def answer(service: LocalTurnService, message: str) -> float:
    """Seconds from sending `message` to its answer (`turn.done`; close passes may run on)."""
    start = time.perf_counter()
    turn_id = service.start(TurnInput(message))
    state = service.wait(turn_id, 0, 300)
    while state.status == "running":
        state = service.wait(turn_id, 0, 300)
    assert state.status == "done", state.events[-1]
    return time.perf_counter() - start


def throughput(clients: int, tmp: Path, fake: FakeModelServer) -> tuple[float, float]:
    """Turns per second with `clients` each sending TURNS_PER_CLIENT messages one after another,
    default settings (a slice closes at its turn cap mid-run); and the slowest answer in seconds."""
    root = tmp / f"clients-{clients}"
    service = service_over(root, FixedClock.at("2026-08-11T11:15:00.000Z"), fake)
    service.run(TurnInput("Warm up."), timeout=120)
    slowest = [0.0]

    def client(n: int) -> None:
        for i in range(TURNS_PER_CLIENT):
            slowest[0] = max(slowest[0], answer(service, f"Client {n}, message {i}."))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return clients * TURNS_PER_CLIENT / (time.perf_counter() - start), slowest[0]


def pre_model_ms(size: int, tmp: Path, fake: FakeModelServer) -> tuple[float, float]:
    """Non-model ms of save + analyze: the turn opening a slice, and the median of the next five."""
    root = tmp / f"memory-{size}"
    ids = generate(root, size)
    last = ids[-1]
    clock = FixedClock.at(f"{last[:10]}T{last[11:13]}:{last[13:]}:00.000Z")
    clock.advance(hours=6)
    storage = LocalStorage(root)
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, clock.now())
    batch.commit("bench: indexes")
    model = [0.0]
    registry = ModelRegistry(
        ProviderConfig(openai_base_url=fake.openai_base_url),
        clock=clock,
        client_factory=lambda p: TimedClient(default_client(p), model),
        sleep=lambda _: None,
    )
    runs = MemoryRunStore()
    deps = TurnDeps(storage, clock, RandomIds(), runs, registry, RunStoreSinks(runs))
    times = []
    for i in range(6):
        turn_id = f"b{i}"
        runs.put(turn_id, "request", TurnInput(f"Thought {i}.").to_json())
        model[0] = 0.0
        start = time.perf_counter()
        state = STEP_TABLE["save"].run({"turn_id": turn_id, "next": "save", "attempt": 1}, deps)
        STEP_TABLE["analyze"].run({**state, "attempt": 1}, deps)
        times.append((time.perf_counter() - start - model[0]) * 1000)
        clock.advance(minutes=1)
    return times[0], statistics.median(times[1:])


def main() -> None:
    global MODEL_SECONDS
    if len(sys.argv) > 1:
        MODEL_SECONDS = float(sys.argv[1])
    with FakeModelServer() as fake, tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        brain = SlowBrain.install(fake)
        brain.reports[ANALYZER] = analysis(["garden"])
        for _ in range(400):
            brain.main("Noted.")
        for _ in range(60):  # a slice closes at its turn cap (default 50): the card pass's answers
            brain.main("Noted.")
        one, one_slowest = throughput(1, Path(tmp), fake)
        many, slowest = throughput(CLIENTS, Path(tmp), fake)
        print(f"model: {MODEL_SECONDS} s per call, 2 calls per turn (analyzer, main); default settings")
        print(f"  1 client:   {one:.2f} turns/s   slowest answer {one_slowest:.1f} s")
        print(
            f"  {CLIENTS} clients: {many:.2f} turns/s  ({many / one:.1f}× one client's; target ≥ 8×)"
            f"   slowest answer {slowest:.1f} s ({slowest / MODEL_SECONDS:.1f}× the model's time; ≤ 3×)"
        )
        brain.slow = False
        print("save + analyze, non-model ms (a new slice rewrites the catalog once; then the same slice)")
        for size in SIZES:
            opening, ordinary = pre_model_ms(size, Path(tmp), fake)
            print(f"  {size:>6} slices: opening {opening:7.1f} ms   ordinary {ordinary:6.1f} ms")
