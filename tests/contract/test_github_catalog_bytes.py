"""Bytes ∝ change on GitHub: a maintenance pass after one turn uploads the touched month of the
catalog, not the whole catalog (core/memory/catalog/layout.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.clock import iso
from core.jobs.maintain import reconcile_catalog
from core.memory import paths
from core.memory.catalog.index import stored_index_text
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.catalog.weave import queue_catalog_entries
from core.memory.slice.model import parse_core_md
from core.storage.base import WriteBatch
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.contract

START = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 8, 20, 12, 0, tzinfo=UTC)


def _id(at: datetime) -> str:
    return at.strftime("%Y-%m-%d-%H%M")


def _seed(fake: FakeGitHub, n: int) -> None:
    """`n` closed slices two days apart (about 20 months), catalogued by a rebuild."""
    files = {}
    for i in range(n):
        sid = _id(START + timedelta(days=2 * i))
        turns = [("user", f"note {i} about the garden"), ("agent", "Noted.")]
        text = slice_text(sid, turns, focus=f"garden day {i}", summary=f"A note on day {i}.")
        files[paths.core_md(sid).value] = text
    fake.commit_files(files, "seed slices")
    storage = fake.client(branch="main")
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, NOW - timedelta(days=1))
    batch.commit("weave")


def _catalog_bytes(fake: FakeGitHub) -> int:
    return sum(len((fake.read(p) or "").encode()) for p in fake.files() if _is_catalog(p))


def _is_catalog(path: str) -> bool:
    kind = paths.classify(path).kind
    return kind in (paths.PathKind.CATALOG_TOP, paths.PathKind.CATALOG_MONTH, paths.PathKind.CATALOG)


def test_maintain_after_one_turn_uploads_the_touched_month_not_the_catalog(fake_github: FakeGitHub) -> None:
    _seed(fake_github, 300)
    months = [p for p in fake_github.files() if paths.classify(p).kind is paths.PathKind.CATALOG_MONTH]
    assert len(months) >= 15  # spread over many months
    whole = _catalog_bytes(fake_github)
    storage = fake_github.client(branch="main")
    # One turn: a new slice, its entry queued into the small pending file.
    sid = _id(NOW - timedelta(hours=1))
    text = slice_text(sid, [("user", "back in the garden"), ("agent", "Lovely.")])
    turn = WriteBatch.open(storage)
    turn.put(paths.core_md(sid), text)
    queue_catalog_entries(turn, [parse_core_md(text)])
    assert paths.CATALOG_TOP_JSON not in turn.commit("turn").written
    # Then maintenance folds it into the catalog.
    fake_github.reset_counts()
    batch = WriteBatch.open(storage)
    reconcile_catalog(batch, NOW, "en")
    written = batch.commit("Maintenance — indexes").written
    catalog_written = sorted(str(p) for p in written if _is_catalog(str(p)))
    assert catalog_written == [paths.CATALOG_TOP_JSON.value, paths.catalog_month(sid[:7]).value]
    up = sum(
        sent
        for request, _, sent in fake_github.transfers
        if request.startswith("POST") and request.endswith("/git/trees")
    )
    touched = sum(len((fake_github.read(p) or "").encode()) for p in catalog_written)
    assert touched < whole / 5
    # The tree body carries the month and top files, timeline.md and pending.json — not the catalog.
    assert up < whole / 2, (up, whole)
    entries = stored_index_text(storage.snapshot()) or ""
    assert f'"id": "{sid}"' in entries and f'"updated_at": "{iso(NOW)}"' in entries
