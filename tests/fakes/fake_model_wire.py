"""Scripted replies for the fake model server, and how they look on the OpenAI and Anthropic wires.

A `Reply` is provider-neutral; `openai_*` / `anthropic_*` render it exactly as those APIs answer
(the JSON bodies, and for streaming the SSE events in the order the real services send them).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

OPENAI_FINISH = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}
ANTHROPIC_STOP = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


@dataclass
class ToolCall:
    """A tool call the fake model makes. A `str` for `arguments` is sent verbatim (e.g. broken JSON)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass
class Usage:
    """Token counts the fake reports (cache tokens included on both wires)."""

    input_tokens: int = 12
    output_tokens: int = 5
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass
class Reply:
    """One scripted answer. The defaults give a plain, successful text reply.

    Faults: `status` ≥ 400 answers with that provider's error body (`retry_after` adds the header);
    `malformed` answers 200 with a body that is not JSON; `disconnect_after=N` drops the connection
    after N stream events (or mid-body when not streaming); `error_after=N` (streaming, with a
    `status`) answers 200, sends N events, then an in-stream error event as the provider would;
    `delay` waits before answering (longer than the client's timeout, it is a stall).
    """

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish: str | None = None
    usage: Usage = field(default_factory=Usage)
    delay: float = 0.0
    status: int = 200
    error_message: str = ""
    retry_after: float | None = None
    malformed: bool = False
    disconnect_after: int | None = None
    error_after: int | None = None
    chunk_size: int = 6
    signature: str = "fake-signature"

    @classmethod
    def error(cls, status: int, message: str = "", retry_after: float | None = None) -> Reply:
        """An HTTP error answer in the provider's own error shape."""
        return cls(status=status, error_message=message or f"fake error {status}", retry_after=retry_after)

    @classmethod
    def error_mid_stream(cls, status: int = 529, message: str = "", after: int = 3) -> Reply:
        """Start a streamed answer, then report an error inside the stream (e.g. overloaded)."""
        message = message or f"fake error {status}"
        return cls(text="an answer that breaks off", status=status, error_message=message, error_after=after)

    @classmethod
    def stall(cls, seconds: float) -> Reply:
        """No answer for `seconds` (use more than the client's timeout)."""
        return cls(text="too late", delay=seconds)

    @classmethod
    def disconnect(cls, text: str = "partial answer that never", after: int = 2) -> Reply:
        """Start answering, then drop the connection."""
        return cls(text=text, disconnect_after=after)

    @classmethod
    def garbage(cls) -> Reply:
        """A 200 answer whose body is not JSON."""
        return cls(malformed=True)

    @property
    def finish_reason(self) -> str:
        return self.finish or ("tool_calls" if self.tool_calls else "stop")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reply:
        """A reply from its JSON form (script files): unknown keys are an error, not ignored."""
        data = dict(data)
        calls = [ToolCall(**c) for c in data.pop("tool_calls", [])]
        usage = Usage(**data.pop("usage", {}))
        return cls(tool_calls=calls, usage=usage, **data)


