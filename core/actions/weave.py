"""`previously weave`: rebuild the catalog, monthly indexes and strands from the slice files in one
commit, or (a dry run) only say which files would change.

The rebuild itself is `core.memory.catalog.rebuild`; this opens the batch, reads the memory's
locale, lists what the rebuild queued and commits it once when something changes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from core.memory.catalog.rebuild import RebuildReport, rebuild_indexes
from core.memory.catalog.weave import Progress
from core.memory.config import load_config
from core.memory.paths import CONFIG_JSON
from core.storage.base import Storage, WriteBatch


def pending_changes(batch: WriteBatch) -> list[dict[str, str]]:
    """The files a batch would change: `{"path", "change": "new"|"modified"}`."""
    out = []
    for path in batch.pending_paths:
        before, after = batch.snapshot.read(path), batch.read(path)
        if after is not None and after != before:
            out.append({"path": str(path), "change": "new" if before is None else "modified"})
    return out


def weave(
    storage: Storage,
    now: datetime,
    dry_run: bool = False,
    progress: Progress | None = None,
    on_total: Callable[[int], None] | None = None,
) -> tuple[RebuildReport, list[dict[str, str]]]:
    """Rebuild the indexes (committed once, unless `dry_run` or nothing changes): the report and
    the files changed (or, on a dry run, that would change)."""
    batch = WriteBatch.open(storage)
    locale = load_config(batch.read(CONFIG_JSON)).locale
    report = rebuild_indexes(batch, now, locale, progress, on_total)
    changes = pending_changes(batch)
    if changes and not dry_run:
        batch.commit(f"weave: rebuild indexes from {report.slices} slices")
    return report, changes
