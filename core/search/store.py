"""Where the index lives: `memory/episodic/search/manifest.json` plus `seg-NNNN.json` segments.

The manifest names the live segments and the tokenizer that built them; each segment holds a
chronological run of slices (at most `MAX_SEGMENT_SLICES`, and under `MAX_SEGMENT_BYTES` so
it stays inside the 1 MB file cap): a 10,000-slice memory is about ten files. New slices go to
the newest segment, so closing a slice rewrites one file; older segments keep their bytes and
stay cached by blob id.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Collection, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from core.clock import iso
from core.errors import InvalidInput
from core.memory.paths import SEARCH_DIR, MemoryPath
from core.search.reader import Readable
from core.search.segment import WINDOW_TURNS, DocTerms, Segment, SegmentView
from core.search.tokenize import TOKENIZER_VERSION

MANIFEST = SEARCH_DIR / "manifest.json"
MANIFEST_KIND = "previously.search.manifest"
MANIFEST_SCHEMA = 4
MAX_SEGMENT_SLICES = 1000
MAX_SEGMENT_BYTES = 900_000
READ_THREADS = 8


def segment_path(name: str) -> MemoryPath:
    return SEARCH_DIR / f"seg-{name}.json"


@dataclass(frozen=True)
class SegmentInfo:
    """A manifest entry: which slice ids a segment covers."""

    name: str
    first: str
    last: str
    slices: int

    @classmethod
    def of(cls, seg: Segment) -> SegmentInfo:
        ids = seg.ids()
        return cls(seg.name, min(ids, default=""), max(ids, default=""), len(ids))

    def row(self) -> dict[str, object]:
        return {"name": self.name, "first": self.first, "last": self.last, "slices": self.slices}


@dataclass
class StoredIndex:
    """The index as found in storage: usable segments and what was wrong with the rest."""

    present: bool = False
    segments: list[Segment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    infos: list[SegmentInfo] = field(default_factory=list)


def _manifest(snapshot: Readable) -> tuple[dict[str, object] | None, str | None]:
    try:
        text = snapshot.read(MANIFEST)
    except InvalidInput as exc:  # not UTF-8, too large: rebuilt like any other damaged index
        return None, f"the search manifest cannot be read ({exc})"
    if text is None:
        return None, None
    try:
        data = json.loads(text)
    except ValueError:
        return None, "the search manifest is not valid JSON"
    if not isinstance(data, dict) or data.get("kind") != MANIFEST_KIND:
        return None, "the search manifest is not one this version wrote"
    if data.get("_schema") != MANIFEST_SCHEMA or data.get("tokenizer") != TOKENIZER_VERSION:
        return None, f"the search index was built by another version ({data.get('tokenizer')})"
    return data, None


def _infos(data: dict[str, object]) -> list[SegmentInfo]:
    rows = data.get("segments")
    out = []
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and isinstance(row.get("name"), str):
            first, last, count = row.get("first"), row.get("last"), row.get("slices")
            out.append(SegmentInfo(row["name"], str(first or ""), str(last or ""), int(count or 0)))
    return out


def load_manifest(snapshot: Readable) -> StoredIndex:
    """Read only the manifest: which segments exist and what they cover."""
    data, problem = _manifest(snapshot)
    if data is None:
        return StoredIndex(present=problem is not None, problems=[problem] if problem else [])
    infos = _infos(data)
    rows = data.get("segments")
    if not isinstance(rows, list) or len(infos) != len(rows):
        return StoredIndex(present=True, problems=["the search manifest's segment list is unreadable"])
    return StoredIndex(present=True, names=[i.name for i in infos], infos=infos)


def load_stored(
    snapshot: Readable, manifest: StoredIndex | None = None, skip: Collection[str] = ()
) -> StoredIndex:
    """Read the manifest (unless given) and its segments whole (for writers), but those named in
    `skip`; damage is reported, not raised."""
    out = manifest if manifest is not None else load_manifest(snapshot)
    for name in out.names:
        if name in skip:
            continue
        text = snapshot.read(segment_path(name))
        if text is None:
            out.problems.append(f"segment {name} is missing")
            continue
        try:
            out.segments.append(Segment.decode(text))
        except InvalidInput as exc:
            out.problems.append(f"segment {name}: {exc}")
    return out


@dataclass
class StoredViews:
    """The index as a query reads it: segment views, the newest slice id they cover, problems."""

    present: bool = False
    views: list[SegmentView] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    newest: str = ""
    names: list[str] = field(default_factory=list)  # the manifest's segments, in its order


def load_views(snapshot: Readable) -> StoredViews:
    """Read the manifest and every segment's header and slice table (postings stay packed)."""
    manifest = load_manifest(snapshot)
    out = StoredViews(manifest.present, problems=list(manifest.problems))
    out.newest = max((i.last for i in manifest.infos), default="")
    out.names = list(manifest.names)
    for name, text in zip(manifest.names, _read_all(snapshot, manifest.names), strict=True):
        if text is None:
            out.problems.append(f"segment {name} is missing")
            continue
        try:
            out.views.append(SegmentView.decode(text))
        except InvalidInput as exc:
            out.problems.append(f"segment {name}: {exc}")
    return out


def _read_all(snapshot: Readable, names: list[str]) -> list[str | None]:
    """Every segment's text, fetched side by side: on GitHub each is a request of its own."""
    paths = [segment_path(name) for name in names]
    if len(paths) <= 1:
        return [snapshot.read(p) for p in paths]
    with ThreadPoolExecutor(max_workers=min(READ_THREADS, len(paths))) as pool:
        return list(pool.map(snapshot.read, paths))


