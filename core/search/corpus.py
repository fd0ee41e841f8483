"""The searchable view over several segments: global document numbers, lengths, postings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from zoneinfo import ZoneInfo

from core.clock import try_parse_iso
from core.memory.paths import SliceId
from core.search.postings import window_sums
from core.search.segment import SegmentView, Stats, _ints
from core.search.termpostings import TermPostings


def slice_instant(slice_id: str, start: str) -> datetime:
    """When the slice started: its `start`, else the UTC minute in its id."""
    parsed = try_parse_iso(start)
    if parsed is not None:
        return parsed
    started = SliceId.parse(slice_id).started
    if started is None:
        raise ValueError(f"Slice {slice_id} has no readable start and its id names no real minute.")
    return started


@dataclass
class Corpus:
    """Segments merged into one collection; `skip` hides stale or deleted copies of a slice.

    Columns are concatenated once; per-slice values that only some questions need (turn
    lengths, local dates) are parsed on first use.
    """

    segments: list[SegmentView]
    skip: set[tuple[int, int]] = field(default_factory=set)
    _cache: dict[str, TermPostings] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.ids: list[str] = []
        self.starts: list[str] = []
        self.zones: list[str] = []
        self.roles: list[str] = []
        self.head_len: list[int] = []
        self.body_len: list[int] = []
        self._lens: list[str] = []
        self._offsets: list[int] = []
        self._parsed_lens: dict[int, list[int]] = {}
        self._instants: dict[int, datetime] = {}
        self._window_norms: dict[int, list[float]] = {}
        self._live: list[int] | None = None
        stats = Stats()
        for seg in self.segments:
            self._offsets.append(len(self.ids))
            c = seg.columns
            self.ids += c["ids"]
            self.starts += c["start"]
            self.zones += c["tz"]
            self.roles += c["roles"]
            self.head_len += c["head"]
            self.body_len += c["body"]
            self._lens += c["lens"]
            stats = stats + seg.stats
        self.alive = [True] * len(self.ids)
        self.dead: set[int] = set()
        for s, pos in self.skip:
            doc = self._offsets[s] + pos
            self.alive[doc] = False
            self.dead.add(doc)
            stats = stats - Stats.of(self.head_len[doc], self.turn_lens(doc))
        self.n = stats.docs
        self.avg_body = stats.body / stats.docs if stats.docs else 1.0
        self.avg_head = stats.head / stats.docs if stats.docs else 1.0
        self.n_windows = stats.windows
        self.avg_window = stats.window_len / stats.windows if stats.windows else 1.0

    def turn_lens(self, doc: int) -> list[int]:
        """Token count of each turn of a slice."""
        lens = self._parsed_lens.get(doc)
        if lens is None:
            lens = self._parsed_lens[doc] = _ints(self._lens[doc])
        return lens

    def window_norms(self, doc: int, b: float) -> list[float]:
        """BM25 length normalisation of each passage of a slice (computed once per slice)."""
        norms = self._window_norms.get(doc)
        if norms is None:
            avg = self.avg_window or 1.0
            norms = self._window_norms[doc] = [1 - b + b * x / avg for x in window_sums(self.turn_lens(doc))]
        return norms

    def n_turns(self, doc: int) -> int:
        return len(self.roles[doc])

    def postings(self, term: str) -> TermPostings:
        """Where `term` occurs, by document number (cached per corpus)."""
        cached = self._cache.get(term)
        if cached is not None:
            return cached
        out = TermPostings(self.dead)
        for s, seg in enumerate(self.segments):
            part = seg.lookup(term)
            if part is not None:
                out.add(part, self._offsets[s], len(seg))
        self._cache[term] = out
        return out

    def live_docs(self) -> list[int]:
        """Numbers of the documents not hidden by `skip` (computed once)."""
        if self._live is None:
            self._live = [i for i, ok in enumerate(self.alive) if ok]
        return self._live

    def instant(self, doc: int) -> datetime:
        """When slice `doc` started (parsed once)."""
        at = self._instants.get(doc)
        if at is None:
            at = self._instants[doc] = slice_instant(self.ids[doc], self.starts[doc])
        return at

    def local_date(self, doc: int, tz: ZoneInfo) -> date:
        return self.instant(doc).astimezone(tz).date()
