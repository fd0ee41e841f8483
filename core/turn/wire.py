"""Model messages as JSON, so a turn's rounds can live in the run store between steps.

Lossless for everything a later round sends back to the provider: reasoning signatures and
redacted payloads (Anthropic refuses a tool round whose earlier thinking changed), tool-call
ids, raw arguments and their parse errors.
"""

from __future__ import annotations

from typing import Any

from core.llm.types import AssistantMessage, Message, Reasoning, ToolCall, ToolResult, UserMessage


def call_to_json(call: ToolCall) -> dict[str, Any]:
    """One tool call."""
    out: dict[str, Any] = {"id": call.id, "name": call.name, "arguments": call.arguments}
    if call.raw_arguments:
        out["raw_arguments"] = call.raw_arguments
    if call.error:
        out["error"] = call.error
    return out


def call_from_json(data: dict[str, Any]) -> ToolCall:
    """The inverse of `call_to_json`."""
    return ToolCall(
        id=str(data["id"]),
        name=str(data["name"]),
        arguments=dict(data.get("arguments") or {}),
        raw_arguments=str(data.get("raw_arguments") or ""),
        error=data.get("error"),
    )


def message_to_json(message: Message) -> dict[str, Any]:
    """One message, tagged with its role."""
    if isinstance(message, UserMessage):
        return {"role": "user", "text": message.text}
    if isinstance(message, ToolResult):
        return {
            "role": "tool",
            "call_id": message.call_id,
            "content": message.content,
            "is_error": message.is_error,
        }
    return {
        "role": "assistant",
        "text": message.text,
        "tool_calls": [call_to_json(c) for c in message.tool_calls],
        "reasoning": [
            {k: v for k, v in (("text", r.text), ("signature", r.signature), ("redacted", r.redacted)) if v}
            for r in message.reasoning
        ],
    }


def message_from_json(data: dict[str, Any]) -> Message:
    """The inverse of `message_to_json`."""
    role = data.get("role")
    if role == "user":
        return UserMessage(str(data.get("text", "")))
    if role == "tool":
        return ToolResult(str(data["call_id"]), str(data.get("content", "")), bool(data.get("is_error")))
    return AssistantMessage(
        text=str(data.get("text", "")),
        tool_calls=tuple(call_from_json(c) for c in data.get("tool_calls") or []),
        reasoning=tuple(
            Reasoning(str(r.get("text", "")), r.get("signature"), r.get("redacted"))
            for r in data.get("reasoning") or []
        ),
    )


def messages_from_json(items: list[dict[str, Any]] | None) -> list[Message]:
    """A list of messages (an absent list is empty)."""
    return [message_from_json(m) for m in items or []]
