"""Which model answers (main) and which works (worker), from the configured providers and their models.

Main: the request's model → `model.main` in config.json (Settings) → `PREVIOUSLY_MODEL` (or `serve
--model`) → the first provider's default. Worker: `model.worker` → `PREVIOUSLY_WORKER_MODEL` →
the cheap tier of the main model's provider. A model the user names is trusted: a server's listing
suggests models, it does not gate them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from core.clock import Clock
from core.errors import InvalidInput, NoModelConfigured
from core.i18n import any_of, t
from core.llm import catalog
from core.llm.catalog import PROVIDER_TIERS, ModelInfo
from core.llm.client import RetryingClient
from core.llm.counting import CountingClient, ModelCalls, OnCall
from core.llm.listing import Listing, fetch_model_ids, listing_failure, listing_from
from core.llm.presets import HINT_KEYS, LOCAL_EXAMPLE_URL, OPENAI
from core.llm.providers import DEEPSEEK_BASE_URL, Provider, ProviderConfig, default_client, providers_from
from core.llm.types import EFFORTS, Effort, Message, ModelClient, ModelRequest, UserMessage
from core.retry import RetryPolicy

if TYPE_CHECKING:
    from core.llm.models_view import ModelsOverview

__all__ = [
    "DEEPSEEK_BASE_URL",
    "SETUP_HINT",
    "SETUP_HINT_ZH",
    "BoundModel",
    "ModelPrefs",
    "ModelRegistry",
    "Provider",
    "ProviderConfig",
    "Resolution",
    "default_client",
    "fetch_model_ids",
    "providers_from",
]

DOCS_PATH = "/help/models"  # the served copy of docs/MODELS.md


def setup_hint(lang: str) -> str:
    """What to configure when no provider is, in the page's language (the variable names as they are)."""
    return t(
        "setup.noModel",
        lang,
        keys=any_of(HINT_KEYS, lang),
        baseUrl=OPENAI.base_url_var,
        example=LOCAL_EXAMPLE_URL,
    )


SETUP_HINT = setup_hint("en")
SETUP_HINT_ZH = setup_hint("zh")
# Where the main or worker model came from, as shown in Settings and `previously models`.
Source = Literal["request", "config", "env", "default", "derived", "main"]


@dataclass(frozen=True)
class ModelPrefs:
    """The user's model preferences (config.json `model`): ids or `auto`, thinking, effort."""

    main: str | None = None
    worker: str = "auto"
    thinking: bool = True
    effort: Effort = "medium"

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ModelPrefs:
        """Read a config.json document tolerantly (also the original's `worker` group and effort key).

        The original's `model.provider` is not read: merged with defaults it always names a
        model, so it cannot tell a choice from a default; `model.main` is the explicit choice.
        """
        model = _group(config, "model")
        legacy_worker = _group(config, "worker")
        worker = model.get("worker")
        if not worker and legacy_worker.get("mode") == "manual":
            worker = legacy_worker.get("provider")
        effort = model.get("effort") or model.get("reasoningEffort")
        main = model.get("main")
        return cls(
            main=str(main) if main and main != "auto" else None,
            worker=str(worker) if worker else "auto",
            thinking=model.get("thinking") is not False,
            effort=effort if effort in EFFORTS else "medium",
        )


@dataclass(frozen=True)
class BoundModel:
    """A resolved model with its client and thinking settings: what turn code passes around."""

    info: ModelInfo
    provider: Provider
    client: ModelClient
    thinking: bool
    effort: Effort

    def request(self, messages: tuple[Message, ...] | list[Message], **options: Any) -> ModelRequest:
        """A request for this model; `options` are the other `ModelRequest` fields."""
        options.setdefault("thinking", self.thinking)
        options.setdefault("effort", self.effort)
        options["thinking"] = options["thinking"] and self.info.supports_thinking
        known_blind = self.info.curated and not self.info.supports_vision  # an unknown model is trusted
        if known_blind and any(isinstance(m, UserMessage) and m.images for m in messages):
            raise InvalidInput(
                f"{self.info.id} does not take images: pick a model marked vision (`previously models`)"
            )
        return ModelRequest(model=self.info.id, messages=tuple(messages), **options)


@dataclass(frozen=True)
class Resolution:
    """The main and worker models for one turn, where each came from, and notes on any fallback."""

    main: BoundModel
    worker: BoundModel
    notes: tuple[str, ...] = ()
    main_source: Source = "default"
    worker_source: Source = "derived"
    calls: ModelCalls = field(default_factory=ModelCalls, compare=False)


@dataclass(frozen=True)
class Choice:
    """The main and worker models a turn would get, before any client exists."""

    main: tuple[Provider, ModelInfo]
    worker: tuple[Provider, ModelInfo]
    main_source: Source
    worker_source: Source
    notes: tuple[str, ...] = ()


