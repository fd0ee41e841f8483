"""The event sink of a step running on Lambda: stamp, store in the run store, push to the browser.

The run store numbers events as it stores them (its `append` allocates seqs atomically), so a
turn's seq stays gap-free across steps, Lambdas, retries and parallel tool calls. Deltas are
batched: consecutive deltas of one kind arriving within about 250 ms become one event (their
texts joined), so a fast stream costs a few stores and pushes per second rather than one per
token. Any other event flushes at once. A flush stores
before it pushes, so every event a client has seen is in the run store and a retried step never
reuses a seq the client already holds. When the attempt ends, its stored batches are merged into
one object (where the store can), so reading a turn back costs a few requests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from core.turn.events import Event, EventType, envelope
from core.turn.runstore import RunStore
from functions.aws.push import ConnectionPusher

DELTA_TYPES = frozenset({"text.delta", "reasoning.delta"})


class PushingSink:
    """EventSink for one attempt of one step (thread-safe: tool calls emit from worker threads)."""

    def __init__(
        self,
        runs: RunStore,
        turn_id: str,
        step: str,
        attempt: int,
        pusher: ConnectionPusher | None = None,
        followers: Callable[[], list[str]] | None = None,
        interval: float = 0.25,
        follower_refresh: float = 2.0,
        monotonic: Callable[[], float] = time.monotonic,
        item: int | None = None,
    ) -> None:
        self.runs = runs
        self.turn_id = turn_id
        self.step = step
        self.attempt = attempt
        self.item = item  # which run of a fan-out step (one tool call of a round), else None
        self.pusher = pusher
        self.emitted: list[Event] = []
        self.flushes = 0
        self._followers = followers
        self._interval = interval
        self._follower_refresh = follower_refresh
        self._now = monotonic
        self._queued: list[Event] = []
        self._last_flush = monotonic()
        self._last_followers = float("-inf")
        self._lock = threading.RLock()

    def emit(self, type: EventType, **fields: Any) -> Event:
        """Queue one event (or join a delta to the queued one), flush when due; its seq is given
        when it is stored."""
        with self._lock:
            return self._emit(type, fields)

    def _emit(self, type: EventType, fields: dict[str, Any]) -> Event:
        if type in DELTA_TYPES:
            last = self._queued[-1] if self._queued else None
            if last is not None and last["type"] == type and set(fields) == {"text"}:
                last["text"] = str(last.get("text", "")) + str(fields["text"])
                self._flush_if_due()
                return last
        event = envelope(self.turn_id, 0, type, self.step, self.attempt, fields, self.item)
        self._queued.append(event)
        if type in DELTA_TYPES:
            self._flush_if_due()
        else:
            self._flush()
        return event

    def _flush_if_due(self) -> None:
        if self._now() - self._last_flush >= self._interval:
            self._flush()

    def flush(self) -> None:
        """Store, then push, everything queued."""
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        self._last_flush = self._now()
        if not self._queued:
            return
        batch, self._queued = self._queued, []
        batch = self.runs.append(self.turn_id, batch)
        self.emitted.extend(batch)
        self.flushes += 1
        if self.pusher is not None:
            self._refresh_followers()
            self.pusher.push(batch)

    def _refresh_followers(self) -> None:
        # Browsers that reconnected (turn.follow) register in the run store; look now and then.
        due = self._last_flush - self._last_followers >= self._follower_refresh
        if self.pusher is not None and self._followers is not None and due:
            self.pusher.add(self._followers())
            self._last_followers = self._last_flush

    def close(self) -> None:
        """Flush, then merge this attempt's stored batches into one object when the store can."""
        with self._lock:
            self._flush()
            compact = getattr(self.runs, "compact", None)
            if compact is not None and self.flushes > 1:
                compact(self.turn_id, self.emitted)
