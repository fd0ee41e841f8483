"""The one writer of imported slices: new slices only (never over another), then the indexes.

Every importer (LoCoMo, ChatGPT, Claude, Markdown, JSON Lines) queues its slices here, so the
rules hold for all: core.md goes through the shared renderer, a slice is only ever created — a
slice id that another writer filled meanwhile fails the commit instead of being overwritten —
and files kept next to a slice (attachments, the appendix) are added, never replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.errors import SliceIdTaken
from core.memory import paths
from core.memory.catalog.index import read_or_none
from core.memory.catalog.weave import WeaveResult, Writer, upsert_monthly_entry, weave_timeline
from core.memory.slice.appendix import append_appendix
from core.memory.slice.model import Slice, render_core_md
from core.memory.slice.slicer import slice_taken


@dataclass
class ImportReport:
    """What an import did, slice by slice."""

    imported: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept_existing: list[str] = field(default_factory=list)
    extended: list[str] = field(default_factory=list)
    catalog: WeaveResult | None = None
    commits: int = 0
    card_lines: int = 0  # lines the export's instructions added to the card (core/imports/instructions.py)

    def as_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "extended": self.extended,
            "unchanged": self.unchanged,
            "kept_existing": self.kept_existing,
            "commits": self.commits,
            "card_lines": self.card_lines,
            "catalog": self.catalog.as_dict() if self.catalog else None,
        }


def import_slices(
    batch: Writer,
    slices: Sequence[Slice],
    now: datetime,
    locale: str = "en",
    progress: Callable[[], None] | None = None,
) -> ImportReport:
    """Queue each slice that does not exist yet, then its monthly entry and a catalog weave.

    A slice id already taken is left alone: identical text counts as already imported, anything
    else is reported as kept (importing twice neither duplicates nor overwrites).
    """
    report = ImportReport()
    for s in slices:
        text = render_core_md(s)
        if slice_taken(batch, s.slice_id):
            same = read_or_none(batch, paths.core_md(s.slice_id)) == text
            (report.unchanged if same else report.kept_existing).append(s.slice_id)
        else:
            queue_new_slice(batch, s)
            report.imported.append(s.slice_id)
        if progress:
            progress()
    if report.imported:
        report.catalog = weave_timeline(batch, now, force=True, locale=locale)
    return report


def queue_new_slice(
    batch: Writer, s: Slice, files: Sequence[tuple[paths.MemoryPath, str]] = (), appendix: str = ""
) -> int:
    """Queue a new slice's core.md, its side files and appendix section, and its monthly entry.

    Returns the bytes queued (callers bound a batch by it).
    """
    text = render_core_md(s)
    batch.update(paths.core_md(s.slice_id), create_only(text, s.slice_id))
    size = len(text)
    for path, body in files:
        batch.update(path, create_only(body, s.slice_id))
        size += len(body)
    if appendix:
        batch.update(paths.appendix_md(s.slice_id), append_once(appendix))
        size += len(appendix)
    upsert_monthly_entry(batch, s)
    return size


def create_only(text: str, slice_id: str) -> Callable[[str | None], str | None]:
    """An Update that only creates; a different file already there fails the commit (nothing lost)."""

    def fn(current: str | None) -> str | None:
        if current is None or current == text:
            return text
        raise SliceIdTaken(f"Slice {slice_id} was written by someone else meanwhile; run the import again.")

    return fn


def append_once(entry: str) -> Callable[[str | None], str | None]:
    """An Update adding `entry` to the appendix unless it is already there."""
    return lambda current: None if current and entry in current else append_appendix(current, entry)
