"""Derive what the source leaves out: turn ids and timestamps, checked for overlaps and collisions."""

from __future__ import annotations

import base64
import hashlib
import itertools
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core.clock import iso
from core.memory.paths import slice_rel
from core.memory.slice.model import Turn

from .source import SliceSource, SourceError

MAX_SLICE_SPAN = timedelta(minutes=28)


@dataclass
class Timed:
    """A slice's source with its turns stamped: ids, timestamps, the slice's start and end."""

    src: SliceSource
    turns: list[Turn]
    start: datetime
    end: str

    @property
    def slice_id(self) -> str:
        return self.src.slice_id

    @property
    def rel(self) -> str:
        return slice_rel(self.src.slice_id)


def turn_id(slice_id: str, exchange: int) -> str:
    """A stable 6-char base64url id (4 bytes, like the product's random ids) for one exchange."""
    digest = hashlib.sha256(f"{slice_id}#{exchange}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:4]).decode().rstrip("=")


def _gaps(src: SliceSource, rng: random.Random) -> list[float]:
    """Seconds before each later turn: replies take seconds, the user reading and typing takes minutes."""
    gaps = []
    for i, (role, text) in enumerate(src.turns[1:], start=1):
        if role == "agent":  # thinking, then streaming the reply
            gaps.append(4 + len(text) / 40 + rng.uniform(2, 12))
        else:  # reading the reply, then typing on a phone
            gaps.append(len(src.turns[i - 1][1]) / 10 + len(text) / 2 + rng.uniform(20, 150))
    return gaps


def time_slice(src: SliceSource) -> Timed:
    """Give every turn a plausible timestamp, the whole slice within MAX_SLICE_SPAN of its start."""
    rng = random.Random(src.slice_id)
    minute = datetime.strptime(src.slice_id, "%Y-%m-%d-%H%M").replace(tzinfo=UTC)
    start = minute + timedelta(seconds=rng.randint(1, 50), milliseconds=rng.randint(0, 999))
    gaps = _gaps(src, rng)
    scale = min(1.0, MAX_SLICE_SPAN.total_seconds() / sum(gaps)) if gaps else 1.0
    stamps, t = [start], start
    for gap in gaps:
        t = t + timedelta(milliseconds=round(gap * scale * 1000))
        stamps.append(t)
    turns = [
        Turn(turn_id(src.slice_id, i // 2), iso(ts), role, text)
        for i, ((role, text), ts) in enumerate(zip(src.turns, stamps[: len(src.turns)], strict=True))
    ]
    return Timed(src, turns, start, src.end or (turns[-1].timestamp if turns else ""))


def time_all(slices: list[SliceSource]) -> list[Timed]:
    """Every slice timed, refusing duplicate ids, overlapping slices and colliding turn ids."""
    timed = [time_slice(s) for s in slices]
    ids = [t.slice_id for t in timed]
    if len(set(ids)) != len(ids):
        raise SourceError("two slice files share an id")
    for prev, nxt in itertools.pairwise(timed):
        if prev.end >= iso(nxt.start):
            raise SourceError(f"{prev.slice_id} ends at {prev.end}, after {nxt.slice_id} starts")
    seen: set[str] = set()
    for t in timed:
        tids = {turn.turn_id or "" for turn in t.turns}
        if tids & seen:
            raise SourceError(f"{t.slice_id}: a generated turn id collides with another slice's")
        seen |= tids
    return timed
