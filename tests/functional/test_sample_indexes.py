"""The sample memory's derived indexes are exactly what a rebuild from its slices writes."""

from __future__ import annotations

import json

import pytest

from core.actions.check import check_memory
from core.clock import parse_iso
from core.memory import paths
from core.memory.catalog.index import stored_index_text
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.config import load_config
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.functional


def _sample() -> InMemoryStorage:
    files = {
        str(p.relative_to(SAMPLE_ROOT)): p.read_text(encoding="utf-8")
        for p in (SAMPLE_ROOT / "memory").rglob("*")
        if p.is_file()
    }
    return InMemoryStorage.from_texts(files)


def test_rebuild_of_the_sample_changes_nothing() -> None:
    storage = _sample()
    index = json.loads(stored_index_text(storage.snapshot()) or "")
    locale = load_config(storage.files.get(paths.CONFIG_JSON)).locale
    batch = WriteBatch.open(storage)
    report = rebuild_indexes(batch, parse_iso(index["updated_at"]), locale=locale)
    assert report.slices == index["slice_count"] and report.unreadable == []
    changed = [str(p) for p in batch.pending_paths if batch.read(p) != storage.files.get(p)]
    assert changed == []


def test_check_finds_nothing_wrong_with_the_sample() -> None:
    report = check_memory(_sample().snapshot(), parse_iso("2026-11-27T03:00:00.000Z"))
    assert report.findings == []
    assert report.slices == 50
