"""Which providers are configured, which models they offer, and which model answers (main) or works.

Built from a plain `ProviderConfig` (the composition root fills it from the environment). The
adapters, and with them the SDKs, are imported only when a client is first needed.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal
from urllib.parse import urlparse

from core.clock import Clock
from core.errors import NoModelConfigured
from core.llm import catalog
from core.llm.catalog import PROVIDER_ORDER, PROVIDER_TIERS, ModelInfo, ProviderId
from core.llm.client import RetryingClient, RetryPolicy
from core.llm.types import EFFORTS, Effort, Message, ModelClient, ModelRequest

DEEPSEEK_BASE_URL = "https://api.deepseek.com"
SETUP_HINT = (
    "No model provider is configured. Set ANTHROPIC_API_KEY, OPENAI_API_KEY or DEEPSEEK_API_KEY; "
    "for a local or other OpenAI-compatible server (Ollama, vLLM, llama.cpp) set OPENAI_BASE_URL "
    "(e.g. http://localhost:11434/v1). See docs/MODELS.md."
)
_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on one


@dataclass(frozen=True)
class ProviderConfig:
    """Keys and endpoints, as plain values (no settings object reaches core)."""

    anthropic_api_key: str | None = None
    anthropic_base_url: str | None = None
    openai_api_key: str | None = None
    openai_base_url: str | None = None
    deepseek_api_key: str | None = None
    deepseek_base_url: str = DEEPSEEK_BASE_URL


@dataclass(frozen=True)
class Provider:
    """One configured provider. `compatible`: a generic OpenAI-compatible server, models listed live."""

    id: ProviderId
    name: str
    api: Literal["anthropic", "openai"]
    api_key: str = field(repr=False)
    base_url: str | None
    env_var: str
    compatible: bool = False


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
        return ModelRequest(model=self.info.id, messages=tuple(messages), **options)


@dataclass(frozen=True)
class Resolution:
    """The main and worker models for one turn, plus notes on any fallback taken."""

    main: BoundModel
    worker: BoundModel
    notes: tuple[str, ...] = ()


def providers_from(config: ProviderConfig) -> list[Provider]:
    """The configured providers, in the order defaults are chosen from."""
    found: dict[str, Provider] = {}
    if config.deepseek_api_key:
        found["deepseek"] = Provider(
            "deepseek",
            "DeepSeek",
            "openai",
            config.deepseek_api_key,
            config.deepseek_base_url,
            "DEEPSEEK_API_KEY",
        )
    if config.anthropic_api_key:
        found["anthropic"] = Provider(
            "anthropic",
            "Anthropic",
            "anthropic",
            config.anthropic_api_key,
            config.anthropic_base_url,
            "ANTHROPIC_API_KEY",
        )
    base = (config.openai_base_url or "").strip() or None
    if config.openai_api_key or base:
        compatible = base is not None and urlparse(base).hostname != "api.openai.com"
        found["openai"] = Provider(
            "openai",
            f"OpenAI-compatible ({base})" if compatible else "OpenAI",
            "openai",
            config.openai_api_key or _PLACEHOLDER_KEY,
            base,
            "OPENAI_API_KEY",
            compatible,
        )
    return [found[p] for p in PROVIDER_ORDER if p in found]


def fetch_model_ids(base_url: str, api_key: str, timeout: float) -> list[str]:
    """The ids an OpenAI-compatible server lists at `GET {base}/models`."""
    req = urllib.request.Request(
        base_url.rstrip("/") + "/models",
        headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        body = json.loads(resp.read().decode("utf-8"))
    return [str(m["id"]) for m in body.get("data", []) if isinstance(m, dict) and m.get("id")]


def default_client(provider: Provider) -> ModelClient:
    """The adapter for a provider, imported on first use (keeps the SDKs off cold paths)."""
    if provider.api == "anthropic":
        from core.llm.anthropic_adapter import AnthropicAdapter

        return AnthropicAdapter(
            provider.api_key, provider.base_url, label=provider.name, env_var=provider.env_var
        )
    from core.llm.openai_adapter import OpenAIAdapter

    flavor: Literal["openai", "deepseek", "compatible"] = "openai"
    if provider.compatible:
        flavor = "compatible"
    elif provider.id == "deepseek":
        flavor = "deepseek"
    return OpenAIAdapter(
        provider.api_key,
        provider.base_url,
        flavor,
        label=provider.name,
        env_var=provider.env_var,
        provider=provider.id,
    )


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
        self.providers = providers_from(config)
        self._clock = clock
        self._client_factory = client_factory
        self._list_models = list_models
        self._retry = retry
        self._sleep = sleep
        self._cache_ttl = timedelta(seconds=cache_seconds)
        self._list_timeout = list_timeout
        self._live: dict[str, tuple[datetime, list[str] | None]] = {}
        self._clients: dict[str, ModelClient] = {}

    @property
    def configured(self) -> bool:
        return bool(self.providers)

    def live_ids(self, provider: Provider) -> list[str] | None:
        """The ids a compatible server lists (cached; None when it could not be asked)."""
        now = self._clock.now()
        cached = self._live.get(provider.id)
        if cached is not None and now < cached[0]:
            return cached[1]
        try:
            ids: list[str] | None = self._list_models(
                provider.base_url or "", provider.api_key, self._list_timeout
            )
            ttl = self._cache_ttl
        except (OSError, ValueError):
            ids, ttl = None, min(self._cache_ttl, timedelta(seconds=60))  # ask again soon: it may come up
        self._live[provider.id] = (now + ttl, ids)
        return ids

    def models_of(self, provider: Provider, prefs: ModelPrefs | None = None) -> list[ModelInfo]:
        """A provider's models: curated, or listed live (falling back to the configured ids)."""
        if not provider.compatible:
            return catalog.curated_for(provider.id)
        ids = self.live_ids(provider)
        if ids is None:
            prefs = prefs or ModelPrefs()
            ids = [i for i in (prefs.main, prefs.worker) if i and i != "auto"]
        return [catalog.describe(provider.id, i, compatible=True) for i in dict.fromkeys(ids)]

    def find(self, model_id: str, prefs: ModelPrefs | None = None) -> tuple[Provider, ModelInfo] | None:
        """Which configured provider serves `model_id`, and what it is; None when none does."""
        model_id = catalog.normalize_id(model_id)
        if not model_id:
            return None
        native = catalog.provider_of(model_id)
        plain = [p for p in self.providers if not p.compatible]
        known = catalog.curated(model_id)
        for p in plain:
            if known is not None and known.provider == p.id:
                return p, known
        for p in self.providers:
            if p.compatible and model_id in {m.id for m in self.models_of(p, prefs)}:
                return p, catalog.describe(p.id, model_id, compatible=True)
        for p in plain:
            if native == p.id:
                return p, catalog.describe(p.id, model_id)
        return None

    def resolve(
        self,
        request_model: str | None = None,
        prefs: ModelPrefs | None = None,
        *,
        thinking: bool | None = None,
        effort: Effort | None = None,
    ) -> Resolution:
        """Main = request → config → first provider's default; worker = pinned or the cheap tier."""
        prefs = prefs or ModelPrefs()
        if not self.providers:
            raise NoModelConfigured(SETUP_HINT)
        notes: list[str] = []
        main: tuple[Provider, ModelInfo] | None = None
        for source, wanted in (("requested", request_model), ("configured", prefs.main)):
            if wanted and wanted != "auto" and main is None:
                main = self.find(wanted, prefs)
                if main is None:
                    notes.append(
                        f"The {source} model {wanted!r} is not available from the configured providers."
                    )
        main = main or self._default_main(prefs)
        worker = self._worker_for(main, prefs, notes)
        bound_main = self._bind(
            main, thinking if thinking is not None else prefs.thinking, effort or prefs.effort
        )
        bound_worker = self._bind(worker, False, "low")
        if notes:
            notes.append(f"Using {bound_main.info.id}.")
        return Resolution(bound_main, bound_worker, tuple(notes))

    def client_for(self, provider: Provider) -> ModelClient:
        """One retrying client per provider, built on first use."""
        if provider.id not in self._clients:
            kwargs: dict[str, Any] = {"policy": self._retry, "sleep": self._sleep}
            self._clients[provider.id] = RetryingClient(self._client_factory(provider), **kwargs)
        return self._clients[provider.id]

    def models_payload(
        self, prefs: ModelPrefs | None = None, request_model: str | None = None
    ) -> dict[str, Any]:
        """`GET /api/models`: providers, their models, and the resolved main and worker."""
        prefs = prefs or ModelPrefs()
        payload: dict[str, Any] = {"configured": self.configured, "providers": [], "models": []}
        payload.update(main=None, worker=None, notes=[], setup=None)
        for p in self.providers:
            source = (
                "curated" if not p.compatible else ("live" if self.live_ids(p) is not None else "configured")
            )
            payload["providers"].append(
                {"id": p.id, "name": p.name, "base_url": p.base_url, "env": p.env_var, "models": source}
            )
            payload["models"] += [_model_json(m, p) for m in self.models_of(p, prefs)]
        try:
            res = self.resolve(request_model, prefs)
        except NoModelConfigured as exc:
            payload["setup"] = str(exc)
            return payload
        main = {**_model_json(res.main.info, res.main.provider), "thinking": res.main.thinking}
        payload["main"] = {**main, "effort": res.main.effort}
        payload["worker"] = {**_model_json(res.worker.info, res.worker.provider), "thinking": False}
        payload["notes"] = list(res.notes)
        return payload

    def _default_main(self, prefs: ModelPrefs) -> tuple[Provider, ModelInfo]:
        for p in self.providers:
            if not p.compatible:
                return p, catalog.describe(p.id, PROVIDER_TIERS[p.id][0])
            listed = self.models_of(p, prefs)
            if listed:
                return p, listed[0]
        raise NoModelConfigured(
            "The OpenAI-compatible server at OPENAI_BASE_URL lists no models and none is configured: "
            "start the server (and pull a model), or set model.main in memory/user/config.json."
        )

    def _worker_for(
        self, main: tuple[Provider, ModelInfo], prefs: ModelPrefs, notes: list[str]
    ) -> tuple[Provider, ModelInfo]:
        if prefs.worker and prefs.worker != "auto":
            pinned = self.find(prefs.worker, prefs)
            if pinned is not None:
                return pinned
            notes.append(f"The pinned worker model {prefs.worker!r} is not available; deriving one instead.")
        provider = main[0]
        if provider.compatible:
            return main  # an unknown server: the only model we know it has is the main one
        return provider, catalog.describe(provider.id, PROVIDER_TIERS[provider.id][1])

    def _bind(self, chosen: tuple[Provider, ModelInfo], thinking: bool, effort: Effort) -> BoundModel:
        provider, info = chosen
        return BoundModel(
            info, provider, self.client_for(provider), thinking and info.supports_thinking, effort
        )


def _group(config: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = config.get(key)
    return value if isinstance(value, Mapping) else {}


def _model_json(m: ModelInfo, p: Provider) -> dict[str, Any]:
    return {
        "id": m.id,
        "name": m.name,
        "provider": p.id,
        "provider_name": p.name,
        "supports_thinking": m.supports_thinking,
        "supports_vision": m.supports_vision,
        "max_tokens": m.max_tokens,
        "default_thinking": m.supports_thinking,
        "default_effort": m.default_effort,
        "curated": m.curated,
    }
