"""GitHub at scale: bulk reads (parallel blobs, the archive) and the rate budget as a signal."""

from __future__ import annotations

import gzip
import io
import tarfile
from datetime import UTC, datetime

import pytest

from core.clock import FixedClock
from core.errors import RateLimitSpent
from core.memory.paths import MemoryPath, core_md
from core.storage.base import WriteBatch, request_budget
from core.storage.github import BLOB_FALLBACK_MAX, BulkReadStopped
from core.storage.github_errors import GitHubRetry
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_github_archive import tarball

pytestmark = pytest.mark.contract


def seed(fake: FakeGitHub, n: int) -> list[MemoryPath]:
    ids = [f"2026-08-{1 + i // 96:02d}-{(i % 96) // 4:02d}{(i % 4) * 15:02d}" for i in range(n)]
    files = {core_md(sid).value: f"---\nslice_id: {sid}\n---\n\nturn {i} ✓\n" for i, sid in enumerate(ids)}
    fake.commit_files(files, "seed")
    return [MemoryPath(p) for p in files]


def test_a_few_files_are_fetched_as_blobs_several_at_a_time(fake_github: FakeGitHub) -> None:
    wanted = seed(fake_github, 10)
    batch = WriteBatch.open(fake_github.client(branch="main"))
    fake_github.reset_counts()
    assert batch.prefetch(wanted) == 10
    assert dict(fake_github.counts) == {"GET /git/blobs/{sha}": 10}
    fake_github.reset_counts()
    assert [batch.read(p) for p in wanted] == [fake_github.read(p.value) for p in wanted]
    assert batch.prefetch(wanted) == 0 and fake_github.counts == {}


def test_many_files_come_from_one_archive(fake_github: FakeGitHub) -> None:
    wanted = seed(fake_github, 150)
    batch = WriteBatch.open(fake_github.client(branch="main"))
    fake_github.reset_counts()
    assert batch.prefetch(wanted) == 150
    assert dict(fake_github.counts) == {"GET /tarball/{ref}": 1, "GET codeload": 1}
    fake_github.reset_counts()
    assert all(batch.read(p) == fake_github.read(p.value) for p in wanted)
    assert fake_github.counts == {}


def test_an_archive_file_that_differs_from_its_blob_is_read_as_a_blob(fake_github: FakeGitHub) -> None:
    wanted = seed(fake_github, 80)
    storage = fake_github.client(branch="main")
    batch = WriteBatch.open(storage)
    head = fake_github.head() or ""
    fake_github._archives[head] = _archive_with(fake_github, head, wanted[0].value, b"rewritten on export\n")
    fake_github.reset_counts()
    assert batch.prefetch(wanted) == 80
    assert fake_github.counts["GET /git/blobs/{sha}"] == 1
    assert batch.read(wanted[0]) == fake_github.read(wanted[0].value)


def test_the_budget_of_the_last_answer_is_known(fake_github: FakeGitHub) -> None:
    storage = fake_github.client(branch="main")
    assert request_budget(storage) is None
    fake_github.budget.set(remaining=900, reset_in=600)
    storage.snapshot()
    budget = request_budget(storage)
    assert budget is not None and budget.limit == 5000 and 890 < budget.remaining < 900


def test_a_spent_budget_stops_with_the_limit_and_its_reset_and_sends_nothing_more(
    fake_github: FakeGitHub,
) -> None:
    storage = fake_github.client(branch="main")
    fake_github.budget.set(remaining=2, reset_in=1800)
    snap = storage.snapshot()  # ref + tree: the budget is now spent
    with pytest.raises(RateLimitSpent) as err:
        snap.read(MemoryPath("memory/x.md")) or storage.snapshot()
    message = str(err.value)
    assert "5,000 requests an hour" in message and "resets at" in message and "in about 30 min" in message
    assert "Nothing was lost" in message
    fake_github.reset_counts()
    with pytest.raises(RateLimitSpent):
        storage.snapshot()
    assert fake_github.counts == {}  # refused here, not by GitHub


