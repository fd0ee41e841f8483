"""GitHub-only behaviour: request costs, caches, truncated listings, error classification."""

from __future__ import annotations

import random
import socket
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from core.errors import GitHubRateLimited, StorageError, TransientError
from core.memory.paths import MEMORY, MemoryPath
from core.storage.base import Put, PutBytes, Update, WriteBatch
from core.storage.github import GitHubStorage
from core.storage.github_errors import REQUEST_RETRY, GitHubRetry
from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.contract

A = MemoryPath("memory/episodic/slices/2026/08/11/1115/timeline/core.md")
B = MemoryPath("memory/episodic/timeline/index.json")


def recording(fake: FakeGitHub) -> tuple[GitHubStorage, list[float]]:
    sleeps: list[float] = []
    return fake.client(retry=GitHubRetry(sleep=sleeps.append, rng=random.Random(3))), sleeps


# ---------------------------------------------------------------- request costs and caches


def test_a_commit_is_three_requests_on_top_of_its_snapshot(fake_github: FakeGitHub) -> None:
    storage = fake_github.client(branch="main")
    batch = WriteBatch.open(storage)
    assert dict(fake_github.counts) == {"GET /git/ref/heads/{b}": 1, "GET /git/trees/{sha}": 1}
    fake_github.reset_counts()
    batch.update(A, lambda t: (t or "") + "turn\n")
    batch.put(B, "[]\n")
    batch.commit("Turn t1 — agent response")
    assert dict(fake_github.counts) == {
        "POST /git/trees": 1,
        "POST /git/commits": 1,
        "PATCH /git/refs/heads/{b}": 1,
    }
    fake_github.reset_counts()
    assert batch.read(B) == "[]\n"  # reading on takes a fresh snapshot; its listing is computed locally
    assert dict(fake_github.counts) == {"GET /git/refs/heads/{b}": 1}


def test_the_default_branch_is_looked_up_once(fake_github: FakeGitHub) -> None:
    storage = fake_github.client()
    storage.snapshot()
    storage.snapshot()
    assert storage.branch == "main"
    assert fake_github.counts["GET /repos/{o}/{r}"] == 1


def test_warm_snapshots_and_blobs_cost_one_conditional_request(fake_github: FakeGitHub) -> None:
    fake_github.commit_files({A.value: "hello\n"}, "seed")
    storage = fake_github.client(branch="main")
    assert storage.snapshot().read(A) == "hello\n"
    fake_github.reset_counts()
    snap = storage.snapshot()
    assert snap.read(A) == "hello\n" and snap.read(A) == "hello\n"
    assert dict(fake_github.counts) == {"GET /git/refs/heads/{b}": 1}  # answered 304


def test_written_files_are_served_from_the_cache_after_a_commit(fake_github: FakeGitHub) -> None:
    storage = fake_github.client(branch="main")
    storage.commit([Put(A, "fresh\n")], "write")
    fake_github.reset_counts()
    assert storage.snapshot().read(A) == "fresh\n"
    assert dict(fake_github.counts) == {"GET /git/refs/heads/{b}": 1}
    assert storage.snapshot().version_of(A) == fake_github.client().snapshot().version_of(A)


def test_another_writers_change_costs_one_listing_and_only_changed_blobs(fake_github: FakeGitHub) -> None:
    fake_github.commit_files({A.value: "one\n", B.value: "[]\n"}, "seed")
    storage = fake_github.client(branch="main")
    snap = storage.snapshot()
    snap.read(A), snap.read(B)
    fake_github.commit_files({A.value: "two\n"}, "other")
    fake_github.reset_counts()
    snap = storage.snapshot()
    assert (snap.read(A), snap.read(B)) == ("two\n", "[]\n")
    assert dict(fake_github.counts) == {
        "GET /git/refs/heads/{b}": 1,
        "GET /git/trees/{sha}": 1,
        "GET /git/blobs/{sha}": 1,
    }


