"""The recall floor's entry points: search a memory, index one slice, refresh or rebuild the index.

Queries never fail because of the index: a missing or damaged index is rebuilt in memory, and
slices the stored index does not know yet (new, still active, or changed) are indexed on the
fly; `notes` says when that happened. Slice files are the truth: a stored entry whose slice
is gone is ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from core.clock import Clock, iso
from core.errors import InvalidInput
from core.memory.damage import read_or_skip
from core.memory.paths import (
    SLICES,
    MemoryPath,
    PathClass,
    core_md,
    legacy_flat_md,
    parse_slice_id,
    slice_dir,
)
from core.reltime import zone_or_utc
from core.search.corpus import Corpus
from core.search.engine import Engine, Hit
from core.search.reader import Readable, slice_paths
from core.search.refresh import analyze_file, refresh_index, write_segments
from core.search.segment import (
    DocTerms,
    Segment,
    SegmentView,
)
from core.search.store import (
    MANIFEST,
    SegmentInfo,
    StoredViews,
    apply_changes,
    fits,
    load_manifest,
    load_stored,
    load_views,
    route,
    segment_path,
)
from core.storage.base import WriteBatch, prefetch

# Building the index inside a turn is fine for a young memory; a large one waits for `maintain`.
INLINE_BUILD_LIMIT = 200


@dataclass
class RecallResult:
    """Hits, best first, and notes about how the index was obtained."""

    hits: list[Hit]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"hits": [h.to_dict() for h in self.hits]}


@dataclass
class OpenIndex:
    """A queryable index over one snapshot (reuse it for many questions)."""

    engine: Engine
    default_tz: ZoneInfo
    notes: list[str]
    keep: Callable[[int], bool] = lambda doc: True

    def search(
        self,
        question: str,
        k: int,
        now: datetime,
        tz: str | None = None,
        within: Callable[[str], bool] | None = None,
    ) -> RecallResult:
        """Recall the `k` slices that best answer `question`, dates read against `now`
        (only among the slice ids `within` accepts, when given)."""
        zone_info = zone_or_utc(tz) if tz else self.default_tz
        hits = self.engine.search(question, max(0, k), now, zone_info, self.keep, within)
        return RecallResult(hits, list(self.notes))


def open_index(snapshot: Readable) -> OpenIndex:
    """Load the stored index and patch it with whatever the slice files say it is missing.

    A sound index lists only the slice folders from the month of its newest slice on (new
    slices are newer), re-reads the slices it holds as still active, and checks that a hit's
    slice still exists before returning it. Without a sound index every folder is listed.
    (A process that answers many questions keeps one open: core/search/warm.py.)
    """
    stored = load_views(snapshot)
    plan = plan_overlay(snapshot, stored)
    prefetch(snapshot, [plan.listed[sid] for sid in plan.unknown])  # fetched together (an archive when many)
    fresh = [d for sid in plan.unknown if (d := analyze_file(snapshot, sid, plan.listed[sid]))]
    return assemble(snapshot, stored, plan, fresh)


@dataclass(frozen=True)
class OverlayPlan:
    """What the slice files add to a stored index: entries to hide and slices to read."""

    whole: bool  # no sound index: every folder was listed
    listed: dict[str, MemoryPath]
    skip: set[tuple[int, int]]
    unknown: list[str]  # slice ids to analyse from their files, in order


Stale = tuple[set[tuple[int, int]], set[str], list[str]]


def plan_overlay(
    snapshot: Readable,
    stored: StoredViews,
    stale: Stale | None = None,
    kinds: dict[MemoryPath, PathClass] | None = None,
) -> OverlayPlan:
    """List what the stored index cannot know: new slices, active ones, every one without an index.

    `stale` is `stale_entries(stored.views, None)` computed before for these same views (a
    sound index's entries to hide do not depend on the listing); `kinds`, what each listed
    path was found to be by an earlier listing.
    """
    whole = not stored.present or bool(stored.problems) or not stored.newest
    if whole:
        listed = slice_paths(snapshot, [SLICES], kinds)
        stale = stale_entries(stored.views, listed)
    else:
        # The slices the index holds as closed are answered from it: their folders are not
        # walked (a closed slice's file changes only by edit or forget, which re-index it).
        if stale is None:
            stale = stale_entries(stored.views, None)
        listed = slice_paths(snapshot, tail_prefixes(stored.newest), kinds, closed=stale[1])
    skip, known, reread = stale
    for sid in reread:
        listed.setdefault(sid, _slice_path(snapshot, sid))
    return OverlayPlan(whole, listed, skip, sorted(set(listed) - known))


def assemble(snapshot: Readable, stored: StoredViews, plan: OverlayPlan, fresh: list[DocTerms]) -> OpenIndex:
    """The queryable index: the stored segments, with `fresh` (the analysed overlay) on top."""
    views = [*stored.views, SegmentView.of(Segment.build("overlay", fresh))]
    index = OpenIndex(Engine(Corpus(views, plan.skip)), zone_or_utc(None), overlay_notes(stored, fresh))
    index.default_tz = _latest_zone(index.engine.corpus)
    return rebind(index, snapshot, plan.whole, len(fresh))


def rebind(index: OpenIndex, snapshot: Readable, whole: bool, overlay: int) -> OpenIndex:
    """`index` answering for `snapshot`: a stored hit is returned only while its slice exists."""
    corpus = index.engine.corpus
    keep = (lambda doc: True) if whole else _Existing(snapshot, corpus, len(corpus.ids) - overlay)
    return OpenIndex(index.engine, index.default_tz, list(index.notes), keep)


def overlay_notes(stored: StoredViews, fresh: list[DocTerms]) -> list[str]:
    """How the index was obtained, for the caller to show."""
    notes = list(stored.problems)
    if not stored.present:
        notes.append(
            f"no search index yet: built in memory from {len(fresh)} slices (`previously maintain` saves it)"
        )
    elif fresh:
        notes.append(
            f"{len(fresh)} slices not in the stored index (new, active or changed): indexed in memory"
        )
    return notes


def stale_entries(views: list[SegmentView], listed: dict[str, MemoryPath] | None) -> Stale:
    """Stored entries to hide, the slice ids kept, and those to read again (still active)."""
    skip: set[tuple[int, int]] = set()
    known: set[str] = set()
    reread: list[str] = []
    for s, view in enumerate(views):
        for pos, (sid, status) in enumerate(zip(view.columns["ids"], view.columns["status"], strict=True)):
            gone = listed is not None and sid not in listed
            if gone or sid in known or status != "closed":
                skip.add((s, pos))
                if status != "closed" and not gone:
                    reread.append(sid)
            else:
                known.add(sid)
    return skip, known, [sid for sid in reread if sid not in known]


def tail_prefixes(newest: str, years_ahead: int = 20) -> list[MemoryPath]:
    """The folders that can hold slices newer than `newest`: from the month before it (slices
    may close out of order) to the end of its year by month, then the following years (a
    missing folder costs one lookup)."""
    sid = parse_slice_id(newest)
    y, mo = sid.year, sid.month
    months = [SLICES / f"{y}/{m:02d}" for m in range(max(1, int(mo) - 1), 13)]
    if mo == "01":
        months.insert(0, SLICES / f"{int(y) - 1}/12")
    return months + [SLICES / str(year) for year in range(int(y) + 1, int(y) + 1 + years_ahead)]


def _slice_path(snapshot: Readable, slice_id: str) -> MemoryPath:
    path = core_md(slice_id)
    return path if read_or_skip(snapshot, path) is not None else legacy_flat_md(slice_id)


class _Existing:
    """Whether a stored slice's file still exists (checked only for hits).

    On a local folder its core.md is stat'ed (`stamp_of`: one call, where a listing checks
    every folder on the way); elsewhere the slice's own folder is listed (a couple of entries;
    on GitHub it comes from the tree listing). Its day folder is listed only when it has no
    core.md: a legacy flat `HHMM.md`.
    """

    def __init__(self, snapshot: Readable, corpus: Corpus, overlay_from: int) -> None:
        self.snapshot, self.corpus, self.overlay_from = snapshot, corpus, overlay_from
        self.stamp: Callable[[MemoryPath], str | None] | None = getattr(snapshot, "stamp_of", None)
        self.days: dict[MemoryPath, set[MemoryPath]] = {}
        self.seen: dict[int, bool] = {}  # answered once per open index (one snapshot)

    def __call__(self, doc: int) -> bool:
        if doc >= self.overlay_from:
            return True  # read from its file just now
        found = self.seen.get(doc)
        if found is None:
            found = self.seen[doc] = self._exists(self.corpus.ids[doc])
        return found

    def _exists(self, sid: str) -> bool:
        core = core_md(sid)
        if self.stamp is not None:
            if self.stamp(core) is not None:
                return True
        elif core in self.snapshot.list(slice_dir(sid)):
            return True
        day = parse_slice_id(sid).day_dir
        files = self.days.get(day)
        if files is None:
            files = self.days[day] = set(self.snapshot.list(day))
        return legacy_flat_md(sid) in files


def _latest_zone(corpus: Corpus) -> ZoneInfo:
    """The user's zone as the newest slice recorded it (UTC when there is none)."""
    live = corpus.live_docs()
    if not live:
        return zone_or_utc(None)
    newest = max(live, key=lambda d: corpus.ids[d])
    return zone_or_utc(corpus.zones[newest])


