"""Full rebuild of strands, catalog and monthly indexes from the slice files."""

from __future__ import annotations

import json

import pytest

from core.clock import parse_iso
from core.memory import paths
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.catalog.strand_shards import read_all_strands
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.unit.test_weave import _core

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-11T12:00:00.000Z")


def _tree() -> InMemoryStorage:
    return InMemoryStorage.from_texts(
        {
            str(paths.core_md("2026-07-01-0900")): _core("2026-07-01-0900", "july", ("Rust", "陈勇超")),
            str(paths.core_md("2026-08-01-0900")): _core("2026-08-01-0900", "aug", ("rust",)),
            str(paths.core_md("2026-08-02-0900")): "---\nfocus: [broken\n---\n",
            "memory/episodic/slices/2026/06/_index.json": json.dumps(
                {"month": "2026-06", "slices": [{"id": "2026-06-01-0000"}]}
            ),
            # an earlier model merge folded 陈勇超 into 陈永超; a phantom path points nowhere
            str(paths.STRANDS_JSON): json.dumps(
                {"陈永超": ["2026/07/01/0900"], "ghost": ["2025/01/01/0000"]}
            ),
        }
    )


def _rebuild(storage: InMemoryStorage) -> dict:
    batch = WriteBatch.open(storage)
    report = rebuild_indexes(batch, NOW)
    batch.commit("weave")
    return report.as_dict()


def test_rebuild_writes_every_index_from_the_slices() -> None:
    storage = _tree()
    report = _rebuild(storage)
    assert report["slices"] == 3
    assert report["unreadable"] == ["2026-08-02-0900"]
    assert report["catalog"]["total"] == 2 and report["months"] == 3
    assert report["strand_phantoms_dropped"] == 1
    assert paths.STRANDS_JSON not in storage.files  # written in the shards' layout
    strands = read_all_strands(storage.snapshot())
    # the July slice was already indexed (merged strand) so it is left alone; August is woven
    assert strands == {"陈永超": ["2026/07/01/0900"], "rust": ["2026/08/01/0900"]}
    june = json.loads(storage.files[paths.monthly_index("2026", "06")])
    assert june == {"month": "2026-06", "slices": []}
    july = json.loads(storage.files[paths.monthly_index("2026", "07")])
    assert [e["id"] for e in july["slices"]] == ["2026-07-01-0900"]
    # the unreadable slice is untouched
    assert storage.files[paths.core_md("2026-08-02-0900")] == "---\nfocus: [broken\n---\n"


def test_rebuild_is_idempotent() -> None:
    storage = _tree()
    _rebuild(storage)
    commits = len(storage.commits)
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, parse_iso("2026-08-12T00:00:00.000Z"))
    pending = {p: batch.read(p) for p in batch.pending_paths}
    changed = [p for p, text in pending.items() if text != storage.files.get(p)]
    assert changed == []
    assert not batch.commit("again").changed
    assert len(storage.commits) == commits


def test_rebuild_of_an_empty_memory_writes_an_empty_catalog_only() -> None:
    storage = InMemoryStorage()
    report = _rebuild(storage)
    assert report["slices"] == 0
    assert set(storage.files) == {paths.CATALOG_TOP_JSON, paths.TIMELINE_MD, paths.PENDING_JSON}
