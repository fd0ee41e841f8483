"""GitHub's blobs and listings kept in the run bucket (moto), for Lambda (issue 33 item 4): a
new container over an unchanged memory reads the ref from GitHub and everything else from the
bucket; after a change only what changed; a damaged or planted object is never served."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from core.memory.paths import MemoryPath, core_md
from core.storage.base import WriteBatch
from core.storage.disk_cache import CachedListing
from core.storage.local import git_blob_sha
from functions.aws.blob_cache import S3BlobCache, run_bucket_cache
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.moto_s3 import atomic_requests

pytestmark = pytest.mark.functional
BUCKET = "runs"
REF = "GET /git/ref/heads/{b}"
LAMBDA = {"AWS_LAMBDA_FUNCTION_NAME": "api", "RUN_BUCKET": BUCKET}


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws(), atomic_requests():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


def seed(fake: FakeGitHub, n: int) -> list[MemoryPath]:
    ids = [f"2026-08-{1 + i // 96:02d}-{(i % 96) // 4:02d}{(i % 4) * 15:02d}" for i in range(n)]
    files = {
        core_md(sid).value: f"---\nslice_id: {sid}\n---\n\nturn {i} ✓ 记忆\n" for i, sid in enumerate(ids)
    }
    fake.commit_files(files, "seed")
    return [MemoryPath(p) for p in files]


def container(fake: FakeGitHub, s3: Any) -> tuple[WriteBatch, S3BlobCache]:
    """What a cold Lambda container sees: a new storage, nothing in memory, the bucket shared."""
    cache = run_bucket_cache(None, "octo/memory", s3, LAMBDA)
    assert cache is not None
    return WriteBatch.open(fake.client(branch="main", disk_cache=cache)), cache


def test_a_cold_container_over_an_unchanged_memory_reads_only_the_ref_from_github(
    fake_github: FakeGitHub, s3: Any
) -> None:
    wanted = seed(fake_github, 150)
    first, cache = container(fake_github, s3)
    assert first.prefetch(wanted) == 150  # the archive, once
    texts = [first.read(p) for p in wanted]
    cache.flush()
    kept = s3.list_objects_v2(Bucket=BUCKET, Prefix="cache/github/octo__memory/")["KeyCount"]
    assert kept == 152  # every blob, the commit's listing and the branch's last-listed commit
    fake_github.reset_counts()
    again, _ = container(fake_github, s3)
    assert again.prefetch(wanted) == 0
    assert [again.read(p) for p in wanted] == texts
    assert set(fake_github.counts) == {REF}  # no listing, no archive, no blob
    assert fake_github.bytes_sent < 5_000


def test_after_a_change_only_the_changed_file_comes_from_github(fake_github: FakeGitHub, s3: Any) -> None:
    wanted = seed(fake_github, 20)
    first, cache = container(fake_github, s3)
    first.prefetch(wanted)
    cache.flush()
    fake_github.commit_files({wanted[3].value: "---\nslice_id: x\n---\n\nchanged elsewhere\n"}, "edit")
    fake_github.reset_counts()
    again, _ = container(fake_github, s3)
    again.prefetch(wanted)
    assert again.read(wanted[3]) == "---\nslice_id: x\n---\n\nchanged elsewhere\n"
    assert [again.read(p) for p in wanted[4:]] == [fake_github.read(p.value) for p in wanted[4:]]
    assert fake_github.counts["GET /git/blobs/{sha}"] == 1


def test_a_damaged_or_planted_object_is_never_served(fake_github: FakeGitHub, s3: Any) -> None:
    wanted = seed(fake_github, 3)
    first, cache = container(fake_github, s3)
    first.prefetch(wanted)
    truth = first.read(wanted[0])
    cache.flush()
    sha = git_blob_sha(truth.encode("utf-8"))
    s3.put_object(Bucket=BUCKET, Key=f"{cache.prefix}blobs/{sha}", Body=b"planted words")
    assert cache.get_blob(sha) is None
    again, _ = container(fake_github, s3)
    assert again.read(wanted[0]) == truth  # fetched from GitHub again


def test_only_a_deployed_lambda_with_a_run_bucket_uses_it(s3: Any) -> None:
    assert run_bucket_cache(None, "octo/memory", s3, {}) is None  # the server and CLI: a folder
    assert run_bucket_cache(None, "octo/memory", s3, {"AWS_LAMBDA_FUNCTION_NAME": "api"}) is None
    assert run_bucket_cache("off", "octo/memory", s3, LAMBDA) is None
    assert isinstance(run_bucket_cache(None, "octo/memory", s3, LAMBDA), S3BlobCache)


def test_what_one_container_committed_the_next_reads_without_asking(fake_github: FakeGitHub, s3: Any) -> None:
    """A turn's commit keeps the new head's listing and its files in the bucket: the next cold
    container (the next step, the next turn) reads the ref from GitHub and nothing else."""
    seed(fake_github, 3)
    batch, cache = container(fake_github, s3)
    path = core_md("2026-09-01-1000")
    text = "---\nslice_id: 2026-09-01-1000\n---\n\nwritten here, U+2028 \u2028 and 🙂\n"
    batch.put(path, text)
    batch.commit("write")
    cache.flush()
    fake_github.reset_counts()
    again, _ = container(fake_github, s3)
    assert again.read(path) == text
    assert set(fake_github.counts) == {REF}


def test_a_partial_listing_never_replaces_a_fuller_one_in_the_bucket(s3: Any) -> None:
    cache = run_bucket_cache(None, "octo/memory", s3, LAMBDA)
    assert cache is not None
    commit, tree = "a" * 40, "b" * 40
    full = CachedListing(
        tree, {"memory/a.md": ("c" * 40, 1, "100644"), "memory/b/c.md": ("d" * 40, 2, "100644")}
    )
    partial = CachedListing(
        tree, {"memory/a.md": ("c" * 40, 1, "100644")}, {"memory/b": "e" * 40}, ("memory/b",)
    )
    cache.put_listing(commit, full)
    cache.flush()
    cache.put_listing(commit, partial)
    cache.flush()
    assert cache.get_listing(commit) == CachedListing(tree, full.entries)
    cache.put_listing("f" * 40, partial)
    cache.flush()
    cache.put_listing("f" * 40, full)
    cache.flush()
    assert cache.get_listing("f" * 40) == full
