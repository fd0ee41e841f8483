"""An index kept open by a process that answers many questions (the server, MCP, a Lambda container).

Opening the stored index means reading and decoding every segment's slice table; a kept one
has also decoded the postings its questions used. Each `open` checks, cheaply, that what it
holds is still what the memory says — the manifest's and every segment's blob sha (a stat on
a folder, free from GitHub's tree listing), the folders where new slices appear, and the
versions of the slices it read from their files — and rebuilds only the part that changed.
Answers are exactly those of `open_index` on the same snapshot (tests/unit/test_warm_index.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from core.storage.base import Versioned, prefetch, version_of
from core.storage.paths import MemoryPath

if TYPE_CHECKING:  # the index modules load on the first question, not with the server's wiring
    from core.memory.paths import PathClass
    from core.search.reader import Readable
    from core.search.recall import OpenIndex, OverlayPlan, Stale
    from core.search.segment import DocTerms
    from core.search.store import StoredViews

K = TypeVar("K")
ABSENT = ""  # the version recorded for a file that does not exist
KNOWN_PATHS = 200_000  # paths whose kind is remembered (a whole 10,000-slice listing holds ~30,000)
Versions = tuple[tuple[K, str], ...]


@dataclass(frozen=True)
class _Stored:
    key: Versions[MemoryPath]  # (path, blob sha) of the manifest and each segment
    views: StoredViews
    stale: Stale


@dataclass(frozen=True)
class _Built:
    stored: _Stored
    overlay: Versions[str]  # (slice id, blob sha) of every slice read from its file
    plan: OverlayPlan
    index: OpenIndex
    overlay_docs: int  # how many of them were readable (the index's last documents)


class WarmIndex:
    """`open(snapshot)` as `open_index(snapshot)`, reusing what is unchanged since the last open."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stored: _Stored | None = None
        self._built: _Built | None = None
        self._docs: dict[tuple[str, str], DocTerms] = {}
        self._known: dict[MemoryPath, PathClass] = {}  # what each listed path is
        self.opens = 0  # full loads of the stored index (for tests and benchmarks)

    def open(self, snapshot: Readable) -> OpenIndex:
        from core.search.recall import assemble, plan_overlay, rebind

        with self._lock:
            stored = self._stored_views(snapshot)
            if len(self._known) > KNOWN_PATHS:
                self._known.clear()
            plan = plan_overlay(snapshot, stored.views, stored.stale, self._known)
            overlay = _versions(snapshot, {sid: plan.listed[sid] for sid in plan.unknown})
            built = self._built
            if (
                built is not None
                and built.stored is stored
                and overlay is not None
                and built.overlay == overlay
                and built.plan.whole == plan.whole
                and (not plan.whole or built.plan.listed == plan.listed)
            ):
                return rebind(built.index, snapshot, plan.whole, built.overlay_docs)
            fresh = self._analyse(snapshot, plan, overlay)
            index = assemble(snapshot, stored.views, plan, fresh)
            if overlay is not None:
                self._built = _Built(stored, overlay, plan, index, len(fresh))
            return index

    def _stored_views(self, snapshot: Readable) -> _Stored:
        from core.search.recall import stale_entries
        from core.search.store import MANIFEST, load_views, segment_path

        held = self._stored
        if held is not None and all((version_of(snapshot, p) or ABSENT) == sha for p, sha in held.key):
            return held
        views = load_views(snapshot)
        self.opens += 1
        paths = [MANIFEST, *(segment_path(name) for name in views.names)]
        key = _versions(snapshot, {p: p for p in paths}) if views.present else ((MANIFEST, ABSENT),)
        stored = _Stored(key or (), views, stale_entries(views.views, None))
        # A backend that cannot tell a file's version without reading it is read every time.
        self._stored = stored if key and isinstance(snapshot, Versioned) else None
        return stored

    def _analyse(
        self, snapshot: Readable, plan: OverlayPlan, overlay: Versions[str] | None
    ) -> list[DocTerms]:
        from core.search.refresh import analyze_file

        shas = dict(overlay or ())
        missing = [sid for sid in plan.unknown if (sid, shas.get(sid, "")) not in self._docs]
        prefetch(snapshot, [plan.listed[sid] for sid in missing])
        docs: dict[tuple[str, str], DocTerms] = {}
        out = []
        for sid in plan.unknown:
            key = (sid, shas.get(sid, ""))
            doc = self._docs.get(key) if key[1] else None
            if doc is None:
                doc = analyze_file(snapshot, sid, plan.listed[sid])
            if doc is not None:
                out.append(doc)
                if key[1]:
                    docs[key] = doc
        self._docs = docs  # only the slices the current overlay holds
        return out


def _versions(snapshot: Readable, paths: dict[K, MemoryPath]) -> Versions[K] | None:
    """(key, blob sha) of each path; None when any has no version (it cannot be trusted unread)."""
    out = []
    for key, path in paths.items():
        sha = version_of(snapshot, path)
        if sha is None:
            return None
        out.append((key, sha))
    return tuple(out)