def test_a_truncated_listing_is_completed_by_walking_subtrees(fake_github: FakeGitHub) -> None:
    files = {
        f"memory/episodic/slices/2026/08/{d:02d}/1115/timeline/core.md": f"day {d}\n" for d in range(1, 9)
    }
    files["memory/user/config.json"] = "{}\n"
    fake_github.commit_files(files, "seed")
    fake_github.truncate_over = 5
    storage = fake_github.client(branch="main")
    snap = storage.snapshot()
    assert [p.value for p in snap.list(MEMORY)] == sorted(files)
    assert all(snap.read(MemoryPath(p)) == t for p, t in files.items())
    assert fake_github.counts["GET /git/trees/{sha}"] > 2


def test_the_blob_cache_is_bounded(fake_github: FakeGitHub) -> None:
    fake_github.commit_files({f"memory/f{i}.md": f"{i}" * 100 for i in range(10)}, "seed")
    storage = fake_github.client(branch="main", blob_cache_bytes=350)
    snap = storage.snapshot()
    for i in range(10):
        snap.read(MemoryPath(f"memory/f{i}.md"))
    assert storage.blobs.size <= 350 and len(storage.blobs) == 3


def test_only_the_configured_repository_is_ever_addressed(fake_github: FakeGitHub) -> None:
    storage = fake_github.client()
    fake_github.race_next_patch(lambda fake: fake.commit_files({A.value: "other\n"}))
    batch = WriteBatch.open(storage)
    batch.update(A, lambda t: (t or "") + "mine\n")
    batch.commit("Turn t1")
    storage.snapshot().read(A)
    assert fake_github.requests
    assert all(r.split(" ", 1)[1].startswith("/repos/octo/memory") for r in fake_github.requests)


# ---------------------------------------------------------------- configuration errors


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"token": "wrong"}, "GITHUB_TOKEN"),
        ({"repo": "octo/someone-else"}, "GITHUB_REPO=octo/someone-else"),
        ({"branch": "nope"}, "GITHUB_BRANCH=nope"),
    ],
)
def test_configuration_problems_name_the_setting(fake_github: FakeGitHub, kwargs: dict, named: str) -> None:
    with pytest.raises(StorageError) as err:
        fake_github.client(**kwargs).snapshot()
    assert named in str(err.value) and not isinstance(err.value, TransientError)


def test_missing_write_access_is_a_storage_error(fake_github: FakeGitHub) -> None:
    storage = fake_github.client(branch="main")
    fake_github.fail_next(1, "403", route="POST /git/trees")
    with pytest.raises(StorageError, match="write access"):
        storage.commit([Put(A, "x\n")], "denied")
    assert fake_github.read(A.value) is None


def test_an_empty_repository_asks_for_a_first_commit(tmp_path: Path) -> None:
    with FakeGitHub(tmp_path / "empty.git", seed={}) as fake:
        storage = fake.client()
        with pytest.raises(StorageError, match="first commit"):
            storage.snapshot()


def test_bad_repository_names_are_refused_before_any_request() -> None:
    with pytest.raises(Exception, match="owner/name"):
        GitHubStorage("not a repo", "token")


# ---------------------------------------------------------------- transient failures


def test_server_errors_are_retried_with_backoff(fake_github: FakeGitHub) -> None:
    storage, sleeps = recording(fake_github)
    fake_github.fail_next(2, "500")
    assert storage.snapshot().list(MEMORY) == []
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] * 0.6


def test_persistent_server_errors_become_transient_errors(fake_github: FakeGitHub) -> None:
    storage, sleeps = recording(fake_github)
    fake_github.fail_next(3, "502")
    with pytest.raises(TransientError, match="server error 502"):
        storage.snapshot()
    assert len(sleeps) == 2


def test_retry_after_is_honoured(fake_github: FakeGitHub) -> None:
    storage, sleeps = recording(fake_github)
    fake_github.fail_next(1, "429", retry_after=2)
    storage.snapshot()
    assert sleeps == [2.0]


def test_a_long_rate_limit_is_raised_at_once_with_its_wait(fake_github: FakeGitHub) -> None:
    storage, sleeps = recording(fake_github)
    fake_github.fail_next(1, "rate_limit", reset_in=3600)
    with pytest.raises(GitHubRateLimited) as err:
        storage.snapshot()
    assert isinstance(err.value, TransientError)
    assert 3500 < err.value.retry_after <= 3600 and sleeps == []


