"""Retries around any model client, and `complete()` which collects a stream into one result."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from core.errors import ModelError
from core.llm.types import (
    Completion,
    Finish,
    ModelClient,
    ModelRequest,
    StreamEvent,
    Usage,
)
from core.retry import EQUAL_JITTER, RetryPolicy

# Rate limits, overload, 5xx, timeouts: a few quiet retries; a provider's retry-after wins, up to a cap.
MODEL_RETRY = RetryPolicy(
    ("ModelTransientError",),
    max_attempts=4,
    interval_seconds=0.5,
    max_delay_seconds=8.0,
    jitter=EQUAL_JITTER,
    retry_after_cap=30.0,
)


RetryHook = Callable[[int, float, Exception], None]


class RetryingClient:
    """Retries transient failures that happen before the first event; later ones propagate.

    Once events have been yielded the caller has shown them, so a silent retry would duplicate
    output: the failure goes up and the turn step retries as a whole (a new `attempt`).
    The request's `timeout` bounds the whole call: each attempt gets what is left of it, and no
    attempt starts once it is spent.
    """

    def __init__(
        self,
        inner: ModelClient,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rand: Callable[[], float] = random.random,
        on_retry: RetryHook | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.inner = inner
        self.policy = policy or MODEL_RETRY
        self._sleep = sleep
        self._rand = rand
        self._on_retry = on_retry
        self._monotonic = monotonic

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The inner client's events, after as many quiet retries as the policy and time allow."""
        deadline = self._monotonic() + request.timeout
        attempt, current = 1, request
        while True:
            started = False
            try:
                for event in self.inner.stream(current):
                    started = True
                    yield event
                return
            except Exception as exc:
                wait = None if started else self.policy.wait_after(exc, attempt, self._rand())
                left = deadline - self._monotonic() - (wait or 0.0)
                if wait is None or left <= 0:
                    raise
                if self._on_retry is not None:
                    self._on_retry(attempt, wait, exc)
                self._sleep(wait)
                attempt, current = attempt + 1, replace(request, timeout=left)


def complete(client: ModelClient, request: ModelRequest) -> Completion:
    """Run a request to the end and return the collected result."""
    usage = Usage()
    finish: Finish | None = None
    for event in client.stream(request):
        if isinstance(event, Usage):
            usage = usage + event
        elif isinstance(event, Finish):
            finish = event
    if finish is None:
        raise ModelError(f"the model stream for {request.model!r} ended without finishing")
    return Completion(message=finish.message, finish_reason=finish.reason, usage=usage, error=finish.error)
