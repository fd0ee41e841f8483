"""Assembling a streamed reply into one `AssistantMessage` (shared by the adapters)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.llm.types import AssistantMessage, Reasoning, ToolCall


def parse_arguments(raw: str | dict[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a dict, or `({}, why)` when they are not a JSON object."""
    if isinstance(raw, dict):
        return raw, None
    text = (raw or "").strip()
    if not text:
        return {}, None  # a tool without parameters: some providers send "" for {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return (
            {},
            f"the arguments are not valid JSON ({exc.msg} at character {exc.pos}); send one JSON object",
        )
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, not {type(value).__name__}"
    return value, None


def make_tool_call(call_id: str, name: str, raw: str | dict[str, Any] | None) -> ToolCall:
    """A complete tool call; malformed arguments are kept and explained, never raised."""
    arguments, error = parse_arguments(raw)
    raw_text = raw if isinstance(raw, str) else json.dumps(raw or {}, ensure_ascii=False)
    return ToolCall(id=call_id, name=name, arguments=arguments, raw_arguments=raw_text, error=error)


@dataclass
class MessageBuilder:
    """Collects text, reasoning blocks and tool calls in arrival order."""

    text: list[str] = field(default_factory=list)
    reasoning: list[Reasoning] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    _open_reasoning: list[str] = field(default_factory=list)

    def add_text(self, delta: str) -> None:
        self.text.append(delta)

    def add_reasoning_delta(self, delta: str) -> None:
        """Reasoning without block boundaries (OpenAI-style): one block per message."""
        self._open_reasoning.append(delta)

    def add_reasoning_block(self, block: Reasoning) -> None:
        self.reasoning.append(block)

    def add_tool_call(self, call: ToolCall) -> None:
        self.tool_calls.append(call)

    def build(self) -> AssistantMessage:
        """The message so far (reasoning deltas become one unsigned block)."""
        blocks = list(self.reasoning)
        if self._open_reasoning:
            blocks.append(Reasoning(text="".join(self._open_reasoning)))
        return AssistantMessage(
            text="".join(self.text), tool_calls=tuple(self.tool_calls), reasoning=tuple(blocks)
        )
