"""Where the index lives: `memory/episodic/search/manifest.json` plus `seg-NNNN.json` segments.

The manifest names the live segments and the tokenizer that built them; each segment holds a
chronological run of slices (at most `MAX_SEGMENT_SLICES`, and under `MAX_SEGMENT_BYTES` so
it stays well inside the 1 MB file cap). New slices go to the newest segment, so closing a
slice rewrites one small file; old segments keep their bytes and stay cached by blob id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from core.clock import iso
from core.errors import InvalidInput
from core.memory.paths import SEARCH_DIR, MemoryPath
from core.search.corpus import WINDOW_TURNS
from core.search.reader import Readable
from core.search.segment import DocTerms, Segment
from core.search.tokenize import TOKENIZER_VERSION

MANIFEST = SEARCH_DIR / "manifest.json"
MANIFEST_KIND = "previously.search.manifest"
MANIFEST_SCHEMA = 1
MAX_SEGMENT_SLICES = 400
MAX_SEGMENT_BYTES = 900_000


def segment_path(name: str) -> MemoryPath:
    return SEARCH_DIR / f"seg-{name}.json"


@dataclass
class StoredIndex:
    """The index as found in storage: usable segments and what was wrong with the rest."""

    present: bool = False
    segments: list[Segment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


def _manifest(snapshot: Readable) -> tuple[dict[str, object] | None, str | None]:
    text = snapshot.read(MANIFEST)
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


def load_stored(snapshot: Readable) -> StoredIndex:
    """Read the manifest and its segments; a damaged part is reported, never raised."""
    data, problem = _manifest(snapshot)
    if data is None:
        return StoredIndex(present=problem is not None, problems=[problem] if problem else [])
    out = StoredIndex(present=True)
    names = data.get("segments")
    for name in names if isinstance(names, list) else []:
        out.names.append(str(name))
        text = snapshot.read(segment_path(str(name)))
        if text is None:
            out.problems.append(f"segment {name} is missing")
            continue
        try:
            out.segments.append(Segment.decode(text))
        except InvalidInput as exc:
            out.problems.append(f"segment {name}: {exc}")
    return out


def manifest_text(segments: list[Segment], now: datetime) -> str:
    """The manifest for this set of segments."""
    encoded = {s.name: len(s.encode()) for s in segments}
    data = {
        "_schema": MANIFEST_SCHEMA,
        "kind": MANIFEST_KIND,
        "tokenizer": TOKENIZER_VERSION,
        "window_turns": WINDOW_TURNS,
        "updated_at": iso(now),
        "slices": sum(len(s.docs) for s in segments),
        "bytes": sum(encoded.values()),
        "segments": [s.name for s in segments],
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


def _fits(seg: Segment) -> bool:
    return len(seg.docs) <= MAX_SEGMENT_SLICES and len(seg.encode()) <= MAX_SEGMENT_BYTES


def _split(seg: Segment, fresh: _Names) -> list[Segment]:
    """Split a segment that outgrew its limits into chronological halves, recursively."""
    if len(seg.docs) <= 1 or _fits(seg):
        return [seg]
    docs = sorted(seg.explode(), key=lambda d: d.meta.slice_id)
    half = len(docs) // 2
    left = Segment.build(seg.name, docs[:half])
    right = Segment.build(fresh(), docs[half:])
    return _split(left, fresh) + _split(right, fresh)


def layout(docs: list[DocTerms]) -> list[Segment]:
    """A fresh set of segments for `docs`, in slice-id order."""
    ordered = sorted(docs, key=lambda d: d.meta.slice_id)
    fresh = _Names(1)
    out: list[Segment] = []
    for i in range(0, len(ordered), MAX_SEGMENT_SLICES):
        out.extend(_split(Segment.build(fresh(), ordered[i : i + MAX_SEGMENT_SLICES]), fresh))
    return out


def _first_id(seg: Segment) -> str:
    return min(seg.ids()) if seg.docs else ""


def route(segments: list[Segment], slice_id: str) -> int | None:
    """Index of the segment that owns `slice_id` (None: start a new newest segment)."""
    if not segments:
        return None
    for i, seg in enumerate(segments):
        if slice_id in seg.ids():
            return i
    order = sorted(range(len(segments)), key=lambda i: _first_id(segments[i]))
    owner = order[0]
    for i in order:
        if _first_id(segments[i]) <= slice_id:
            owner = i
    newest = order[-1]
    seg = segments[owner]
    if owner == newest and len(seg.docs) >= MAX_SEGMENT_SLICES and slice_id > max(seg.ids()):
        return None
    return owner


def apply_changes(
    segments: list[Segment], upserts: list[DocTerms], removals: set[str]
) -> tuple[list[Segment], set[str]]:
    """The segment list after the changes, and the names of segments whose bytes changed."""
    current = [s.without(removals) for s in segments]
    changed = {s.name for s, old in zip(current, segments, strict=True) if s is not old}
    numbers = [int(s.name) for s in segments if s.name.isdigit()]
    fresh = _Names(max(numbers, default=0) + 1)
    for doc in upserts:
        at = route(current, doc.meta.slice_id)
        if at is None:
            current.append(Segment.build(fresh(), [doc]))
            changed.add(current[-1].name)
            continue
        current[at] = current[at].upsert(doc)
        changed.add(current[at].name)
    result: list[Segment] = []
    for seg in current:
        if seg.name in changed:
            parts = _split(seg, fresh)
            changed.update(p.name for p in parts)
            result.extend(parts)
        else:
            result.append(seg)
    return result, changed