def recall(snapshot: Readable, question: str, k: int, clock: Clock, tz: str | None = None) -> RecallResult:
    """One question against one snapshot (open the index once with `open_index` for many)."""
    return open_index(snapshot).search(question, k, clock.now(), tz)


def index_slice(batch: WriteBatch, slice_id: str, clock: Clock) -> bool:
    """Add or replace one slice in the stored index (call when a slice closes or is re-marked).

    Reads the manifest and the one segment that owns the slice, and queues that segment and
    the manifest as updates of their current text, so two slices closing at once both land.
    Returns False when nothing was queued: the slice is already indexed as it is, or there is
    no usable index and the memory is too large to build one inside a turn (`maintain` will).
    """
    doc = _analyze_one(batch, slice_id)
    manifest = load_manifest(batch)
    if not manifest.present or manifest.problems:
        return _rebuild_if_small(batch, clock)
    if doc is None:
        return False
    name = route(manifest.infos, slice_id)
    text = batch.read(segment_path(name)) if name else None
    try:
        seg = Segment.decode(text) if text else None
    except InvalidInput:
        seg = None
    if name and seg is None:
        return _slow_index(batch, doc, clock)
    if seg is not None and any(
        m.slice_id == slice_id and m.fingerprint == doc.meta.fingerprint for m in seg.docs
    ):
        return False
    new = seg.upsert(doc) if seg else Segment.build(_next_name(manifest.infos), [doc])
    if not fits(new):
        return _slow_index(batch, doc, clock)
    # Encoded once here (the size check): the commit reuses it unless another writer changed the file.
    batch.update(segment_path(new.name), _merge_doc(new.name, doc, ready=(text, new.encode())))
    grown = len(new.encode()) - len(text or "")
    batch.update(MANIFEST, _merge_manifest(SegmentInfo.of(new), grown, clock))
    return True


