"""The OpenAI chat-completions adapter: OpenAI, the hosted presets that speak its API, any compatible server.

One of only two modules that import a model SDK; the registry loads it lazily so code that never
calls a model (the API's read routes) does not pay for the import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import openai

from core.errors import PreviouslyError
from core.llm import errors
from core.llm.assembly import MessageBuilder, make_tool_call
from core.llm.catalog import ModelInfo, ProviderId, describe
from core.llm.presets import OPENAI, Flavor
from core.llm.types import (
    AssistantMessage,
    Finish,
    FinishReason,
    Message,
    ModelRequest,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolResult,
    Usage,
    UserMessage,
)

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
}


@dataclass
class OpenAIAdapter:
    """A `ModelClient` over `openai.OpenAI` for one endpoint.

    `flavor` decides how the reasoning options are spelled (`thinking_params`); nothing is sent
    to a generic compatible server. `env_var` is named in credential errors so the user knows
    what to fix.
    """

    api_key: str
    base_url: str | None = None
    flavor: Flavor = "openai"
    label: str = "OpenAI"
    env_var: str = OPENAI.env_var
    provider: ProviderId = "openai"
    _client: openai.OpenAI | None = field(default=None, repr=False)

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """Run one chat completion, streamed."""
        info = describe(self.provider, request.model, compatible=self.flavor == "compatible")
        params = chat_params(request, info, self.flavor)
        how = errors.SdkErrors(openai, self.label, self.endpoint, self._status_error, self._stream_error)
        with errors.sdk_failures(how, request.model, request.timeout):
            chunks = self._sdk().chat.completions.create(**params, timeout=request.timeout)
            yield from _events(chunks, self.label)

    @property
    def endpoint(self) -> str:
        """Where requests go, for "cannot reach …" messages."""
        return self.base_url or "https://api.openai.com/v1"

    def _sdk(self) -> openai.OpenAI:
        if self._client is None:
            # Retries live in core.llm.client (injected sleep, one policy for every provider).
            self._client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, max_retries=0)
        return self._client

    def _status_error(self, exc: openai.APIStatusError, model: str) -> PreviouslyError:
        detail = exc.message
        body = exc.body
        if isinstance(body, dict):
            inner = body.get("error", body)
            detail = str(inner.get("message") or detail) if isinstance(inner, dict) else detail
        headers = dict(exc.response.headers) if exc.response is not None else None
        compatible = f"{OPENAI.env_var} (and {OPENAI.base_url_var})"
        env_var = compatible if self.flavor == "compatible" else self.env_var
        return errors.from_status(
            exc.status_code, detail, provider=self.label, env_var=env_var, model=model, headers=headers
        )

    def _stream_error(self, exc: openai.APIError, model: str) -> PreviouslyError:
        """An error object inside the stream, after an HTTP 200."""
        body = exc.body if isinstance(exc.body, dict) else {}
        status = errors.status_of_stream_error(body.get("type"), body.get("code"))
        return errors.from_status(status, exc.message, provider=self.label, env_var=self.env_var, model=model)


def chat_params(request: ModelRequest, info: ModelInfo, flavor: Flavor) -> dict[str, Any]:
    """The keyword arguments of `chat.completions.create` for a request (always streamed)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
    messages += [_message(m, flavor) for m in request.messages]
    params: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in request.tools
        ]
        params["tool_choice"] = _tool_choice(request.tool_choice)
    if request.max_tokens:
        params["max_completion_tokens" if flavor == "openai" else "max_tokens"] = request.max_tokens
    params.update(thinking_params(flavor, info, request.thinking, request.effort))
    if (
        request.temperature is not None
        and not info.fixed_sampling
        and not (flavor == "openai" and request.thinking and info.supports_thinking)
    ):
        params["temperature"] = request.temperature  # OpenAI reasoning models refuse it while reasoning
    return params


def thinking_params(flavor: Flavor, info: ModelInfo, thinking: bool, effort: str) -> dict[str, Any]:
    """Reasoning options per flavour (docs/MODELS.md "Thinking and effort, per provider"); off is
    an explicit "off" wherever the provider has one."""
    if not info.supports_thinking or flavor in ("compatible", "plain"):
        return {}
    if flavor == "deepseek":
        if thinking:
            return {"reasoning_effort": effort, "extra_body": {"thinking": {"type": "enabled"}}}
        return {"extra_body": {"thinking": {"type": "disabled"}}}
    if flavor == "moonshot":
        return {"extra_body": {"thinking": {"type": "enabled" if thinking else "disabled"}}}
    if flavor == "qwen":
        if thinking:
            return {"extra_body": {"enable_thinking": True, "thinking_budget": QWEN_BUDGETS[effort]}}
        return {"extra_body": {"enable_thinking": False}}
    if flavor == "effort":
        if thinking:
            return {"reasoning_effort": _nearest_effort(effort, info.efforts)}
        return {"reasoning_effort": info.thinking_off} if info.thinking_off else {}
    return {"reasoning_effort": effort if thinking else _lowest_effort(info.id)}


