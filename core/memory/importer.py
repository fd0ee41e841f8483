"""Writing imported slices: new slices only, never over an existing one, then the indexes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.memory import paths
from core.memory.catalog import read_or_none
from core.memory.slice import Slice, render_core_md
from core.memory.slicer import slice_taken
from core.memory.weave import WeaveResult, Writer, upsert_monthly_entry, weave_timeline


@dataclass
class ImportReport:
    """What an import did, slice by slice."""

    imported: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept_existing: list[str] = field(default_factory=list)
    catalog: WeaveResult | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "unchanged": self.unchanged,
            "kept_existing": self.kept_existing,
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
            batch.update(paths.core_md(s.slice_id), _create_only(text))
            upsert_monthly_entry(batch, s)
            report.imported.append(s.slice_id)
        if progress:
            progress()
    if report.imported:
        report.catalog = weave_timeline(batch, now, force=True, locale=locale)
    return report


def _create_only(text: str) -> Callable[[str | None], str | None]:
    """An Update that only creates: if another writer made the file meanwhile, theirs stays."""
    return lambda current: text if current is None else None
