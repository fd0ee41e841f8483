"""A memory whose catalog is the single `timeline/index.json` (and `timeline/shas.json`) of
earlier versions: `maintain` writes the month layout and removes both files in one commit, every
entry carried over byte for byte."""

from __future__ import annotations

import json

import pytest

from core.clock import FixedClock
from core.jobs.maintain import run_maintenance
from core.memory import paths
from core.memory.catalog.index import read_index, stored_index_text
from core.memory.catalog.layout import LEGACY, LEGACY_SHAS, TOP
from core.memory.catalog.rebuild import rebuild_indexes
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import slice_text
from tests.functional.test_maintain_at_scale import deps_for

pytestmark = pytest.mark.functional

NOW = "2026-08-11T12:00:00.000Z"
IDS = [f"2025-{1 + i:02d}-1{i % 10}-0900" for i in range(12)] + ["2026-08-11-0900"]  # one dated today


def _old_layout() -> tuple[InMemoryStorage, str]:
    storage = InMemoryStorage()
    for i, sid in enumerate(IDS):
        text = slice_text(sid, [("user", f"the garden, week {i}"), ("agent", "Noted.")], focus=f"week {i}")
        storage.files[paths.core_md(sid)] = text
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, FixedClock.at(NOW).now())
    batch.commit("weave")
    single = stored_index_text(storage.snapshot())
    assert single is not None
    for path in [p for p in storage.files if paths.classify(p).kind in _MONTH_LAYOUT]:
        del storage.files[path]
    storage.files[LEGACY] = single
    today = IDS[-1]
    storage.files[LEGACY_SHAS] = json.dumps({"_schema": 1, "core_md": {today: "0" * 16}}, indent=2)
    return storage, single


_MONTH_LAYOUT = (paths.PathKind.CATALOG_TOP, paths.PathKind.CATALOG_MONTH)


def test_maintain_migrates_the_single_file_in_one_commit_losing_nothing() -> None:
    storage, before = _old_layout()
    seen = read_index(storage.snapshot())
    assert seen is not None and [e["id"] for e in seen["slices"]] == IDS  # the old layout still reads
    commits = len(storage.commits)
    clock = FixedClock.at(NOW)
    run_maintenance(deps_for(storage, clock), use_model=False)  # type: ignore[arg-type]
    assert LEGACY not in storage.files and LEGACY_SHAS not in storage.files
    migrated = [paths_ for _, paths_ in storage.commits[commits:] if LEGACY in paths_]
    assert len(migrated) == 1 and TOP in migrated[0] and LEGACY_SHAS in migrated[0]
    months = sorted(p for p in storage.files if paths.classify(p).kind is paths.PathKind.CATALOG_MONTH)
    assert [p.name for p in months] == sorted({f"{sid[:7]}.json" for sid in IDS})
    after = json.loads(stored_index_text(storage.snapshot()) or "")
    old = json.loads(before)
    assert after["slices"] == old["slices"] and after["slice_count"] == len(IDS)
    for new_entry, old_entry in zip(after["slices"], old["slices"], strict=True):
        assert json.dumps(new_entry, ensure_ascii=False) == json.dumps(old_entry, ensure_ascii=False)
