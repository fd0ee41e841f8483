"""What each adapter puts on the wire: thinking and effort, tool choice, caching, temperature."""

from __future__ import annotations

import pytest

from core.llm.anthropic_adapter import THINKING_BUDGET, message_params
from core.llm.catalog import describe
from core.llm.openai_adapter import chat_params
from core.llm.types import (
    AssistantMessage,
    ModelRequest,
    Reasoning,
    ToolCall,
    ToolResult,
    ToolSpec,
    UserMessage,
)

pytestmark = pytest.mark.unit

TOOL = ToolSpec("report", "File a report.", {"type": "object", "properties": {}})
HI = (UserMessage("hi"),)


def openai(request: ModelRequest, flavor: str = "openai", provider: str = "openai") -> dict:
    return chat_params(request, describe(provider, request.model, compatible=flavor == "compatible"), flavor)  # type: ignore[arg-type]


def claude(request: ModelRequest) -> dict:
    return message_params(request, describe("anthropic", request.model))


def test_deepseek_thinking_switch() -> None:
    on = openai(ModelRequest("deepseek-v4-pro", HI, thinking=True, effort="high"), "deepseek", "deepseek")
    assert on["extra_body"] == {"thinking": {"type": "enabled"}} and on["reasoning_effort"] == "high"
    off = openai(
        ModelRequest("deepseek-v4-flash", HI, thinking=False, temperature=0.1), "deepseek", "deepseek"
    )
    assert off["extra_body"] == {"thinking": {"type": "disabled"}} and "reasoning_effort" not in off
    assert off["temperature"] == 0.1


def test_openai_reasoning_effort_and_temperature() -> None:
    on = openai(ModelRequest("gpt-5.5", HI, thinking=True, effort="low", temperature=0.5, max_tokens=900))
    assert on["reasoning_effort"] == "low" and "temperature" not in on
    assert on["max_completion_tokens"] == 900
    off = openai(ModelRequest("gpt-5.5", HI, thinking=False, temperature=0.5))
    assert off["reasoning_effort"] == "none" and off["temperature"] == 0.5
    assert openai(ModelRequest("gpt-5-mini", HI))["reasoning_effort"] == "minimal"
    assert openai(ModelRequest("o3", HI))["reasoning_effort"] == "low"


def test_compatible_server_gets_no_reasoning_options() -> None:
    params = openai(
        ModelRequest("llama3.1:8b", HI, thinking=True, temperature=0.2, max_tokens=50), "compatible"
    )
    assert "reasoning_effort" not in params and "extra_body" not in params
    assert params["temperature"] == 0.2 and params["max_tokens"] == 50
    assert params["stream"] is True and params["stream_options"] == {"include_usage": True}


def test_openai_tool_choice_shapes() -> None:
    named = openai(ModelRequest("gpt-5.5", HI, tools=(TOOL,), tool_choice="report"))
    assert named["tool_choice"] == {"type": "function", "function": {"name": "report"}}
    function = {"name": "report", "description": "File a report.", "parameters": TOOL.parameters}
    assert named["tools"][0] == {"type": "function", "function": function}
    assert (
        openai(ModelRequest("gpt-5.5", HI, tools=(TOOL,), tool_choice="required"))["tool_choice"]
        == "required"
    )
    assert "tool_choice" not in openai(ModelRequest("gpt-5.5", HI))


def test_anthropic_adaptive_and_budget_thinking() -> None:
    adaptive = claude(ModelRequest("claude-sonnet-5", HI, thinking=True, effort="medium"))
    assert adaptive["thinking"] == {"type": "adaptive"} and adaptive["output_config"] == {"effort": "medium"}
    budget = claude(ModelRequest("claude-haiku-4-5", HI, thinking=True, effort="medium", max_tokens=1000))
    assert budget["thinking"] == {"type": "enabled", "budget_tokens": THINKING_BUDGET["medium"]}
    assert budget["max_tokens"] == 1000 + 12_000, "the thinking budget counts inside max_tokens"
    off = claude(ModelRequest("claude-sonnet-5", HI, thinking=False, temperature=0.3))
    assert off["thinking"] == {"type": "disabled"} and "output_config" not in off and "temperature" not in off


def test_anthropic_forced_tool_turns_thinking_off() -> None:
    forced = claude(ModelRequest("claude-sonnet-5", HI, tools=(TOOL,), tool_choice="report", thinking=True))
    assert forced["tool_choice"] == {"type": "tool", "name": "report"}
    assert forced["thinking"] == {"type": "disabled"}
    anyone = claude(ModelRequest("claude-sonnet-5", HI, tools=(TOOL,), tool_choice="required"))
    assert anyone["tool_choice"] == {"type": "any"}


def test_anthropic_cache_breakpoints_and_history() -> None:
    history = (
        UserMessage("weather?"),
        AssistantMessage(
            text="Checking.",
            tool_calls=(ToolCall("t1", "report", {"a": 1}),),
            reasoning=(Reasoning("plan", signature="sig"), Reasoning("from elsewhere")),
        ),
        ToolResult("t1", "sunny"),
        UserMessage("and tomorrow?"),
    )
    params = claude(ModelRequest("claude-sonnet-5", history, system="You help.", cache_system=True))
    assert params["system"] == [{"type": "text", "text": "You help.", "cache_control": {"type": "ephemeral"}}]
    roles = [m["role"] for m in params["messages"]]
    assert roles == ["user", "assistant", "user"], "tool result and next question share one user message"
    assistant = params["messages"][1]["content"]
    assert assistant[0] == {"type": "thinking", "thinking": "plan", "signature": "sig"}
    assert [b["type"] for b in assistant] == ["thinking", "text", "tool_use"], (
        "unsigned reasoning is not sent"
    )
    last = params["messages"][2]["content"]
    assert last[0]["type"] == "tool_result" and last[0]["tool_use_id"] == "t1"
    assert last[-1] == {"type": "text", "text": "and tomorrow?", "cache_control": {"type": "ephemeral"}}
    plain = claude(ModelRequest("claude-sonnet-5", HI, system="You help."))
    assert plain["system"] == "You help." and "cache_control" not in str(plain["messages"])
