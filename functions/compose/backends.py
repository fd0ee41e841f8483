"""Wiring for turns in this process: `TurnDeps`, the folder run store, the `LocalTurnService`.

The API's composition root (`functions/compose/deps.py`), `previously chat` and `previously maintain`
build their turn machinery here, so the choices live in one place.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

from core.clock import Clock, IdSource, RandomIds, SystemClock
from core.llm.registry import ModelRegistry
from core.storage.base import Storage
from core.storage.local import LocalStorage
from core.turn.deps import TurnDeps
from core.turn.local_service import LocalTurnService
from core.turn.runstore import MemoryRunStore, RunStore
from core.turn.runstore_fs import FolderRunStore
from core.turn.sink import RunStoreSinks
from functions.settings import Settings
from functions.web import build_web

RUNS_KEPT_DAYS = 14


def runs_root(settings: Settings, storage: Storage) -> Path:
    """$PREVIOUSLY_RUNS, else `<memory-root>.runs/` beside a local memory, else a temp folder."""
    if settings.runs_dir is not None:
        return settings.runs_dir
    if isinstance(storage, LocalStorage):
        root = storage.root.resolve()
        return root.parent / f"{root.name}.runs"
    return Path(tempfile.gettempdir()) / "previously-runs"


def build_run_store(settings: Settings, storage: Storage, clock: Clock | None = None) -> FolderRunStore:
    """The folder run store for this memory; runs untouched for two weeks are removed."""
    store = FolderRunStore(runs_root(settings, storage))
    store.prune((clock or SystemClock()).now() - timedelta(days=RUNS_KEPT_DAYS))
    return store


def memory_run_store(settings: Settings, storage: Storage, clock: Clock | None = None) -> RunStore:
    """The run store turns over this memory write, so every runner (serve, `previously chat`,
    `previously maintain`) reads the same runs and recovers what another one left behind.
    The demo saves nothing, runs included."""
    return MemoryRunStore() if storage.demo else build_run_store(settings, storage, clock)


def build_turn_deps(
    settings: Settings,
    storage: Storage,
    run_store: RunStore,
    *,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    registry: ModelRegistry | None = None,
) -> TurnDeps:
    """Everything a turn step needs, from the settings and the chosen storage and run store."""
    from functions.llm import build_registry

    clock = clock or SystemClock()
    return TurnDeps(
        storage=storage,
        clock=clock,
        ids=ids or RandomIds(),
        run_store=run_store,
        models=registry if registry is not None else build_registry(settings, clock),
        sink_for=RunStoreSinks(run_store),
        demo=storage.demo,
        web=build_web(settings),
        turn_timeout=timedelta(minutes=settings.turn_timeout_minutes),
    )


def build_local_turns(
    settings: Settings, storage: Storage, run_store: RunStore, *, clock: Clock | None = None
) -> LocalTurnService:
    """The in-process TurnService (the local server and `previously chat`)."""
    return LocalTurnService(build_turn_deps(settings, storage, run_store, clock=clock))
