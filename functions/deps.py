"""The composition root: the one place that turns settings into concrete backends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from core.clock import Clock, IdSource, RandomIds, SystemClock
from core.errors import TransientError
from core.storage.base import Snapshot, Storage, WriteBatch
from core.turn.runstore import MemoryRunStore, RunStore
from core.turn.service import TurnInput, TurnService, TurnState
from functions.api.security import Security
from functions.settings import Settings

REPO_ROOT = Path(__file__).resolve().parent.parent
# The bundled sample persona (a memory root: it holds memory/).
SAMPLE_ROOT = REPO_ROOT / "sample"


class ModelDirectory(Protocol):
    """What the API needs of the model registry."""

    @property
    def configured(self) -> bool: ...

    def models_payload(self, prefs: Any = None, request_model: str | None = None) -> dict[str, Any]: ...


class Searcher(Protocol):
    """The full-text recall floor: hits `{slice_id, relevance, reason}`, best first."""

    def __call__(self, view: Snapshot, query: str, k: int, now: datetime) -> list[dict[str, Any]]: ...


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
    # The scheduled maintenance pass (serve runs it on a timer); None where a scheduler does it.
    maintenance: Callable[[], object] | None = None


def build_storage(settings: Settings, memory_override: Path | None = None) -> Storage:
    """The storage STORAGE selects; `--memory DIR` (the override) always means a folder.

    With an override, `demo` runs the read-only overlay on that folder and every other setting
    uses it as a local folder, so `previously check --memory DIR` reads exactly DIR.
    """
    # Backends are imported on use: PyGithub alone costs a cold start a good second.
    if settings.storage == "demo":
        from core.storage.demo import DemoStorage

        return DemoStorage(memory_override or SAMPLE_ROOT)
    if memory_override is not None or settings.storage == "local":
        from core.storage.local import LocalStorage

        return LocalStorage(memory_override or settings.memory_root)
    from core.storage.github import GitHubStorage

    token = settings.github_token.get_secret_value() if settings.github_token else ""
    return GitHubStorage(
        settings.github_repo or "",
        token,
        branch=settings.github_branch,
        api_url=settings.github_api_url,
    )


def build_security(settings: Settings, required: bool) -> Security:
    """The access policy from the configured key (plain or hashed) and whether auth is required."""
    plain = settings.access_key.get_secret_value().strip() if settings.access_key else ""
    secret = settings.session_secret.get_secret_value() if settings.session_secret else ""
    return Security.build(
        plain or None, settings.access_key_sha256, secret or None, required, settings.cors_origin_list
    )


class TurnsUnavailable:
    """Stands in for the turn runner where none is wired: every start is refused with a reason."""

    def start(self, request: TurnInput) -> str:
        raise TransientError("Chat is not available on this server yet: the turn runner is not installed.")

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        raise TransientError("Chat is not available on this server yet: the turn runner is not installed.")

    def wait(self, turn_id: str, after: int, timeout: float) -> TurnState:
        return self.state(turn_id, after)

    def cancel(self, turn_id: str) -> None:
        self.state(turn_id)


def full_text_search(view: Snapshot, query: str, k: int, now: datetime) -> list[dict[str, Any]]:
    """The recall floor over `view` (imported on first use: it is heavy for a cold start)."""
    from core.search.recall import open_index

    return [hit.to_dict() for hit in open_index(view).search(query, k, now).hits]


def index_maintenance(storage: Storage, clock: Clock) -> Callable[[], object]:
    """The maintenance pass the server schedules: bring the search index up to date."""

    def run() -> object:
        from core.search.recall import refresh_index

        batch = WriteBatch.open(storage)
        report = refresh_index(batch, clock)
        batch.commit("maintain: refresh the search index")
        return report

    return run


def build_deps(
    settings: Settings,
    *,
    memory_override: Path | None = None,
    require_auth: bool = True,
    clock: Clock | None = None,
) -> Deps:
    """Wire every backend the settings name (the server, the Lambda handler and the CLI use this)."""
    from functions.llm import build_registry

    clock = clock or SystemClock()
    storage = build_storage(settings, memory_override)
    return Deps(
        storage=storage,
        clock=clock,
        ids=RandomIds(),
        runs=MemoryRunStore(),
        turns=TurnsUnavailable(),
        security=build_security(settings, require_auth),
        models=build_registry(settings, clock),
        search=full_text_search,
        storage_kind=str(settings.storage),
        maintenance=index_maintenance(storage, clock),
    )