class ModelRegistry:
    """Configured providers, their models, and main/worker resolution."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        clock: Clock,
        client_factory: Callable[[Provider], ModelClient] = default_client,
        list_models: Callable[[str, str, float], list[str]] = fetch_model_ids,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        cache_seconds: float = 1800.0,
        list_timeout: float = 3.0,
    ) -> None:
        self.config = config
        self.providers = providers_from(config)
        self._clock = clock
        self._client_factory = client_factory
        self._list_models = list_models
        self._retry = retry
        self._sleep = sleep
        self._cache_ttl = timedelta(seconds=cache_seconds)
        self._list_timeout = list_timeout
        self._live: dict[str, tuple[datetime, Listing]] = {}
        self._clients: dict[str, ModelClient] = {}

    @property
    def configured(self) -> bool:
        return bool(self.providers)

    def listing(self, provider: Provider) -> Listing:
        """What a compatible server lists (cached; a failure is asked again after a minute)."""
        now = self._clock.now()
        cached = self._live.get(provider.id)
        if cached is not None and now < cached[0]:
            return cached[1]
        try:
            found = listing_from(
                self._list_models(provider.base_url or "", provider.api_key, self._list_timeout)
            )
            ttl = self._cache_ttl
        except (OSError, ValueError) as exc:
            found, ttl = listing_failure(exc), min(self._cache_ttl, timedelta(seconds=60))
        self._live[provider.id] = (now + ttl, found)
        return found

    def live_ids(self, provider: Provider) -> list[str] | None:
        """The ids a compatible server lists (None when it could not be asked or lists none)."""
        found = self.listing(provider)
        return list(found.ids) if found.state == "listed" else None

    def named_ids(self, prefs: ModelPrefs | None = None) -> list[str]:
        """The model ids the user named in config.json or the environment."""
        prefs = prefs or ModelPrefs()
        named = (prefs.main, prefs.worker, self.config.main_model, self.config.worker_model)
        return [i.strip() for i in named if i and i.strip() and i != "auto"]

    def models_of(self, provider: Provider, prefs: ModelPrefs | None = None) -> list[ModelInfo]:
        """A provider's models: curated, or listed live, plus the ids the user named for it."""
        if not provider.compatible:
            return catalog.curated_for(provider.id)
        ids = [*(self.live_ids(provider) or []), *self.named_ids(prefs)]
        return [catalog.describe(provider.id, i, compatible=True) for i in dict.fromkeys(ids)]

    def find(self, model_id: str, prefs: ModelPrefs | None = None) -> tuple[Provider, ModelInfo] | None:
        """Which configured provider serves `model_id`, and what it is; None when none can.

        Curated and listed ids go to their provider; an id whose name says its provider goes
        there; any other id is trusted to a compatible server, or to the only provider there is.
        """
        model_id = catalog.normalize_id(model_id)
        if not model_id:
            return None
        plain = [p for p in self.providers if not p.compatible]
        compatible = [p for p in self.providers if p.compatible]
        known = catalog.curated(model_id)
        native = known.provider if known is not None else catalog.provider_of(model_id)
        for p in plain:
            if known is not None and known.provider == p.id:
                return p, known
        for p in compatible:
            if model_id in (self.live_ids(p) or []):
                return p, catalog.describe(p.id, model_id, compatible=True)
        for p in plain:
            if native == p.id:
                return p, catalog.describe(p.id, model_id)
        if compatible:
            return compatible[0], catalog.describe(compatible[0].id, model_id, compatible=True)
        if native is None and len(plain) == 1:
            return plain[0], catalog.describe(plain[0].id, model_id)
        return None

    def choose(self, request_model: str | None = None, prefs: ModelPrefs | None = None) -> Choice:
        """Which main and worker models a turn would get, without building clients (no SDK import)."""
        prefs = prefs or ModelPrefs()
        if not self.providers:
            raise NoModelConfigured(SETUP_HINT)
        notes: list[str] = []
        wanted: tuple[tuple[Source, str | None], ...] = (
            ("request", request_model),
            ("config", prefs.main),
            ("env", self.config.main_model),
        )
        main, main_source = self._first_found(wanted, prefs, notes, "model")
        if main is None:
            main, main_source = self._default_main(), "default"
        worker, worker_source = self._worker_for(main, prefs, notes)
        if notes:
            notes.append(f"Using {main[1].id}.")
        return Choice(main, worker, main_source, worker_source, tuple(notes))

    def resolve(
        self,
        request_model: str | None = None,
        prefs: ModelPrefs | None = None,
        *,
        thinking: bool | None = None,
        effort: Effort | None = None,
        on_call: OnCall | None = None,
    ) -> Resolution:
        """Main and worker for a turn, bound to their clients (the order is in the module
        docstring); `on_call(role, model)` hears of every request the two make."""
        prefs = prefs or ModelPrefs()
        chosen = self.choose(request_model, prefs)
        calls = ModelCalls(on_call=on_call)
        main_thinking = thinking if thinking is not None else prefs.thinking
        bound_main = self._bind(chosen.main, main_thinking, effort or prefs.effort, calls, "main")
        bound_worker = self._bind(chosen.worker, False, "low", calls, "worker")
        return Resolution(
            bound_main, bound_worker, chosen.notes, chosen.main_source, chosen.worker_source, calls
        )

    def resolve_for(self, config: Mapping[str, Any]) -> Resolution | None:
        """Main and worker for work outside a turn (maintenance, evolve-now), from the user's
        config.json preferences alone; None when no provider is configured or none resolves."""
        if not self.configured:
            return None
        try:
            return self.resolve(None, ModelPrefs.from_config(config))
        except NoModelConfigured:
            return None

    def setup_problem(self, prefs: ModelPrefs | None = None) -> str | None:
        """Why no turn could get a model right now (what to set), or None when one resolves."""
        try:
            self.choose(None, prefs)
        except NoModelConfigured as exc:
            return str(exc)
        return None

    def client_for(self, provider: Provider) -> ModelClient:
        """One retrying client per provider, built on first use."""
        if provider.id not in self._clients:
            kwargs: dict[str, Any] = {"policy": self._retry, "sleep": self._sleep}
            self._clients[provider.id] = RetryingClient(self._client_factory(provider), **kwargs)
        return self._clients[provider.id]

    def models_overview(
        self, prefs: ModelPrefs | None = None, request_model: str | None = None
    ) -> ModelsOverview:
        """`GET /api/models` and `previously models`: providers, models, the resolved main and worker."""
        from core.llm.models_view import models_overview

        return models_overview(self, prefs or ModelPrefs(), request_model)

    def _first_found(
        self,
        wanted: tuple[tuple[Source, str | None], ...],
        prefs: ModelPrefs,
        notes: list[str],
        what: str,
    ) -> tuple[tuple[Provider, ModelInfo] | None, Source]:
        for source, model_id in wanted:
            if not model_id or model_id == "auto":
                continue
            found = self.find(model_id, prefs)
            if found is not None:
                return found, source
            words = _SOURCE_WORDS[source]
            notes.append(f"The {words} {what} {model_id!r} is not available from the configured providers.")
        return None, "default"

    def _default_main(self) -> tuple[Provider, ModelInfo]:
        for p in self.providers:
            if not p.compatible:
                return p, catalog.describe(p.id, PROVIDER_TIERS[p.id][0])
            listed = self.live_ids(p)
            if listed:
                return p, catalog.describe(p.id, listed[0], compatible=True)
        server = next(p for p in self.providers if p.compatible)
        found = self.listing(server)
        if found.state == "unreachable":
            raise NoModelConfigured(
                f"{found.describe(server.endpoint)}: start the server or check {OPENAI.base_url_var}."
            )
        if found.state == "refused":
            raise NoModelConfigured(f"{found.describe(server.endpoint)}.")
        raise NoModelConfigured(
            f"the server at {server.endpoint} lists no models: name one with --model or PREVIOUSLY_MODEL "
            "(or in Settings)."
        )

    def _worker_for(
        self, main: tuple[Provider, ModelInfo], prefs: ModelPrefs, notes: list[str]
    ) -> tuple[tuple[Provider, ModelInfo], Source]:
        wanted: tuple[tuple[Source, str | None], ...] = (
            ("config", prefs.worker),
            ("env", self.config.worker_model),
        )
        pinned, source = self._first_found(wanted, prefs, notes, "worker model")
        if pinned is not None:
            return pinned, source
        provider = main[0]
        if provider.compatible:
            return main, "main"  # an unknown server: the only model we know it has is the main one
        return (provider, catalog.describe(provider.id, PROVIDER_TIERS[provider.id][1])), "derived"

    def _bind(
        self, chosen: tuple[Provider, ModelInfo], thinking: bool, effort: Effort, calls: ModelCalls, role: str
    ) -> BoundModel:
        provider, info = chosen
        client = CountingClient(self.client_for(provider), calls, role)
        return BoundModel(info, provider, client, thinking and info.supports_thinking, effort)


_SOURCE_WORDS: dict[Source, str] = {
    "request": "requested",
    "config": "configured",
    "env": "environment's",
    "default": "default",
    "derived": "derived",
    "main": "main",
}


def _group(config: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = config.get(key)
    return value if isinstance(value, Mapping) else {}
