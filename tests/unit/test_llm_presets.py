"""Every provider preset resolves its curated main/worker pair from its key alone (no network), its
reasoning controls map as documented, and every request shape it produces fits OpenAI's schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.clock import FixedClock
from core.errors import InvalidInput
from core.llm.catalog import curated, describe, provider_of
from core.llm.openai_adapter import chat_params, thinking_params
from core.llm.presets import CURATED, PRESETS, Preset
from core.llm.providers import Provider, ProviderConfig
from core.llm.registry import ModelPrefs, ModelRegistry
from core.llm.types import (
    AssistantMessage,
    ImageInput,
    ModelRequest,
    StreamEvent,
    ToolCall,
    ToolResult,
    ToolSpec,
    UserMessage,
)
from tests.fakes.openai_schema import request_problems

pytestmark = pytest.mark.unit

NAMED = {
    "DEEPSEEK_API_KEY": "deepseek_api_key",
    "ANTHROPIC_API_KEY": "anthropic_api_key",
    "OPENAI_API_KEY": "openai_api_key",
}
TOOL = ToolSpec("report", "Report.", {"type": "object", "properties": {"x": {"type": "string"}}})


class NoCalls:
    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        raise AssertionError("no model call expected")


def no_listing(base_url: str, api_key: str, timeout: float) -> list[str]:
    raise AssertionError("a hosted preset is never asked for its list")


def config_for(preset: Preset, var: str | None = None) -> ProviderConfig:
    var = var or preset.env_var
    if var in NAMED:
        return ProviderConfig(**{NAMED[var]: "key"})
    return ProviderConfig(keys={var: "key"})


def registry_for(preset: Preset, clock: FixedClock, var: str | None = None) -> ModelRegistry:
    return ModelRegistry(config_for(preset, var), clock=clock, client_factory=NoCalls, list_models=no_listing)


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_each_preset_resolves_its_pair_from_its_key(preset: Preset, clock: FixedClock) -> None:
    for var in preset.env_vars:
        res = registry_for(preset, clock, var).resolve()
        assert (res.main.info.id, res.worker.info.id) == (preset.main, preset.worker)
        assert res.main.provider.id == preset.id and res.main.provider.env_var == var
        assert res.main.info.curated and res.worker.info.curated
        assert (res.main_source, res.worker_source) == ("default", "derived")
        assert res.worker.thinking is False
    if preset.base_url is not None:
        assert res.main.provider.endpoint == preset.base_url


def test_nine_providers_with_vision_flagged_per_model() -> None:
    assert [p.id for p in PRESETS] == [
        "deepseek", "anthropic", "openai", "moonshot", "qwen", "google", "mistral", "xai", "groq",
    ]  # fmt: skip
    for preset in PRESETS:
        ids = {m.id for m in CURATED if m.provider == preset.id}
        assert {preset.main, preset.worker} <= ids, preset.id
    assert curated("kimi-k2.6").supports_vision and not curated("qwen-plus").supports_vision  # type: ignore[union-attr]
    assert curated("qwen3-vl-plus").supports_vision  # type: ignore[union-attr]


def test_a_model_is_routed_by_its_name(clock: FixedClock) -> None:
    names = ("kimi-k2.5", "qwen-max", "gemini-3-pro", "magistral-medium", "grok-5")
    assert [provider_of(i) for i in names] == ["moonshot", "qwen", "google", "mistral", "xai"]
    reg = ModelRegistry(
        ProviderConfig(keys={"GROQ_API_KEY": "g", "XAI_API_KEY": "x"}), clock=clock, client_factory=NoCalls
    )
    assert reg.resolve("grok-4-1-fast").main.provider.id == "xai"
    assert reg.resolve("openai/gpt-oss-20b").main.provider.id == "groq", "curated"
    res = reg.resolve("moonshotai/kimi-k2-instruct")
    assert res.main.info.id == "grok-4" and res.notes, "two providers and no clue: fall back, with a note"
    only = ModelRegistry(ProviderConfig(keys={"GROQ_API_KEY": "g"}), clock=clock, client_factory=NoCalls)
    trusted = only.resolve("moonshotai/kimi-k2-instruct")
    assert trusted.main.info.id == "moonshotai/kimi-k2-instruct" and trusted.notes == (), "the only provider"


def test_env_model_is_below_settings_and_above_the_default(clock: FixedClock) -> None:
    config = ProviderConfig(
        deepseek_api_key="d", main_model="deepseek-v4-flash", worker_model="deepseek-v4-pro"
    )
    reg = ModelRegistry(config, clock=clock, client_factory=NoCalls)
    res = reg.resolve()
    assert (res.main.info.id, res.main_source, res.worker.info.id, res.worker_source) == (
        "deepseek-v4-flash", "env", "deepseek-v4-pro", "env",
    )  # fmt: skip
    res = reg.resolve(prefs=ModelPrefs(main="deepseek-v4-pro", worker="deepseek-v4-flash"))
    assert (res.main_source, res.worker_source) == ("config", "config")
    assert reg.resolve("deepseek-v4-pro").main_source == "request"


REASONING = {
    # flavour → (thinking on, thinking off) for the preset's main model at effort "medium"
    "deepseek": (
        {"reasoning_effort": "medium", "extra_body": {"thinking": {"type": "enabled"}}},
        {"extra_body": {"thinking": {"type": "disabled"}}},
    ),
    "openai": ({"reasoning_effort": "medium"}, {"reasoning_effort": "none"}),
    "moonshot": (
        {"extra_body": {"thinking": {"type": "enabled"}}},
        {"extra_body": {"thinking": {"type": "disabled"}}},
    ),
    "qwen": (
        {"extra_body": {"enable_thinking": True, "thinking_budget": 12000}},
        {"extra_body": {"enable_thinking": False}},
    ),
    "google": ({"reasoning_effort": "medium"}, {"reasoning_effort": "low"}),
    "mistral": ({}, {}),
    "xai": ({}, {}),
    "groq": ({"reasoning_effort": "medium"}, {"reasoning_effort": "low"}),
}


@pytest.mark.parametrize("preset", [p for p in PRESETS if p.api == "openai"], ids=lambda p: p.id)
def test_reasoning_controls_per_preset(preset: Preset) -> None:
    info = describe(preset.id, preset.main)
    on, off = REASONING[preset.id]
    assert thinking_params(preset.flavor, info, True, "medium") == on
    assert thinking_params(preset.flavor, info, False, "medium") == off


def test_efforts_a_model_does_not_take_go_to_the_nearest() -> None:
    mini = describe("xai", "grok-3-mini")
    sent = [thinking_params("effort", mini, True, e)["reasoning_effort"] for e in ("low", "medium", "high")]
    assert sent == ["low", "high", "high"]
    assert thinking_params("effort", describe("google", "gemini-2.5-flash"), False, "low") == {
        "reasoning_effort": "none"
    }


def _wire_body(params: dict) -> dict:
    """What the SDK puts on the wire: `extra_body` merged into the JSON body."""
    body = {k: v for k, v in params.items() if k != "extra_body"}
    body.update(params.get("extra_body") or {})
    return body


@pytest.mark.parametrize("model", [m for m in CURATED if m.provider != "anthropic"], ids=lambda m: m.id)
def test_every_preset_request_fits_openais_schema(model) -> None:  # type: ignore[no-untyped-def]
    flavor = next(p.flavor for p in PRESETS if p.id == model.provider)
    call = ToolCall("c1", "report", {"x": "y"})
    history = (
        UserMessage("Hi"),
        AssistantMessage("", (call,)),
        ToolResult("c1", "done"),
        UserMessage("And?"),
    )
    for thinking in (True, False):
        for effort in ("low", "medium", "high"):
            for choice in ("auto", "required", "report"):
                request = ModelRequest(
                    model=model.id,
                    messages=history,
                    system="Be brief.",
                    tools=(TOOL,),
                    tool_choice=choice,
                    temperature=0.1,
                    thinking=thinking,
                    effort=effort,  # type: ignore[arg-type]
                    max_tokens=512,
                )
                body = _wire_body(chat_params(request, model, flavor))
                assert request_problems(body) == [], (model.id, thinking, effort, choice)


PIXEL = ImageInput(
    "image/png",
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
)


@pytest.mark.parametrize(
    "model", [m for m in CURATED if m.provider != "anthropic" and m.supports_vision], ids=lambda m: m.id
)
def test_images_go_to_vision_models_in_openais_shape(model) -> None:  # type: ignore[no-untyped-def]
    flavor = next(p.flavor for p in PRESETS if p.id == model.provider)
    request = ModelRequest(model=model.id, messages=(UserMessage("What is this?", (PIXEL,)),), thinking=True)
    body = _wire_body(chat_params(request, model, flavor))
    assert request_problems(body) == []
    parts = body["messages"][0]["content"]
    assert parts[0] == {"type": "text", "text": "What is this?"}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


def test_a_model_known_to_be_blind_refuses_images_and_an_unknown_one_is_trusted(clock: FixedClock) -> None:
    reg = ModelRegistry(ProviderConfig(deepseek_api_key="d"), clock=clock, client_factory=NoCalls)
    blind = reg.resolve("deepseek-v4-pro").main
    with pytest.raises(InvalidInput, match="does not take images"):
        blind.request([UserMessage("look", (PIXEL,))])
    assert reg.resolve("deepseek-v4-flash-vision-exp").main.request([UserMessage("look", (PIXEL,))])
    assert reg.resolve("deepseek-v5-preview").main.request([UserMessage("look", (PIXEL,))]), (
        "a guess is trusted"
    )
    with pytest.raises(InvalidInput, match="images must be one of"):
        ImageInput("application/pdf", "JVBER")
