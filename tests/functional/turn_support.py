"""Helpers for the turn tests: a harness around LocalTurnService, and storage wrappers.

`RecordingStorage` records every commit that changed something (any backend); `FlakyStorage`
makes chosen commits fail in a chosen way, before or after the write lands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.clock import FixedClock, SequentialIds
from core.llm.registry import ModelRegistry, ProviderConfig
from core.memory.catalog.strand_shards import read_all_strands
from core.memory.paths import MEMORY, MemoryPath, core_md
from core.memory.slice.model import Slice, parse_core_md
from core.storage.base import Change, CommitResult, Snapshot, Storage
from core.turn.deps import TurnDeps
from core.turn.events import Event
from core.turn.local_service import LocalTurnService
from core.turn.runstore import MemoryRunStore, RunStore
from core.turn.service import TurnInput, TurnState
from core.turn.sink import RunStoreSinks
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer


@dataclass
class RecordingStorage:
    """Any storage, with the messages of the commits that wrote something."""

    inner: Storage
    commits: list[str] = field(default_factory=list)
    written: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def read_only(self) -> bool:
        return self.inner.read_only

    @property
    def demo(self) -> bool:
        return self.inner.demo

    def snapshot(self) -> Snapshot:
        return self.inner.snapshot()

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        result = self.inner.commit(changes, message, base)
        if result.changed:
            self.commits.append(message)
            self.written.append((message, tuple(p.value for p in result.written)))
        return result


@dataclass
class FlakyStorage(RecordingStorage):
    """Commits whose message contains `match` fail `times` times with `error`, after (`land`) or
    before the write reaches the inner storage."""

    match: str = ""
    times: int = 0
    error: Callable[[], Exception] = lambda: RuntimeError("boom")
    land: bool = False

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        if self.times > 0 and self.match in message:
            self.times -= 1
            if self.land:
                super().commit(changes, message, base)
            raise self.error()
        return super().commit(changes, message, base)


def registry_for(fake: FakeModelServer, clock: FixedClock) -> ModelRegistry:
    """A registry whose only provider is the fake server's OpenAI-compatible endpoint."""
    return ModelRegistry(
        ProviderConfig(openai_base_url=fake.openai_base_url), clock=clock, sleep=lambda _: None
    )


class HookedSinks(RunStoreSinks):
    """The in-process sinks, calling `hooks` after every stored event (to act mid-turn in tests)."""

    def __init__(self, run_store: RunStore) -> None:
        super().__init__(run_store)
        self.hooks: list[Callable[[Event], None]] = []

    def __call__(self, turn_id: str, step: str, attempt: int, item: int | None = None) -> Any:
        sink = super().__call__(turn_id, step, attempt, item)
        hooks = self.hooks

        class Hooked:
            def emit(self, type: Any, **fields: Any) -> Event:
                event = sink.emit(type, **fields)
                for hook in list(hooks):
                    hook(event)
                return event

        return Hooked()


@dataclass
class Harness:
    """A memory, a clock, a run store and the in-process turn service over them."""

    storage: RecordingStorage
    clock: FixedClock
    runs: RunStore
    deps: TurnDeps
    service: LocalTurnService
    brain: Brain | None = None
    sleeps: list[float] = field(default_factory=list)

    @property
    def hooks(self) -> list[Callable[[Event], None]]:
        """Called with every event as it is stored."""
        sinks = self.deps.sink_for
        assert isinstance(sinks, HookedSinks)
        return sinks.hooks

    def turn(self, message: str, **request: Any) -> TurnState:
        """Run one turn to its end (including the best-effort after step)."""
        request.setdefault("timezone", "Europe/Berlin")
        return self.service.run(TurnInput(message, **request), timeout=60)

    def files(self) -> dict[str, str]:
        snap = self.storage.snapshot()
        # Pictures are bytes: decoded reversibly so a comparison still sees every byte.
        listed = snap.list(MEMORY)
        return {p.value: (snap.read_bytes(p) or b"").decode("utf-8", "surrogateescape") for p in listed}

    def slice(self, slice_id: str) -> Slice:
        text = self.storage.snapshot().read(core_md(slice_id))
        assert text is not None, f"no slice {slice_id}"
        return parse_core_md(text)

    def read(self, path: str) -> str | None:
        return self.storage.snapshot().read(MemoryPath(path))

    def strands(self) -> dict[str, list[str]]:
        """Every strand as the memory holds it now (shards, or a single strands.json)."""
        return read_all_strands(self.storage.snapshot())

    def read_bytes(self, path: str) -> bytes | None:
        return self.storage.snapshot().read_bytes(MemoryPath(path))


def make_harness(
    storage: Storage,
    clock: FixedClock,
    fake: FakeModelServer | None,
    *,
    model_timeout: float = 30.0,
    runs: RunStore | None = None,
) -> Harness:
    """A harness over `storage`; no fake server means no model configured."""
    recording = storage if isinstance(storage, RecordingStorage) else RecordingStorage(storage)
    runs = runs or MemoryRunStore()
    registry = registry_for(fake, clock) if fake is not None else ModelRegistry(ProviderConfig(), clock=clock)
    deps = TurnDeps(
        recording,
        clock,
        SequentialIds(),
        runs,
        registry,
        HookedSinks(runs),
        demo=storage.demo,
        model_timeout=model_timeout,
    )
    sleeps: list[float] = []
    service = LocalTurnService(deps, sleep=sleeps.append)
    brain = Brain.install(fake) if fake is not None else None
    return Harness(recording, clock, runs, deps, service, brain, sleeps)


def types_of(events: list[Event]) -> list[str]:
    """`type@step` of each event, in order."""
    return [f"{e['type']}@{e['step']}" for e in events]


def assert_gap_free(events: list[Event]) -> None:
    """seq runs 1, 2, 3 … without a gap or a repeat."""
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
