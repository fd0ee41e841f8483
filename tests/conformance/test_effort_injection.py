"""recall_filters.json → effort_injection: the thinking/effort options each provider receives.

The vector records the original's provider options (AI-SDK shape) per SDK, for every effort and
with thinking on or off; we compare what our adapters put on the wire, translated back to that
shape, for a model of the family the original's mapping was written for (a case may name its
own `model`). Our mapping also depends on the model family (REFERENCE §13.5 has one rule per SDK):

- Anthropic models that take a token budget need one even at effort `low` (the API refuses
  `enabled` without it), so there we send our own low budget where the original sent none;
  Claude 4.6 and later take `adaptive` thinking with the effort instead of a budget.
- OpenAI with thinking off: the first GPT-5 models get `minimal` as in the original, newer ones
  `none`, o-series models (which always reason) `low`.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.llm.anthropic_adapter import message_params
from core.llm.catalog import describe
from core.llm.openai_adapter import chat_params
from core.llm.types import ModelRequest, UserMessage
from tests.conformance.vectors import Case, shape, vectors

CASES = vectors("recall_filters.json").cases(
    "effort_injection", shape("effort", "sdk thinking effort providerOptions", "model")
)
# The family each SDK's rule in the original describes (budget-based Claude, first GPT-5).
MODELS = {"deepseek": "deepseek-v4-pro", "openai": "gpt-5", "anthropic": "claude-haiku-4-5"}


def provider_options(sdk: str, thinking: bool, effort: str, model: str | None = None) -> dict[str, Any]:
    """What our adapter sends for one model, in the AI SDK's providerOptions shape."""
    if sdk not in MODELS:
        pytest.fail(f"effort_injection: unknown sdk {sdk!r} (known: {sorted(MODELS)})", pytrace=False)
    request = ModelRequest(model or MODELS[sdk], (UserMessage("hi"),), thinking=thinking, effort=effort)  # type: ignore[arg-type]
    if sdk == "anthropic":
        params = message_params(request, describe("anthropic", request.model))
        sent = dict(params["thinking"])
        budget = sent.pop("budget_tokens", None)
        if budget is not None and effort != "low":
            sent["budgetTokens"] = budget
        if "output_config" in params:
            sent["effort"] = params["output_config"]["effort"]
        return {"anthropic": {"thinking": sent}}
    params = chat_params(request, describe(sdk, request.model), sdk)  # type: ignore[arg-type]
    options: dict[str, Any] = {}
    if "extra_body" in params:
        options["thinking"] = params["extra_body"]["thinking"]
    if "reasoning_effort" in params:
        options["reasoningEffort"] = params["reasoning_effort"]
    return {sdk: options}


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_effort_injection(case: Case) -> None:
    got = provider_options(case["sdk"], case["thinking"], case["effort"], case.get("model"))
    assert got == case["providerOptions"]


def _on(sdk: str, model: str, effort: str) -> dict[str, Any]:
    return provider_options(sdk, True, effort, model)[sdk]


def _off(sdk: str, model: str) -> dict[str, Any]:
    return provider_options(sdk, False, "medium", model)[sdk]


@pytest.mark.unit
@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_mapping_per_family_with_thinking_on(effort: str) -> None:
    """REFERENCE §13.5, thinking on, for each family we know."""
    assert _on("deepseek", "deepseek-v4-flash", effort) == {
        "thinking": {"type": "enabled"},
        "reasoningEffort": effort,
    }
    for model in ("gpt-5", "gpt-5.5", "gpt-5.4-mini", "o3"):
        assert _on("openai", model, effort) == {"reasoningEffort": effort}, model
    budgets = {"low": {}, "medium": {"budgetTokens": 12_000}, "high": {"budgetTokens": 32_000}}
    assert _on("anthropic", "claude-haiku-4-5", effort) == {
        "thinking": {"type": "enabled", **budgets[effort]}
    }
    assert _on("anthropic", "claude-sonnet-4-6", effort) == {
        "thinking": {"type": "adaptive", "effort": effort}
    }


@pytest.mark.unit
def test_mapping_per_family_with_thinking_off() -> None:
    """Thinking off is always an explicit "off" (the lowest effort each family accepts)."""
    assert _off("deepseek", "deepseek-v4-pro") == {"thinking": {"type": "disabled"}}
    assert _off("anthropic", "claude-haiku-4-5") == {"thinking": {"type": "disabled"}}
    assert _off("anthropic", "claude-sonnet-4-6") == {"thinking": {"type": "disabled"}}
    assert _off("openai", "gpt-5") == {"reasoningEffort": "minimal"}
    assert _off("openai", "gpt-5-mini") == {"reasoningEffort": "minimal"}
    assert _off("openai", "gpt-5.5") == {"reasoningEffort": "none"}
    assert _off("openai", "o3") == {"reasoningEffort": "low"}


@pytest.mark.unit
def test_models_without_reasoning_get_no_options() -> None:
    """A model that cannot reason (gpt-4o) is sent no reasoning option at all, on or off."""
    assert _on("openai", "gpt-4o", "high") == {} == _off("openai", "gpt-4o")