def _analyze_one(batch: WriteBatch, slice_id: str) -> DocTerms | None:
    """One slice by id, without listing the whole archive (legacy flat files too)."""
    return analyze_file(batch, slice_id, _slice_path(batch, slice_id))


def _next_name(infos: list[SegmentInfo]) -> str:
    return f"{max((int(i.name) for i in infos if i.name.isdigit()), default=0) + 1:04d}"


def _merge_doc(
    name: str, doc: DocTerms, ready: tuple[str | None, str] | None = None
) -> Callable[[str | None], str | None]:
    """The segment file with `doc` upserted; `ready` is (a text, that text with `doc` upserted)."""

    def apply(current: str | None) -> str | None:
        if ready is not None and current == ready[0]:
            return ready[1]
        try:
            seg = Segment.decode(current) if current else None
        except InvalidInput:
            return None  # leave a damaged file for the next refresh to rebuild
        return (seg.upsert(doc) if seg else Segment.build(name, [doc])).encode()

    return apply


def _merge_manifest(info: SegmentInfo, grown: int, clock: Clock) -> Callable[[str | None], str | None]:
    """The manifest with `info` in its segment list and its total size `grown` by so many bytes."""

    def apply(current: str | None) -> str | None:
        try:
            data = json.loads(current or "")
        except ValueError:
            return None
        rows = [r for r in data.get("segments", []) if isinstance(r, dict) and r.get("name") != info.name]
        rows = sorted([*rows, info.row()], key=lambda r: str(r.get("first") or ""))
        data.update(
            segments=rows,
            slices=sum(int(r.get("slices") or 0) for r in rows),
            bytes=max(0, _count(data.get("bytes")) + grown),
            updated_at=iso(clock.now()),
        )
        return json.dumps(data, indent=2) + "\n"

    return apply


def _count(value: object) -> int:
    """A manifest count as written, 0 when it is not a number (it is recomputed by `maintain`)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _rebuild_if_small(batch: WriteBatch, clock: Clock) -> bool:
    """Rebuild a missing or damaged index when that fits in a turn; else leave it to `maintain`.

    A damaged index is left as it is, not patched: readers see the damage and list every slice
    folder, so no slice drops out of the answers before the rebuild.
    """
    if len(slice_paths(batch)) > INLINE_BUILD_LIMIT:
        return False
    return refresh_index(batch, clock, full=True).slices > 0


def _slow_index(batch: WriteBatch, doc: DocTerms, clock: Clock) -> bool:
    """Load every segment, place the slice, split what outgrew its limits, write it all."""
    stored = load_stored(batch)
    if stored.problems:
        return _rebuild_if_small(batch, clock)
    segments, changed = apply_changes(stored.segments, [doc], set())
    write_segments(batch, segments, changed, stored.names, clock)
    return True


def unindex_slice(batch: WriteBatch, slice_id: str, clock: Clock) -> bool:
    """Take one slice out of the stored index (it is being forgotten); whether anything was queued.

    A damaged index cannot be edited safely, so it is rebuilt from the slice files as the batch
    sees them (the forgotten slice's files are already queued for deletion).
    """
    stored = load_stored(batch)
    if not stored.present:
        return False
    if stored.problems:
        refresh_index(batch, clock, full=True)
        return True
    segments, changed = apply_changes(stored.segments, [], {slice_id})
    if not changed:
        return False
    write_segments(batch, segments, changed, stored.names, clock)
    return True