def test_a_403_rate_limit_answer_is_a_clean_stop_and_the_reset_lifts_it(fake_github: FakeGitHub) -> None:
    clock = FixedClock(datetime.now(UTC))
    storage = fake_github.client(branch="main", retry=GitHubRetry(sleep=lambda s: None, clock=clock))
    fake_github.budget.set(remaining=0, reset_in=900)
    with pytest.raises(RateLimitSpent, match="resets at"):
        storage.snapshot()
    fake_github.budget.set(remaining=5000)
    with pytest.raises(RateLimitSpent):
        storage.snapshot()  # still before the reset GitHub announced
    clock.advance(seconds=901)
    assert storage.snapshot().version == fake_github.head()


def _archive_with(fake: FakeGitHub, sha: str, path: str, data: bytes) -> bytes:
    source = io.BytesIO(gzip.decompress(tarball(fake.git, fake.owner, fake.name, sha)))
    out = io.BytesIO()
    with tarfile.open(fileobj=source) as original, tarfile.open(fileobj=out, mode="w") as tar:
        for member in original.getmembers():
            body = original.extractfile(member) if member.isfile() else None
            content = body.read() if body else b""
            if member.name.endswith("/" + path):
                content, member.size = data, len(data)
            tar.addfile(member, io.BytesIO(content) if member.isfile() else None)
    return gzip.compress(out.getvalue())


def test_rewriting_a_file_unchanged_reads_nothing_and_writes_nothing(fake_github: FakeGitHub) -> None:
    big = MemoryPath("memory/episodic/timeline/index.json")
    fake_github.commit_files({big.value: "x" * 2_000_000}, "seed")
    storage = fake_github.client(branch="main")
    batch = WriteBatch.open(storage)
    fake_github.reset_counts()
    batch.put(big, "x" * 2_000_000)
    assert not batch.commit("no-op").changed
    assert fake_github.counts == {}  # compared by blob sha: no 2 MB download, no commit
    batch.put(big, "y")
    assert batch.commit("change").changed and fake_github.read(big.value) == "y"


@pytest.mark.parametrize("broken", ["garbage", "missing"])
def test_an_unusable_archive_falls_back_to_blobs(fake_github: FakeGitHub, broken: str) -> None:
    wanted = seed(fake_github, 70)
    batch = WriteBatch.open(fake_github.client(branch="main"))
    if broken == "garbage":
        fake_github._archives[fake_github.head() or ""] = b"not a gzip tarball"
    else:
        fake_github.fail_next(3, "500", route="GET /tarball/{ref}")
    fake_github.reset_counts()
    assert batch.prefetch(wanted) == 70
    assert fake_github.counts["GET /git/blobs/{sha}"] == 70
    assert all(batch.read(p) == fake_github.read(p.value) for p in wanted)


def test_a_failed_archive_never_turns_into_a_request_per_file(fake_github: FakeGitHub) -> None:
    wanted = seed(fake_github, BLOB_FALLBACK_MAX + 50)
    batch = WriteBatch.open(fake_github.client(branch="main"))
    fake_github.fail_next(3, "500", route="GET /tarball/{ref}")
    fake_github.reset_counts()
    with pytest.raises(BulkReadStopped) as stopped:
        batch.prefetch(wanted)
    assert "GET /git/blobs/{sha}" not in fake_github.counts  # stopped in words, not 250 requests
    assert sum(fake_github.counts.values()) <= 6, dict(fake_github.counts)
    message = str(stopped.value)
    assert f"{len(wanted)} files" in message and "Try again later" in message
    assert fake_github.token not in message
    fake_github.reset_counts()
    assert batch.prefetch(wanted) == len(wanted)  # the next try, with the archive back, reads them
    assert fake_github.counts["GET /tarball/{ref}"] == 1 and "GET /git/blobs/{sha}" not in fake_github.counts
