"""One model call streamed into turn events: batched deltas, cancellation, permanent errors kept.

Tiny deltas are joined into one `text.delta` / `reasoning.delta` event until a line ends, the
batch reaches a few dozen characters, or a moment passes — a reply of 2,000 characters is tens
of events, not hundreds. Between stream events the cancel flag is checked; a cancelled call
keeps what was said so far. A transient failure propagates (the step is retried as a whole; the
client drops the older attempt's text); a permanent one is returned with the partial text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from core.errors import ModelError, ModelTransientError
from core.llm.types import (
    AssistantMessage,
    Finish,
    ModelClient,
    ModelRequest,
    Reasoning,
    ReasoningDelta,
    TextDelta,
    Usage,
)
from core.turn.events import EventSink

MIN_CHARS = 48
MAX_WAIT = 0.15


class DeltaBuffer:
    """Joins consecutive deltas of one kind into fewer events."""

    def __init__(self, sink: EventSink, monotonic: Callable[[], float]) -> None:
        self.sink = sink
        self.monotonic = monotonic
        self._type: str | None = None
        self._parts: list[str] = []
        self._size = 0
        self._since = 0.0

    def add(self, type: str, text: str) -> None:
        """Queue a delta; emit the batch when it is due."""
        if not text:
            return
        if self._type not in (None, type):
            self.flush()
        if not self._parts:
            self._since = self.monotonic()
        self._type = type
        self._parts.append(text)
        self._size += len(text)
        if self._size >= MIN_CHARS or "\n" in text or self.monotonic() - self._since >= MAX_WAIT:
            self.flush()

    def flush(self) -> None:
        """Emit whatever is queued."""
        if self._parts and self._type is not None:
            self.sink.emit(self._type, text="".join(self._parts))  # type: ignore[arg-type]
        self._type, self._parts, self._size = None, [], 0


@dataclass
class CallOutcome:
    """How one model call ended. `reason` is the finish reason, or `interrupted` / `error`."""

    message: AssistantMessage
    reason: str
    usage: Usage = field(default_factory=Usage)
    error: str | None = None


def stream_call(
    client: ModelClient,
    request: ModelRequest,
    sink: EventSink,
    cancelled: Callable[[], bool],
    monotonic: Callable[[], float],
) -> CallOutcome:
    """Run one call, streaming its deltas as events; raises only ModelTransientError."""
    buffer = DeltaBuffer(sink, monotonic)
    text: list[str] = []
    reasoning: list[str] = []
    usage = Usage()

    def partial(reason: str, error: str | None = None) -> CallOutcome:
        message = AssistantMessage("".join(text), (), (Reasoning("".join(reasoning)),) if reasoning else ())
        return CallOutcome(message, reason, usage, error)

    stream = client.stream(request)
    try:
        with contextlib.closing(stream):  # type: ignore[type-var]
            for event in stream:
                if isinstance(event, TextDelta):
                    text.append(event.text)
                    buffer.add("text.delta", event.text)
                elif isinstance(event, ReasoningDelta):
                    reasoning.append(event.text)
                    buffer.add("reasoning.delta", event.text)
                elif isinstance(event, Usage):
                    usage = usage + event
                elif isinstance(event, Finish):
                    buffer.flush()
                    return _finished(event, usage)
                if cancelled():
                    buffer.flush()
                    return partial("interrupted")
    except ModelTransientError:
        buffer.flush()
        raise
    except ModelError as exc:
        buffer.flush()
        return partial("error", str(exc))
    buffer.flush()
    return partial("error", "The model's answer ended without finishing.")


def _finished(finish: Finish, usage: Usage) -> CallOutcome:
    if finish.reason == "error":
        return CallOutcome(finish.message, "error", usage, finish.error or "The model refused to answer.")
    return CallOutcome(finish.message, finish.reason, usage)
