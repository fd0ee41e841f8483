"""Conflicts on GitHub, forced deterministically with the fake's race hook."""

from __future__ import annotations

import random

import pytest

from core.errors import ConflictError
from core.memory.paths import MemoryPath
from core.storage.base import Put, Update, WriteBatch
from core.storage.github_errors import GitHubRetry
from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.contract

A = MemoryPath("memory/episodic/slices/2026/08/11/1115/timeline/core.md")
INDEX = MemoryPath("memory/episodic/timeline/index.json")
OTHER = MemoryPath("memory/episodic/strands.json")


def add_turn(name: str):  # type: ignore[no-untyped-def]
    return lambda text: (text or "") + f"## Turn {name}\n"


def racer(name: str, extra: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """Another writer that appends its own turn just before our ref update."""
    return lambda fake: fake.commit_files(
        {A.value: add_turn(name), **(extra or {})}, f"Turn {name} — housekeeping"
    )


def test_a_concurrent_commit_is_merged_and_history_stays_linear(fake_github: FakeGitHub) -> None:
    fake_github.commit_files({A.value: "base\n"}, "seed")
    storage = fake_github.client()
    batch = WriteBatch.open(storage)
    batch.update(A, add_turn("mine"))
    batch.put(INDEX, "[]\n")
    fake_github.race_next_patch(racer("other", {OTHER.value: "{}\n"}))
    fake_github.reset_counts()

    result = batch.commit("Turn mine — housekeeping")

    assert result.attempts == 2
    assert fake_github.read(A.value) == "base\n## Turn other\n## Turn mine\n"
    assert fake_github.read(OTHER.value) == "{}\n"  # the other writer's file is kept
    assert fake_github.read(INDEX.value) == "[]\n"
    log = fake_github.log()
    assert [c.message for c in log] == [
        "Turn mine — housekeeping",
        "Turn other — housekeeping",
        "seed",
        "Initial commit",
    ]
    assert all(len(c.parents) == 1 for c in log[:-1]) and log[-1].parents == ()
    assert fake_github.counts["PATCH /git/refs/heads/{b}"] == 2
    assert fake_github.counts["POST /git/commits"] == 2


def test_conflict_retry_waits_a_jittered_backoff(fake_github: FakeGitHub) -> None:
    sleeps: list[float] = []
    storage = fake_github.client(retry=GitHubRetry(sleep=sleeps.append, rng=random.Random(1)))
    fake_github.race_next_patch(racer("other"))
    storage.commit([Update(A, add_turn("mine"))], "Turn mine")
    assert len(sleeps) == 1 and 0.125 <= sleeps[0] <= 0.375


def test_conflict_exhaustion_raises_and_writes_nothing(fake_github: FakeGitHub) -> None:
    storage = fake_github.client()
    attempts = storage.retry.conflicts.max_attempts
    fake_github.race_next_patch(racer("other"), times=attempts)

    with pytest.raises(ConflictError, match="wrote nothing"):
        storage.commit([Update(A, add_turn("mine")), Put(INDEX, "[]\n")], "Turn mine — housekeeping")

    text = fake_github.read(A.value) or ""
    assert text.count("## Turn other") == attempts and "mine" not in text
    assert fake_github.read(INDEX.value) is None
    messages = [c.message for c in fake_github.log()]
    assert messages == ["Turn other — housekeeping"] * attempts + ["Initial commit"]
    # the next attempt, with nobody racing, goes through
    assert storage.commit([Update(A, add_turn("mine"))], "Turn mine").changed


def test_a_retry_that_finds_nothing_left_to_do_makes_no_commit(fake_github: FakeGitHub) -> None:
    def ensure_line(text: str | None) -> str:
        text = text or ""
        return text if "shared fact\n" in text else text + "shared fact\n"

    storage = fake_github.client()
    fake_github.race_next_patch(lambda fake: fake.commit_files({A.value: ensure_line}, "other"))
    result = storage.commit([Update(A, ensure_line)], "mine")
    assert not result.changed and result.attempts == 2
    assert result.version == fake_github.head()
    assert [c.message for c in fake_github.log()] == ["other", "Initial commit"]


def test_a_stale_base_snapshot_is_rebased_on_the_new_head(fake_github: FakeGitHub) -> None:
    storage = fake_github.client()
    stale = storage.snapshot()
    fake_github.client().commit([Update(A, add_turn("other"))], "other")
    result = storage.commit([Update(A, add_turn("mine"))], "mine", base=stale)
    assert result.attempts == 2
    assert fake_github.read(A.value) == "## Turn other\n## Turn mine\n"
