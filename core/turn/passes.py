"""The close-time model passes (the after step and maintenance): strand consolidation and backfill.

Both queue storage Updates on a batch, evaluated on the files' current text: a merge applies
to whatever strands.json holds at commit time (paths are unioned, never dropped); a backfill
sets focus/summary on the slice as it is then, with the original's exact frontmatter rewrite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime

from core.agent.workers.consolidator import propose_merges
from core.agent.workers.marker import mark_slice
from core.clock import iso
from core.llm.registry import BoundModel
from core.memory.catalog.head import head_dry
from core.memory.catalog.index import read_index
from core.memory.catalog.strand_shards import queue_strands, read_all_strands
from core.memory.catalog.strands import MergeProposal, Strands, apply_merges, filter_proposals
from core.memory.catalog.weave import queue_catalog_entries
from core.memory.paths import appendix_md, core_md
from core.memory.slice.appendix import append_appendix
from core.memory.slice.core_edits import backfill_rewrite
from core.memory.slice.merge import edit_slice
from core.memory.slice.model import Slice
from core.memory.slice.slicer import apply_fallback_mark
from core.storage.base import WriteBatch
from core.turn.closing import read_slice

BACKFILL_LIMIT = 3


@dataclass
class PassReport:
    """What the passes changed."""

    merges: int = 0
    marked: list[str] = field(default_factory=list)
    marked_by_fallback: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.merges or self.marked or self.marked_by_fallback)


def merge_update(proposals: list[MergeProposal]) -> Callable[[Strands], Strands]:
    """The strands with the proposals applied (over the shards of their sources and targets)."""

    def apply(strands: Strands) -> Strands:
        return apply_merges(strands, filter_proposals(strands, proposals))[0]

    return apply


def consolidate(batch: WriteBatch, worker: BoundModel) -> int:
    """Queue the worker's strand merges; how many apply to the current index."""
    strands = read_all_strands(batch)
    proposals = propose_merges(worker, strands)
    _, applied = apply_merges(strands, filter_proposals(strands, proposals))
    if applied:
        keys = [name for p in proposals for name in (p.source, p.target)]
        queue_strands(batch, merge_update(proposals), keys)
    return applied


def dry_slices(batch: WriteBatch, exclude: Collection[str], limit: int) -> list[str]:
    """The oldest closed catalog entries still needing a focus/summary (at most `limit`): from
    the catalog's head in the small pending file when it can tell, else from the whole catalog."""
    listed = head_dry(batch, exclude, limit)
    if listed is not None:
        return listed
    index = read_index(batch)
    if index is None:
        return []
    ids = [
        str(e["id"])
        for e in index["slices"]
        if e.get("needs_marking") is True and e.get("status") == "closed" and e["id"] not in exclude
    ]
    return ids[:limit]


def queue_backfill(batch: WriteBatch, slice_id: str, focus: str, summary: str, now_iso: str) -> None:
    """Set focus/summary with the original's rewrite (existing keys kept, new ones appended)."""
    moved: dict[str, str | None] = {}

    def core(text: str | None) -> str | None:
        moved["entry"] = None
        if text is None:
            return None
        new, entry = backfill_rewrite(text, focus, summary, now_iso)
        moved["entry"] = entry
        return new if new != text else None

    def appendix(text: str | None) -> str | None:
        entry = moved.get("entry")
        return append_appendix(text, entry) if entry else None

    batch.update(core_md(slice_id), core)
    batch.update(appendix_md(slice_id), appendix)


def backfill(
    batch: WriteBatch,
    worker: BoundModel | None,
    *,
    now_iso: str,
    locale: str,
    exclude: Collection[str] = (),
    limit: int = BACKFILL_LIMIT,
    report: PassReport | None = None,
) -> PassReport:
    """Mark up to `limit` dry closed slices: by the worker, or deterministically without one."""
    report = report or PassReport()
    for slice_id in dry_slices(batch, exclude, limit):
        current = read_slice(batch, slice_id)
        marking = mark_slice(worker, current) if worker is not None else None
        if marking is not None:
            queue_backfill(batch, slice_id, marking.focus, marking.summary, now_iso)
            report.marked.append(slice_id)
        elif worker is None:
            edit_slice(_fallback(locale), now_iso).queue(batch, slice_id)
            report.marked_by_fallback.append(slice_id)
    return report


def _fallback(locale: str) -> Callable[[Slice], Slice | None]:
    def edit(s: Slice) -> Slice | None:
        marked = apply_fallback_mark(s, locale)
        return None if dataclasses.astuple(marked) == dataclasses.astuple(s) else marked

    return edit


def run_passes(
    batch: WriteBatch,
    worker: BoundModel | None,
    *,
    now: datetime,
    locale: str,
    exclude: Collection[str],
    backfill_limit: int = BACKFILL_LIMIT,
) -> PassReport:
    """Consolidation (with a worker) and the dry-slice backfill; the marked slices' catalog entries."""
    report = PassReport()
    if worker is not None:
        report.merges = consolidate(batch, worker)
    backfill(
        batch, worker, now_iso=iso(now), locale=locale, exclude=exclude, limit=backfill_limit, report=report
    )
    marked = report.marked + report.marked_by_fallback
    if marked:  # their catalog entries, into the small pending file (maintenance folds them in)
        queue_catalog_entries(batch, [read_slice(batch, sid) for sid in marked])
    return report
