"""The searchable view over several segments: global document numbers, lengths, postings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.clock import try_parse_iso
from core.search.segment import DocMeta, Segment

WINDOW_TURNS = 3  # a passage is this many consecutive turns (the question, its answer, a follow-up)


def zone(name: str | None) -> ZoneInfo:
    """An IANA zone, UTC for empty or unknown names."""
    try:
        return ZoneInfo(name) if name else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def slice_instant(meta: DocMeta) -> datetime:
    """When the slice started: its `start`, else the UTC minute in its id."""
    start = try_parse_iso(meta.start)
    if start is not None:
        return start
    y, mo, d, hm = meta.slice_id.split("-")
    return datetime(int(y), int(mo), int(d), int(hm[:2]), int(hm[2:]), tzinfo=UTC)


@dataclass
class Posting:
    """One term in one slice: frequency in the head and per turn (index 0 = turn 1)."""

    head: int = 0
    turns: dict[int, int] = field(default_factory=dict)

    @property
    def body(self) -> int:
        return sum(self.turns.values())


@dataclass
class Corpus:
    """Segments merged into one collection; `skip` hides stale or deleted copies of a slice."""

    segments: list[Segment]
    skip: set[tuple[int, int]] = field(default_factory=set)
    docs: list[DocMeta] = field(init=False)
    _offsets: list[int] = field(init=False)
    _cache: dict[str, dict[int, Posting]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.docs, self._offsets = [], []
        self.alive: list[bool] = []
        for s, seg in enumerate(self.segments):
            self._offsets.append(len(self.docs))
            for pos, meta in enumerate(seg.docs):
                self.docs.append(meta)
                self.alive.append((s, pos) not in self.skip)
        live = [d for d, ok in zip(self.docs, self.alive, strict=True) if ok]
        self.n = len(live)
        self.body_len = [sum(d.turn_lens) for d in self.docs]
        self.avg_body = sum(sum(d.turn_lens) for d in live) / self.n if self.n else 1.0
        self.avg_head = sum(d.head_len for d in live) / self.n if self.n else 1.0
        windows = [_window_lens(d.turn_lens) for d in live]
        self.n_windows = sum(len(w) for w in windows)
        self.avg_window = sum(sum(w) for w in windows) / self.n_windows if self.n_windows else 1.0

    def postings(self, term: str) -> dict[int, Posting]:
        """Document number → where `term` occurs (cached per corpus)."""
        if term in self._cache:
            return self._cache[term]
        out: dict[int, Posting] = {}
        for s, seg in enumerate(self.segments):
            raw = seg.postings.get(term)
            if not raw:
                continue
            nums = [int(x) for x in raw.split(",")]
            base = self._offsets[s]
            for i in range(0, len(nums), 3):
                doc = base + nums[i]
                if not self.alive[doc]:
                    continue
                p = out.setdefault(doc, Posting())
                if nums[i + 1] == 0:
                    p.head += nums[i + 2]
                else:
                    p.turns[nums[i + 1] - 1] = nums[i + 2]
        self._cache[term] = out
        return out

    def live_docs(self) -> list[int]:
        return [i for i, ok in enumerate(self.alive) if ok]

    def local_date(self, doc: int, tz: ZoneInfo) -> date:
        return slice_instant(self.docs[doc]).astimezone(tz).date()


def _window_lens(turn_lens: list[int]) -> list[int]:
    if len(turn_lens) <= WINDOW_TURNS:
        return [sum(turn_lens)]
    return [sum(turn_lens[a : a + WINDOW_TURNS]) for a in range(len(turn_lens) - WINDOW_TURNS + 1)]


def window_starts(n_turns: int) -> range:
    """Start turn (0-based) of every passage of a slice with `n_turns` turns."""
    return range(max(1, n_turns - WINDOW_TURNS + 1))
