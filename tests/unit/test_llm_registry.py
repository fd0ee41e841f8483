"""Provider configuration, model listing and main/worker resolution."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.clock import FixedClock
from core.errors import NoModelConfigured
from core.llm.client import RetryingClient
from core.llm.counting import CountingClient
from core.llm.registry import ModelPrefs, ModelRegistry, Provider, ProviderConfig, providers_from
from core.llm.types import ModelRequest, StreamEvent, UserMessage
from functions.models_json import models_json

pytestmark = pytest.mark.unit


class NullClient:
    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        raise AssertionError("no model call expected")


class Listing:
    """A stand-in for `GET /models` that counts its calls and can fail."""

    def __init__(self, ids: list[str] | None) -> None:
        self.ids, self.calls = ids, 0

    def __call__(self, base_url: str, api_key: str, timeout: float) -> list[str]:
        self.calls += 1
        if self.ids is None:
            raise OSError("connection refused")
        return list(self.ids)


def registry(clock: FixedClock, listing: Listing | None = None, **config: str) -> ModelRegistry:
    return ModelRegistry(
        ProviderConfig(**config), clock=clock, client_factory=NullClient, list_models=listing or Listing([])
    )


def test_nothing_configured_says_what_to_set(clock: FixedClock) -> None:
    reg = registry(clock)
    assert not reg.configured
    with pytest.raises(NoModelConfigured) as info:
        reg.resolve()
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_BASE_URL"):
        assert var in str(info.value)
    payload = models_json(reg.models_overview())
    assert (
        payload["configured"] is False and payload["main"] is None and "OPENAI_BASE_URL" in payload["setup"]
    )


def test_provider_order_and_kinds() -> None:
    config = ProviderConfig(
        anthropic_api_key="a",
        openai_api_key="o",
        deepseek_api_key="d",
        openai_base_url="https://api.openai.com/v1",
    )
    found = providers_from(config)
    assert [p.id for p in found] == ["deepseek", "anthropic", "openai"]
    assert not found[2].compatible and found[0].base_url == "https://api.deepseek.com"
    local = providers_from(ProviderConfig(openai_base_url="http://localhost:11434/v1"))
    assert local[0].compatible and local[0].api_key == "not-needed" and "localhost:11434" in local[0].name


def test_deepseek_tiers_and_legacy_alias(clock: FixedClock) -> None:
    reg = registry(clock, deepseek_api_key="d")
    res = reg.resolve(prefs=ModelPrefs(main="deepseek-reasoner", effort="high"))
    assert (res.main.info.id, res.worker.info.id) == ("deepseek-v4-pro", "deepseek-v4-flash")
    assert res.main.thinking is True and res.main.effort == "high"
    assert res.worker.thinking is False and res.notes == ()


def test_request_model_beats_config_and_picks_its_provider(clock: FixedClock) -> None:
    reg = registry(clock, deepseek_api_key="d", anthropic_api_key="a")
    assert reg.resolve().main.info.id == "deepseek-v4-pro", "first configured provider's default"
    res = reg.resolve("claude-opus-4-8", ModelPrefs(main="deepseek-v4-flash"), thinking=False)
    assert res.main.info.id == "claude-opus-4-8" and res.main.provider.id == "anthropic"
    assert res.main.thinking is False
    assert res.worker.info.id == "claude-haiku-4-5"


def test_unavailable_model_falls_back_with_a_note(clock: FixedClock) -> None:
    reg = registry(clock, openai_api_key="o")
    res = reg.resolve("claude-sonnet-5")
    assert res.main.info.id == "gpt-5.5" and res.worker.info.id == "gpt-5.4-mini"
    assert "claude-sonnet-5" in res.notes[0] and res.notes[-1] == "Using gpt-5.5."
    guessed = reg.resolve("o3").main.info
    assert guessed.id == "o3" and not guessed.curated and guessed.supports_thinking


def test_compatible_server_lists_its_models_and_caches_them(clock: FixedClock) -> None:
    listing = Listing(["llama3.1:8b", "qwen3:4b"])
    reg = registry(clock, listing, openai_base_url="http://localhost:11434/v1")
    res = reg.resolve()
    assert res.main.info.id == "llama3.1:8b" and res.worker.info.id == "llama3.1:8b", "same model as worker"
    assert res.main.thinking is False, "no reasoning options are assumed for an unknown server"
    assert reg.resolve("qwen3:4b").main.info.id == "qwen3:4b"
    assert listing.calls == 1
    clock.advance(minutes=31)
    reg.resolve()
    assert listing.calls == 2


def test_unreachable_server_falls_back_to_configured_ids(clock: FixedClock) -> None:
    listing = Listing(None)
    reg = registry(clock, listing, openai_base_url="http://localhost:8080/v1")
    with pytest.raises(
        NoModelConfigured, match=r"cannot reach http://localhost:8080/v1 \(connection refused\)"
    ):
        reg.resolve()
    res = reg.resolve(prefs=ModelPrefs(main="my-model"))
    assert res.main.info.id == "my-model"
    assert (
        models_json(reg.models_overview(ModelPrefs(main="my-model")))["providers"][0]["models"]
        == "configured"
    )
    calls = listing.calls
    clock.advance(seconds=61)
    reg.resolve(prefs=ModelPrefs(main="my-model"))
    assert listing.calls == calls + 1, "a failed listing is retried soon"


def test_pinned_worker(clock: FixedClock) -> None:
    reg = registry(clock, deepseek_api_key="d", anthropic_api_key="a")
    res = reg.resolve(prefs=ModelPrefs(main="claude-sonnet-5", worker="deepseek-v4-flash"))
    assert res.worker.info.id == "deepseek-v4-flash" and res.worker.provider.id == "deepseek"
    missing = reg.resolve(prefs=ModelPrefs(main="claude-sonnet-5", worker="gpt-5.4-mini"))
    assert missing.worker.info.id == "claude-haiku-4-5"
    assert any("gpt-5.4-mini" in n for n in missing.notes)


def test_resolve_for_reads_the_config_alone_and_is_none_without_a_model(clock: FixedClock) -> None:
    reg = registry(clock, deepseek_api_key="d", anthropic_api_key="a")
    model = {"main": "claude-sonnet-5", "worker": "deepseek-v4-flash", "thinking": False, "effort": "high"}
    res = reg.resolve_for({"model": model})
    assert res is not None
    assert (res.main.info.id, res.worker.info.id) == ("claude-sonnet-5", "deepseek-v4-flash")
    assert res.main.thinking is False and res.worker.thinking is False
    default = reg.resolve_for({})
    assert default is not None and default.main.info.id == "deepseek-v4-pro"
    assert registry(clock).resolve_for({}) is None, "no provider configured"
    unreachable = registry(clock, Listing(None), openai_base_url="http://localhost:8080/v1")
    assert unreachable.resolve_for({}) is None, "a provider that resolves no model"


def test_prefs_from_config_reads_new_and_legacy_keys() -> None:
    model = {"main": "claude-sonnet-5", "worker": "auto", "thinking": False, "effort": "low"}
    new = ModelPrefs.from_config({"model": model})
    assert new == ModelPrefs("claude-sonnet-5", "auto", False, "low")
    legacy = ModelPrefs.from_config(
        {
            "model": {"provider": "deepseek-chat", "thinking": True, "reasoningEffort": "high"},
            "worker": {"mode": "manual", "provider": "deepseek-v4-flash"},
        }
    )
    assert legacy == ModelPrefs(None, "deepseek-v4-flash", True, "high"), "model.provider is only a default"
    assert ModelPrefs.from_config({"model": {"main": "auto"}}).main is None
    assert ModelPrefs.from_config({"model": "garbage", "worker": None}) == ModelPrefs()
    assert ModelPrefs.from_config({"model": {"effort": "extreme"}}).effort == "medium"


def test_bound_model_builds_requests(clock: FixedClock) -> None:
    res = registry(clock, anthropic_api_key="a").resolve(effort="high")
    request = res.main.request([UserMessage("hi")], system="S", timeout=5.0)
    assert (request.model, request.thinking, request.effort, request.system) == (
        "claude-sonnet-5",
        True,
        "high",
        "S",
    )
    assert res.worker.request([UserMessage("hi")]).thinking is False
    assert isinstance(res.main.client, CountingClient) and isinstance(res.main.client.inner, RetryingClient)
    assert res.main.client.inner is res.worker.client.inner, "one client per provider"
    assert (res.main.client.role, res.worker.client.role) == ("main", "worker")
    assert res.main.client.calls is res.worker.client.calls is res.calls


def test_models_payload(clock: FixedClock) -> None:
    payload = models_json(
        registry(clock, anthropic_api_key="a", deepseek_api_key="d").models_overview(
            ModelPrefs(main="claude-sonnet-5")
        )
    )
    assert [p["id"] for p in payload["providers"]] == ["deepseek", "anthropic"]
    ids = [m["id"] for m in payload["models"]]
    assert ids[:3] == ["deepseek-v4-pro", "deepseek-v4-flash", "deepseek-v4-flash-vision-exp"]
    assert "claude-haiku-4-5" in ids and "gpt-5.5" not in ids
    assert payload["main"]["id"] == "claude-sonnet-5" and payload["main"]["thinking"] is True
    assert payload["worker"] == {**payload["worker"], "id": "claude-haiku-4-5", "thinking": False}
    assert set(payload["models"][0]) >= {
        "id",
        "name",
        "provider",
        "supports_thinking",
        "supports_vision",
        "max_tokens",
    }


def test_the_models_json_keeps_its_keys_and_their_order(clock: FixedClock) -> None:
    """core returns typed values; functions/models_json.py is the one place that shapes the JSON."""
    reg = registry(clock, anthropic_api_key="a")
    payload = models_json(reg.models_overview(ModelPrefs(effort="high")))
    assert list(payload) == [
        "configured",
        "providers",
        "models",
        "main",
        "worker",
        "notes",
        "setup",
        "presets",
    ]
    model_keys = ["id", "name", "provider", "provider_name", "supports_thinking", "supports_vision"]
    model_keys += ["max_tokens", "default_thinking", "default_effort", "curated"]
    assert list(payload["models"][0]) == model_keys
    assert list(payload["main"]) == [*model_keys, "thinking", "effort", "source"]
    assert list(payload["worker"]) == [*model_keys, "thinking", "source"]
    assert payload["main"]["effort"] == "high" and payload["main"]["source"] == "default"
    assert list(payload["providers"][0]) == ["id", "name", "base_url", "env", "models", "state", "detail"]
    assert list(payload["presets"][0]) == ["id", "name", "env", "configured", "main", "worker", "signup"]
    empty = models_json(registry(clock).models_overview())
    assert (empty["main"], empty["worker"], empty["models"]) == (None, None, [])
