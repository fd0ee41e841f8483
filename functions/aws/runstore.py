"""The run store on S3 (docs/FORMAT.md "Runs (outside the memory)"): a turn's events, values and followers
under `runs/{turn_id}/`.

S3 has no append, so each flush of events is one object named by its seq range
(`events/00000001-00000007.json`); zero-padded names list in seq order, and a reader after
seq N skips every object whose range ends at or before N without fetching it. Values
(the request, model messages, tool results) are one JSON object each. The bucket's lifecycle
rule expires runs; memory itself lives in the memory repository, never here.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.errors import InvalidInput
from core.turn.events import Event

_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,80}$")
_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,120}$")
_CHUNK = re.compile(r"/events/(\d{8})-(\d{8})\.json$")
_READERS = 8
# The cancel flag is checked between stream events; one request per second is plenty.
POLLED_KEYS: Mapping[str, float] = {"cancel": 1.0}


def _check(value: str, pattern: re.Pattern[str], what: str) -> str:
    if not pattern.match(value):
        raise InvalidInput(f"Invalid {what} {value!r}: use letters, digits, '-', '_' or '.'")
    return value


class S3RunStore:
    """RunStore over one S3 bucket and prefix; safe to share between threads."""

    def __init__(
        self,
        client: Any,
        bucket: str,
        prefix: str = "runs/",
        poll_seconds: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        polled_keys: Mapping[str, float] = POLLED_KEYS,
    ) -> None:
        self.client = client
        self.bucket = bucket
        self.prefix = prefix
        self.poll_seconds = poll_seconds
        self._sleep = sleep
        self._monotonic = monotonic
        self._polled = dict(polled_keys)
        self._recent: dict[tuple[str, str], tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def _base(self, turn_id: str) -> str:
        return f"{self.prefix}{_check(turn_id, _ID, 'turn id')}/"

    def append(self, turn_id: str, events: list[Event]) -> None:
        """Store one batch of consecutively numbered events as one object."""
        if not events:
            return
        first, last = events[0]["seq"], events[-1]["seq"]
        key = f"{self._base(turn_id)}events/{first:08d}-{last:08d}.json"
        self._put(key, events)

    def events(self, turn_id: str, after: int = 0) -> list[Event]:
        """Events with seq > after, in order, each seq once."""
        for _ in range(3):
            keys = [key for key, _first, last in self._chunks(turn_id) if last > after]
            batches = self._read_all(keys)
            if all(b is not None for b in batches):
                break
            # An object vanished between listing and reading: compaction merged it; list again.
        seen: dict[int, Event] = {}
        for batch in batches:
            for event in batch or []:
                if event["seq"] > after:
                    seen.setdefault(event["seq"], event)
        return [seen[s] for s in sorted(seen)]

    def compact(self, turn_id: str, events: list[Event]) -> None:
        """Replace the objects holding exactly these consecutive events by one object."""
        if not events:
            return
        first, last = events[0]["seq"], events[-1]["seq"]
        self.append(turn_id, events)
        merged = f"{self._base(turn_id)}events/{first:08d}-{last:08d}.json"
        stale = [k for k, lo, hi in self._chunks(turn_id) if first <= lo and hi <= last and k != merged]
        for start in range(0, len(stale), 1000):
            objects = [{"Key": k} for k in stale[start : start + 1000]]
            self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": objects, "Quiet": True})

    def _read_all(self, keys: list[str]) -> list[Any]:
        if len(keys) <= 1:
            return [self._get_json(k) for k in keys]
        with ThreadPoolExecutor(max_workers=min(_READERS, len(keys))) as pool:
            return list(pool.map(self._get_json, keys))

    def last_seq(self, turn_id: str) -> int:
        """The highest stored seq (0 when none), from object names alone."""
        return max((last for _, _first, last in self._chunks(turn_id)), default=0)

    def wait(self, turn_id: str, after: int, timeout: float) -> list[Event]:
        """Poll until events after `after` exist or `timeout` seconds pass."""
        deadline = self._monotonic() + timeout
        while True:
            if self.last_seq(turn_id) > after:
                return self.events(turn_id, after)
            if self._monotonic() >= deadline:
                return []
            self._sleep(min(self.poll_seconds, max(0.0, deadline - self._monotonic())))

    def put(self, turn_id: str, key: str, value: Any) -> None:
        self._put(f"{self._base(turn_id)}values/{_check(key, _KEY, 'run key')}.json", value)
        if key in self._polled:
            with self._lock:
                self._recent[(turn_id, key)] = (self._monotonic(), value)

    def get(self, turn_id: str, key: str) -> Any | None:
        """A stored value; keys polled in a loop (the cancel flag) are re-read at most every TTL."""
        ttl = self._polled.get(key)
        if ttl is not None:
            with self._lock:
                seen = self._recent.get((turn_id, key))
            if seen is not None and self._monotonic() - seen[0] < ttl:
                return seen[1]
        value = self._get_json(f"{self._base(turn_id)}values/{_check(key, _KEY, 'run key')}.json")
        if ttl is not None:
            with self._lock:
                self._recent[(turn_id, key)] = (self._monotonic(), value)
        return value

    def exists(self, turn_id: str) -> bool:
        listing = self.client.list_objects_v2(Bucket=self.bucket, Prefix=self._base(turn_id), MaxKeys=1)
        return bool(listing.get("KeyCount"))

    def add_follower(self, turn_id: str, connection_id: str) -> None:
        """Record a WebSocket connection that wants this turn's events from now on."""
        self.client.put_object(Bucket=self.bucket, Key=self._follower_key(turn_id, connection_id), Body=b"")

    def remove_follower(self, turn_id: str, connection_id: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self._follower_key(turn_id, connection_id))

    def followers(self, turn_id: str) -> list[str]:
        """Connections added with add_follower."""
        prefix = f"{self._base(turn_id)}followers/"
        return [bytes.fromhex(key.removeprefix(prefix)).decode() for key in self._keys(prefix)]

    def _follower_key(self, turn_id: str, connection_id: str) -> str:
        # Connection ids are base64-like ('=', maybe '/'); hex keeps them one safe path segment.
        if not 0 < len(connection_id) <= 128:
            raise InvalidInput("Invalid connection id")
        return f"{self._base(turn_id)}followers/{connection_id.encode().hex()}"

    def _chunks(self, turn_id: str) -> list[tuple[str, int, int]]:
        """(key, first seq, last seq) of every stored batch, in seq order."""
        found = []
        for key in self._keys(f"{self._base(turn_id)}events/"):
            match = _CHUNK.search(key)
            if match:
                found.append((key, int(match.group(1)), int(match.group(2))))
        return sorted(found, key=lambda c: (c[1], c[2]))

    def turn_ids(self) -> list[str]:
        """Every turn with something stored (recovery looks for turns nobody finished)."""
        paginator = self.client.get_paginator("list_objects_v2")
        found = [
            common["Prefix"][len(self.prefix) :].rstrip("/")
            for page in paginator.paginate(Bucket=self.bucket, Prefix=self.prefix, Delimiter="/")
            for common in page.get("CommonPrefixes", [])
        ]
        return sorted(found)

    def _keys(self, prefix: str) -> list[str]:
        paginator = self.client.get_paginator("list_objects_v2")
        return [
            obj["Key"]
            for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix)
            for obj in page.get("Contents", [])
        ]

    def _put(self, key: str, value: Any) -> None:
        body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self.client.put_object(Bucket=self.bucket, Key=key, Body=body, ContentType="application/json")

    def _get_json(self, key: str) -> Any | None:
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        except self.client.exceptions.NoSuchKey:
            return None
        return json.loads(body)
