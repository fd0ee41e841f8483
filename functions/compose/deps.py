"""The composition root: the one place that turns settings into concrete backends."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.clock import Clock, IdSource, SystemClock
from core.errors import InvalidInput, TransientError
from core.llm.models_view import ModelsOverview
from core.storage.base import Snapshot, Storage
from core.storage.visitor import visitor_id
from core.turn.deps import TurnDeps
from core.turn.local_service import LocalTurnService
from core.turn.runstore import RunStore
from core.turn.service import TurnInput, TurnService, TurnState
from functions.settings import Settings

if TYPE_CHECKING:  # the API's security pulls in FastAPI, which step and maintenance Lambdas never need
    from core.search.warm import WarmIndex
    from core.storage.demo import Overlay, OverlayFactory, Persona

    VisitorOverlayFactory = Callable[[str, str], Overlay]  # (persona id, visitor id) → its overlay
    from core.jobs.evolve_runs import EvolveRuns
    from functions.api.security import Security

REPO_ROOT = Path(__file__).resolve().parents[2]
# The bundled sample persona (a memory root: it holds memory/).
SAMPLE_ROOT = REPO_ROOT / "sample"


class ModelDirectory(Protocol):
    """What the API needs of the model registry."""

    @property
    def configured(self) -> bool: ...

    def models_overview(self, prefs: Any = None, request_model: str | None = None) -> ModelsOverview: ...

    def setup_problem(self, prefs: Any = None) -> str | None: ...


class Searcher(Protocol):
    """The full-text recall floor: hits `{slice_id, relevance, reason}`, best first."""

    def __call__(self, view: Snapshot, query: str, k: int, now: datetime) -> list[dict[str, Any]]: ...


class KeptIndex:
    """The recall floor through the search index this process keeps open for one storage.

    `/api/search`, `/mcp` and a container's later requests share it, so a question costs what
    it costs the CLI's batch recall, not a reload of the index (core/search/warm.py). The index
    modules are imported on the first question: they are heavy for a cold start.
    """

    def __init__(self) -> None:
        self._index: WarmIndex | None = None
        self._lock = threading.Lock()

    def get(self) -> WarmIndex:
        with self._lock:
            if self._index is None:
                from core.search.warm import WarmIndex

                self._index = WarmIndex()
            return self._index

    def __call__(self, view: Snapshot, query: str, k: int, now: datetime) -> list[dict[str, Any]]:
        return [hit.to_dict() for hit in self.get().open(view).search(query, k, now).hits]


@dataclass
class Deps:
    """Everything a request handler may use; built by `build_deps`, or from fakes in tests."""

    storage: Storage
    clock: Clock
    ids: IdSource
    runs: RunStore
    turns: TurnService
    security: Security
    models: ModelDirectory
    search: Searcher
    storage_kind: str = "local"
    # The search index kept open for this storage (search and /mcp share it).
    kept_index: KeptIndex = field(default_factory=KeptIndex)
    # The scheduled maintenance pass (serve runs it on a timer); None where a scheduler does it.
    maintenance: Callable[[], object] | None = None
    # What serve runs once at start: turns a dead process left behind, temporary files of a crash.
    recovery: Callable[[], object] | None = None
    # "Evolve now" as background runs (core/jobs/evolve_runs.py); None where it is not offered.
    evolve_now: EvolveRuns | None = None
    # The demo's personas when it offers more than one (these Deps are the default one's).
    cast: DemoCast | None = None
    # A demo's visitors, each with their own overlay per persona (None outside a demo).
    visitors: DemoVisitors | None = None


# How a request names its demo persona: `?persona=ID` wins, else the cookie the page's picker sets.
PERSONA_PARAM = "persona"
PERSONA_COOKIE = "previously_persona"


@dataclass
class DemoCast:
    """The demo's personas, each with its own Deps (its own overlay, runs and turns); the
    first is the default. Everything else (security, models, clock) is shared."""

    personas: list[Persona]
    deps: dict[str, Deps]

    @property
    def default(self) -> str:
        return self.personas[0].id

    def pick(self, asked: str | None, remembered: str | None = None) -> tuple[str, Deps]:
        """The persona a request names: an unknown `?persona=` is refused (400), an unknown
        cookie (a persona since removed) falls back to the default."""
        if asked is not None:
            if asked not in self.deps:
                known = ", ".join(p.id for p in self.personas)
                raise InvalidInput(f'Unknown demo persona "{asked}". Choose one of: {known}.')
            return asked, self.deps[asked]
        pid = remembered if remembered in self.deps else self.default
        return pid, self.deps[pid]


# A demo visitor is named by a random id in an HttpOnly cookie the request guard sets
# (functions/api/guard.py); anything else in that cookie is treated as no id at all.
VISITOR_COOKIE = "previously_visitor"


def new_visitor_id() -> str:
    """A fresh, unguessable visitor id (128 random bits, the form `visitor_id` accepts)."""
    return secrets.token_hex(16)


# How long a visitor's changes are kept at most, from their first change (the cookie lives as long).
VISITOR_HOURS = 24
VISITORS_KEPT = 64  # visitors whose changes one process keeps; the least recently active go first


# The Deps of one (persona id, visitor id): that persona under an overlay of the visitor's own.
VisitorDepsFactory = Callable[[str, str], Deps]


class DemoVisitors:
    """Each demo visitor's own Deps per persona, so their changes (turns, card, settings) are
    seen by them alone and never by another visitor.

    Made on the visitor's first change (`create`); until then they read the pristine persona.
    At most `kept` are held, the least recently used dropped first, and each is dropped
    `lifetime` after it was made: a dropped visitor's changes are gone (on AWS the overlay is
    in S3 and wiped on the same schedule, so `made_on_read` makes them for reads too).
    """

    def __init__(
        self,
        make: VisitorDepsFactory,
        clock: Clock,
        *,
        kept: int = VISITORS_KEPT,
        lifetime: timedelta = timedelta(hours=VISITOR_HOURS),
        made_on_read: bool = False,
    ) -> None:
        self.make = make
        self.clock = clock
        self.kept = kept
        self.lifetime = lifetime
        self.made_on_read = made_on_read
        self._held: OrderedDict[tuple[str, str], tuple[datetime, Deps]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, persona: str, visitor: str, create: bool) -> Deps | None:
        """The visitor's Deps for `persona`; None when they have none (and `create` is off)."""
        key, now = (persona, visitor), self.clock.now()
        with self._lock:
            held = self._held.get(key)
            if held is not None and now - held[0] < self.lifetime:
                self._held.move_to_end(key)
                return held[1]
            self._held.pop(key, None)
            if not (create or self.made_on_read):
                return None
            made = self.make(persona, visitor)
            self._held[key] = (now, made)
            while len(self._held) > self.kept:
                self._held.popitem(last=False)
            return made

    def __len__(self) -> int:
        return len(self._held)


