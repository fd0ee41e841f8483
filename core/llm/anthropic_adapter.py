"""The Anthropic messages adapter.

One of only two modules that import a model SDK; the registry loads it lazily. Thinking blocks
become reasoning events and travel back, signed, in later tool rounds; a cacheable system prompt
and the last history message get ephemeral cache breakpoints.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anthropic

from core.errors import PreviouslyError
from core.llm import errors
from core.llm.assembly import MessageBuilder, make_tool_call
from core.llm.catalog import ModelInfo, describe
from core.llm.presets import PRESET_BY_ID
from core.llm.types import (
    AssistantMessage,
    Finish,
    FinishReason,
    Message,
    ModelRequest,
    Reasoning,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolResult,
    Usage,
    UserMessage,
)

# Thinking-token budgets for models that take a fixed budget ("low" is ours);
# docs/MODELS.md "Thinking and effort, per provider".
THINKING_BUDGET = {"low": 4_000, "medium": 12_000, "high": 32_000}
# Anthropic requires max_tokens; the product sets no output cap of its own, so leave room.
DEFAULT_MAX_TOKENS = 16_000
_STOP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}
_EPHEMERAL = {"type": "ephemeral"}


@dataclass
class AnthropicAdapter:
    """A `ModelClient` over `anthropic.Anthropic`."""

    api_key: str
    base_url: str | None = None
    label: str = "Anthropic"
    env_var: str = PRESET_BY_ID["anthropic"].env_var
    _client: anthropic.Anthropic | None = field(default=None, repr=False)

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """Run one message request, streamed."""
        params = message_params(request, describe("anthropic", request.model))
        how = errors.SdkErrors(anthropic, self.label, self.endpoint, self._status_error)
        with errors.sdk_failures(how, request.model, request.timeout):
            events = self._sdk().messages.create(**params, timeout=request.timeout)
            yield from _events(events, self.label)

    @property
    def endpoint(self) -> str:
        """Where requests go, for "cannot reach …" messages."""
        return self.base_url or "https://api.anthropic.com"

    def _sdk(self) -> anthropic.Anthropic:
        if self._client is None:
            # Retries live in core.llm.client (injected sleep, one policy for every provider).
            self._client = anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url, max_retries=0)
        return self._client

    def _status_error(self, exc: anthropic.APIStatusError, model: str) -> PreviouslyError:
        detail, status = exc.message, exc.status_code
        body = exc.body
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            detail = str(body["error"].get("message") or detail)
            if status < 400:  # an error event inside a 200 stream (e.g. overloaded mid-answer)
                status = errors.status_of_stream_error(body["error"].get("type"))
        headers = dict(exc.response.headers) if exc.response is not None else None
        return errors.from_status(
            status, detail, provider=self.label, env_var=self.env_var, model=model, headers=headers
        )


def message_params(request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """The keyword arguments of `messages.create` for a request (always streamed).

    `temperature` is not sent: the Messages API no longer takes sampling parameters.
    """
    messages = _messages(request.messages)
    if request.cache_system and messages:
        _mark_last_block(messages[-1])
    params: dict[str, Any] = {"model": request.model, "messages": messages, "stream": True}
    if request.system:
        params["system"] = (
            [{"type": "text", "text": request.system, "cache_control": _EPHEMERAL}]
            if request.cache_system
            else request.system
        )
    if request.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        params["tool_choice"] = _tool_choice(request.tool_choice)
    # A forced tool call and thinking exclude each other on Anthropic: the forced call wins.
    thinking = request.thinking and request.tool_choice in ("auto", "none")
    params.update(thinking_params(info, thinking, request.effort))
    budget = params.get("thinking", {}).get("budget_tokens", 0)
    params["max_tokens"] = (request.max_tokens or DEFAULT_MAX_TOKENS) + budget  # the budget counts inside it
    return params


def thinking_params(info: ModelInfo, thinking: bool, effort: str) -> dict[str, Any]:
    """Thinking options: adaptive + effort on newer models, a token budget on older ones."""
    if not info.supports_thinking:
        return {}
    if not thinking:
        return {"thinking": {"type": "disabled"}}
    if info.adaptive_thinking:
        return {"thinking": {"type": "adaptive"}, "output_config": {"effort": effort}}
    return {"thinking": {"type": "enabled", "budget_tokens": THINKING_BUDGET[effort]}}


def _tool_choice(choice: str) -> dict[str, Any]:
    if choice == "required":
        return {"type": "any"}
    if choice in ("auto", "none"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


def _messages(history: tuple[Message, ...]) -> list[dict[str, Any]]:
    """History as Anthropic messages; consecutive same-role entries share one message."""
    out: list[dict[str, Any]] = []
    for m in history:
        role, blocks = _blocks(m)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for message in out:
        # Tool results must open the user message that answers a tool round.
        message["content"].sort(key=lambda b: b["type"] != "tool_result")
    return out


def _blocks(m: Message) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(m, UserMessage):
        images = [
            {"type": "image", "source": {"type": "base64", "media_type": i.media_type, "data": i.data}}
            for i in m.images
        ]
        return "user", [*images, *([{"type": "text", "text": m.text}] if m.text else [])]
    if isinstance(m, ToolResult):
        block = {
            "type": "tool_result",
            "tool_use_id": m.call_id,
            "content": m.content,
            "is_error": m.is_error,
        }
        return "user", [block]
    return "assistant", _assistant_blocks(m)


def _assistant_blocks(m: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for r in m.reasoning:
        if r.redacted:
            blocks.append({"type": "redacted_thinking", "data": r.redacted})
        elif r.signature:
            blocks.append({"type": "thinking", "thinking": r.text, "signature": r.signature})
        # Unsigned reasoning (another provider's) cannot be sent back: Anthropic would reject it.
    if m.text:
        blocks.append({"type": "text", "text": m.text})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in m.tool_calls]
    return blocks


def _mark_last_block(message: dict[str, Any]) -> None:
    last = message["content"][-1]
    if last["type"] not in ("thinking", "redacted_thinking"):
        last["cache_control"] = _EPHEMERAL


@dataclass
class _Block:
    kind: str
    parts: list[str] = field(default_factory=list)
    signature: str = ""
    data: str = ""
    call_id: str = ""
    name: str = ""
    initial_input: Any = None


@dataclass
class _State:
    builder: MessageBuilder = field(default_factory=MessageBuilder)
    blocks: dict[int, _Block] = field(default_factory=dict)
    stop: str | None = None
    usage: Usage = field(default_factory=Usage)


def _events(stream: Any, label: str) -> Iterator[StreamEvent]:
    state = _State()
    for event in stream:
        kind = event.type
        if kind == "message_start":
            state.usage = _start_usage(event.message.usage)
        elif kind == "content_block_start":
            state.blocks[event.index] = _open_block(event.content_block)
        elif kind == "content_block_delta":
            yield from _delta(state, event.index, event.delta)
        elif kind == "content_block_stop":
            yield from _close_block(state, state.blocks.pop(event.index, None))
        elif kind == "message_delta":
            state.stop = event.delta.stop_reason or state.stop
            if event.usage is not None and event.usage.output_tokens is not None:
                state.usage = Usage(
                    state.usage.input_tokens,
                    event.usage.output_tokens,
                    state.usage.cache_read_tokens,
                    state.usage.cache_write_tokens,
                )
    if state.stop is None:
        raise errors.connection_lost(label, "the stream ended before the model finished")
    yield state.usage
    message = state.builder.build()
    if state.stop == "refusal":
        yield Finish("error", message, error="the model declined to answer")
    else:
        yield Finish(_STOP.get(state.stop, "stop"), message)


def _open_block(block: Any) -> _Block:
    if block.type == "tool_use":
        return _Block("tool_use", call_id=block.id, name=block.name, initial_input=block.input)
    if block.type == "redacted_thinking":
        return _Block("redacted_thinking", data=block.data)
    return _Block(block.type)


def _delta(state: _State, index: int, delta: Any) -> Iterator[StreamEvent]:
    block = state.blocks.setdefault(index, _Block(delta.type))
    if delta.type == "thinking_delta":
        block.parts.append(delta.thinking)
        yield ReasoningDelta(delta.thinking)
    elif delta.type == "signature_delta":
        block.signature += delta.signature
    elif delta.type == "text_delta":
        state.builder.add_text(delta.text)
        yield TextDelta(delta.text)
    elif delta.type == "input_json_delta":
        block.parts.append(delta.partial_json)


def _close_block(state: _State, block: _Block | None) -> Iterator[StreamEvent]:
    if block is None:
        return
    if block.kind == "thinking":
        state.builder.add_reasoning_block(Reasoning("".join(block.parts), signature=block.signature or None))
    elif block.kind == "redacted_thinking":
        state.builder.add_reasoning_block(Reasoning("", redacted=block.data))
    elif block.kind == "tool_use":
        raw = "".join(block.parts) if block.parts else block.initial_input
        call = make_tool_call(block.call_id, block.name, raw)
        state.builder.add_tool_call(call)
        yield call


def _start_usage(u: Any) -> Usage:
    read = u.cache_read_input_tokens or 0
    written = u.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=(u.input_tokens or 0) + read + written,
        output_tokens=u.output_tokens or 0,
        cache_read_tokens=read,
        cache_write_tokens=written,
    )
