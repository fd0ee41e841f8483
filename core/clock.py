"""Injected time and ids: core never reads the wall clock or the random source directly."""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Source of the current instant (always timezone-aware UTC)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class FixedClock:
    """A clock that only moves when told to (tests, `--now`, replaying LoCoMo)."""

    current: datetime

    def __post_init__(self) -> None:
        if self.current.tzinfo is None:
            self.current = self.current.replace(tzinfo=UTC)

    def now(self) -> datetime:
        return self.current

    def advance(self, **delta: float) -> datetime:
        self.current = self.current + timedelta(**delta)
        return self.current

    @classmethod
    def at(cls, iso: str) -> FixedClock:
        return cls(parse_iso(iso))


class IdSource(Protocol):
    """Source of turn ids."""

    def turn_id(self) -> str: ...


class RandomIds:
    """Turn ids as the original makes them: 4 random bytes, base64url, no padding (6 chars).

    Such an id is never all digits, so it never reads as a legacy numbered turn (`## Turn 3`):
    its sixth character carries only the last 2 bits of the 4 bytes, one of `A`, `Q`, `g`, `w`.
    """

    def turn_id(self) -> str:
        return id_of_bytes(secrets.token_bytes(4))


def id_of_bytes(raw: bytes) -> str:
    """The turn id of 4 random bytes."""
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@dataclass
class SequentialIds:
    """Predictable turn ids for tests: t00001, t00002, …"""

    prefix: str = "t"
    counter: int = field(default=0)

    def turn_id(self) -> str:
        self.counter += 1
        return f"{self.prefix}{self.counter:05d}"


def iso(dt: datetime) -> str:
    """The JS `toISOString()` form: `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC."""
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> datetime:
    """Parse an ISO-8601 instant (a trailing `Z` allowed); naive values are read as UTC.

    Raises ValueError on anything else — callers that must "never throw" wrap it.
    """
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def try_parse_iso(text: object) -> datetime | None:
    """`parse_iso`, or None when the value is not a parseable instant (JS `NaN`)."""
    if isinstance(text, datetime):
        return text if text.tzinfo else text.replace(tzinfo=UTC)
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return parse_iso(text)
    except ValueError:
        return None
