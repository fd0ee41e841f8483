"""Building the API over fakes for functional tests: `make_env(...)` → an `ApiEnv` with a TestClient."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fastapi.testclient import TestClient

from core.clock import FixedClock, SequentialIds
from core.llm.model_info import ModelInfo
from core.llm.models_view import ChosenModel, ModelsOverview, OfferedModel, ProviderStatus
from core.llm.providers import Provider
from core.storage.base import Snapshot, Storage
from core.storage.memory import InMemoryStorage
from functions.api.app import create_app
from functions.api.guard import RequestGuard
from functions.api.security import Security
from functions.compose.deps import Deps
from tests.fakes.fake_turns import ScriptedTurns
from tests.functional.turn_support import Harness

KEY = "correct-horse-battery-staple"
HOST = "testserver"
# The TestClient's host, configured as this server's public host name (PREVIOUSLY_PUBLIC_HOSTS).
GUARD = RequestGuard.build(public_hosts=(HOST,))


@dataclass
class FakeModels:
    """A model directory with or without a provider."""

    configured: bool = True
    problem: str | None = None  # what setup_problem says while configured

    def setup_problem(self, prefs: Any = None) -> str | None:
        return self.problem

    def models_overview(self, prefs: Any = None, request_model: str | None = None) -> ModelsOverview:
        if not self.configured:
            return ModelsOverview(False, (), (), (), setup="No model provider is configured.")
        provider = Provider("openai", "OpenAI", "openai", "k", None, "OPENAI_API_KEY")
        main = OfferedModel(ModelInfo("fake-main", "Fake", "openai"), provider)
        worker = OfferedModel(ModelInfo("fake-worker", "Fake", "openai"), provider)
        return ModelsOverview(
            True,
            (ProviderStatus(provider, "curated", "key_set", "OPENAI_API_KEY is set"),),
            (main,),
            (),
            main=ChosenModel(main, "default", False, "medium"),
            worker=ChosenModel(worker, "derived", False, "medium"),
        )


@dataclass
class FakeSearch:
    """Answers every query with the hits it was given, recording the queries."""

    hits: list[dict[str, Any]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def __call__(self, view: Snapshot, query: str, k: int, now: datetime) -> list[dict[str, Any]]:
        self.queries.append(query)
        return self.hits[:k]


@dataclass
class ApiEnv:
    client: TestClient
    deps: Deps
    storage: Storage
    turns: ScriptedTurns
    clock: FixedClock

    def files(self) -> dict[str, str]:
        """The memory's files (InMemoryStorage only)."""
        assert isinstance(self.storage, InMemoryStorage)
        return {str(k): v for k, v in self.storage.files.items()}


def make_env(
    *,
    storage: Storage | None = None,
    required: bool = False,
    key: str | None = KEY,
    models: FakeModels | None = None,
    search: FakeSearch | None = None,
    turns: ScriptedTurns | None = None,
    clock: FixedClock | None = None,
    **app_options: Any,
) -> ApiEnv:
    """The API over in-memory fakes; `required` turns authentication on for every data route."""
    storage = storage if storage is not None else InMemoryStorage()
    turns = turns or ScriptedTurns()
    clock = clock or FixedClock.at("2026-08-11T11:15:00.000Z")
    deps = Deps(
        storage=storage,
        clock=clock,
        ids=SequentialIds(),
        runs=turns.runs,
        turns=turns,
        security=Security.build(key, None, None, required, GUARD),
        models=models or FakeModels(),
        search=search or FakeSearch(),
        storage_kind="demo" if storage.demo else "local",
    )
    client = TestClient(create_app(deps, **app_options), base_url=f"http://{HOST}")
    return ApiEnv(client, deps, storage, turns, clock)


def harness_deps(h: Harness) -> Deps:
    """The API's `Deps` over a turn harness (the real in-process runner), the access key required."""
    return Deps(
        storage=h.storage,
        clock=h.clock,
        ids=h.deps.ids,
        runs=h.runs,
        turns=h.service,
        security=Security.build(KEY, None, None, required=True, request_guard=GUARD),
        models=h.deps.models,  # type: ignore[arg-type]
        search=FakeSearch(),
    )


def same_origin() -> dict[str, str]:
    """Headers a browser sends on a same-origin fetch."""
    return {"origin": f"http://{HOST}"}


def with_key(key: str = KEY) -> dict[str, str]:
    return {"x-access-key": key}
