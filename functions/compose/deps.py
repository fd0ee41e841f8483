"""The API's container: everything a route or socket handler may use, one `Deps` per memory.

Built by the entrypoint's composition (functions/compose/local.py for the local server,
functions/compose/aws.py for the API and WebSocket Lambdas), or from fakes in tests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from core.clock import Clock, IdSource, RandomIds
from core.llm.models_view import ModelsOverview
from core.llm.registry import ModelPrefs, ModelRegistry, Resolution
from core.storage.base import Snapshot, Storage
from core.turn.runstore import RunStore
from core.turn.service import TurnService
from functions.settings import Settings

if TYPE_CHECKING:  # the API's security pulls in FastAPI, which step and maintenance Lambdas never need
    from core.jobs.evolve_runs import EvolveRuns
    from core.search.warm import WarmIndex
    from functions.api.security import Security
    from functions.compose.demo import DemoCast, DemoVisitors

REPO_ROOT = Path(__file__).resolve().parents[2]


class ModelDirectory(Protocol):
    """What the API needs of the model registry."""

    @property
    def configured(self) -> bool: ...

    def models_overview(self, prefs: Any = None, request_model: str | None = None) -> ModelsOverview: ...

    def setup_problem(self, prefs: Any = None) -> str | None: ...


@runtime_checkable
class ModelResolver(Protocol):
    """What recall from outside (MCP) needs of the model registry: the worker a memory's prefs name."""

    @property
    def configured(self) -> bool: ...

    def resolve(self, request_model: str | None, prefs: ModelPrefs) -> Resolution: ...


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
    """Everything a request handler may use; built by an entrypoint's composition, or from fakes in tests."""

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


@dataclass(frozen=True)
class Shared:
    """What every Deps of one process shares, whichever memory each is over."""

    settings: Settings
    clock: Clock
    models: ModelRegistry
    security: Security

    def deps(
        self,
        storage: Storage,
        runs: RunStore,
        turns: TurnService,
        *,
        ids: IdSource | None = None,
        maintenance: Callable[[], object] | None = None,
        recovery: Callable[[], object] | None = None,
        evolve_now: EvolveRuns | None = None,
    ) -> Deps:
        """The Deps over `storage`, its run store and turn service, with the shared parts."""
        kept = KeptIndex()
        return Deps(
            storage=storage,
            clock=self.clock,
            ids=ids or RandomIds(),
            runs=runs,
            turns=turns,
            security=self.security,
            models=self.models,
            search=kept,
            kept_index=kept,
            storage_kind=str(self.settings.storage),
            maintenance=maintenance,
            recovery=recovery,
            evolve_now=evolve_now,
        )
