"""Catalog weave and upserts: phantoms, bad files, rebuilds, conflict-safe updates."""

from __future__ import annotations

import json

import pytest

from core.clock import parse_iso
from core.memory import paths
from core.memory.catalog.index import read_index, stored_index_text
from core.memory.catalog.monthly import monthly_entry, render_monthly, upsert_monthly
from core.memory.catalog.strand_shards import read_all_strands, shard_of
from core.memory.catalog.weave import index_slice, list_slice_ids, upsert_catalog_entry, weave_timeline
from core.memory.slice.model import Slice, Turn, render_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.conftest import load_vectors

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-11T12:00:00.000Z")


def _core(sid: str, focus: str = "", tags: tuple[str, ...] = (), status: str = "closed") -> str:
    fm = f"slice_id: {sid}\nstatus: {status}\nstart: '{sid[:10]}T{sid[11:13]}:{sid[13:]}:00.000Z'\n"
    if focus:
        fm += f"focus: {focus}\n"
    if tags:
        fm += "tags:\n" + "".join(f"  - {t}\n" for t in tags)
    return f"---\n{fm}---\n## Turn a — {sid[:10]}T00:00:00.000Z (user)\n\nhi\n"


def _storage(files: dict[str, str]) -> InMemoryStorage:
    return InMemoryStorage.from_texts(
        {str(paths.core_md(k)) if "/" not in k else k: v for k, v in files.items()}
    )


def _weave(storage: InMemoryStorage, **kw: object) -> dict:
    batch = WriteBatch.open(storage)
    result = weave_timeline(batch, NOW, force=True, **kw)  # type: ignore[arg-type]
    batch.commit("weave")
    return result.as_dict()


def _ids(storage: InMemoryStorage) -> list[str]:
    """The catalog's ids as our readers see it (index.json with the pending entries)."""
    index = read_index(storage.snapshot())
    assert index is not None
    return [e["id"] for e in index["slices"]]


def test_only_well_named_slice_folders_count() -> None:
    storage = _storage(
        {
            "2026-08-01-0900": _core("2026-08-01-0900", "ok"),
            "memory/episodic/slices/2026/08/01/9am/timeline/core.md": _core("2026-08-01-0900"),
            "memory/episodic/slices/2026/8/01/0900/timeline/core.md": _core("2026-08-01-0900"),
            "memory/episodic/slices/2026/08/01/0930.md": _core("2026-08-01-0930"),
            "memory/episodic/slices/2026/08/_index.json": "{}",
        }
    )
    assert list_slice_ids(storage.snapshot()) == ["2026-08-01-0900"]


def test_phantom_entries_are_dropped_and_unreadable_slices_skipped() -> None:
    storage = _storage(
        {"2026-08-01-0900": _core("2026-08-01-0900", "a"), "2026-08-02-0900": _core("2026-08-02-0900", "b")}
    )
    _weave(storage)
    del storage.files[paths.core_md("2026-08-02-0900")]
    storage.files[paths.core_md("2026-08-03-0900")] = "---\nfocus: [unclosed\n---\n"
    storage.files[paths.agent_md("2026-08-04-0900")] = "cognition without a core.md"
    result = _weave(storage)
    assert result["removed"] == 1 and result["added"] == 0 and result["total"] == 1
    assert _ids(storage) == ["2026-08-01-0900"]
    # nothing under slices/ was touched
    assert storage.files[paths.core_md("2026-08-03-0900")] == "---\nfocus: [unclosed\n---\n"


def test_malformed_catalog_is_rebuilt_from_the_slices() -> None:
    storage = _storage({"2026-08-01-0900": _core("2026-08-01-0900", "a")})
    storage.files[paths.CATALOG_JSON] = "{not json"  # the single-file layout, damaged
    assert _weave(storage)["added"] == 1
    assert _ids(storage) == ["2026-08-01-0900"]


def test_reused_entries_are_not_reread_unless_asked() -> None:
    storage = _storage({"2026-08-01-0900": _core("2026-08-01-0900", "old focus")})
    _weave(storage)
    storage.files[paths.core_md("2026-08-01-0900")] = _core("2026-08-01-0900", "edited by hand")
    _weave(storage)
    assert "old focus" in (stored_index_text(storage.snapshot()) or "")
    _weave(storage, reread_all=True)
    assert "edited by hand" in (stored_index_text(storage.snapshot()) or "")


def test_an_entry_that_becomes_dry_is_counted() -> None:
    storage = _storage({"2026-08-11-0900": _core("2026-08-11-0900", "focus")})
    _weave(storage)
    storage.files[paths.core_md("2026-08-11-0900")] = _core("2026-08-11-0900")  # dated today → re-read
    result = _weave(storage)
    assert (result["newly_dry"], result["needs_marking"]) == (1, 1)


