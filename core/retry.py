"""One retry policy for every bounded retry: model calls, GitHub requests and ref updates, turn steps.

A `RetryPolicy` is a plain value: which errors it covers (class names, matched along the
exception's MRO, so a state machine can retry on the same names), how many attempts (the first
try included), the delay before each retry (`interval_seconds × backoff_rate^(n-1)`, at most
`max_delay_seconds`, scaled by a jitter factor), and what to do with a wait the server asked
for. The field names follow Step Functions' `Retry` (ErrorEquals, MaxAttempts, IntervalSeconds,
BackoffRate, MaxDelaySeconds) so the step table maps onto it one to one. Whoever runs the
retries injects the sleeper, the random source and the clock; the policy only computes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Sleep = Callable[[float], None]


@dataclass(frozen=True)
class Jitter:
    """The delay is multiplied by a factor drawn evenly from [low, high)."""

    low: float = 1.0
    high: float = 1.0

    def __post_init__(self) -> None:
        if not 0 <= self.low <= self.high:
            raise ValueError(f"jitter needs 0 <= low <= high, not {self.low}..{self.high}")

    def scale(self, delay: float, rand: float) -> float:
        """`delay` scaled by the factor `rand` (in [0, 1)) picks."""
        return delay * (self.low + (self.high - self.low) * rand)


NO_JITTER = Jitter(1.0, 1.0)
EQUAL_JITTER = Jitter(0.5, 1.0)  # never zero, never above the ceiling
SPREAD_JITTER = Jitter(0.5, 1.5)  # ±50 % around the ceiling


@dataclass(frozen=True)
class RetryPolicy:
    """Retry an operation that raises one of `errors`, at most `max_attempts` tries in all.

    `retry_after_cap` bounds a wait the server suggested (`retry_after` on the error):
    `over_cap="wait_cap"` waits the cap instead, `"give_up"` stops retrying and lets the error
    reach the caller's own retry.
    """

    errors: tuple[str, ...]
    max_attempts: int = 3
    interval_seconds: float = 1.0
    backoff_rate: float = 2.0
    max_delay_seconds: float = math.inf
    jitter: Jitter = NO_JITTER
    retry_after_cap: float = math.inf
    over_cap: Literal["wait_cap", "give_up"] = "wait_cap"

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.interval_seconds < 0 or self.backoff_rate < 1:
            raise ValueError(f"a retry policy needs max_attempts >= 1, delays >= 0, rate >= 1: {self}")

    def covers(self, exc: BaseException) -> bool:
        """Whether `exc` is one of the errors this policy retries (by class name along its MRO)."""
        return any(cls.__name__ in self.errors for cls in type(exc).__mro__)

    def backoff(self, attempt: int, rand: float = 0.0) -> float:
        """The delay after failed attempt `attempt` (1-based), jittered by `rand` in [0, 1)."""
        ceiling = min(self.max_delay_seconds, self.interval_seconds * self.backoff_rate ** (attempt - 1))
        return self.jitter.scale(ceiling, rand)

    def wait(self, attempt: int, rand: float = 0.0, retry_after: float | None = None) -> float | None:
        """Seconds to wait before the next attempt, or None when attempt `attempt` was the last."""
        if attempt >= self.max_attempts:
            return None
        if retry_after is None:
            return self.backoff(attempt, rand)
        if retry_after <= self.retry_after_cap:
            return retry_after
        return self.retry_after_cap if self.over_cap == "wait_cap" else None

    def wait_after(self, exc: BaseException, attempt: int, rand: float = 0.0) -> float | None:
        """The wait before retrying after `exc` ended attempt `attempt`, or None: do not retry."""
        if not self.covers(exc):
            return None
        return self.wait(attempt, rand, getattr(exc, "retry_after", None))
