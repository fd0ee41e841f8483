"""The catalog stored by month (core/memory/catalog/layout.py): the month files together are the
single index.json byte for byte, the old layout still reads and one pass migrates it, and a
damaged month is rebuilt from its slices."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import parse_iso
from core.jobs.maintain import reconcile_catalog
from core.memory import paths
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.index import build_index, read_index, render_index, stored_index_text
from core.memory.catalog.layout import LEGACY, TOP, parse_top, split
from core.memory.catalog.weave import queue_catalog_entries
from core.memory.config import load_config
from core.memory.slice.model import parse_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage, MemorySnapshot
from tests.conftest import SAMPLE_ROOT
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.unit

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@st.composite
def _entries(draw: st.DrawFn) -> list[dict[str, Any]]:
    ids = draw(
        st.sets(
            st.tuples(st.integers(2019, 2027), st.integers(1, 12), st.integers(1, 28), st.integers(0, 1439)),
            max_size=40,
        )
    )
    out = []
    for y, m, d, minute in ids:
        sid = f"{y:04d}-{m:02d}-{d:02d}-{minute // 60:02d}{minute % 60:02d}"
        entry = CatalogEntry(
            id=sid,
            date=sid[:10],
            start=f"{sid[:10]}T00:00:00.000Z",
            focus=draw(_TEXT),
            summary=draw(_TEXT),
            tags=draw(st.lists(_TEXT, max_size=3)),
            status=draw(st.sampled_from(["active", "closed"])),
        )
        entry.needs_marking = entry.dry
        out.append(entry.to_json())
    return out


@settings(max_examples=60, deadline=None)
@given(_entries())
def test_the_month_files_together_are_the_single_file(entries: list[dict[str, Any]]) -> None:
    doc = build_index(entries, parse_iso("2026-08-11T12:00:00.000Z"))
    files = split(doc)
    months = sorted(p for p in files if p != TOP)
    assert [json.loads(files[p])["month"] for p in months] == sorted({str(e["id"])[:7] for e in entries})
    together = [e for p in months for e in json.loads(files[p])["slices"]]
    assert together == doc["slices"]  # concatenated in month order: the single file's entries
    top = parse_top(files[TOP])
    assert top is not None and sum(n for n, _ in top.months.values()) == len(entries)
    storage = InMemoryStorage.from_texts({p.value: t for p, t in files.items()})
    assert stored_index_text(storage.snapshot()) == render_index(doc)  # byte for byte, key order kept


def _sample_in_the_single_file_layout() -> tuple[InMemoryStorage, str]:
    files = {
        str(p.relative_to(SAMPLE_ROOT)): p.read_text(encoding="utf-8")
        for p in (SAMPLE_ROOT / "memory").rglob("*")
        if p.is_file()
    }
    text = stored_index_text(InMemoryStorage.from_texts(files).snapshot())
    assert text is not None
    files = {p: t for p, t in files.items() if paths.classify(p).kind not in _LAYOUT}
    files[LEGACY.value] = text
    return InMemoryStorage.from_texts(files), text


_LAYOUT = (paths.PathKind.CATALOG_TOP, paths.PathKind.CATALOG_MONTH)


def test_the_single_file_is_read_and_one_pass_writes_the_months_and_removes_it() -> None:
    storage, before = _sample_in_the_single_file_layout()
    seen = read_index(storage.snapshot())  # readers accept the old layout
    assert seen is not None and len(seen["slices"]) == json.loads(before)["slice_count"] == 50
    commits = len(storage.commits)
    locale = load_config(storage.files.get(paths.CONFIG_JSON)).locale
    batch = WriteBatch.open(storage)
    reconcile_catalog(batch, parse_iso(json.loads(before)["updated_at"]), locale)
    result = batch.commit("Maintenance — indexes")
    assert len(storage.commits) == commits + 1
    assert LEGACY not in storage.files and LEGACY in result.deleted
    assert TOP in storage.files and any(paths.classify(p).kind is _LAYOUT[1] for p in storage.files)
    assert stored_index_text(storage.snapshot()) == before  # no entry lost, every value byte-equal
    assert read_index(storage.snapshot()) == seen


def test_a_damaged_month_is_rebuilt_from_its_slices() -> None:
    storage, before = _sample_in_the_single_file_layout()
    at = parse_iso(json.loads(before)["updated_at"])
    batch = WriteBatch.open(storage)
    reconcile_catalog(batch, at, "en")
    batch.commit("migrate")
    month = next(p for p in sorted(storage.files) if paths.classify(p).kind is _LAYOUT[1])
    good = storage.files[month]
    storage.files[month] = good[: len(good) // 2]  # truncated
    assert read_index(storage.snapshot()) is None  # read as missing, never half a catalog
    batch = WriteBatch.open(storage)
    reconcile_catalog(batch, at, "en")
    batch.commit("rebuild")
    assert storage.files[month] == good
    assert stored_index_text(storage.snapshot()) == before


class _Counting(InMemoryStorage):
    """An in-memory storage whose snapshots note every path read."""

    read_paths: list[str]

    def snapshot(self) -> MemorySnapshot:
        base = super().snapshot()
        seen = self.read_paths

        class Snap(MemorySnapshot):
            def read(self, path: paths.MemoryPath) -> str | None:
                seen.append(path.value)
                return super().read(path)

        return Snap(base.files, base.version)


def _settled_memory() -> _Counting:
    storage = _Counting()
    storage.read_paths = []
    for i in range(6):
        sid = f"2026-0{3 + i // 2}-1{i}-0900"
        text = slice_text(
            sid, [("user", f"garden {i}"), ("agent", "Noted.")], focus=f"garden {i}", summary="s"
        )
        storage.files[paths.core_md(sid)] = text
    for _ in range(2):  # the first pass builds the catalog, the second records nothing new
        batch = WriteBatch.open(storage)
        reconcile_catalog(batch, NOW, "en")
        batch.commit("Maintenance — indexes")
    return storage


NOW = parse_iso("2026-08-11T12:00:00.000Z")


def _month_reads(storage: _Counting) -> list[str]:
    return [p for p in storage.read_paths if paths.classify(p).kind is paths.PathKind.CATALOG_MONTH]


def test_an_unchanged_pass_reads_no_month_file_and_writes_nothing() -> None:
    storage = _settled_memory()
    top = parse_top(storage.files[TOP])
    assert top is not None and top.settled is not None
    storage.read_paths.clear()
    commits = len(storage.commits)
    batch = WriteBatch.open(storage)
    assert reconcile_catalog(batch, NOW, "en")["total"] == 6
    assert not batch.commit("Maintenance — indexes").changed and len(storage.commits) == commits
    assert _month_reads(storage) == []


def _new_slice(storage: InMemoryStorage) -> None:
    sid = "2026-08-11-1100"
    storage.files[paths.core_md(sid)] = slice_text(sid, [("user", "hi")], focus="f", summary="s")


def _strands(storage: InMemoryStorage) -> None:
    storage.files[paths.STRANDS_JSON] = '{"garden": ["2026/03/10/0900"]}'


def _month_edited(storage: InMemoryStorage) -> None:
    month = paths.catalog_month("2026-03")
    storage.files[month] = str(storage.files[month]).replace('"garden 0"', '"garden 0, by hand"')


def _pending(storage: InMemoryStorage) -> None:
    text = slice_text("2026-03-10-0900", [("user", "garden 0")], focus="changed", summary="s")
    storage.files[paths.core_md("2026-03-10-0900")] = text
    batch = WriteBatch.open(storage)
    queue_catalog_entries(batch, [parse_core_md(text)])
    batch.commit("turn")


@pytest.mark.parametrize("change", [_new_slice, _strands, _month_edited, _pending])
def test_any_changed_input_makes_the_pass_read_the_catalog(change: Any) -> None:
    storage = _settled_memory()
    change(storage)
    storage.read_paths.clear()
    batch = WriteBatch.open(storage)
    reconcile_catalog(batch, NOW, "en")
    batch.commit("Maintenance — indexes")
    assert _month_reads(storage)
    top = parse_top(storage.files[TOP])
    assert top is not None and top.settled is not None  # settled again for the next pass
