"""The local entrypoints' containers: the server's `Deps`, and the turn wiring CLI commands ask for.

Turns run on threads of this process over the folder run store beside the memory (the demo
keeps its runs in memory); serve runs maintenance on a timer and recovery once at start.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from core.clock import Clock, SystemClock
from core.llm.registry import ModelRegistry
from core.storage.base import Storage
from core.turn.deps import TurnDeps
from core.turn.local_service import LocalTurnService
from functions.compose import demo
from functions.compose.backends import (
    build_run_store,
    build_security,
    build_storage,
    build_turn_deps,
    memory_run_store,
    secret_file,
    unsaved_run_store,
)
from functions.compose.deps import Deps, Shared
from functions.settings import Settings


def build_deps(
    settings: Settings,
    *,
    memory_override: Path | None = None,
    require_auth: bool = True,
    clock: Clock | None = None,
) -> Deps:
    """The local server's Deps over the memory the settings (or `--memory DIR`) name. A demo
    folder with several personas gets one Deps per persona (`Deps.cast`), and every demo gives
    each visitor their own (`Deps.visitors`), all kept in this process."""
    from functions.llm import build_registry

    clock = clock or SystemClock()
    storage = build_storage(settings, memory_override)
    security = build_security(settings, require_auth, secret_file(settings, storage))
    shared = Shared(settings, clock, build_registry(settings, clock), security)
    deps = _deps_over(shared, storage)
    if not storage.demo:
        return deps
    from core.storage.demo import DemoStorage

    def seat_deps(seat: demo.Seat) -> Deps:
        return _deps_over(shared, DemoStorage(seat.persona.root))

    return demo.add_demo(deps, memory_override or demo.SAMPLE_ROOT, seat_deps, demo.VisitorTerms())


def _deps_over(shared: Shared, storage: Storage) -> Deps:
    """The Deps over one storage: turns on threads of this process, maintenance on a timer."""
    from core.jobs.evolve_runs import EvolveRuns

    turn = turn_deps(shared.settings, storage, shared.clock, shared.models)
    return shared.deps(
        storage,
        turn.run_store,
        LocalTurnService(turn),
        ids=turn.ids,
        maintenance=scheduled_maintenance(turn),
        recovery=None if storage.demo else startup_recovery(turn),
        evolve_now=EvolveRuns(turn),
    )


def turn_deps(
    settings: Settings, storage: Storage, clock: Clock | None = None, registry: ModelRegistry | None = None
) -> TurnDeps:
    """The turn machinery over this memory's own run store (`previously maintain`, serve)."""
    runs = memory_run_store(settings, storage, clock)
    return build_turn_deps(settings, storage, runs, clock=clock, registry=registry)


def one_off_turn_deps(settings: Settings, storage: Storage) -> TurnDeps:
    """The turn machinery for a command whose runs need not outlive it (`previously evolve`)."""
    return build_turn_deps(settings, storage, unsaved_run_store())


def chat_turns(settings: Settings, storage: Storage) -> LocalTurnService:
    """`previously chat`'s turns: in this process, over the folder run store beside the memory."""
    return LocalTurnService(build_turn_deps(settings, storage, build_run_store(settings, storage)))


def scheduled_maintenance(turn: TurnDeps) -> Callable[[], object]:
    """The pass the local server runs on its timer (`previously maintain`, on a schedule)."""

    def run() -> object:
        from core.jobs.maintain import run_maintenance

        models = turn.models
        return run_maintenance(turn, use_model=bool(models and models.configured))

    return run


def startup_recovery(turn: TurnDeps) -> Callable[[], object]:
    """Recovery at start: unsaved accepted messages, turns left running, a crash's temp files."""

    def run() -> object:
        from core.turn.recovery import recover_turns

        for store in (turn.storage, turn.run_store):
            clean = getattr(store, "clean_temp", None)
            if clean is not None:
                clean()
        return recover_turns(turn)

    return run
