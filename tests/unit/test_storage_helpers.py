"""Pure pieces of the storage backends: blob cache, listings, retry policy, error classes."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
import requests
from github import GithubException

from core.clock import FixedClock
from core.errors import SECONDARY_LIMIT_WAIT, GitHubRateLimited, StorageError, TransientError
from core.memory.paths import MemoryPath
from core.storage.base import blob_sha
from core.storage.blobcache import BlobCache
from core.storage.github import Entry, Listing
from core.storage.github_errors import (
    REQUEST_RETRY,
    Target,
    classify,
    is_conflict,
    rate_limit_wait,
)
from core.storage.local import git_blob_sha

pytestmark = pytest.mark.unit

CLOCK = FixedClock.at("2026-08-11T11:15:00.000Z")
TARGET = Target("octo/memory", "main")


def test_blob_cache_evicts_least_recently_used_within_its_budget() -> None:
    cache = BlobCache(max_bytes=10)
    cache.put("a", "aaaa")
    cache.put("b", "bbbb")
    assert cache.get("a") == "aaaa"  # a is now the most recent
    cache.put("c", "cccc")
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("aaaa", None, "cccc")
    cache.put("huge", "x" * 11)
    assert cache.get("huge") is None and cache.size == 8


def test_listing_after_a_commit_matches_what_git_would_list() -> None:
    base = Listing.of("c1", "t1", {"memory/a.md": Entry("s", 1, "100755")})
    after = base.with_files("c2", "t2", {MemoryPath("memory/a.md"): "é\n", MemoryPath("memory/b.md"): "b"})
    assert after.paths == ("memory/a.md", "memory/b.md")
    assert after.entries["memory/a.md"] == Entry(blob_sha("é\n"), 3, "100755")
    assert after.entries["memory/b.md"].mode == "100644"
    assert base.entries["memory/a.md"].sha == "s"  # the old listing is untouched
    assert git_blob_sha(b"") == blob_sha("")


def test_backoff_doubles_and_stays_jittered_within_bounds() -> None:
    policy = replace(REQUEST_RETRY, interval_seconds=1.0, max_delay_seconds=4.0)
    rng = random.Random(5)
    for attempt, nominal in ((1, 1.0), (2, 2.0), (3, 4.0), (6, 4.0)):
        assert 0.5 * nominal <= policy.backoff(attempt, rng.random()) <= 1.5 * nominal


def _gh(status: int, message: str = "", headers: dict[str, str] | None = None) -> GithubException:
    return GithubException(status, {"message": message}, headers or {})


@pytest.mark.parametrize(
    ("status", "headers", "message", "wait"),
    [
        (429, {"retry-after": "7"}, "", 7.0),
        (
            403,
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(CLOCK.now().timestamp()) + 90)},
            "",
            90.0,
        ),
        (403, {}, "You have exceeded a secondary rate limit. Please retry your request again later.", 60.0),
        (403, {}, "Resource not accessible by personal access token", None),
        (500, {"retry-after": "3"}, "", None),
    ],
)
def test_rate_limit_wait(status: int, headers: dict[str, str], message: str, wait: float | None) -> None:
    assert rate_limit_wait(status, headers, message, CLOCK) == wait
    assert SECONDARY_LIMIT_WAIT == 60.0


@pytest.mark.parametrize(
    ("exc", "kind", "words"),
    [
        (_gh(401, "Bad credentials"), StorageError, "GITHUB_TOKEN"),
        (_gh(403, "Forbidden"), StorageError, "write access"),
        (_gh(404, "Not Found"), StorageError, "GITHUB_BRANCH=main"),
        (_gh(409, "Git Repository is empty."), StorageError, "first commit"),
        (_gh(422, "Invalid request"), StorageError, "422"),
        (_gh(503, "Unavailable"), TransientError, "server error 503"),
        (_gh(429, "", {"Retry-After": "5"}), GitHubRateLimited, "rate limit"),
        (requests.ConnectionError("refused"), TransientError, "Could not reach"),
        (requests.ReadTimeout("slow"), TransientError, "in time"),
    ],
)
def test_classify(exc: Exception, kind: type, words: str) -> None:
    err = classify(exc, "read branch main", TARGET, CLOCK)
    assert type(err) is kind and words in str(err)


def test_only_ref_refusals_count_as_conflicts() -> None:
    assert is_conflict(_gh(422, "Update is not a fast forward"))
    assert is_conflict(_gh(409, "Conflict"))
    assert not is_conflict(_gh(500, "Server Error"))
    assert not is_conflict(requests.ConnectionError("x"))