def persona_deps(
    deps: Deps, asked: str | None, remembered: str | None, visitor: str | None = None, create: bool = False
) -> Deps:
    """The Deps of the persona a request names (`deps` itself outside a multi-persona demo);
    in a demo, those of that persona under the `visitor`'s own overlay once they have one
    (`create`: a request that may change something makes it)."""
    if deps.cast is None:
        pid, chosen = str(getattr(deps.storage, "persona", "")), deps
    else:
        pid, chosen = deps.cast.pick(asked, remembered)
    visitor = visitor_id(visitor)
    if deps.visitors is None or visitor is None:
        return chosen
    return deps.visitors.get(pid, visitor, create) or chosen


def build_storage(
    settings: Settings, memory_override: Path | None = None, overlay_for: OverlayFactory | None = None
) -> Storage:
    """The storage STORAGE selects; `--memory DIR` (the override) always means a folder.

    With an override, `demo` runs the read-only overlay on that folder and every other setting
    uses it as a local folder, so `previously check --memory DIR` reads exactly DIR. A demo's
    writes go where `overlay_for` says (default: this process's memory).
    """
    # Backends are imported on use: PyGithub alone costs a cold start a good second.
    if settings.storage == "demo":
        from core.storage.demo import DemoStorage

        return DemoStorage(memory_override or SAMPLE_ROOT, overlay_for)
    if memory_override is not None or settings.storage == "local":
        from core.storage.local import LocalStorage

        return LocalStorage(memory_override or settings.memory_root)
    from core.storage.disk_cache import DiskCache, cache_root
    from core.storage.github import GitHubStorage

    token = settings.github_token.get_secret_value() if settings.github_token else ""
    root = cache_root(settings.cache_dir, settings.github_repo or "")
    return GitHubStorage(
        settings.github_repo or "",
        token,
        branch=settings.github_branch,
        api_url=settings.github_api_url,
        disk_cache=DiskCache(root) if root is not None else None,
    )