def pieces(text: str, size: int) -> list[str]:
    """Split text into stream deltas."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def call_id(call: ToolCall, wire: str, n: int) -> str:
    return call.id or (f"toolu_fake{n:03d}" if wire == "anthropic" else f"call_fake{n:03d}")


def args_text(call: ToolCall) -> str:
    return (
        call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments, ensure_ascii=False)
    )


# --- OpenAI chat completions -------------------------------------------------------------------


def openai_usage(u: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": u.input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.output_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens},
        # DeepSeek reports its cache this way instead.
        "prompt_cache_hit_tokens": u.cache_read_tokens,
        "prompt_cache_miss_tokens": u.input_tokens - u.cache_read_tokens,
    }


def openai_body(reply: Reply, model: str, rid: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id(c, "openai", i),
                "type": "function",
                "function": {"name": c.name, "arguments": args_text(c)},
            }
            for i, c in enumerate(reply.tool_calls)
        ]
    return {
        "id": rid,
        "object": "chat.completion",
        "created": 1_760_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": OPENAI_FINISH[reply.finish_reason],
            }
        ],
        "usage": openai_usage(reply.usage),
    }


def openai_chunks(reply: Reply, model: str, rid: str, include_usage: bool) -> list[dict[str, Any]]:
    """The chunk objects of a streamed completion (each is sent as one `data:` line)."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": 1_760_000_000,
            "model": model,
            "choices": [choice],
        }

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    out += [
        chunk({"content": None, "reasoning_content": p}) for p in pieces(reply.reasoning, reply.chunk_size)
    ]
    out += [chunk({"content": p}) for p in pieces(reply.text, reply.chunk_size)]
    for i, c in enumerate(reply.tool_calls):
        head = {
            "index": i,
            "id": call_id(c, "openai", i),
            "type": "function",
            "function": {"name": c.name, "arguments": ""},
        }
        out.append(chunk({"tool_calls": [head]}))
        out += [
            chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]})
            for p in pieces(args_text(c), reply.chunk_size)
        ]
    out.append(chunk({}, OPENAI_FINISH[reply.finish_reason]))
    if include_usage:
        out.append({**chunk({}), "choices": [], "usage": openai_usage(reply.usage)})
    return out


def openai_error(status: int, message: str) -> dict[str, Any]:
    kind = (
        "rate_limit_exceeded"
        if status == 429
        else ("server_error" if status >= 500 else "invalid_request_error")
    )
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


# --- Anthropic messages ------------------------------------------------------------------------


def anthropic_usage(u: Usage, output: int | None = None) -> dict[str, Any]:
    return {
        "input_tokens": u.input_tokens - u.cache_read_tokens - u.cache_write_tokens,
        "output_tokens": u.output_tokens if output is None else output,
        "cache_creation_input_tokens": u.cache_write_tokens,
        "cache_read_input_tokens": u.cache_read_tokens,
    }


def anthropic_blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.reasoning:
        blocks.append({"type": "thinking", "thinking": reply.reasoning, "signature": reply.signature})
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for i, c in enumerate(reply.tool_calls):
        blocks.append(
            {"type": "tool_use", "id": call_id(c, "anthropic", i), "name": c.name, "input": c.arguments}
        )
    return blocks


def anthropic_body(reply: Reply, model: str, rid: str) -> dict[str, Any]:
    return {
        "id": rid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": anthropic_blocks(reply),
        "stop_reason": ANTHROPIC_STOP[reply.finish_reason],
        "stop_sequence": None,
        "usage": anthropic_usage(reply.usage),
    }


def anthropic_events(reply: Reply, model: str, rid: str) -> list[tuple[str, dict[str, Any]]]:
    """The (event name, data) pairs of a streamed message, in the real API's order."""
    start = {**anthropic_body(reply, model, rid), "content": [], "stop_reason": None}
    start["usage"] = anthropic_usage(reply.usage, output=1)
    out: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    out.append(("ping", {"type": "ping"}))
    for index, block in enumerate(anthropic_blocks(reply)):
        out += _anthropic_block_events(index, block, reply.chunk_size)
    delta = {"stop_reason": ANTHROPIC_STOP[reply.finish_reason], "stop_sequence": None}
    out.append(
        (
            "message_delta",
            {"type": "message_delta", "delta": delta, "usage": {"output_tokens": reply.usage.output_tokens}},
        )
    )
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def _anthropic_block_events(index: int, block: dict[str, Any], size: int) -> list[tuple[str, dict[str, Any]]]:
    kind = block["type"]
    if kind == "thinking":
        head = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"], size)]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "text":
        head = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"], size)]
    else:
        head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        raw = (
            block["input"]
            if isinstance(block["input"], str)
            else json.dumps(block["input"], ensure_ascii=False)
        )
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(raw, size)]
    events = [("content_block_start", {"type": "content_block_start", "index": index, "content_block": head})]
    events += [
        ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas
    ]
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = ANTHROPIC_ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}
