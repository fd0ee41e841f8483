"""Paths as validated values, the layout helpers, and the write batch over in-memory storage."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput, PathDenied, TooLarge
from core.memory import paths
from core.memory.paths import MemoryPath
from core.storage.base import WriteBatch, blob_sha
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "memory/../src",
        "memory/a/./b",
        "memory\\x",
        "/memory/x",
        "memory/%2e%2e/x",
        "src/x",
        "memory/a//b",
    ],
)
def test_bad_paths_are_rejected_with_a_reason(raw: str) -> None:
    with pytest.raises(PathDenied) as err:
        MemoryPath(raw)
    assert "not allowed" in str(err.value)


def test_layout_helpers() -> None:
    assert str(paths.core_md("2026-08-11-1115")) == "memory/episodic/slices/2026/08/11/1115/timeline/core.md"
    assert (
        str(paths.card_snapshot("2026-08-11-1115")) == "memory/episodic/slices/2026/08/11/1115/previously.md"
    )
    assert str(paths.monthly_index("2026", "8")) == "memory/episodic/slices/2026/08/_index.json"
    with pytest.raises(InvalidInput):
        paths.slice_rel("2026-8-11-1115")


def test_batch_reads_its_own_writes_and_commits_once() -> None:
    storage = InMemoryStorage.from_texts({"memory/a.md": "one"})
    batch = WriteBatch.open(storage)
    batch.update(MemoryPath("memory/a.md"), lambda t: (t or "") + " two")
    batch.put(MemoryPath("memory/b.md"), "bee")
    assert batch.read(MemoryPath("memory/a.md")) == "one two"
    assert batch.list(paths.MEMORY) == [MemoryPath("memory/a.md"), MemoryPath("memory/b.md")]
    assert storage.files[MemoryPath("memory/a.md")] == "one"  # nothing written before commit
    result = batch.commit("Turn t1 — test")
    assert result.written == (MemoryPath("memory/a.md"), MemoryPath("memory/b.md"))
    assert len(storage.commits) == 1


def test_unchanged_batch_makes_no_commit() -> None:
    storage = InMemoryStorage.from_texts({"memory/a.md": "same"})
    batch = WriteBatch.open(storage)
    batch.put(MemoryPath("memory/a.md"), "same")
    batch.update(MemoryPath("memory/a.md"), lambda t: None)
    assert not batch.commit("noop").changed
    assert storage.commits == []


def test_oversized_file_is_refused_and_nothing_is_written() -> None:
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    batch.put(MemoryPath("memory/small.md"), "ok")
    batch.put(MemoryPath("memory/big.md"), "x" * 1_000_001)
    with pytest.raises(TooLarge):
        batch.commit("too big")
    assert storage.files == {}


def test_blob_sha_matches_git() -> None:
    assert blob_sha("") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