def test_index_slice_writes_monthly_strands_and_a_pending_catalog_entry() -> None:
    storage = _storage({"2026-08-01-0900": _core("2026-08-01-0900", "a")})
    _weave(storage)
    s = Slice(
        slice_id="2026-08-11-1200",
        start="2026-08-11T12:00:00.000Z",
        tags=["Garden"],
        turns=[Turn("t1", "2026-08-11T12:00:00.000Z", "user", "hello")],
    )
    index_before, timeline_before = stored_index_text(storage.snapshot()), storage.files[paths.TIMELINE_MD]
    batch = WriteBatch.open(storage)
    batch.put(paths.core_md(s.slice_id), render_core_md(s))
    index_slice(batch, s, NOW, created=True)
    result = batch.commit("turn")
    assert set(result.written) == {
        paths.core_md(s.slice_id),
        paths.strand_shard(shard_of("garden")),
        paths.STRANDS_MENU,
        paths.PENDING_JSON,
        paths.monthly_index("2026", "08"),
    }
    assert _ids(storage) == ["2026-08-01-0900", "2026-08-11-1200"]
    assert read_all_strands(storage.snapshot()) == {"garden": ["2026/08/11/1200"]}
    monthly = json.loads(storage.files[paths.monthly_index("2026", "08")])
    assert [e["id"] for e in monthly["slices"]] == ["2026-08-11-1200"]
    assert (stored_index_text(storage.snapshot()), storage.files[paths.TIMELINE_MD]) == (
        index_before,
        timeline_before,
    )
    # the next weave (maintenance) folds the pending entry into index.json and timeline.md
    _weave(storage)
    assert "- **2026-08-11-1200** *(no summary)* · 1 turn [Garden]" in storage.files[paths.TIMELINE_MD]
    assert [e["id"] for e in json.loads(stored_index_text(storage.snapshot()) or "")["slices"]] == _ids(
        storage
    )
    assert json.loads(storage.files[paths.PENDING_JSON])["slices"] == []


def test_catalog_upsert_merges_into_a_concurrent_writers_catalog() -> None:
    storage = _storage({"2026-08-01-0900": _core("2026-08-01-0900", "a")})
    _weave(storage)
    batch = WriteBatch.open(storage)
    upsert_catalog_entry(batch, Slice(slice_id="2026-08-11-1200", start="x", focus="mine"), NOW)
    # Another writer adds an entry after our snapshot was taken.
    other = WriteBatch.open(storage)
    upsert_catalog_entry(other, Slice(slice_id="2026-08-10-1000", start="y", focus="theirs"), NOW)
    other.commit("other")
    batch.commit("ours")  # the Update is re-evaluated on the newest text
    assert _ids(storage) == ["2026-08-01-0900", "2026-08-10-1000", "2026-08-11-1200"]
    pending = json.loads(storage.files[paths.PENDING_JSON])["slices"]
    assert [(e["id"], e["focus"]) for e in pending] == [
        ("2026-08-10-1000", "theirs"),
        ("2026-08-11-1200", "mine"),
    ]


def test_catalog_upsert_is_a_no_op_without_a_catalog() -> None:
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    upsert_catalog_entry(batch, Slice(slice_id="2026-08-11-1200", start="x"), NOW)
    assert not batch.commit("noop").changed


def test_monthly_index_vector() -> None:
    case = load_vectors("slice_format.json")["monthly_index"]
    entry = case["entry"]
    s = Slice(
        slice_id=entry["id"],
        focus=entry["focus"],
        summary=entry["summary"],
        tags=entry["tags"],
        status=entry["status"],
        start=entry["start"],
        open_loops=entry["open_loops"],
        decisions=entry["decisions"],
    )
    assert monthly_entry(s) == entry
    assert upsert_monthly(None, monthly_entry(s)) == case["serialized"]
    assert str(paths.monthly_index("2026", "8")) == case["path_2026_8"]


def test_monthly_upsert_replaces_by_id_and_survives_a_broken_file() -> None:
    first = {"id": "2026-08-02-0900", "focus": "a"}
    text = upsert_monthly(render_monthly("2026-08", [first]), {"id": "2026-08-01-0900", "focus": "b"})
    text = upsert_monthly(text, {"id": "2026-08-02-0900", "focus": "c"})
    assert [e["focus"] for e in json.loads(text)["slices"]] == ["b", "c"]
    assert json.loads(upsert_monthly("{oops", first))["slices"] == [first]


