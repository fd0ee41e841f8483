"""The composition root on AWS: settings with secrets, the S3 run store, turns on Step Functions.

Built once per Lambda container and rebuilt when the secret's values change (they are re-read
at most every five minutes), so a rotated key takes effect without a deployment. The API and
WebSocket functions get the API's `Deps` built over the S3 run store with turns on Step
Functions (evolve now runs in the maintenance function: functions/aws/evolve.py); the step and
maintenance functions get the turn's `TurnDeps` over the same storage.

In a demo with several personas, every persona but the default keeps its runs under a prefix
of its own in the same bucket and starts its turns on the same state machine with its id in the
execution input; a step function reads that id and builds the persona's `TurnDeps` (its demo
overlay, its run store), so the turn's events land where that persona's page reads them.
Every persona's overlay is kept in the run bucket (functions/aws/demo_overlay.py), so what one
container's step writes, the next step and the API read in theirs.
"""

from __future__ import annotations

import os
from datetime import timedelta
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from core.clock import RandomIds, SystemClock
from functions.aws.config import ORIGIN_SECRET_ENV, AwsResources, secret_values
from functions.aws.demo_overlay import DEMO_OVERLAY_DAYS, S3Overlay
from functions.aws.environment import LambdaStepEnvironment, SinkFor, boto_client, ws_client
from functions.aws.evolve import LambdaEvolveLauncher
from functions.aws.runstore import S3RunStore, persona_run_prefix
from functions.aws.turns import StepFunctionsTurns
from functions.compose import demo
from functions.compose.backends import (
    build_security,
    build_storage,
    build_turn_deps,
    memory_run_store,
    secret_file,
)
from functions.compose.deps import Deps, Shared
from functions.settings import Settings, load_settings

if TYPE_CHECKING:
    from core.jobs.evolve_runs import EvolveRuns
    from core.turn.deps import TurnDeps

SecretKey = tuple[tuple[str, str], ...]


def secret_key() -> SecretKey:
    """The secrets' current values as a hashable key (cached by Powertools for five minutes)."""
    values = {**secret_values(), **secret_values(os.environ.get(ORIGIN_SECRET_ENV, ""))}
    return tuple(sorted(values.items()))


@lru_cache(maxsize=2)
def settings_for(key: SecretKey) -> Settings:
    """Settings from the environment with these secret values on top."""
    return load_settings(**dict(key))


@lru_cache(maxsize=1)
def resources() -> AwsResources:
    return AwsResources.from_env()


@lru_cache(maxsize=1)
def run_store() -> S3RunStore:
    return S3RunStore(boto_client("s3"), resources().run_bucket)


@lru_cache(maxsize=1)
def push_client() -> Any | None:
    """The management API client of the WebSocket stage (None when the stack set no stage)."""
    return ws_client(resources().ws_callback_url)


# The persona caches are bounded by the demo's personas (an id it does not offer raises, and
# errors are not cached).
@cache
def demo_overlay(persona: str) -> S3Overlay:
    """A demo persona's overlay, shared through the run bucket by every function of the stage."""
    return S3Overlay(boto_client("s3"), resources().run_bucket, persona, SystemClock())


def visitor_overlay(persona: str, visitor: str) -> S3Overlay:
    """A demo visitor's own overlay of a persona (`demo/<persona>/<visitor>/overlay/`); not cached
    here: the API's `DemoVisitors` and the steps' `visitor_turn_deps` hold what they use."""
    return S3Overlay(boto_client("s3"), resources().run_bucket, persona, SystemClock(), visitor=visitor)


@cache
def persona_run_store(persona: str) -> S3RunStore:
    """The run store of a demo persona other than the default (the default's is `run_store`)."""
    return S3RunStore(boto_client("s3"), resources().run_bucket, prefix=persona_run_prefix(persona))


def _state_machine_arn() -> str:
    arn = resources().state_machine_arn
    if not arn:
        raise RuntimeError("STATE_MACHINE_ARN is not set: this function cannot start turns.")
    return arn


@lru_cache(maxsize=1)
def turns() -> StepFunctionsTurns:
    return StepFunctionsTurns(run_store(), boto_client("stepfunctions"), _state_machine_arn(), RandomIds())


@cache
def persona_turns(persona: str) -> StepFunctionsTurns:
    """Turns of a demo persona other than the default: its run store, its id in each execution."""
    client = boto_client("stepfunctions")
    runs = persona_run_store(persona)
    return StepFunctionsTurns(runs, client, _state_machine_arn(), RandomIds(), persona=persona)


@lru_cache(maxsize=1)
def api_deps(key: SecretKey) -> Deps:
    """The API's dependencies: turns on Step Functions over the S3 run store, no local timers;
    sign-in required unless `auth_required` says otherwise."""
    from functions.llm import build_registry

    settings = settings_for(key)
    clock = SystemClock()
    storage = build_storage(settings, overlay_for=demo_overlay)
    security = build_security(settings, auth_required(settings), secret_file(settings, storage))
    shared = Shared(settings, clock, build_registry(settings, clock), security)
    deps = shared.deps(storage, run_store(), turns(), evolve_now=evolve_runs(key))
    if not storage.demo:
        return deps
    terms = demo.VisitorTerms(lifetime=timedelta(days=DEMO_OVERLAY_DAYS), made_on_read=True)
    return demo.add_demo(deps, demo.SAMPLE_ROOT, lambda seat: _seat_deps(shared, seat), terms)


