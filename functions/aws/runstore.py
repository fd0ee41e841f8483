"""The run store on S3 (docs/FORMAT.md "Runs (outside the memory)"): a turn's events, values and followers
under `runs/{turn_id}/` (a demo persona other than the default: `personas/{id}/runs/{turn_id}/`).

S3 has no append, so each flush of events is one object named by its seq range
(`events/00000001-00000007.json`); zero-padded names list in seq order, and a reader after
seq N skips every object whose range ends at or before N without fetching it.

Seqs are allocated by a compare-and-swap on one small object, `events-tail.json` (the last
seq and the latest batch): a writer reads it with its ETag, first copies the batch it holds to
its range object (idempotent: same name, same bytes), then replaces it with its own batch
under `If-Match` (`If-None-Match: *` for a turn's first batch). A writer that loses the race
reads the tail again and numbers on after the winner. So parallel writers (the tool calls of
a round, each its own Lambda) get distinct, gap-free seqs, and since a batch is in its range
object before the tail moves past it, a reader that reads the tail and then lists sees every
seq up to the tail's last. Values
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
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidInput, TransientError
from core.ids import RunKey, RunName
from core.storage.demo import PERSONA_ID_RE
from core.turn.events import Event
from core.turn.runstore import numbered_from
from functions.aws.s3cas import put_if_unchanged, read_versioned

_CHUNK = re.compile(r"/events/(\d{8})-(\d{8})\.json$")
_READERS = 8
_CAS_ATTEMPTS = 50
# The cancel flag is checked between stream events; one request per second is plenty.
POLLED_KEYS: Mapping[str, float] = {"cancel": 1.0}
RUN_PREFIX = "runs/"
# Another demo persona's runs sit beside runs/, not inside it, so the default persona's listing
# of turns (recovery's) never meets another persona's; the bucket expires both alike.
PERSONA_RUN_PREFIX = "personas/"


@dataclass(frozen=True)
class _Tail:
    """The tail object: the turn's last seq and the latest batch (not yet copied, maybe)."""

    last: int
    events: list[Event]


def _connection_segment(connection_id: str) -> str:
    """Connection ids are base64-like ('=', maybe '/'); hex keeps them one safe path segment."""
    if not 0 < len(connection_id) <= 128:
        raise InvalidInput("Invalid connection id")
    return connection_id.encode().hex()


def persona_run_prefix(persona: str) -> str:
    """Where a demo persona other than the default keeps its runs (InvalidInput for an unsafe id)."""
    if not PERSONA_ID_RE.fullmatch(persona):
        raise InvalidInput(f"Invalid demo persona id {persona!r}: lowercase letters, digits or '-' (<= 32).")
    return f"{PERSONA_RUN_PREFIX}{persona}/{RUN_PREFIX}"


def _runs(events: list[Event]) -> list[list[Event]]:
    """`events` (in seq order) cut where the seq jumps."""
    runs: list[list[Event]] = []
    for event in events:
        if runs and event["seq"] == runs[-1][-1]["seq"] + 1:
            runs[-1].append(event)
        else:
            runs.append([event])
    return runs


