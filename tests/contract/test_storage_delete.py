"""Deleting files (what forgetting needs), run against every backend that can write for good."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import ReadOnly
from core.memory.paths import MEMORY, MemoryPath
from core.storage.base import Delete, Put, Update, WriteBatch
from tests.contract.conftest import Backend, backend_fixture

pytestmark = pytest.mark.contract

A = MemoryPath("memory/episodic/slices/2026/08/11/1115/timeline/core.md")
A2 = MemoryPath("memory/episodic/slices/2026/08/11/1115/previously.md")
B = MemoryPath("memory/episodic/slices/2026/08/11/1200/timeline/core.md")
IDX = MemoryPath("memory/episodic/timeline/index.json")

writable = backend_fixture("memory", "local", "local-git", "github", "github-lazy")


def test_delete_removes_files_in_one_commit_and_leaves_the_rest(writable: Backend) -> None:
    writable.seed({A.value: "a", A2.value: "a2", B.value: "b", IDX.value: "{}"})
    before = writable.history()
    result = writable.storage.commit(
        [Delete(A), Delete(A2), Put(IDX, '{"x": 1}')], "Forget slice 2026-08-11-1115"
    )
    assert result.deleted == (A2, A)
    assert result.written == (IDX,)
    assert result.changed
    stored = writable.stored()
    assert stored == {B.value: "b", IDX.value: '{"x": 1}'}
    assert writable.storage.snapshot().list(MemoryPath("memory/episodic/slices/2026/08/11")) == [B]
    history = writable.history()
    if before is not None and history is not None:
        assert history[0] == "Forget slice 2026-08-11-1115"
        assert len(history) == len(before) + 1


def test_deleting_a_missing_file_changes_nothing(writable: Backend) -> None:
    writable.seed({B.value: "b"})
    before = writable.history()
    result = writable.storage.commit([Delete(A)], "nothing")
    assert not result.changed
    assert writable.history() == before


def test_write_batch_hides_pending_deletes(writable: Backend) -> None:
    writable.seed({A.value: "a", B.value: "b"})
    batch = WriteBatch.open(writable.storage)
    batch.delete(A)
    assert batch.read(A) is None
    assert batch.list(MEMORY) == [B]
    # an update after a delete sees no file
    batch.update(A, lambda text: None if text is None else text + "!")
    assert batch.read(A) is None
    batch.commit("Forget")
    assert writable.stored() == {B.value: "b"}


def test_an_oversized_file_can_be_deleted(writable: Backend) -> None:
    big = "x" * 1_100_000
    writable.seed({A.value: big, B.value: "b"})
    writable.storage.commit([Delete(A)], "Forget a big file")
    assert A not in writable.storage.snapshot().list(MEMORY)


def test_put_after_delete_writes_the_new_text(writable: Backend) -> None:
    writable.seed({A.value: "old"})
    writable.storage.commit([Delete(A), Update(A, lambda t: "new" if t is None else t)], "replace")
    assert writable.stored() == {A.value: "new"}


def test_local_delete_removes_empty_folders(tmp_path: Path) -> None:
    from core.storage.local import LocalStorage

    storage = LocalStorage(tmp_path)
    storage.commit([Put(A, "a"), Put(A2, "b"), Put(B, "c")], "seed")
    storage.commit([Delete(A), Delete(A2)], "forget")
    assert not (tmp_path / "memory/episodic/slices/2026/08/11/1115").exists()
    assert (tmp_path / "memory/episodic/slices/2026/08/11/1200/timeline/core.md").read_text() == "c"


demo = backend_fixture("demo")


def test_demo_refuses_to_delete(demo: Backend) -> None:
    demo.seed({A.value: "a"})
    with pytest.raises(ReadOnly, match="read-only"):
        demo.storage.commit([Delete(A)], "Forget")
    assert demo.storage.snapshot().read(A) == "a"


def test_local_git_delete_of_an_untracked_file_still_commits_the_rest(tmp_path: Path) -> None:
    from core.storage.local import LocalStorage
    from tests.contract.conftest import git

    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "README.md").write_text("x")
    git(tmp_path, "add", "README.md")
    git(tmp_path, "commit", "-qm", "init")
    storage = LocalStorage(tmp_path)
    storage.commit([Put(A, "tracked")], "seed")
    untracked = tmp_path / A2.value
    untracked.write_text("never committed")
    result = storage.commit([Delete(A), Delete(A2), Put(IDX, "{}")], "Forget")
    assert result.version is not None and set(result.deleted) == {A, A2}
    assert git(tmp_path, "log", "--format=%s").splitlines() == ["Forget", "seed", "init"]
    assert git(tmp_path, "status", "--porcelain") == ""
