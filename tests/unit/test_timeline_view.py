"""The timeline the page reads on arrival (issue 33 item 1): with a catalog, no slice folder is
listed per request — the slices the weave could not read come from damaged.json — and the sorted
view is kept by the catalog files' versions, with open slices' turn counts read fresh."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from core.memory import paths
from core.memory.catalog.damaged import parse_damaged
from core.memory.catalog.index import stored_index_text
from core.memory.catalog.recent import timeline, timeline_view
from core.memory.catalog.weave import weave_timeline
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import slice_text

NOW = datetime(2026, 8, 20, tzinfo=UTC)
GOOD = ["2026-08-01-0900", "2026-08-02-0900", "2026-08-03-0900"]
BROKEN = "2026-07-15-1200"
OPEN = "2026-08-10-0900"


class CountingLists:
    """A snapshot that counts its listings (everything else is the snapshot's own)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.lists: list[str] = []

    def list(self, prefix: paths.MemoryPath) -> list[paths.MemoryPath]:
        self.lists.append(prefix.value)
        return self.inner.list(prefix)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _woven() -> InMemoryStorage:
    files = {paths.core_md(s).value: slice_text(s, [("user", f"hello {s}")]) for s in GOOD}
    files[paths.core_md(OPEN).value] = slice_text(OPEN, [("user", "still going")], status="active")
    storage = InMemoryStorage.from_texts(files)
    storage.files[paths.core_md(BROKEN)] = b"---\nslice_id: x\n\xff\xfe not text"  # type: ignore[attr-defined]
    batch = WriteBatch.open(storage)
    weave_timeline(batch, NOW, force=True)
    batch.commit("weave")
    return storage


def test_the_weave_lists_the_slices_it_could_not_read_in_damaged_json() -> None:
    storage = _woven()
    snap = storage.snapshot()
    catalogued = {e["id"] for e in json.loads(stored_index_text(snap) or "{}")["slices"]}
    assert BROKEN not in catalogued and set(GOOD) <= catalogued
    damaged = parse_damaged(snap.read(paths.CATALOG_DAMAGED_JSON))
    assert [e["id"] for e in damaged] == [BROKEN] and "UTF-8" in damaged[0]["problem"]


def test_the_timeline_lists_no_folder_and_still_shows_the_damaged_slice() -> None:
    storage = _woven()
    snap = CountingLists(storage.snapshot())
    entries = timeline(snap)  # type: ignore[arg-type]
    assert snap.lists == []  # before: every file under memory/episodic/slices, per request
    by_id = {e["id"]: e for e in entries}
    assert set(by_id) == {*GOOD, OPEN, BROKEN}
    assert by_id[BROKEN]["problem"] and not by_id[GOOD[0]].get("problem")
    assert [e["id"] for e in entries] == sorted(by_id, key=lambda s: by_id[s]["start"])


def test_the_kept_view_counts_an_open_slices_new_turns_and_follows_a_new_weave() -> None:
    storage = _woven()
    first = timeline_view(storage.snapshot())
    again = timeline_view(storage.snapshot())
    assert again.months == first.months == [("2026-07", 1), ("2026-08", 4)]
    assert again.entries[0] is first.entries[0]  # kept: sorted once per version of the catalog
    count = {e["id"]: e.get("turn_count") for e in again.entries}[OPEN]
    # Turns arrive in the open slice: no catalog change, yet the count is fresh.
    more = slice_text(
        OPEN, [("user", "still going"), ("agent", "yes"), ("user", "and more")], status="active"
    )
    storage.files[paths.core_md(OPEN)] = more  # type: ignore[attr-defined]
    fresh = {e["id"]: e.get("turn_count") for e in timeline_view(storage.snapshot()).entries}
    assert fresh[OPEN] == 3 and count == 1
    # The broken slice repaired and woven: it leaves damaged.json and joins the catalog.
    storage.files[paths.core_md(BROKEN)] = slice_text(BROKEN, [("user", "fixed")])  # type: ignore[attr-defined]
    batch = WriteBatch.open(storage)
    weave_timeline(batch, NOW, force=True)
    batch.commit("weave")
    after = {e["id"]: e for e in timeline_view(storage.snapshot()).entries}
    assert not after[BROKEN].get("problem")
    assert parse_damaged(storage.snapshot().read(paths.CATALOG_DAMAGED_JSON)) == []


def test_a_damaged_damaged_json_is_read_as_an_empty_list() -> None:
    storage = _woven()
    storage.files[paths.CATALOG_DAMAGED_JSON] = "{not json"  # type: ignore[attr-defined]
    ids = {e["id"] for e in timeline(storage.snapshot())}
    assert ids == {*GOOD, OPEN}
