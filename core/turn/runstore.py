"""Where runs live (docs/FORMAT.md "Runs (outside the memory)"): a turn's events, status and bulk
intermediate data.

Outside the memory repository: locally a folder beside the memory (or memory for tests and
the demo), on AWS an S3 prefix with lifecycle expiry. Steps pass ids and keys between each
other; anything large (model messages, tool results) is stored here under the turn id.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.turn.events import TERMINAL_TYPES, Event


class RunStore(Protocol):
    """Append-only events plus a small key/value space per turn."""

    def append(self, turn_id: str, events: list[Event]) -> list[Event]:
        """Number `events` on from the last stored seq, store them, return them as stored.

        The one seq allocator of a turn: the numbers are taken and the events stored in one
        atomic step, so writers running at once (the parallel tool calls of a round, in threads,
        processes or Lambdas) get distinct, gap-free seqs, and a reader never sees a later seq
        before an earlier one. Whatever `seq` the given events carry is replaced.
        """
        ...

    def events(self, turn_id: str, after: int = 0) -> list[Event]:
        """The turn's events with seq > after, in order; [] for an unknown turn."""
        ...

    def wait(self, turn_id: str, after: int, timeout: float) -> list[Event]:
        """Like `events`, but block up to `timeout` seconds for something new."""
        ...

    def put(self, turn_id: str, key: str, value: Any) -> None:
        """Store a JSON-serialisable value (model messages, tool results, the request)."""
        ...

    def get(self, turn_id: str, key: str) -> Any | None: ...

    def exists(self, turn_id: str) -> bool: ...

    def turn_ids(self) -> list[str]:
        """Every turn with something stored (recovery looks for turns nobody finished)."""
        ...


@dataclass
class MemoryRunStore:
    """Runs kept in the process (tests, demo mode)."""

    _events: dict[str, list[Event]] = field(default_factory=dict)
    _values: dict[tuple[str, str], Any] = field(default_factory=dict)
    _cond: threading.Condition = field(default_factory=threading.Condition, repr=False)

    def append(self, turn_id: str, events: list[Event]) -> list[Event]:
        with self._cond:
            stored = self._events.setdefault(turn_id, [])
            numbered = numbered_from(stored[-1]["seq"] if stored else 0, events)
            stored.extend(numbered)
            self._cond.notify_all()
            return numbered

    def events(self, turn_id: str, after: int = 0) -> list[Event]:
        with self._cond:
            return [e for e in self._events.get(turn_id, []) if e["seq"] > after]

    def wait(self, turn_id: str, after: int, timeout: float) -> list[Event]:
        with self._cond:
            self._cond.wait_for(lambda: self._has_after(turn_id, after), timeout=timeout)
            return [e for e in self._events.get(turn_id, []) if e["seq"] > after]

    def _has_after(self, turn_id: str, after: int) -> bool:
        evs = self._events.get(turn_id, [])
        return bool(evs) and evs[-1]["seq"] > after

    def put(self, turn_id: str, key: str, value: Any) -> None:
        with self._cond:
            self._values[(turn_id, key)] = value
            self._events.setdefault(turn_id, [])

    def get(self, turn_id: str, key: str) -> Any | None:
        with self._cond:
            return self._values.get((turn_id, key))

    def exists(self, turn_id: str) -> bool:
        with self._cond:
            return turn_id in self._events

    def turn_ids(self) -> list[str]:
        with self._cond:
            return sorted(self._events)


def numbered_from(last: int, events: list[Event]) -> list[Event]:
    """Copies of `events` numbered last + 1, last + 2, … (what every store's `append` stores)."""
    return [{**event, "seq": last + i} for i, event in enumerate(events, start=1)]


def status_of(events: list[Event]) -> str:
    """A turn's status as its events tell it: running until a terminal event arrives."""
    for event in reversed(events):
        if event["type"] in TERMINAL_TYPES:
            return "error" if event["type"] == "turn.error" else str(event.get("status", "done"))
    return "running"