def build_security(settings: Settings, required: bool, secret_file: Path | None = None) -> Security:
    """The access policy from the configured key (plain or hashed) and whether auth is required.

    Sessions are signed with PREVIOUSLY_SESSION_SECRET; without it, with a secret kept in
    `secret_file` (the local server: beside the memory, never inside it), else one per process.
    """
    from functions.api.guard import RequestGuard
    from functions.api.security import Security, load_session_secret

    plain = settings.access_key.get_secret_value().strip() if settings.access_key else ""
    secret = settings.session_secret.get_secret_value().strip() if settings.session_secret else ""
    if not secret and secret_file is not None and (plain or settings.stored_key):
        secret = load_session_secret(secret_file)
    return Security.build(
        plain or None,
        settings.stored_key,
        secret or None,
        required,
        RequestGuard.build(
            settings.public_host_list,
            settings.behind_cloudfront,
            settings.origin_secret.get_secret_value().strip() if settings.origin_secret else None,
            settings.cors_origin_list,
        ),
    )


def _secret_file(settings: Settings, storage: Storage) -> Path | None:
    """Where a local server keeps its session-signing secret: in the runs folder beside the memory."""
    from core.storage.local import LocalStorage
    from functions.compose.backends import runs_root

    if not isinstance(storage, LocalStorage) or storage.demo:
        return None
    return runs_root(settings, storage) / "session-secret"


NO_RUNNER = "Chat is not wired on this deployment: no turn runner is configured for the API."


class TurnsUnavailable:
    """Where no turn runner is wired (a Lambda before the deployment supplies one): refuse clearly."""

    def start(self, request: TurnInput) -> str:
        raise TransientError(NO_RUNNER)

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        raise TransientError(NO_RUNNER)

    def wait(self, turn_id: str, after: int, timeout: float) -> TurnState:
        return self.state(turn_id, after)

    def cancel(self, turn_id: str) -> None:
        self.state(turn_id)


def scheduled_maintenance(turn_deps: TurnDeps) -> Callable[[], object]:
    """The pass the local server runs on its timer (`previously maintain`, on a schedule)."""

    def run() -> object:
        from core.jobs.maintain import run_maintenance

        models = turn_deps.models
        return run_maintenance(turn_deps, use_model=bool(models and models.configured))

    return run


def startup_recovery(turn_deps: TurnDeps) -> Callable[[], object]:
    """Recovery at start: unsaved accepted messages, turns left running, a crash's temp files."""

    def run() -> object:
        from core.turn.recovery import recover_turns

        for store in (turn_deps.storage, turn_deps.run_store):
            clean = getattr(store, "clean_temp", None)
            if clean is not None:
                clean()
        return recover_turns(turn_deps)

    return run


def build_deps(
    settings: Settings,
    *,
    memory_override: Path | None = None,
    require_auth: bool = True,
    clock: Clock | None = None,
    in_process_turns: bool = True,
    overlay_for: OverlayFactory | None = None,
    visitor_overlay: VisitorOverlayFactory | None = None,
) -> Deps:
    """Wire every backend the settings name (the local server, the Lambda handler).

    `in_process_turns` runs turns on threads of this process (the local server); where a turn
    must outlive the request (Lambda), the deployment supplies its own TurnService. A demo
    folder with several personas gets one Deps per persona (`Deps.cast`), and every demo
    gives each visitor their own (`Deps.visitors`), whose writes go where `visitor_overlay` says.
    """
    from functions.llm import build_registry

    clock = clock or SystemClock()
    storage = build_storage(settings, memory_override, overlay_for)
    registry = build_registry(settings, clock)
    security = build_security(settings, require_auth, _secret_file(settings, storage))
    deps = _deps_over(storage, settings, registry, security, clock, in_process_turns)
    if storage.demo:
        root = memory_override or SAMPLE_ROOT
        deps.cast = _demo_cast(deps, settings, root, in_process_turns, overlay_for)
        make = _visitor_factory(deps, settings, root, in_process_turns, visitor_overlay)
        deps.visitors = DemoVisitors(make, clock)
    return deps


