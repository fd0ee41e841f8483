"""A refresh that leaves unchanged segments unread (the manifest's per-segment records) writes
exactly what a refresh reading every segment writes, whatever changed."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.clock import FixedClock
from core.memory.paths import SEARCH_DIR, MemoryPath, core_md
from core.search import store
from core.search.built_from import RECORD_KEY, parse_built_from, read_record
from core.search.recall import index_slice
from core.search.refresh import refresh_index
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.unit

CLOCK = FixedClock.at("2026-08-20T11:15:00Z")
IDS = [f"2026-08-{d:02d}-{h:02d}00" for d in range(1, 7) for h in (9, 14)]  # twelve slices


def memory(ids: list[str]) -> InMemoryStorage:
    storage = InMemoryStorage.from_texts(
        {core_md(sid).value: slice_text(sid, [("user", f"walk {sid}"), ("agent", "ok")]) for sid in ids}
    )
    refresh(storage)
    return storage


def refresh(storage: InMemoryStorage) -> dict[str, object]:
    batch = WriteBatch.open(storage)
    report = refresh_index(batch, CLOCK)
    batch.commit("refresh")
    return {k: v for k, v in vars(report).items() if k != "reasons"}


def index_files(storage: InMemoryStorage) -> dict[str, object]:
    out: dict[str, object] = {}
    for path, text in storage.files.items():
        if path.is_under(SEARCH_DIR):
            manifest = path == store.MANIFEST
            out[path.value] = {**json.loads(text), "updated_at": None, RECORD_KEY: None} if manifest else text
    return out


def forget_record(storage: InMemoryStorage) -> None:
    """The manifest without its record: a refresh reads every segment."""
    data = json.loads(storage.files[store.MANIFEST])
    del data[RECORD_KEY]
    storage.files[store.MANIFEST] = json.dumps(data, indent=2) + "\n"


change = st.tuples(st.sampled_from(["add", "edit", "drop"]), st.integers(0, 40))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(change, min_size=1, max_size=4))
def test_a_partial_refresh_writes_what_a_full_read_writes(
    changes: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "MAX_SEGMENT_SLICES", 3)
    partial, whole = memory(IDS), memory(IDS)
    for storage in (partial, whole):
        for kind, n in changes:
            if kind == "add":
                sid = f"2026-08-{1 + n % 9:02d}-{n % 24:02d}30"
                storage.files[core_md(sid)] = slice_text(sid, [("user", f"new {n}")])
            elif kind == "edit":
                sid = IDS[n % len(IDS)]
                old = storage.files.get(core_md(sid)) or slice_text(sid, [])
                storage.files[core_md(sid)] = old + f"\nmore {n}\n"
            else:
                storage.files.pop(core_md(IDS[n % len(IDS)]), None)
    forget_record(whole)  # no record: every segment is read
    assert refresh(partial) == refresh(whole)
    assert index_files(partial) == index_files(whole)
    assert refresh(partial)["added"] == 0  # and the record it leaves is current


def test_a_new_slice_reads_only_the_segment_it_joins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "MAX_SEGMENT_SLICES", 3)
    storage = memory(IDS)
    record = read_record(WriteBatch.open(storage))
    assert record is not None and len(record.parts) == 4
    sid = "2026-08-03-1000"  # between the second segment's slices
    storage.files[core_md(sid)] = slice_text(sid, [("user", "a kayak lesson")])
    read: list[str] = []
    real = storage.snapshot

    def counting() -> object:
        snap = real()
        inner = snap.read

        def read_one(path: MemoryPath) -> str | None:
            read.append(path.value)
            return inner(path)

        snap.read = read_one  # type: ignore[method-assign]
        return snap

    monkeypatch.setattr(storage, "snapshot", counting)
    before = {p.value for p in storage.files if "/seg-" in p.value}
    assert refresh(storage)["added"] == 1
    assert {p for p in read if p in before} == {"memory/episodic/search/seg-0002.json"}


def test_a_turns_reindex_leaves_the_other_segments_parts_current(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "MAX_SEGMENT_SLICES", 3)
    storage = memory(IDS)
    sid = IDS[4]
    storage.files[core_md(sid)] = slice_text(sid, [("user", "walk again"), ("agent", "ok")], focus="F")
    batch = WriteBatch.open(storage)
    assert index_slice(batch, sid, CLOCK)
    batch.commit("close")
    whole = memory(IDS)
    whole.files[core_md(sid)] = storage.files[core_md(sid)]
    forget_record(whole)
    assert refresh(storage)["updated"] == 0 and refresh(whole)["updated"] == 1
    assert index_files(storage) == index_files(whole)


@pytest.mark.parametrize("parts", ['"x"', "[]", '{"0001": 3}', '{"0001": {"version": "a"}}'])
def test_unreadable_parts_only_mean_more_reading(parts: str) -> None:
    text = '{"index": "a", "digest": "b", "slices": 1, "segments": 1, "bytes": 2, "parts": ' + parts + "}"
    record = parse_built_from(text)
    assert record is not None and record.parts == {}


def test_a_segment_read_back_and_changed_encodes_as_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.search import segment as segment_module
    from core.search.reader import read_slice
    from core.search.segment import Segment, analyze, fingerprint

    def doc(i: int) -> segment_module.DocTerms:
        sid = f"2026-08-{1 + i // 20:02d}-{i % 20:02d}00"
        words = " ".join(f"w{i}x{j}" for j in range(200))  # many terms: many blocks
        text = slice_text(sid, [("user", words), ("agent", "ok")])
        return analyze(read_slice(sid, text), fingerprint(text))

    docs = [doc(i) for i in range(40)]
    stored = Segment.build("0001", docs[:39]).encode()
    packs: list[str] = []
    real = segment_module._pack

    def counted(text: str) -> str:
        packs.append(text)
        return real(text)

    monkeypatch.setattr(segment_module, "_pack", counted)
    changed = Segment.decode(stored).upsert(docs[39]).encode()
    reused = len(packs)
    assert changed == Segment.build("0001", docs).encode()
    fresh = len(packs) - reused  # the slice table and every block
    # The table, and the two streams of each block near the new slice's terms (at most four).
    assert fresh >= 20 and reused <= 1 + 2 * 4
