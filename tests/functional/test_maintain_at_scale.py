"""Maintenance against GitHub: requests in proportion to what changed, and the rate budget."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.clock import FixedClock, SequentialIds
from core.jobs.maintain import RESERVE, run_maintenance
from core.llm.registry import ModelRegistry, ProviderConfig
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.paths import core_md
from core.memory.slice.model import parse_core_md
from core.search import recall, refresh_index
from core.search.built_from import parse_built_from
from core.storage.base import WriteBatch
from core.storage.github import GitHubStorage
from core.storage.github_errors import GitHubRetry
from core.turn.deps import TurnDeps
from core.turn.runstore import MemoryRunStore
from core.turn.sink import RunStoreSinks
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.functional

ACTIVE = "2026-08-11-0900"
NOW = "2026-08-11T11:15:00.000Z"


def seed(fake: FakeGitHub, n: int = 80) -> list[str]:
    """n closed, marked slices over August (one a day at most... several a day) and one active."""
    ids = [f"2026-08-{1 + i // 8:02d}-{(i % 8) * 2 + 1:02d}00" for i in range(n)]
    files = {
        core_md(sid).value: slice_text(
            sid, [("user", f"note {i}"), ("agent", "ok")], focus=f"F{i}", summary="S."
        )
        for i, sid in enumerate(ids)
    }
    files[core_md(ACTIVE).value] = slice_text(ACTIVE, [("user", "Plan the trip.")], status="active")
    fake.commit_files(files, "seed")
    return ids


def deps_for(storage: GitHubStorage, clock: FixedClock) -> TurnDeps:
    runs = MemoryRunStore()
    registry = ModelRegistry(ProviderConfig(), clock=clock)
    return TurnDeps(storage, clock, SequentialIds(), runs, registry, RunStoreSinks(runs))


def client(fake: FakeGitHub, clock: FixedClock) -> GitHubStorage:
    """A fresh process's storage: cold caches; its retry policy reads the same clock."""
    return fake.client(branch="main", retry=GitHubRetry(sleep=lambda s: None, clock=clock))


def test_an_unchanged_memory_costs_a_handful_of_requests_in_a_fresh_process(fake_github: FakeGitHub) -> None:
    seed(fake_github)
    clock = FixedClock.at(NOW)
    first = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert [c.slice_id for c in first.closed] == [ACTIVE] and first.stopped is None
    fake_github.reset_counts()
    again = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert again.commits == [] and again.closed == []
    assert sum(fake_github.counts.values()) <= 10, fake_github.counts
    assert "GET codeload" not in fake_github.counts


def test_one_changed_slice_is_the_only_slice_read(fake_github: FakeGitHub) -> None:
    ids = seed(fake_github)
    clock = FixedClock.at(NOW)
    run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    edited = ids[3]
    fake_github.commit_files({core_md(edited).value: lambda t: (t or "") + "\nAn added line.\n"})
    fake_github.reset_counts()
    report = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert report.search_index["updated"] == 1
    assert fake_github.counts["GET /git/blobs/{sha}"] <= 8, fake_github.counts


def test_a_low_budget_closes_slices_and_skips_the_rest(fake_github: FakeGitHub) -> None:
    seed(fake_github)
    clock = FixedClock.at(NOW)
    fake_github.budget.set(remaining=RESERVE - 1, reset_in=1200)
    report = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert [c.slice_id for c in report.closed] == [ACTIVE] and report.stopped is None
    assert report.search_index == {} and "GitHub requests left until" in report.skipped[0]
    assert parse_core_md(fake_github.read(core_md(ACTIVE).value) or "").status == "closed"


def test_a_spent_budget_stops_cleanly_and_the_next_pass_resumes(fake_github: FakeGitHub) -> None:
    ids = seed(fake_github)
    clock = FixedClock(datetime.fromisoformat(NOW.replace("Z", "+00:00")).astimezone(UTC))
    before = fake_github.files()
    fake_github.budget.set(remaining=6, reset_in=1800)
    stopped = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert (
        stopped.stopped is not None
        and "resets at" in stopped.stopped
        and "Nothing was lost" in stopped.stopped
    )
    after = fake_github.files()
    assert all(after[p] == t for p, t in before.items() if p != core_md(ACTIVE).value)  # nothing lost
    fake_github.budget.set(remaining=5000)
    clock.advance(seconds=1801)
    resumed = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert resumed.stopped is None and resumed.search_index["slices"] == len(ids) + 1
    assert parse_core_md(fake_github.read(core_md(ACTIVE).value) or "").status == "closed"
    assert run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False).commits == []


def test_a_cold_weave_and_a_cold_recall_read_the_slices_in_one_archive(fake_github: FakeGitHub) -> None:
    seed(fake_github)
    clock = FixedClock.at(NOW)
    batch = WriteBatch.open(client(fake_github, clock))
    fake_github.reset_counts()
    report = rebuild_indexes(batch, clock.now())
    assert report.slices == 81 and fake_github.counts["GET codeload"] == 1
    assert fake_github.counts["GET /git/blobs/{sha}"] == 0
    batch.commit("weave")
    fake_github.reset_counts()
    result = recall(client(fake_github, clock).snapshot(), "note 7", 3, clock)
    assert result.hits and fake_github.counts["GET codeload"] == 1
    assert fake_github.counts["GET /git/blobs/{sha}"] <= 3, fake_github.counts


def test_an_unchanged_search_index_is_known_from_one_small_file(fake_github: FakeGitHub) -> None:
    ids = seed(fake_github)
    clock = FixedClock.at(NOW)
    run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    batch = WriteBatch.open(client(fake_github, clock))
    fake_github.reset_counts()
    report = refresh_index(batch, clock)
    assert (report.rebuilt, report.slices, report.updated) == (False, len(ids) + 1, 0)
    assert fake_github.counts["GET /git/blobs/{sha}"] == 1  # the manifest and its record: no segment
    assert not batch.commit("nothing").changed
    fake_github.commit_files({core_md(ids[0]).value: lambda t: (t or "") + "\nMore.\n"})
    batch = WriteBatch.open(client(fake_github, clock))
    assert refresh_index(batch, clock).updated == 1
    batch.commit("refresh")
    fake_github.commit_files({"memory/episodic/search/seg-0001.json": "damaged"})
    batch = WriteBatch.open(client(fake_github, clock))
    assert refresh_index(batch, clock).rebuilt  # a damaged segment fails the record: rebuilt


@pytest.mark.parametrize(
    "text", [None, "", "garbage", "[]", '{"index": "a"}', '{"index": "a", "digest": "b", "slices": "x"}']
)
def test_an_unreadable_built_from_record_means_a_full_check(text: str | None) -> None:
    assert parse_built_from(text) is None