def test_format_doc_catalog_examples_match() -> None:
    from pathlib import Path

    from core.memory.catalog.timeline_md import render_timeline_md

    doc = (Path(__file__).resolve().parents[2] / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    section = doc.split("\n## The timeline catalog", 1)[1]
    index = json.loads(section.split("```json\n", 1)[1].split("\n```\n", 1)[0])
    markdown = section.split("```markdown\n", 1)[1].split("\n```\n", 1)[0] + "\n"
    assert render_timeline_md(index, "en") == markdown
    assert index["slice_count"] == len(index["slices"])
    assert index["needs_marking"] == sum(e["needs_marking"] for e in index["slices"])


def test_format_doc_strands_example_is_what_we_write() -> None:
    from pathlib import Path

    from core.memory.catalog.strand_shards import menu_of, parse_menu, render_menu
    from core.memory.catalog.strands import render_strands
    from core.memory.catalog.strands_file import load_strands

    doc = (Path(__file__).resolve().parents[2] / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    section = doc.split("\n## Strands (", 1)[1]
    shard, menu = (block.split("\n```\n", 1)[0] for block in section.split("```json\n")[1:3])
    assert render_strands(load_strands(shard)) == shard
    assert json.loads(menu) == json.loads(
        render_menu(menu_of({"work-pressure": load_strands(shard)["work-pressure"]}))
    )
    assert render_menu(parse_menu(menu) or {}) == menu


def _woven(files: dict[str, str]) -> InMemoryStorage:
    storage = _storage(files)
    _weave(storage)
    return storage


def test_a_catalog_younger_than_the_throttle_is_skipped_and_nothing_is_written() -> None:
    """REFERENCE §11.3 step 1: under 5 minutes old (not forced) → skipped, no file queued, the
    totals echoed; at 5 minutes exactly it weaves again."""
    storage = _woven({"2026-08-01-0900": _core("2026-08-01-0900", "a")})
    storage.files[paths.core_md("2026-08-02-0900")] = _core("2026-08-02-0900", "b")  # not yet woven
    before = dict(storage.files)
    for later in ("2026-08-11T12:00:00.000Z", "2026-08-11T12:04:59.999Z"):
        batch = WriteBatch.open(storage)
        result = weave_timeline(batch, parse_iso(later), force=False).as_dict()
        assert result == {
            "added": 0,
            "removed": 0,
            "newly_dry": 0,
            "needs_marking": 0,
            "total": 1,
            "skipped": True,
        }
        assert not batch.commit("weave").changed and storage.files == before
    batch = WriteBatch.open(storage)
    result = weave_timeline(batch, parse_iso("2026-08-11T12:05:00.000Z"), force=False).as_dict()
    assert result["skipped"] is False and result["added"] == 1 and result["total"] == 2


def test_a_stale_catalog_is_reconciled_with_the_slice_folders() -> None:
    """Older than the throttle: an entry whose folder is gone is dropped, a folder the catalog does
    not know is added, the rest are kept as they were."""
    storage = _woven(
        {"2026-08-01-0900": _core("2026-08-01-0900", "a"), "2026-08-03-0900": _core("2026-08-03-0900", "c")}
    )
    del storage.files[paths.core_md("2026-08-03-0900")]
    storage.files[paths.core_md("2026-08-05-0900")] = _core("2026-08-05-0900", "e")
    batch = WriteBatch.open(storage)
    result = weave_timeline(batch, parse_iso("2026-08-11T12:06:00.000Z"), force=False).as_dict()
    batch.commit("weave")
    assert (result["added"], result["removed"], result["total"], result["skipped"]) == (1, 1, 2, False)
    index = json.loads(stored_index_text(storage.snapshot()) or "")
    assert [(e["id"], e["focus"]) for e in index["slices"]] == [
        ("2026-08-01-0900", "a"),
        ("2026-08-05-0900", "e"),
    ]
    assert index["updated_at"] == "2026-08-11T12:06:00.000Z"
    assert "2026-08-03-0900" not in storage.files[paths.TIMELINE_MD]


def test_a_slice_minted_this_turn_and_not_yet_on_disk_is_upserted() -> None:
    """REFERENCE §11.4: the slice a turn opens is catalogued from memory, in the same batch as its
    first file, before anything is saved; a weave later in that batch keeps it (its folder is in
    the batch), and once saved every reader sees it."""
    storage = _woven({"2026-08-01-0900": _core("2026-08-01-0900", "a")})
    minted = Slice(
        slice_id="2026-08-11-1203",
        start="2026-08-11T12:03:00.000Z",
        status="active",
        turns=[Turn("t1", "2026-08-11T12:03:00.000Z", "user", "a new conversation")],
    )
    batch = WriteBatch.open(storage)
    batch.put(paths.core_md(minted.slice_id), render_core_md(minted))
    index_slice(batch, minted, NOW, created=True)
    assert paths.core_md(minted.slice_id) not in storage.files  # not on disk yet
    seen = read_index(batch)
    assert seen is not None and [e["id"] for e in seen["slices"]] == ["2026-08-01-0900", minted.slice_id]
    entry = seen["slices"][-1]
    assert (entry["status"], entry["turn_count"], entry["needs_marking"]) == ("active", 1, True)
    result = weave_timeline(batch, parse_iso("2026-08-11T12:10:00.000Z"), force=True).as_dict()
    assert result["removed"] == 0 and result["total"] == 2
    batch.commit("turn")
    assert _ids(storage) == ["2026-08-01-0900", minted.slice_id]
    assert f"- **{minted.slice_id}** *(no summary)* · 1 turn" in storage.files[paths.TIMELINE_MD]