def _visitor_factory(
    first: Deps,
    settings: Settings,
    root: Path,
    in_process_turns: bool,
    overlay_for: VisitorOverlayFactory | None,
) -> VisitorDepsFactory:
    """How a demo visitor's Deps for one persona are made: the persona's files under an overlay
    of the visitor's own (`overlay_for(persona, visitor)`; default: this process's memory)."""
    from core.storage.demo import DemoStorage, find_personas

    roots = {p.id: p.root for p in find_personas(root)}

    def make(persona: str, visitor: str) -> Deps:
        own = None if overlay_for is None else (lambda pid: overlay_for(pid, visitor))
        storage = DemoStorage(roots[persona], own)
        return _deps_over(storage, settings, first.models, first.security, first.clock, in_process_turns)

    return make


def _deps_over(
    storage: Storage,
    settings: Settings,
    registry: Any,
    security: Security,
    clock: Clock,
    in_process_turns: bool,
) -> Deps:
    """The Deps over one storage, with the shared registry, security and clock."""
    from core.jobs.evolve_runs import EvolveRuns
    from functions.compose.backends import build_turn_deps, memory_run_store

    runs = memory_run_store(settings, storage, clock)
    turn_deps = build_turn_deps(settings, storage, runs, clock=clock, registry=registry)
    kept = KeptIndex()
    return Deps(
        storage=storage,
        clock=clock,
        ids=turn_deps.ids,
        runs=runs,
        turns=LocalTurnService(turn_deps) if in_process_turns else TurnsUnavailable(),
        security=security,
        models=registry,
        search=kept,
        kept_index=kept,
        storage_kind=str(settings.storage),
        maintenance=scheduled_maintenance(turn_deps),
        recovery=startup_recovery(turn_deps) if in_process_turns and not storage.demo else None,
        evolve_now=EvolveRuns(turn_deps),
    )


def demo_personas(root: Path) -> list[Persona]:
    """The personas a demo folder offers, the default first; [] when it holds only one."""
    from core.storage.demo import find_personas

    personas = find_personas(root)
    return personas if len(personas) >= 2 else []


def recorded_persona(settings: Settings, persona_id: str | None) -> Persona | None:
    """The demo persona a turn's record names (None: the default, also when none is named).

    A name this deployment's demo does not offer is refused, never read as the default: the
    turn would otherwise answer from, and write into, another persona's memory.
    """
    if persona_id is None:
        return None
    personas = demo_personas(SAMPLE_ROOT) if settings.storage == "demo" else []
    found = next((p for p in personas if p.id == persona_id), None)
    if found is None:
        known = ", ".join(p.id for p in personas) or "none (it serves no demo personas)"
        raise InvalidInput(
            f'This turn was started for demo persona "{persona_id}", which this deployment does not '
            f"offer; its personas: {known}. Start the turn again from a persona it offers."
        )
    return None if found.id == personas[0].id else found


def _demo_cast(
    first: Deps, settings: Settings, root: Path, in_process_turns: bool, overlay_for: OverlayFactory | None
) -> DemoCast | None:
    """Every persona of the demo folder at `root`, `first` serving the default; None for one."""
    from core.storage.demo import DemoStorage

    personas = demo_personas(root)
    if not personas:
        return None
    cast = DemoCast(personas, {personas[0].id: first})
    for persona in personas[1:]:
        storage = DemoStorage(persona.root, overlay_for)
        cast.deps[persona.id] = _deps_over(
            storage, settings, first.models, first.security, first.clock, in_process_turns
        )
    return cast