def auth_required(settings: Settings) -> bool:
    """Sign-in is required everywhere but on a demo stage whose owner set no access key (a
    public demo: anyone with the address may look and chat; an access key makes it private)."""
    return not (settings.storage == "demo" and not settings.has_access_key)


def _seat_deps(shared: Shared, seat: demo.Seat) -> Deps:
    """A demo seat on AWS: every persona but the default keeps its runs under its own prefix and
    names itself in each execution; a visitor's overlay is in the run bucket (so every container
    makes their Deps for reads too) and their turns name them in the execution."""
    from core.jobs.evolve_runs import EvolveRuns
    from core.storage.demo import DemoStorage

    other = None if seat.default else seat.persona.id
    runs = run_store() if other is None else persona_run_store(other)
    visitor = seat.visitor
    if visitor is None:
        storage = DemoStorage(seat.persona.root, demo_overlay)
        own: StepFunctionsTurns = persona_turns(seat.persona.id)
    else:
        storage = DemoStorage(seat.persona.root, lambda pid: visitor_overlay(pid, visitor))
        own = visitor_turns(runs, other, visitor)
    in_process = build_turn_deps(
        shared.settings,
        storage,
        memory_run_store(shared.settings, storage, shared.clock),
        clock=shared.clock,
        registry=shared.models,
    )
    return shared.deps(storage, runs, own, ids=in_process.ids, evolve_now=EvolveRuns(in_process))


def visitor_turns(runs: S3RunStore, persona: str | None, visitor: str) -> StepFunctionsTurns:
    """Turns of a demo visitor: the persona's run store, the persona and visitor in each execution."""
    client = boto_client("stepfunctions")
    return StepFunctionsTurns(
        runs, client, _state_machine_arn(), RandomIds(), persona=persona, visitor=visitor
    )


def evolve_runs(key: SecretKey) -> EvolveRuns | None:
    """Evolve now over the S3 run store, run by the maintenance function (None when the stack
    names no function for it)."""
    from core.jobs.evolve_runs import EvolveRuns

    name = resources().evolve_function
    if not name:
        return None
    return EvolveRuns(turn_deps(key), launcher=LambdaEvolveLauncher(boto_client("lambda"), name))


@lru_cache(maxsize=1)
def turn_deps(key: SecretKey) -> TurnDeps:
    """The turn steps' dependencies over the memory the settings name and the S3 run store."""
    settings = settings_for(key)
    return build_turn_deps(settings, build_storage(settings, overlay_for=demo_overlay), run_store())


@cache
def persona_turn_deps(key: SecretKey, persona: str) -> TurnDeps:
    """The turn steps' dependencies for the demo persona a turn's execution input names: its
    memory overlay and run store (the default's `turn_deps` for the default's id). InvalidInput
    for an id the demo does not offer (functions/compose/deps.py `recorded_persona`)."""
    from core.storage.demo import DemoStorage

    settings = settings_for(key)
    found = demo.recorded_persona(settings, persona)
    if found is None:
        return turn_deps(key)
    return build_turn_deps(settings, DemoStorage(found.root, demo_overlay), persona_run_store(found.id))


@lru_cache(maxsize=8)
def visitor_turn_deps(key: SecretKey, persona: str | None, visitor: str) -> TurnDeps:
    """The turn steps' dependencies for a demo visitor's turn: `persona` (None: the default)
    under the visitor's own overlay, over that persona's run store."""
    from core.storage.demo import DemoStorage

    settings = settings_for(key)
    found = demo.recorded_persona(settings, persona)
    root = found.root if found is not None else demo.SAMPLE_ROOT
    runs = run_store() if found is None else persona_run_store(found.id)
    storage = DemoStorage(root, lambda pid: visitor_overlay(pid, visitor))
    return build_turn_deps(settings, storage, runs)


def step_environment(
    key: SecretKey, persona: str | None = None, visitor: str | None = None
) -> LambdaStepEnvironment:
    """The step functions' environment for a turn of `persona` (None: the default), of a demo
    `visitor` when named; each attempt's sink is handed to the step as `sink_for`."""
    if visitor is not None:
        base = visitor_turn_deps(key, persona, visitor)
    else:
        base = turn_deps(key) if persona is None else persona_turn_deps(key, persona)

    def make_deps(sink_for: SinkFor) -> Any:
        return build_turn_deps(
            settings_for(key),
            base.storage,
            base.run_store,
            clock=base.clock,
            ids=base.ids,
            registry=base.models,
            sink_for=sink_for,
        )

    return LambdaStepEnvironment(base.run_store, push_client(), make_deps)


def reset() -> None:
    """Forget every cached object (tests that change the environment between invocations)."""
    stores = (run_store, persona_run_store, demo_overlay, push_client, turns, persona_turns)
    for cached in (
        settings_for,
        resources,
        *stores,
        api_deps,
        turn_deps,
        persona_turn_deps,
        visitor_turn_deps,
    ):
        cached.cache_clear()
