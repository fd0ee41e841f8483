"""Counting the model calls of one step, per role (main / worker), for the turn's events and bench.

Every resolution gets a fresh `ModelCalls`; its bound models count each request they start
(a quiet retry inside one request is not a new call) and tell `on_call(role, model)`, which the
turn turns into a `model.call` event.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from core.llm.types import ModelClient, ModelRequest, StreamEvent

OnCall = Callable[[str, str], None]  # (role, model id)


@dataclass
class ModelCalls:
    """How many requests each role made (thread-safe: tools run in parallel)."""

    main: int = 0
    worker: int = 0
    on_call: OnCall | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, role: str, model: str) -> None:
        with self._lock:
            if role == "main":
                self.main += 1
            else:
                self.worker += 1
        if self.on_call is not None:
            self.on_call(role, model)

    @property
    def total(self) -> int:
        return self.main + self.worker

    def as_dict(self) -> dict[str, int]:
        """The `model.calls` event's fields."""
        with self._lock:
            return {"count": self.main + self.worker, "main": self.main, "worker": self.worker}


@dataclass(frozen=True)
class CountingClient:
    """A client that counts each request it starts into `calls` under `role`."""

    inner: ModelClient
    calls: ModelCalls
    role: str

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The inner client's events; the call is counted when the request starts."""
        self.calls.add(self.role, request.model)
        yield from self.inner.stream(request)