@pytest.mark.parametrize(("retry_after", "slept"), [(None, []), (1, [1.0])])
def test_secondary_rate_limits(fake_github: FakeGitHub, retry_after: int | None, slept: list[float]) -> None:
    storage, sleeps = recording(fake_github)
    fake_github.fail_next(1, "secondary", retry_after=retry_after)
    if retry_after is None:
        with pytest.raises(GitHubRateLimited, match="rate limit"):
            storage.snapshot()
    else:
        storage.snapshot()
    assert sleeps == slept


def test_a_timeout_is_transient(fake_github: FakeGitHub) -> None:
    sleeps: list[float] = []
    storage = fake_github.client(
        timeout=1, retry=GitHubRetry(sleep=sleeps.append, requests=replace(REQUEST_RETRY, max_attempts=1))
    )
    fake_github.fail_next(1, "delay", delay=1.6)
    with pytest.raises(TransientError, match="in time"):
        storage.snapshot()


def test_an_unreachable_server_is_transient() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    retry = GitHubRetry(sleep=lambda s: None, requests=replace(REQUEST_RETRY, max_attempts=2))
    storage = GitHubStorage("octo/memory", "t", api_url=f"http://127.0.0.1:{port}", retry=retry)
    with pytest.raises(TransientError, match="Could not reach GitHub"):
        storage.snapshot()


def test_a_failed_ref_update_is_retried_without_duplicating_the_batch(fake_github: FakeGitHub) -> None:
    storage, _ = recording(fake_github)
    fake_github.fail_next(1, "500", route="PATCH /git/refs/heads/{b}")
    storage.commit([Update(A, lambda t: (t or "") + "turn\n")], "Turn t1")
    assert fake_github.read(A.value) == "turn\n"
    assert [c.message for c in fake_github.log()] == ["Turn t1", "Initial commit"]


# ---------------------------------------------------------------- pictures: binary blobs

PIC = MemoryPath("memory/episodic/slices/2026/08/11/1115/images/t1-1.jpg")
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 4 + b"\xff\xd9"


def cat_file(fake: FakeGitHub, spec: str) -> bytes:
    """The bytes git itself holds for `spec` in the fake's repository."""
    cmd = ["git", "--git-dir", str(fake.git.path), "cat-file", "blob", spec]
    return subprocess.run(cmd, capture_output=True, check=True).stdout


def test_bytes_are_one_base64_blob_request_and_land_exactly_in_git(fake_github: FakeGitHub) -> None:
    storage = fake_github.client(branch="main")
    batch = WriteBatch.open(storage)
    fake_github.reset_counts()
    batch.put_bytes(PIC, JPEG)
    batch.update(A, lambda t: (t or "") + "![photo.jpg](../images/t1-1.jpg)\n")
    batch.commit("Turn t1 — user message")
    assert dict(fake_github.counts) == {
        "POST /git/blobs": 1,
        "POST /git/trees": 1,
        "POST /git/commits": 1,
        "PATCH /git/refs/heads/{b}": 1,
    }
    assert cat_file(fake_github, f"main:{PIC.value}") == JPEG
    fake_github.reset_counts()
    assert storage.snapshot().read_bytes(PIC) == JPEG  # from the cache: one ref read
    assert dict(fake_github.counts) == {"GET /git/refs/heads/{b}": 1}
    fresh = fake_github.client(branch="main")
    fake_github.reset_counts()
    assert fresh.snapshot().read_bytes(PIC) == JPEG
    assert fake_github.counts["GET /git/blobs/{sha}"] == 1


def test_a_conflict_retry_does_not_send_the_bytes_again(fake_github: FakeGitHub) -> None:
    storage, _ = recording(fake_github)
    snap = storage.snapshot()
    fake_github.race_next_patch(lambda fake: fake.commit_files({B.value: "other\n"}))
    fake_github.reset_counts()
    result = storage.commit([PutBytes(PIC, JPEG)], "Turn t1 — user message", base=snap)
    assert result.attempts == 2
    assert fake_github.counts["POST /git/blobs"] == 1 and fake_github.counts["POST /git/trees"] == 2
    assert cat_file(fake_github, f"main:{PIC.value}") == JPEG
    assert fake_github.read(B.value) == "other\n"
