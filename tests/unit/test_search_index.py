"""The stored index: rebuild, incremental updates, damaged or missing files, segment splits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.clock import FixedClock
from core.memory.paths import SEARCH_DIR, MemoryPath, core_md
from core.search import store
from core.search.recall import index_slice, open_index, refresh_index
from core.search.segment import SEGMENT_SCHEMA, Segment
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import SAMPLE, slice_text, storage_with

pytestmark = pytest.mark.unit

CLOCK = FixedClock.at("2026-08-11T11:15:00Z")
QUESTIONS = ["pixel beach", "wedding in Lisbon", "report", "爬山", "what happened last weekend", "shoes"]


def refresh(storage: InMemoryStorage, full: bool = False) -> None:
    batch = WriteBatch.open(storage)
    refresh_index(batch, CLOCK, full=full)
    batch.commit("index")


def answers(storage: InMemoryStorage) -> list[list[tuple[str, float, str]]]:
    index = open_index(storage.snapshot())
    return [
        [(h.slice_id, h.relevance, h.reason) for h in index.search(q, 5, CLOCK.now()).hits] for q in QUESTIONS
    ]


def search_files(storage: InMemoryStorage) -> dict[str, str]:
    return {p.value: t for p, t in storage.files.items() if p.is_under(SEARCH_DIR)}


def test_rebuild_writes_a_manifest_and_segments_and_answers_the_same() -> None:
    unindexed = storage_with(SAMPLE)
    indexed = storage_with(SAMPLE)
    refresh(indexed)
    files = search_files(indexed)
    assert set(files) == {
        "memory/episodic/search/manifest.json",
        "memory/episodic/search/seg-0001.json",
    }
    assert open_index(indexed.snapshot()).notes == []
    assert answers(indexed) == answers(unindexed)


def test_incremental_updates_equal_a_rebuild() -> None:
    ids = sorted(SAMPLE)
    grown = storage_with({sid: SAMPLE[sid] for sid in ids[:2]})
    refresh(grown)
    for sid in ids[2:]:
        grown.files[core_md(sid)] = SAMPLE[sid]
        batch = WriteBatch.open(grown)
        assert index_slice(batch, sid, CLOCK)
        batch.commit("close")
    rebuilt = storage_with(SAMPLE)
    refresh(rebuilt)
    assert answers(grown) == answers(rebuilt)
    assert open_index(grown.snapshot()).notes == []


def test_refresh_picks_up_changed_and_deleted_slices() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    changed = slice_text("2026-07-28-0658", [("user", "We planned a sailing trip to Crete.")])
    storage.files[core_md("2026-07-28-0658")] = changed
    del storage.files[core_md("2026-03-14-0900")]
    batch = WriteBatch.open(storage)
    report = refresh_index(batch, CLOCK)
    batch.commit("maintain")
    assert (report.rebuilt, report.added, report.updated, report.removed) == (False, 0, 1, 1)
    rebuilt = storage_with({k: v for k, v in SAMPLE.items() if k != "2026-03-14-0900"})
    rebuilt.files[core_md("2026-07-28-0658")] = changed
    refresh(rebuilt)
    assert answers(storage) == answers(rebuilt)


def test_refreshing_an_unchanged_index_writes_nothing() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    commits = len(storage.commits)
    refresh(storage)
    batch = WriteBatch.open(storage)
    assert not index_slice(batch, "2026-05-02-1830", CLOCK)
    assert batch.commit("again").written == ()
    assert len(storage.commits) == commits


def test_a_missing_index_is_built_in_memory_with_a_note() -> None:
    index = open_index(storage_with(SAMPLE).snapshot())
    assert index.notes == [
        "no search index yet: built in memory from 5 slices (`previously maintain` saves it)"
    ]
    assert index.search("chews shoes", 1, CLOCK.now()).hits[0].slice_id == "2026-03-14-0900"


def test_new_and_active_slices_are_searched_before_they_are_indexed() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    sid = "2026-08-11-1000"
    storage.files[core_md(sid)] = slice_text(sid, [("user", "booked flights to Reykjavik")], status="active")
    index = open_index(storage.snapshot())
    assert index.search("Reykjavik flights", 1, CLOCK.now()).hits[0].slice_id == sid
    assert "1 slices not in the stored index" in index.notes[0]


def test_a_corrupt_segment_is_reported_and_the_memory_still_answers() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    storage.files[store.segment_path("0001")] = '{"kind": "previously.search.segment", "data": "%%%"}'
    index = open_index(storage.snapshot())
    assert any("segment 0001" in n for n in index.notes)
    assert index.search("chews shoes", 1, CLOCK.now()).hits[0].slice_id == "2026-03-14-0900"
    refresh(storage)  # a damaged index is rebuilt by the next refresh
    assert open_index(storage.snapshot()).notes == []


def test_an_index_from_another_tokenizer_is_rebuilt() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    manifest = storage.files[store.MANIFEST]
    storage.files[store.MANIFEST] = manifest.replace(store.TOKENIZER_VERSION, "old-tokenizer")
    assert "another version" in open_index(storage.snapshot()).notes[0]
    batch = WriteBatch.open(storage)
    assert refresh_index(batch, CLOCK).rebuilt


def test_phantom_entries_of_deleted_slices_are_never_returned() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    del storage.files[core_md("2026-03-14-0900")]
    hits = open_index(storage.snapshot()).search("beagle shoes", 5, CLOCK.now()).hits
    assert "2026-03-14-0900" not in [h.slice_id for h in hits]


def test_segments_split_and_roll_over_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "MAX_SEGMENT_SLICES", 2)
    storage = storage_with(SAMPLE)
    refresh(storage)
    names = sorted(p for p in search_files(storage) if "seg-" in p)
    assert len(names) == 3
    sid = "2026-08-11-0900"
    storage.files[core_md(sid)] = slice_text(sid, [("user", "a kayak lesson on the lake")])
    batch = WriteBatch.open(storage)
    assert index_slice(batch, sid, CLOCK)
    result = batch.commit("close")
    # The new slice went to the newest segment only (plus the manifest).
    assert [p.value for p in result.written] == [
        "memory/episodic/search/manifest.json",
        "memory/episodic/search/seg-0003.json",
    ]
    rebuilt = storage_with({**SAMPLE, sid: storage.files[core_md(sid)]})
    refresh(rebuilt)
    assert answers(storage) == answers(rebuilt)
    for text in search_files(storage).values():
        if '"previously.search.segment"' in text:
            assert len(Segment.decode(text).docs) <= 2


def test_segments_stay_under_the_byte_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "MAX_SEGMENT_BYTES", 1000)
    storage = storage_with(SAMPLE)
    refresh(storage)
    segs = [t for p, t in search_files(storage).items() if "seg-" in p]
    assert len(segs) > 1
    assert all(len(t) <= 1000 or len(Segment.decode(t).docs) == 1 for t in segs)
    assert answers(storage) == answers(storage_with(SAMPLE))


SCHEMA_3 = Path(__file__).parent / "data" / "search_index_schema3.json"  # written by the previous layout


def with_schema_3_index() -> InMemoryStorage:
    """The sample memory with the index the previous layout wrote for it (schema 3: packed
    summaries and turn pieces in one stream), as it would be found after an upgrade."""
    storage = storage_with(SAMPLE)
    for path, text in json.loads(SCHEMA_3.read_text(encoding="utf-8")).items():
        storage.files[MemoryPath(path)] = text
    return storage


def test_the_previous_layouts_index_is_rebuilt_never_misread() -> None:
    storage = with_schema_3_index()
    expected = answers(storage_with(SAMPLE))  # built in memory: no index at all
    index = open_index(storage.snapshot())
    assert "another version" in index.notes[0]
    assert answers(storage) == expected  # every question still answered, from the slice files
    batch = WriteBatch.open(storage)
    report = refresh_index(batch, CLOCK)  # its built-from record still matches: the schema decides
    batch.commit("maintain")
    assert report.rebuilt and report.slices == len(SAMPLE)
    assert f'"_schema": {store.MANIFEST_SCHEMA},' in storage.files[store.MANIFEST]
    assert open_index(storage.snapshot()).notes == []
    assert answers(storage) == expected


def as_previous_schema(storage: InMemoryStorage) -> None:
    """Mark the stored index as written by the previous layout."""
    for path, text in list(storage.files.items()):
        if path.is_under(SEARCH_DIR):
            storage.files[path] = text.replace(
                f'"_schema": {SEGMENT_SCHEMA},', f'"_schema": {SEGMENT_SCHEMA - 1},'
            )


def test_an_index_of_the_previous_schema_is_rebuilt_never_misread() -> None:
    storage = storage_with(SAMPLE)
    expected = answers(storage)  # built in memory: no index at all
    refresh(storage)
    as_previous_schema(storage)
    index = open_index(storage.snapshot())
    assert "another version" in index.notes[0]
    assert answers(storage) == expected
    batch = WriteBatch.open(storage)
    report = refresh_index(batch, CLOCK)
    batch.commit("maintain")
    assert report.rebuilt and report.slices == len(SAMPLE)
    assert f'"_schema": {store.MANIFEST_SCHEMA},' in storage.files[store.MANIFEST]
    assert open_index(storage.snapshot()).notes == []
    assert answers(storage) == expected


def test_a_segment_of_the_previous_schema_under_a_current_manifest_is_rebuilt() -> None:
    storage = storage_with(SAMPLE)
    expected = answers(storage)
    refresh(storage)
    seg = store.segment_path("0001")
    old = f'"_schema": {SEGMENT_SCHEMA - 1},'
    storage.files[seg] = storage.files[seg].replace(f'"_schema": {SEGMENT_SCHEMA},', old)
    assert any(
        "segment 0001" in n and f"schema {SEGMENT_SCHEMA - 1}" in n
        for n in open_index(storage.snapshot()).notes
    )
    assert answers(storage) == expected
    batch = WriteBatch.open(storage)
    assert refresh_index(batch, CLOCK).rebuilt
    batch.commit("maintain")
    assert open_index(storage.snapshot()).notes == []


def test_closing_a_slice_over_an_old_index_rebuilds_a_small_memory() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    as_previous_schema(storage)
    sid = "2026-08-11-0900"
    storage.files[core_md(sid)] = slice_text(sid, [("user", "a kayak lesson on the lake")])
    batch = WriteBatch.open(storage)
    assert index_slice(batch, sid, CLOCK)
    batch.commit("close")
    index = open_index(storage.snapshot())
    assert index.notes == []
    assert index.search("kayak lesson", 1, CLOCK.now()).hits[0].slice_id == sid


def test_a_stored_legacy_flat_slice_is_returned_and_dropped_once_deleted() -> None:
    from core.memory.paths import legacy_flat_md

    sid = "2025-01-02-0930"
    storage = storage_with(SAMPLE)
    storage.files[legacy_flat_md(sid)] = slice_text(sid, [("user", "baked sourdough with rye")])
    refresh(storage)
    assert open_index(storage.snapshot()).search("sourdough", 1, CLOCK.now()).hits[0].slice_id == sid
    del storage.files[legacy_flat_md(sid)]
    assert open_index(storage.snapshot()).search("sourdough", 1, CLOCK.now()).hits == []


def test_damaged_turns_cost_passages_until_maintenance_rebuilds() -> None:
    storage = storage_with(SAMPLE)
    refresh(storage)
    expected = answers(storage)
    path = store.segment_path("0001")
    header = json.loads(storage.files[path])
    for block in header["blocks"]:
        block[2] = "bm90IHpsaWI="  # valid base64, not zlib: every turns stream unreadable
    storage.files[path] = json.dumps(header)
    damaged = answers(storage)  # the slice stage still ranks; no passage is found, nothing fails
    assert [[sid for sid, _, _ in hits] for hits in damaged if hits]
    assert all("(turn" not in reason for hits in damaged for _, _, reason in hits)
    batch = WriteBatch.open(storage)
    report = refresh_index(batch, CLOCK)  # a writer cannot read the turns back: it rebuilds
    batch.commit("maintain")
    assert report.rebuilt
    assert answers(storage) == expected