# Thinking-token budgets for Qwen's hybrid models, the same steps as Anthropic's older models.
QWEN_BUDGETS = {"low": 4000, "medium": 12000, "high": 32000}
_LEVELS = ("low", "medium", "high")


def _nearest_effort(effort: str, accepted: tuple[str, ...]) -> str:
    """`effort`, or the accepted level closest to it (ties go up: the user asked for more)."""
    if effort in accepted or not accepted:
        return effort
    rank = _LEVELS.index(effort) if effort in _LEVELS else 1
    return min(accepted, key=lambda a: (abs(_LEVELS.index(a) - rank), -_LEVELS.index(a)))


def _lowest_effort(model_id: str) -> str:
    """The closest to "no reasoning" each OpenAI family accepts."""
    if re.match(r"^o\d", model_id):
        return "low"  # o-series models always reason
    if re.match(r"^gpt-5(-|$)", model_id):
        return "minimal"  # the first GPT-5 models predate "none"
    return "none"


def _tool_choice(choice: str) -> Any:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _message(m: Message, flavor: Flavor) -> dict[str, Any]:
    if isinstance(m, UserMessage):
        if not m.images:
            return {"role": "user", "content": m.text}
        parts: list[dict[str, Any]] = [{"type": "text", "text": m.text}] if m.text else []
        parts += [
            {"type": "image_url", "image_url": {"url": f"data:{i.media_type};base64,{i.data}"}}
            for i in m.images
        ]
        return {"role": "user", "content": parts}
    if isinstance(m, ToolResult):
        return {"role": "tool", "tool_call_id": m.call_id, "content": m.content}
    return _assistant(m, flavor)


def _assistant(m: AssistantMessage, flavor: Flavor) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": m.text or None}
    if m.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.raw_arguments or json.dumps(c.arguments, ensure_ascii=False),
                },
            }
            for c in m.tool_calls
        ]
        if flavor == "deepseek" and m.reasoning:
            # DeepSeek wants the reasoning of a tool round back while that round continues.
            out["reasoning_content"] = "".join(r.text for r in m.reasoning)
    return out


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def _events(chunks: Any, label: str) -> Iterator[StreamEvent]:
    builder = MessageBuilder()
    pending: dict[int, _PendingCall] = {}
    finish: str | None = None
    usage = Usage()
    seen = False
    for chunk in chunks:
        seen = True
        if getattr(chunk, "usage", None):
            usage = _usage(chunk.usage)
        for choice in chunk.choices[:1]:
            yield from _delta_events(choice.delta, builder, pending)
            finish = choice.finish_reason or finish
    if not seen:
        raise errors.malformed(label, "the stream carried no data")
    for index in sorted(pending):
        call = pending[index]
        tool_call = make_tool_call(call.id or f"call_{index}", call.name, "".join(call.arguments))
        builder.add_tool_call(tool_call)
        yield tool_call
    yield usage
    yield _finish(finish, builder)


def _delta_events(
    delta: Any, builder: MessageBuilder, pending: dict[int, _PendingCall]
) -> Iterator[StreamEvent]:
    if delta is None:
        return
    extra = delta.model_extra or {}
    # DeepSeek streams `reasoning_content`; Ollama and some proxies call it `reasoning`.
    reasoning = extra.get("reasoning_content") or extra.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        builder.add_reasoning_delta(reasoning)
        yield ReasoningDelta(reasoning)
    if delta.content:
        builder.add_text(delta.content)
        yield TextDelta(delta.content)
    for part in delta.tool_calls or []:
        call = pending.setdefault(part.index if part.index is not None else len(pending), _PendingCall())
        call.id = part.id or call.id
        if part.function is not None:
            call.name = part.function.name or call.name
            call.arguments.append(part.function.arguments or "")


def _finish(reason: str | None, builder: MessageBuilder) -> Finish:
    message = builder.build()
    if reason in (None, "stop") and message.tool_calls:
        return Finish("tool_calls", message)  # some compatible servers say "stop" after tool calls
    if reason is None or reason in _FINISH:
        return Finish(_FINISH.get(reason or "stop", "stop"), message)
    note = (
        "the provider's content filter stopped the reply"
        if reason == "content_filter"
        else f"stopped: {reason}"
    )
    return Finish("error", message, error=note)


def _usage(u: Any) -> Usage:
    extra = u.model_extra or {}
    details = getattr(u, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or extra.get("prompt_cache_hit_tokens") or 0
    written = getattr(details, "cache_write_tokens", None) or 0
    return Usage(
        input_tokens=u.prompt_tokens or 0,
        output_tokens=u.completion_tokens or 0,
        cache_read_tokens=int(cached),
        cache_write_tokens=int(written),
    )
