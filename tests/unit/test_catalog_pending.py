"""timeline/pending.json: entries upserted on the hot path, overlaid on reads, folded by a weave."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.memory import paths
from core.memory.catalog.index import read_index, stored_index_text
from core.memory.catalog.pending import (
    drop_folded,
    overlay,
    parse_active,
    parse_pending,
    render_pending,
    upsert_pending,
)
from core.memory.catalog.shas import parse_shas
from core.memory.catalog.weave import meta_loader, queue_catalog_entries, weave_catalog, weave_timeline
from core.memory.slice.model import Slice, Turn, render_core_md
from core.storage.base import WriteBatch, blob_sha
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit
NOW = datetime(2026, 8, 11, 12, 0, tzinfo=UTC)


def entry(sid: str, focus: str = "f") -> dict[str, object]:
    return {"id": sid, "date": sid[:10], "focus": focus, "needs_marking": not focus}


def test_upsert_replaces_by_id_and_keeps_the_file_sorted() -> None:
    text = upsert_pending(None, [entry("2026-08-11-1200", "b")])
    text = upsert_pending(text, [entry("2026-08-01-0900"), entry("2026-08-11-1200", "c")])
    assert [(e["id"], e["focus"]) for e in parse_pending(text)] == [
        ("2026-08-01-0900", "f"),
        ("2026-08-11-1200", "c"),
    ]
    assert json.loads(text)["_schema"] == 1 and not text.endswith("\n")


@pytest.mark.parametrize(
    "text", [None, "", "not json", "[]", '{"slices": 3}', '{"slices": [{"id": "x"}, 4]}']
)
def test_an_unreadable_pending_file_holds_nothing(text: str | None) -> None:
    assert parse_pending(text) == []


def test_drop_folded_keeps_what_another_writer_changed_meanwhile() -> None:
    consumed = [entry("2026-08-01-0900"), entry("2026-08-02-0900")]
    now = upsert_pending(
        render_pending(consumed), [entry("2026-08-02-0900", "newer"), entry("2026-08-03-0900")]
    )
    left = drop_folded(now, consumed)
    assert [(e["id"], e["focus"]) for e in parse_pending(left)] == [
        ("2026-08-02-0900", "newer"),
        ("2026-08-03-0900", "f"),
    ]
    assert drop_folded(render_pending([]), consumed) is None  # nothing to change
    assert drop_folded(None, consumed) is None


def test_overlay_recomputes_the_counters_and_keeps_updated_at() -> None:
    index = {
        "_schema": 1,
        "updated_at": "u",
        "slice_count": 1,
        "needs_marking": 0,
        "slices": [entry("2026-08-01-0900")],
    }
    out = overlay(index, [entry("2026-08-11-1200", "")])
    assert out is not None
    assert (out["updated_at"], out["slice_count"], out["needs_marking"]) == ("u", 2, 1)
    assert overlay(index, []) is index and overlay(None, [entry("2026-08-01-0900")]) is None


text_st = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@given(focus=text_st, summary=text_st, tags=st.lists(text_st.filter(bool), max_size=3))
def test_any_text_survives_the_pending_file(focus: str, summary: str, tags: list[str]) -> None:
    e = {**entry("2026-08-11-1200", focus), "summary": summary, "tags": tags}
    assert parse_pending(upsert_pending(render_pending([entry("2026-08-01-0900")]), [e]))[1] == e


def _slice(sid: str, focus: str = "") -> Slice:
    start = f"{sid[:10]}T{sid[11:13]}:{sid[13:]}:00.000Z"
    return Slice(
        slice_id=sid, start=start, focus=focus, tags=["garden"], turns=[Turn("t1", start, "user", "hi")]
    )


def test_a_new_slice_costs_only_the_small_file_until_the_weave_folds_it() -> None:
    storage = InMemoryStorage()
    first = _slice("2026-08-01-0900", "a")
    storage.files[paths.core_md(first.slice_id)] = render_core_md(first)
    batch = WriteBatch.open(storage)
    weave_timeline(batch, NOW, force=True)
    batch.commit("weave")
    new = _slice("2026-08-11-1200", "b")
    batch = WriteBatch.open(storage)
    batch.put(paths.core_md(new.slice_id), render_core_md(new))
    queue_catalog_entries(batch, [new])
    written = batch.commit("turn").written
    assert set(written) == {paths.core_md(new.slice_id), paths.PENDING_JSON}
    index = read_index(storage.snapshot())
    assert index is not None and [e["id"] for e in index["slices"]] == ["2026-08-01-0900", "2026-08-11-1200"]
    batch = WriteBatch.open(storage)
    weave_timeline(batch, NOW, force=True)
    month = paths.catalog_month("2026-08")  # only the touched month's file and the top file
    folded = {paths.CATALOG_TOP_JSON, month, paths.TIMELINE_MD, paths.PENDING_JSON}
    assert set(batch.commit("maintenance").written) == folded
    assert json.loads(stored_index_text(storage.snapshot()) or "")["slices"] == index["slices"]
    assert parse_pending(storage.files[paths.PENDING_JSON]) == []
    assert "2026-08-11-1200" in storage.files[paths.TIMELINE_MD]


def test_no_catalog_no_pending_entry() -> None:
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    queue_catalog_entries(batch, [_slice("2026-08-11-1200")])
    assert batch.pending_paths == []


def test_a_weave_rereads_a_dry_slice_only_when_its_file_changed() -> None:
    storage = InMemoryStorage()
    dry = _slice("2026-08-01-0900")  # no focus, no summary: re-read by every weave
    storage.files[paths.core_md(dry.slice_id)] = render_core_md(dry)
    reads: list[str] = []

    def weave() -> None:
        batch = WriteBatch.open(storage)
        load = meta_loader(batch)
        weave_catalog(batch, NOW, lambda sid: reads.append(sid) or load(sid), force=True)
        batch.commit("weave")

    weave()
    assert reads == ["2026-08-01-0900"]
    assert parse_shas(storage.files[paths.CATALOG_TOP_JSON]) == {
        dry.slice_id: blob_sha(render_core_md(dry))[:16]
    }
    weave()
    assert reads == ["2026-08-01-0900"]  # unchanged: not read again
    marked = Slice(**{**dry.__dict__, "focus": "Marked since"})
    storage.files[paths.core_md(dry.slice_id)] = render_core_md(marked)
    weave()
    assert reads == ["2026-08-01-0900"] * 2
    index = read_index(storage.snapshot())
    assert index is not None and index["slices"][0]["focus"] == "Marked since"
    assert parse_shas(storage.files[paths.CATALOG_TOP_JSON]) == {}  # no longer dry, not today


@pytest.mark.parametrize("text", [None, "", "garbage", '{"core_md": []}', '{"core_md": {"x": 3}}'])
def test_an_unreadable_shas_file_records_nothing(text: str | None) -> None:
    assert parse_shas(text) == {}


def active_entry(sid: str, status: str) -> dict[str, object]:
    return {**entry(sid), "status": status}


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "not json",
        "[]",
        '{"slices": []}',
        '{"active": "x"}',
        '{"active": ["nope"]}',
        '{"active": [3]}',
    ],
)
def test_a_file_without_a_readable_active_list_does_not_say(text: str | None) -> None:
    assert parse_active(text) is None


def test_upserts_keep_the_active_list_in_step_once_a_weave_wrote_it() -> None:
    a, b = "2026-08-11-0900", "2026-08-11-1200"
    assert parse_active(upsert_pending(None, [active_entry(a, "active")])) is None  # not written yet
    text = drop_folded(None, [], [a])
    assert text is not None and parse_active(text) == [a] and parse_pending(text) == []
    text = upsert_pending(text, [active_entry(a, "closed"), active_entry(b, "active")])
    assert parse_active(text) == [b]
    assert drop_folded(text, [], [b]) is None  # a weave that agrees writes nothing


def test_a_weave_keeps_what_another_writer_opened_or_closed_meanwhile() -> None:
    a, b, c = "2026-08-11-0900", "2026-08-11-1000", "2026-08-11-1200"
    folded = [active_entry(a, "active")]
    now = upsert_pending(render_pending(folded, [a]), [active_entry(b, "closed"), active_entry(c, "active")])
    left = drop_folded(now, folded, [a, b])  # the weave's catalog still had b active
    assert parse_active(left) == [a, c] and [e["id"] for e in parse_pending(left)] == [b, c]


def test_a_weave_writes_the_active_list() -> None:
    sid = "2026-08-11-0900"
    storage = InMemoryStorage.from_texts(
        {paths.core_md(sid).value: render_core_md(Slice(slice_id=sid, status="active", start="s"))}
    )
    batch = WriteBatch.open(storage)
    weave_catalog(batch, NOW, meta_loader(batch), force=True)
    batch.commit("weave")
    assert parse_active(storage.snapshot().read(paths.PENDING_JSON)) == [sid]
