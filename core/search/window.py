"""What the time parser returns: calendar windows, event anchors, the question without its dates."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class TimeWindow:
    """Local dates `start`..`end` (inclusive; None = open). `kind`: during | before | after | recent."""

    start: date | None
    end: date | None
    kind: str
    phrase: str

    def contains(self, day: date) -> bool:
        return (self.start is None or day >= self.start) and (self.end is None or day <= self.end)

    def describe(self) -> str:
        """Short human text for a hit's reason."""
        if self.kind == "before" and self.end:
            return f"before {self.end.isoformat()}"
        if self.kind == "after" and self.start:
            return f"after {self.start.isoformat()}"
        if self.start == self.end and self.start:
            return self.start.isoformat()
        return f"{self.start.isoformat() if self.start else '…'}..{self.end.isoformat() if self.end else '…'}"


@dataclass(frozen=True)
class Anchor:
    """'before/after X' where X is an event, not a date: the engine dates X by searching for it."""

    direction: str
    text: str


@dataclass
class TimeQuery:
    """What the parser found: windows, anchors, and the question without its date words."""

    windows: list[TimeWindow] = field(default_factory=list)
    anchors: list[Anchor] = field(default_factory=list)
    rest: str = ""
