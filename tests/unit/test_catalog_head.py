"""The catalog's head in timeline/pending.json gives the prompt the same timeline brief as the
whole index.json, and is not used whenever it could differ."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.agent.catalog_view import read_catalog, read_recent_catalog, settle_before
from core.agent.timeline_brief import RECENT, timeline_brief
from core.memory import paths
from core.memory.catalog import head as head_module
from core.memory.catalog.head import head_catalog, head_dry
from core.memory.catalog.index import read_index
from core.memory.catalog.weave import meta_loader, queue_catalog_entries, weave_catalog
from core.memory.slice.model import parse_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from core.turn.passes import dry_slices
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.unit
NOW = datetime(2026, 8, 20, 12, 0, tzinfo=UTC)
IDS = [f"2026-08-{d:02d}-{h:02d}00" for d in range(1, 11) for h in (8, 12, 18, 21)]  # forty


def memory(n: int = 40) -> InMemoryStorage:
    files = {
        paths.core_md(sid).value: slice_text(
            sid, [("user", f"note {i}"), ("agent", "ok")], focus="" if i % 7 == 0 else f"F{i}", summary=""
        )
        for i, sid in enumerate(IDS[:n])
    }
    storage = InMemoryStorage.from_texts(files)
    batch = WriteBatch.open(storage)
    weave_catalog(batch, NOW, meta_loader(batch), force=True)
    batch.commit("weave")
    return storage


def brief(storage: InMemoryStorage, index: object, as_of: str) -> str:
    settled = settle_before(storage.snapshot(), index, as_of)  # type: ignore[arg-type]
    return timeline_brief(settled, as_of=as_of, timezone="UTC", locale="en")


def open_slice(storage: InMemoryStorage, sid: str, status: str = "active") -> None:
    storage.files[paths.core_md(sid)] = slice_text(sid, [("user", "hello")], status=status)
    batch = WriteBatch.open(storage)
    queue_catalog_entries(batch, [parse_core_md(storage.files[paths.core_md(sid)])])
    batch.commit("open")


@pytest.mark.parametrize("n", [5, 12, 40])
def test_the_head_gives_the_brief_the_whole_catalog_gives(n: int) -> None:
    storage = memory(n)
    new = "2026-08-20-1200"
    open_slice(storage, new)
    open_slice(storage, IDS[n - 1], status="closed")  # a closed slice re-marked since the weave
    mark(storage, IDS[0], "F")  # the oldest dry slice, marked by a pass
    head = head_catalog(storage.snapshot(), new, RECENT)
    assert head is not None and (n < 24 or len(head["slices"]) < n + 1)
    whole = read_catalog(storage.snapshot(), NOW)
    assert brief(storage, head, new) == brief(storage, whole, new)
    if n == 40:
        assert "40 slices in all" in brief(storage, head, new)


def test_the_head_is_not_used_when_it_could_differ() -> None:
    storage = memory()
    snap = storage.snapshot()
    assert head_catalog(snap, IDS[3], RECENT) is None  # before the head: the older counts would be wrong
    open_slice(storage, IDS[2])  # an entry older than the head changed (active again)
    assert head_catalog(storage.snapshot(), "2026-08-20-1200", RECENT) is None
    storage = memory()
    storage.files[paths.CATALOG_TOP_JSON] += " "  # the catalog changed without a weave
    assert head_catalog(storage.snapshot(), "2026-08-20-1200", RECENT) is None
    # The caller then reads the whole catalog: the same brief either way.
    whole = read_catalog(storage.snapshot(), NOW)
    assert read_recent_catalog(storage.snapshot(), NOW, "2026-08-20-1200", RECENT) == whole


@pytest.mark.parametrize("head", ['"x"', "[]", '{"slices": [{"id": "x"}]}', '{"index": "a", "slices": []}'])
def test_an_unreadable_head_is_not_used(head: str) -> None:
    storage = memory()
    text = storage.files[paths.PENDING_JSON]
    storage.files[paths.PENDING_JSON] = text[: text.index('"head"')] + '"head": ' + head + "\n}"
    assert head_catalog(storage.snapshot(), "2026-08-20-1200", RECENT) is None


def dry_from_index(storage: InMemoryStorage, exclude: set[str], limit: int) -> list[str]:
    index = read_index(storage.snapshot())
    assert index is not None
    ids = [
        str(e["id"])
        for e in index["slices"]
        if e.get("needs_marking") is True and e.get("status") == "closed" and e["id"] not in exclude
    ]
    return ids[:limit]


def mark(storage: InMemoryStorage, sid: str, focus: str) -> None:
    storage.files[paths.core_md(sid)] = slice_text(sid, [("user", "x"), ("agent", "ok")], focus=focus)
    batch = WriteBatch.open(storage)
    queue_catalog_entries(batch, [parse_core_md(storage.files[paths.core_md(sid)])])
    batch.commit("mark")


@pytest.mark.parametrize("listed", [2, 12])
def test_the_oldest_dry_slices_come_from_the_head_as_from_the_whole_catalog(
    listed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(head_module, "DRY_IDS", listed)
    storage = memory()  # dry: every seventh slice
    exclude = {IDS[7]}
    for step in [lambda: None, lambda: mark(storage, IDS[0], "F"), lambda: mark(storage, IDS[3], "")]:
        step()
        got = head_dry(storage.snapshot(), exclude, 3)
        assert got is None or got == dry_from_index(storage, exclude, 3)
        assert dry_slices(WriteBatch.open(storage), exclude, 3) == dry_from_index(storage, exclude, 3)
    assert head_dry(storage.snapshot(), exclude, 3) is not None or listed == 2
