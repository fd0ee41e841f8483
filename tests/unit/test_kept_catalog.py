"""The catalog and strands kept by blob sha: parsed once per version, never stale."""

from __future__ import annotations

import json

from core.memory.catalog.index import read_index, stored_index_text
from core.memory.catalog.kept import INDEX, SHARDS, kept_index, kept_strands
from core.memory.catalog.layout import split
from core.memory.catalog.recent import strand_counts, strand_slices, timeline
from core.storage.memory import InMemoryStorage
from tests.conftest import SAMPLE_ROOT

EPISODIC = SAMPLE_ROOT / "memory" / "episodic"
STRAND_FILES = {
    f"memory/episodic/strands/{p.name}": p.read_text(encoding="utf-8")
    for p in (EPISODIC / "strands").glob("*.json")
}


def _sample_catalog() -> str:
    """The sample's catalog as the single index.json would hold it."""
    files = {str(p.relative_to(SAMPLE_ROOT)): p.read_text(encoding="utf-8") for p in EPISODIC.rglob("*.json")}
    return stored_index_text(InMemoryStorage.from_texts(files).snapshot()) or ""


INDEX_TEXT = _sample_catalog()


def _storage(index: str = INDEX_TEXT) -> InMemoryStorage:
    files = {p.value: text for p, text in split(json.loads(index)).items()}  # stored by month
    return InMemoryStorage.from_texts({**files, **STRAND_FILES})


def test_an_unchanged_catalog_is_parsed_once_and_reads_the_same() -> None:
    storage = _storage()
    assert kept_index(storage.snapshot()) == read_index(storage.snapshot())
    before = INDEX.parses
    for _ in range(3):
        assert kept_index(_storage().snapshot()) == read_index(storage.snapshot())  # same text, new storage
    assert INDEX.parses == before


def test_a_changed_catalog_is_parsed_again() -> None:
    raw = json.loads(INDEX_TEXT)
    dropped = raw["slices"].pop()
    changed = _storage(index=json.dumps(raw))
    kept_index(_storage().snapshot())
    before = INDEX.parses
    ids = {e["id"] for e in (kept_index(changed.snapshot()) or {})["slices"]}
    assert INDEX.parses == before + 1 and dropped["id"] not in ids


def test_a_caller_changing_its_timeline_does_not_change_the_kept_catalog() -> None:
    view = _storage().snapshot()
    first = timeline(view)
    first[0]["focus"] = "changed by a caller"
    first.clear()
    again = timeline(view)
    assert again and again[0]["focus"] != "changed by a caller"


def test_strands_are_kept_and_counted() -> None:
    view = _storage().snapshot()
    ids = strand_slices(view)
    before = sum(k.parses for k in SHARDS)
    assert strand_slices(_storage().snapshot()) == ids and sum(k.parses for k in SHARDS) == before
    assert strand_counts(view) == {k: len(v) for k, v in ids.items()}
    ids[next(iter(ids))].append("2030-01-01-0000")  # a caller's copy
    assert "2030-01-01-0000" not in kept_strands(view)[next(iter(ids))]


def test_no_files_keep_nothing_wrong() -> None:
    view = InMemoryStorage().snapshot()
    assert kept_index(view) is None and kept_strands(view) == {}
