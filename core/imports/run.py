"""Applying an accepted plan: stream the export again and write its slices in a few commits.

Slices are queued into one batch until it holds `CHUNK_SLICES` slices or `CHUNK_BYTES` of text,
then committed, so a 2,000-conversation export lands in a handful of commits and memory stays
bounded. The last commit also weaves the catalog and refreshes the search index. Input errors
were all found by the plan, before the first commit; the file is checked to be the one planned.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.clock import Clock, iso
from core.errors import ConflictError
from core.imports.bounds import Deadline
from core.imports.instructions import queue_card_lines
from core.imports.model import ATTACHMENTS_DIR
from core.imports.plan import ImportPlan, PlannedSlice, Progress, file_sha, plan_import
from core.imports.source import ExportFile
from core.imports.timeslice import (
    Part,
    appendix_entry,
    build_slice,
    mark_imported,
    split_conversation,
    turn_hash,
)
from core.imports.writer import ImportReport, append_once, queue_new_slice
from core.media.attach import image_path
from core.memory import paths
from core.memory.catalog.weave import weave_timeline
from core.memory.config import UserConfig, load_config
from core.memory.slice.appendix import rewrite_core_md
from core.memory.slice.model import Slice, parse_core_md
from core.memory.slice.slicer import FALLBACK_MARK
from core.search import refresh_index
from core.storage.base import Storage, UpdateFn, WriteBatch

CHUNK_SLICES = 400
CHUNK_BYTES = 16_000_000


@dataclass
class _Chunk:
    batch: WriteBatch
    slices: int = 0
    size: int = 0


def preview(
    export: ExportFile, storage: Storage, progress: Progress | None = None, deadline: Deadline | None = None
) -> ImportPlan:
    """The plan for importing `export` into `storage` (nothing is written)."""
    batch = WriteBatch.open(storage)
    return plan_import(export, batch, load_config(batch.read(paths.CONFIG_JSON)), progress, deadline)


def accept(
    export: ExportFile, storage: Storage, digest: str, clock: Clock, progress: Progress | None = None
) -> ImportReport:
    """Plan again and apply, only if the plan is still the one previewed (`digest`)."""
    plan = preview(export, storage, progress)
    if plan.digest != digest:
        raise ConflictError(
            "The memory or the file changed since the preview; preview the import again and accept that."
        )
    return apply_plan(export, plan, storage, clock, progress)


def apply_plan(
    export: ExportFile, plan: ImportPlan, storage: Storage, clock: Clock, progress: Progress | None = None
) -> ImportReport:
    """Write what `plan` says; ConflictError when the file is no longer the one planned."""
    if file_sha(export.path) != plan.file_sha:
        raise ConflictError(f"{export.name} changed since it was read; preview the import again.")
    report = ImportReport()
    if plan.writes == 0:
        report.unchanged = [s.slice_id for s in plan.slices if s.action == "unchanged"]
        report.kept_existing = [s.slice_id for s in plan.slices if s.action == "kept"]
        return report
    by_key = {s.key: s for s in plan.slices}
    chunk = _Chunk(WriteBatch.open(storage))
    config = load_config(chunk.batch.read(paths.CONFIG_JSON))
    for done, conv in enumerate(export.conversations(), 1):
        for part in split_conversation(conv, config):
            planned = by_key[part.key]
            _queue(chunk, part, planned, config, clock, report)
            if chunk.slices >= CHUNK_SLICES or chunk.size >= CHUNK_BYTES:
                _commit(chunk, plan, report)
                chunk = _Chunk(WriteBatch.open(storage))
        if progress:
            progress("write", done, plan.conversations + len(plan.projects))
    # The export's instructions go onto the card (Unsorted) in the last commit, after the slices.
    report.card_lines = (
        len(plan.card_lines) if queue_card_lines(chunk.batch, plan.card_lines, clock.now(), plan.tool) else 0
    )
    report.catalog = weave_timeline(chunk.batch, clock.now(), force=True, locale=config.locale)
    refresh_index(chunk.batch, clock)
    _commit(chunk, plan, report)
    return report


def _queue(
    chunk: _Chunk, part: Part, planned: PlannedSlice, config: UserConfig, clock: Clock, report: ImportReport
) -> None:
    {"new": report.imported, "extend": report.extended, "unchanged": report.unchanged}.get(
        planned.action, report.kept_existing
    ).append(planned.slice_id)
    if planned.action not in ("new", "extend"):
        return
    s = build_slice(part, planned.slice_id, config.locale)
    folder = paths.slice_dir(planned.slice_id)
    files = [(folder / ATTACHMENTS_DIR / a.file_name, a.text) for a in part.attachments]
    for name, img in part.pictures:  # image files: bytes, not text
        chunk.batch.put_bytes(image_path(planned.slice_id, name), img.raw)
        chunk.size += len(img.raw)
    if planned.action == "new":
        chunk.size += queue_new_slice(chunk.batch, s, files, appendix_entry(part))
    else:
        chunk.size += _queue_extension(chunk.batch, s, part, files, config, iso(clock.now()))
    chunk.slices += 1


def _queue_extension(
    batch: WriteBatch,
    planned: Slice,
    part: Part,
    files: list[tuple[paths.MemoryPath, str]],
    config: UserConfig,
    now_iso: str,
) -> int:
    """Add the turns a newer export has at the end of an imported slice; the rest stays as it is."""
    path = paths.core_md(planned.slice_id)
    current = batch.read(path) or ""
    existing = parse_core_md(current)
    have = tuple(turn_hash(t) for t in existing.turns)
    if tuple(turn_hash(t) for t in planned.turns[: len(have)]) != have:
        raise ConflictError(f"Slice {planned.slice_id} changed since the preview; preview the import again.")
    grown = existing.copy()
    grown.turns = list(planned.turns)
    grown.end, grown.closed_by = planned.end, planned.closed_by
    if grown.marked_by == FALLBACK_MARK:
        grown.focus = grown.summary = ""
        grown = mark_imported(grown, part.conversation.title, config.locale)
    text, moved = rewrite_core_md(current, grown, now_iso)
    batch.update(path, lambda now_text: text if now_text == current else _changed(planned.slice_id))
    if moved:
        batch.update(paths.appendix_md(planned.slice_id), append_once(moved))
    for file_path, body in files:
        batch.update(file_path, _create_missing(body))
    entry = appendix_entry(part)
    if entry:
        batch.update(paths.appendix_md(planned.slice_id), append_once(entry))
    return len(text)


def _create_missing(body: str) -> UpdateFn:
    return lambda current: body if current is None else None


def _changed(slice_id: str) -> str:
    raise ConflictError(f"Slice {slice_id} was changed meanwhile; run the import again.")


def _commit(chunk: _Chunk, plan: ImportPlan, report: ImportReport) -> None:
    result = chunk.batch.commit(f"import: {plan.tool} {plan.file_name} (part {report.commits + 1})")
    if result.changed:
        report.commits += 1
