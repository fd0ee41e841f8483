"""Local storage remembers a file's sha across its views, and never reports a stale one."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from core.memory import paths
from core.storage import local
from core.storage.base import Put, blob_sha
from core.storage.local import LocalStorage

pytestmark = pytest.mark.unit

INDEX = paths.CATALOG_JSON


def _age(root: Path, seconds: float) -> None:
    file = root / INDEX.value
    past = time.time() - seconds
    os.utime(file, (past, past))


def test_a_sha_seen_by_one_view_serves_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage = LocalStorage(tmp_path)
    storage.commit([Put(INDEX, '{"slices": []}')], "seed")
    _age(tmp_path, 60)
    hashed: list[int] = []
    real = local.git_blob_sha
    monkeypatch.setattr(local, "git_blob_sha", lambda data: hashed.append(len(data)) or real(data))
    for _ in range(3):
        assert storage.snapshot().version_of(INDEX) == blob_sha('{"slices": []}')
    assert len(hashed) == 1


def test_a_changed_file_is_hashed_again(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    storage.commit([Put(INDEX, "one")], "seed")
    _age(tmp_path, 60)
    assert storage.snapshot().version_of(INDEX) == blob_sha("one")
    storage.commit([Put(INDEX, "two")], "rewrite")  # a new file (rename): new inode and mtime
    assert storage.snapshot().version_of(INDEX) == blob_sha("two")
    with open(tmp_path / INDEX.value, "a", encoding="utf-8") as f:  # edited in place by hand
        f.write("!")
    assert storage.snapshot().version_of(INDEX) == blob_sha("two!")


def test_a_file_written_just_now_is_not_remembered(tmp_path: Path) -> None:
    # Within the clock's resolution an in-place edit of the same size keeps size, mtime and inode.
    storage = LocalStorage(tmp_path)
    storage.commit([Put(INDEX, "abc")], "seed")
    stamp = os.stat(tmp_path / INDEX.value)
    assert storage.snapshot().version_of(INDEX) == blob_sha("abc")
    with open(tmp_path / INDEX.value, "r+", encoding="utf-8") as f:
        f.write("xyz")
    os.utime(tmp_path / INDEX.value, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert storage.snapshot().version_of(INDEX) == blob_sha("xyz")


def _age_tree(root: Path, seconds: float) -> None:
    past = time.time() - seconds
    for folder, _, _ in os.walk(root):
        os.utime(folder, (past, past))


def test_a_prefix_listed_again_unchanged_is_only_stat_ed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search lists the newest months on every question: unchanged, no folder is scanned and
    no path is built again; a file added deep below appears at once (issue 33 item 2)."""
    storage = LocalStorage(tmp_path)
    months = paths.SLICES / "2026/08"
    storage.commit([Put(paths.core_md(f"2026-08-0{d}-1000"), "x") for d in range(1, 4)], "seed")
    _age_tree(tmp_path / "memory", 60)
    first = storage.snapshot().list(months)
    scans: list[object] = []
    real = os.scandir
    monkeypatch.setattr(local.os, "scandir", lambda p: scans.append(p) or real(p))
    again = storage.snapshot().list(months)
    assert again == first and all(a is b for a, b in zip(again, first, strict=True)) and scans == []
    assert storage.snapshot().list(paths.SLICES / "2031") == []  # a year to come: nothing there
    storage.commit([Put(paths.core_md("2026-08-02-1200"), "y")], "a new slice in an existing day")
    assert paths.core_md("2026-08-02-1200") in storage.snapshot().list(months)
    (tmp_path / paths.core_md("2026-08-01-1000").value).unlink()
    assert paths.core_md("2026-08-01-1000") not in storage.snapshot().list(months)