def manifest_text(infos: list[SegmentInfo], now: datetime, size: int) -> str:
    """The manifest for this set of segments (`size`: their total bytes)."""
    data = {
        "_schema": MANIFEST_SCHEMA,
        "kind": MANIFEST_KIND,
        "tokenizer": TOKENIZER_VERSION,
        "window_turns": WINDOW_TURNS,
        "updated_at": iso(now),
        "slices": sum(i.slices for i in infos),
        "bytes": size,
        "segments": [i.row() for i in infos],
        "note": "Derived from the slice files; safe to delete (it is rebuilt).",
    }
    return json.dumps(data, indent=2) + "\n"


class _Names:
    """Hands out fresh sequential segment names."""

    def __init__(self, start: int) -> None:
        self.next = start

    def __call__(self) -> str:
        self.next += 1
        return f"{self.next - 1:04d}"


def fits(seg: Segment) -> bool:
    """Whether a segment is within both the slice-count and the byte limits."""
    return len(seg.docs) <= MAX_SEGMENT_SLICES and len(seg.encode()) <= MAX_SEGMENT_BYTES


def _split(seg: Segment, fresh: _Names) -> list[Segment]:
    """Split a segment that outgrew its limits into chronological halves, recursively."""
    if len(seg.docs) <= 1 or fits(seg):
        return [seg]
    return _halves(seg.name, sorted(seg.explode(), key=lambda d: d.meta.slice_id), fresh)


def _pack(name: str, docs: list[DocTerms], fresh: _Names) -> list[Segment]:
    """`docs` (in slice-id order) as one segment named `name`, or halves when over the limits."""
    seg = Segment.build(name, docs)
    return [seg] if len(docs) <= 1 or fits(seg) else _halves(name, docs, fresh)


def _halves(name: str, docs: list[DocTerms], fresh: _Names) -> list[Segment]:
    half = len(docs) // 2
    return _pack(name, docs[:half], fresh) + _pack(fresh(), docs[half:], fresh)


def layout(docs: Iterable[DocTerms]) -> Iterator[Segment]:
    """Fresh segments for `docs`, which come in slice-id order, yielded a run at a time.

    A run of `MAX_SEGMENT_SLICES` slices is packed as soon as it is complete, so a caller that
    writes each segment away holds one run's entries at a time, not the whole memory's.
    """
    fresh = _Names(1)
    run: list[DocTerms] = []
    for doc in docs:
        run.append(doc)
        if len(run) == MAX_SEGMENT_SLICES:
            yield from _pack(fresh(), run, fresh)
            run = []
    if run:
        yield from _pack(fresh(), run, fresh)


def route(infos: list[SegmentInfo], slice_id: str) -> str | None:
    """Name of the segment that owns `slice_id` (None: start a new newest segment).

    Segments cover consecutive id ranges in order of their first id; the first one also takes
    anything older, and a full newest segment hands newer ids to a fresh one.
    """
    return Router(infos)(slice_id)


class Router:
    """`route` over one list of segment infos, sorted once (for routing thousands of ids)."""

    def __init__(self, infos: list[SegmentInfo]) -> None:
        self.live = sorted((i for i in infos if i.slices), key=lambda i: i.first)
        self.firsts = [i.first for i in self.live]
        self.fallback = infos[0].name if infos else None

    def __call__(self, slice_id: str) -> str | None:
        if not self.live:
            return self.fallback
        owner = self.live[max(0, bisect_right(self.firsts, slice_id) - 1)]
        newest = self.live[-1]
        if owner is newest and newest.slices >= MAX_SEGMENT_SLICES and slice_id > newest.last:
            return None
        return owner.name


@dataclass(frozen=True)
class Unloaded:
    """A segment left in storage unread: known (the manifest's `built_from` record) to need no change."""

    info: SegmentInfo
    bytes: int

    @property
    def name(self) -> str:
        return self.info.name


class NeedsLoad(Exception):
    """A change routes into a segment that was not loaded: load every segment and retry."""


def info_of(seg: Segment | Unloaded) -> SegmentInfo:
    return seg.info if isinstance(seg, Unloaded) else SegmentInfo.of(seg)


def apply_changes(
    segments: Sequence[Segment | Unloaded], upserts: list[DocTerms], removals: set[str]
) -> tuple[list[Segment | Unloaded], set[str]]:
    """The segment list after the changes, and the names of segments whose bytes changed.

    Unloaded segments keep their place and are never changed (NeedsLoad when a change routes
    into one), so the result is what the same changes give with every segment loaded.
    """
    current = [s if isinstance(s, Unloaded) else s.without(removals) for s in segments]
    changed = {s.name for s, old in zip(current, segments, strict=True) if s is not old}
    numbers = [int(s.name) for s in segments if s.name.isdigit()]
    fresh = _Names(max(numbers, default=0) + 1)
    for doc in upserts:
        name = route([info_of(seg) for seg in current], doc.meta.slice_id)
        at = next((i for i, seg in enumerate(current) if seg.name == name), None)
        if at is None:
            current.append(Segment.build(fresh(), [doc]))
            changed.add(current[-1].name)
            continue
        seg = current[at]
        if isinstance(seg, Unloaded):
            raise NeedsLoad(seg.name)
        current[at] = seg.upsert(doc)
        changed.add(seg.name)
    result: list[Segment | Unloaded] = []
    for seg in current:
        if isinstance(seg, Segment) and seg.name in changed:
            parts = _split(seg, fresh)
            changed.update(p.name for p in parts)
            result.extend(parts)
        else:
            result.append(seg)
    return result, changed
