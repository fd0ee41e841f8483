"""The fake GitHub's primary rate limit: a request budget per hour, reported on every answer.

GitHub counts every authenticated request against the token's budget except a 304 answer to a
conditional request, reports the budget in `X-RateLimit-*` headers, and once it is spent answers
403 "API rate limit exceeded" until the reset time (epoch seconds in `X-RateLimit-Reset`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class RateBudget:
    """How many requests the token may still make before `reset` (epoch seconds)."""

    limit: int = 5000
    used: int = 0
    reset: int = field(default_factory=lambda: int(time.time()) + 3600)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def set(self, remaining: int, reset_in: int = 3600) -> None:
        """Leave `remaining` requests until `reset_in` seconds from now."""
        with self._lock:
            self.used = max(0, self.limit - remaining)
            self.reset = int(time.time()) + reset_in

    def spent(self) -> bool:
        """Whether the budget is spent (a new window opens itself once the reset time passed)."""
        with self._lock:
            if time.time() >= self.reset:
                self.used, self.reset = 0, int(time.time()) + 3600
            return self.used >= self.limit

    def charge(self, status: int) -> None:
        """Count one answered request (a 304 is free)."""
        if status != 304:
            with self._lock:
                self.used += 1

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Used": str(min(self.used, self.limit)),
            "X-RateLimit-Reset": str(self.reset),
            "X-RateLimit-Resource": "core",
        }


def exceeded_message() -> str:
    return (
        "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, "
        "please include the request ID."
    )
