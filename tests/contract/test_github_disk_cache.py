"""GitHub's blobs and listings kept on disk between processes (issue 33 item 4): a fresh
storage — a new `maintain`, CLI command or server — over an unchanged memory reads the ref and
nothing else, and after a change fetches only what changed; a damaged or planted cache file is
never served."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.memory.paths import MemoryPath, core_md
from core.storage.base import WriteBatch
from core.storage.disk_cache import LISTINGS, CachedListing, DiskCache, cache_root
from core.storage.local import git_blob_sha
from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.contract
REF = "GET /git/ref/heads/{b}"  # the conditional read of the branch


def seed(fake: FakeGitHub, n: int) -> list[MemoryPath]:
    ids = [f"2026-08-{1 + i // 96:02d}-{(i % 96) // 4:02d}{(i % 4) * 15:02d}" for i in range(n)]
    files = {
        core_md(sid).value: f"---\nslice_id: {sid}\n---\n\nturn {i} ✓ 记忆\n" for i, sid in enumerate(ids)
    }
    fake.commit_files(files, "seed")
    return [MemoryPath(p) for p in files]


def fresh(fake: FakeGitHub, cache: Path) -> WriteBatch:
    """What a new process sees: a new storage, its memory cache empty, the disk cache shared."""
    return WriteBatch.open(fake.client(branch="main", disk_cache=DiskCache(cache)))


def test_a_new_process_over_an_unchanged_memory_reads_the_ref_and_nothing_else(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    wanted = seed(fake_github, 150)
    first = fresh(fake_github, tmp_path)
    assert first.prefetch(wanted) == 150  # the archive, once
    texts = [first.read(p) for p in wanted]
    fake_github.reset_counts()
    again = fresh(fake_github, tmp_path)
    assert again.prefetch(wanted) == 0
    assert [again.read(p) for p in wanted] == texts
    assert set(fake_github.counts) == {REF}  # no listing, no archive, no blob
    assert fake_github.bytes_sent < 5_000


def test_after_a_change_only_the_changed_file_is_fetched(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wanted = seed(fake_github, 20)
    first = fresh(fake_github, tmp_path)
    first.prefetch(wanted)
    fake_github.commit_files({wanted[3].value: "---\nslice_id: x\n---\n\nchanged elsewhere\n"}, "edit")
    fake_github.reset_counts()
    again = fresh(fake_github, tmp_path)
    assert again.read(wanted[3]) == "---\nslice_id: x\n---\n\nchanged elsewhere\n"
    assert [again.read(p) for p in wanted[4:]] == [fake_github.read(p.value) for p in wanted[4:]]
    assert fake_github.counts["GET /git/blobs/{sha}"] == 1  # the new listing, then the one new blob


def test_what_this_process_wrote_is_read_by_the_next_without_asking(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    seed(fake_github, 3)
    batch = fresh(fake_github, tmp_path)
    path = core_md("2026-09-01-1000")
    text = "---\nslice_id: 2026-09-01-1000\n---\n\nwritten here, U+2028 \u2028 and 🙂\n"
    batch.put(path, text)
    batch.commit("write")
    fake_github.reset_counts()
    again = fresh(fake_github, tmp_path)
    assert again.read(path) == text
    assert set(fake_github.counts) == {REF}


def test_a_damaged_or_planted_cache_file_is_never_served(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wanted = seed(fake_github, 5)
    first = fresh(fake_github, tmp_path)
    first.prefetch(wanted)
    sha = git_blob_sha(fake_github.read(wanted[0].value).encode("utf-8"))
    planted = tmp_path / "blobs" / sha[:2] / sha
    assert planted.is_file()
    planted.write_bytes(b"not what the memory says")
    head = fake_github.head() or ""
    listing = tmp_path / LISTINGS / head[:2] / head
    listing.write_bytes(b"{broken")
    again = fresh(fake_github, tmp_path)
    assert again.read(wanted[0]) == fake_github.read(wanted[0].value)
    assert not listing.exists() or listing.read_bytes() != b"{broken"


def test_the_cache_is_bounded_and_owner_only(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "c", max_bytes=10_000)
    blobs = [os.urandom(1_000) for _ in range(30)]
    for data in blobs:
        cache.put_blob(git_blob_sha(data), data)
    cache.prune()
    kept = list((tmp_path / "c" / "blobs").glob("*/*"))
    assert 0 < len(kept) <= 8 and sum(p.stat().st_size for p in kept) <= 8_000
    assert (tmp_path / "c" / "blobs").stat().st_mode & 0o077 == 0
    assert all(p.stat().st_mode & 0o077 == 0 for p in kept)
    cache.put_blob("0" * 40, b"a blob under another sha is not kept")
    assert cache.get_blob("0" * 40) is None
    cache.put_listing("../../etc", CachedListing("a" * 40, {}))
    assert not (tmp_path / "etc").exists()


def test_where_the_cache_lives() -> None:
    home = {"HOME": "/home/u"}
    assert cache_root(None, "me/mem", home) == Path("/home/u/.cache/previously/github/me__mem")
    assert cache_root(None, "me/mem", {**home, "XDG_CACHE_HOME": "/x"}) == Path(
        "/x/previously/github/me__mem"
    )
    assert cache_root("/srv/c", "me/mem", home) == Path("/srv/c/github/me__mem")
    assert cache_root("off", "me/mem", home) is None
    assert cache_root(None, "me/mem", {**home, "AWS_LAMBDA_FUNCTION_NAME": "f"}) is None
