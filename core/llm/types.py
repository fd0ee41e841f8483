"""The one model-client protocol: messages, tool specs, a request, and the streamed events.

Every provider adapter turns a `ModelRequest` into an iterator of `StreamEvent`s:
zero or more `ReasoningDelta` / `TextDelta` / `ToolCall`, then one `Usage`, then one `Finish`
carrying the whole assistant message (append it to the history for the next round).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.errors import InvalidInput

Effort = Literal["low", "medium", "high"]
FinishReason = Literal["stop", "tool_calls", "length", "error"]
EFFORTS: tuple[Effort, ...] = ("low", "medium", "high")
# "auto" | "required" | "none" | the name of one tool the model must call.
ToolChoice = str
TOOL_CHOICE_MODES = ("auto", "required", "none")


@dataclass(frozen=True)
class ImageInput:
    """One picture sent with a user message: its media type and base64 bytes."""

    media_type: str
    data: str

    def __post_init__(self) -> None:
        if self.media_type not in IMAGE_TYPES:
            raise InvalidInput(f"images must be one of {', '.join(IMAGE_TYPES)}, not {self.media_type!r}")


IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


@dataclass(frozen=True)
class UserMessage:
    """What the user (or the calling code, for a sub-agent) says; `images` need a vision model."""

    text: str
    images: tuple[ImageInput, ...] = ()


@dataclass(frozen=True)
class Reasoning:
    """One block of the model's reasoning.

    Anthropic signs its thinking blocks and refuses a tool round whose earlier thinking comes
    back altered, so the signature (or the opaque redacted payload) travels with the text.
    """

    text: str
    signature: str | None = None
    redacted: str | None = None


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model made; also the stream event announcing it once complete.

    `arguments` is the parsed JSON object. When the model sent arguments that are not a JSON
    object, `arguments` is `{}`, `raw_arguments` keeps what arrived and `error` says what is
    wrong — return that to the model as the tool result so it can try again.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str = ""
    error: str | None = None


@dataclass(frozen=True)
class AssistantMessage:
    """What the model said in one round: reasoning, text and the tool calls it asked for."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: tuple[Reasoning, ...] = ()


@dataclass(frozen=True)
class ToolResult:
    """The answer to one tool call, sent back in the next round."""

    call_id: str
    content: str
    is_error: bool = False


Message = UserMessage | AssistantMessage | ToolResult


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: a name, what it is for, and a JSON schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ModelRequest:
    """One model call.

    `cache_system` marks the system prompt as a stable prefix worth caching (Anthropic gets
    cache breakpoints on it and on the last history message; OpenAI-style providers cache
    prefixes on their own). `timeout`: an attempt fails when the provider stays silent that
    many seconds, and retries only start while the call is younger than that.
    """

    model: str
    messages: tuple[Message, ...]
    system: str = ""
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice = "auto"
    temperature: float | None = None
    thinking: bool = False
    effort: Effort = "medium"
    max_tokens: int | None = None
    timeout: float = 120.0
    cache_system: bool = False

    def __post_init__(self) -> None:
        if self.effort not in EFFORTS:
            raise InvalidInput(f"effort must be one of {', '.join(EFFORTS)}, not {self.effort!r}")
        names = {t.name for t in self.tools}
        if self.tool_choice not in TOOL_CHOICE_MODES and self.tool_choice not in names:
            raise InvalidInput(
                f"tool_choice {self.tool_choice!r} names no tool of this request "
                f"(tools: {', '.join(sorted(names)) or 'none'})"
            )
        if self.tool_choice == "required" and not self.tools:
            raise InvalidInput("tool_choice 'required' needs at least one tool")
        if self.timeout <= 0:
            raise InvalidInput("timeout must be positive")


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of the model's visible reasoning."""

    text: str


@dataclass(frozen=True)
class TextDelta:
    """A piece of the reply text."""

    text: str


@dataclass(frozen=True)
class Usage:
    """Token counts for one call.

    `input_tokens` counts the whole prompt, cached parts included; `cache_read_tokens` and
    `cache_write_tokens` say how much of it came from, or went into, the provider's cache.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        """The JSON shape used in `turn.done` events and the run store."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }


@dataclass(frozen=True)
class Finish:
    """The end of a stream: why it stopped and the whole assistant message.

    `reason == "error"` is a provider-side refusal or content filter reported in-band; transport
    failures are raised instead (`ModelTransientError` / `ModelError`).
    """

    reason: FinishReason
    message: AssistantMessage
    error: str | None = None


StreamEvent = ReasoningDelta | TextDelta | ToolCall | Usage | Finish


class ModelClient(Protocol):
    """Anything that can run a `ModelRequest`: an adapter, a retrying wrapper, a test double."""

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """Run the request, yielding events as they arrive; the last event is a `Finish`."""
        ...


@dataclass
class Completion:
    """A whole stream collected into one result (see `core.llm.client.complete`)."""

    message: AssistantMessage
    finish_reason: FinishReason
    usage: Usage = field(default_factory=Usage)
    error: str | None = None

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def reasoning(self) -> str:
        return "".join(r.text for r in self.message.reasoning)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self.message.tool_calls