class S3RunStore:
    """RunStore over one S3 bucket and prefix; safe to share between threads."""

    def __init__(
        self,
        client: Any,
        bucket: str,
        prefix: str = RUN_PREFIX,
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
        # The tail this process wrote last, per turn: the next append tries its ETag unread.
        self._tails: dict[str, tuple[str | None, _Tail]] = {}
        self._lock = threading.Lock()

    def _base(self, turn_id: str) -> str:
        return f"{self.prefix}{RunName.parse(turn_id)}/"

    def append(self, turn_id: str, events: list[Event]) -> list[Event]:
        """Number the events on from the turn's last seq (compare-and-swap on the tail), store them."""
        if not events:
            return []
        with self._lock:
            known = self._tails.get(turn_id)
        for _ in range(_CAS_ATTEMPTS):
            etag, tail = known if known is not None else self._read_tail(turn_id)
            if tail.events:
                self._put(self._chunk_key(turn_id, tail.events), tail.events)
            numbered = numbered_from(tail.last, events)
            mine = _Tail(numbered[-1]["seq"], numbered)
            new_etag = self._swap_tail(turn_id, etag, mine)
            if new_etag is not None:
                with self._lock:
                    self._tails[turn_id] = (new_etag, mine)
                return numbered
            known = None  # another writer moved the tail: read it again
        raise TransientError(f"Too many writers at once on turn {turn_id}; try again.")

    def _tail_key(self, turn_id: str) -> str:
        return f"{self._base(turn_id)}events-tail.json"

    def _chunk_key(self, turn_id: str, events: list[Event]) -> str:
        return f"{self._base(turn_id)}events/{events[0]['seq']:08d}-{events[-1]['seq']:08d}.json"

    def _read_tail(self, turn_id: str) -> tuple[str | None, _Tail]:
        etag, body = read_versioned(self.client, self.bucket, self._tail_key(turn_id))
        if body is None:
            return None, _Tail(0, [])
        data = json.loads(body)
        return etag, _Tail(int(data["last"]), list(data["events"]))

    def _swap_tail(self, turn_id: str, etag: str | None, tail: _Tail) -> str | None:
        """Replace the tail if it is still `etag` (absent when None); its new ETag, or None: lost."""
        body = json.dumps({"last": tail.last, "events": tail.events}, ensure_ascii=False).encode("utf-8")
        return put_if_unchanged(self.client, self.bucket, self._tail_key(turn_id), body, etag)

    def events(self, turn_id: str, after: int = 0) -> list[Event]:
        """Events with seq > after, in order, each seq once."""
        _, tail = self._read_tail(turn_id)  # first: every batch before it is listed after
        for _ in range(3):
            keys = [key for key, _first, last in self._chunks(turn_id) if last > after]
            batches = self._read_all(keys)
            if all(b is not None for b in batches):
                break
            # An object vanished between listing and reading: compaction merged it; list again.
        seen: dict[int, Event] = {}
        for batch in [*batches, tail.events]:
            for event in batch or []:
                if event["seq"] > after:
                    seen.setdefault(event["seq"], event)
        return [seen[s] for s in sorted(seen)]

    def compact(self, turn_id: str, events: list[Event]) -> None:
        """Merge the objects holding each run of consecutive seqs among `events` into one object.

        Only runs of consecutive seqs: between them lie other writers' events, never touched.
        """
        for run in _runs(events):
            first, last = run[0]["seq"], run[-1]["seq"]
            merged = self._chunk_key(turn_id, run)
            stale = [k for k, lo, hi in self._chunks(turn_id) if first <= lo and hi <= last and k != merged]
            if not stale:
                continue
            self._put(merged, run)
            for start in range(0, len(stale), 1000):
                objects = [{"Key": k} for k in stale[start : start + 1000]]
                self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": objects, "Quiet": True})

    def _read_all(self, keys: list[str]) -> list[Any]:
        if len(keys) <= 1:
            return [self._get_json(k) for k in keys]
        with ThreadPoolExecutor(max_workers=min(_READERS, len(keys))) as pool:
            return list(pool.map(self._get_json, keys))

    def last_seq(self, turn_id: str) -> int:
        """The highest stored seq (0 when none): one read of the tail."""
        return self._read_tail(turn_id)[1].last

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
        self._put(f"{self._base(turn_id)}values/{RunKey.parse(key)}.json", value)
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
        value = self._get_json(f"{self._base(turn_id)}values/{RunKey.parse(key)}.json")
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
        return f"{self._base(turn_id)}followers/{_connection_segment(connection_id)}"

    # What a WebSocket connection chose at $connect (its demo persona, its visitor id), for its
    # later messages, which API Gateway delivers without headers. One object beside the turns'
    # folders (so turn_ids never lists it, and the lifecycle rule expires one a lost
    # $disconnect left).
    def note_connection(self, connection_id: str, persona: str | None, visitor: str | None = None) -> None:
        note = {k: v for k, v in (("persona", persona), ("visitor", visitor)) if v is not None}
        self._put(self._connection_key(connection_id), note)

    def connection_note(self, connection_id: str) -> str | None:
        """The persona the connection named (None: none)."""
        return self.connection_choice(connection_id)[0]

    def connection_choice(self, connection_id: str) -> tuple[str | None, str | None]:
        """The persona and the visitor id the connection named at $connect (None: none)."""
        note = self._get_json(self._connection_key(connection_id))
        found = note if isinstance(note, dict) else {}
        persona, visitor = found.get("persona"), found.get("visitor")
        return (persona if isinstance(persona, str) else None, visitor if isinstance(visitor, str) else None)

    def forget_connection(self, connection_id: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self._connection_key(connection_id))

    def _connection_key(self, connection_id: str) -> str:
        return f"{self.prefix}ws-{_connection_segment(connection_id)}.json"

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
