"""recall_filters.json → effort_injection: the thinking/effort options each provider receives.

The vector records the original's provider options (AI-SDK shape); we compare what our adapters
put on the wire, translated back to that shape. One deliberate difference: Anthropic models
that take a token budget need one even at effort `low` (the API refuses `enabled` without it),
so there we send our own low budget where the original sent none.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.llm.anthropic_adapter import message_params
from core.llm.catalog import describe
from core.llm.openai_adapter import chat_params
from core.llm.types import ModelRequest, UserMessage
from tests.conftest import load_vectors

CASES = load_vectors("recall_filters.json")["effort_injection"]
MODELS = {"deepseek": "deepseek-v4-pro", "openai": "gpt-5.5", "anthropic": "claude-haiku-4-5"}


def provider_options(sdk: str, thinking: bool, effort: str) -> dict[str, Any]:
    request = ModelRequest(MODELS[sdk], (UserMessage("hi"),), thinking=thinking, effort=effort)  # type: ignore[arg-type]
    if sdk == "anthropic":
        sent = dict(message_params(request, describe("anthropic", request.model))["thinking"])
        budget = sent.pop("budget_tokens", None)
        if budget is not None and effort != "low":
            sent["budgetTokens"] = budget
        return {"anthropic": {"thinking": sent}}
    params = chat_params(request, describe(sdk, request.model), sdk)  # type: ignore[arg-type]
    options: dict[str, Any] = {}
    if "extra_body" in params:
        options["thinking"] = params["extra_body"]["thinking"]
    if "reasoning_effort" in params:
        options["reasoningEffort"] = params["reasoning_effort"]
    return {sdk: options}


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES, ids=[f"{c['sdk']}-{c['effort']}" for c in CASES])
def test_effort_injection(case: dict[str, Any]) -> None:
    assert provider_options(case["sdk"], case["thinking"], case["effort"]) == case["providerOptions"]
