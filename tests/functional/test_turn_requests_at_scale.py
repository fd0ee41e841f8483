"""A turn and the maintenance pass after it against GitHub: requests in proportion to what
changed, not to how many slices share a day or a search segment (issue 16)."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.jobs.maintain import run_maintenance
from core.memory.catalog.pending import parse_active
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.paths import PENDING_JSON, core_md
from core.memory.slice.model import parse_core_md
from core.search import refresh_index, store
from core.storage.base import WriteBatch
from core.storage.github import GitHubStorage
from core.storage.github_errors import GitHubRetry
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.slices import slice_text
from tests.functional.test_maintain_at_scale import deps_for
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

DAY = "2026-08-10"  # yesterday: twelve closed slices
NOW = "2026-08-11T11:15:00.000Z"


def client(fake: FakeGitHub, clock: FixedClock) -> GitHubStorage:
    """A fresh process's storage: cold caches."""
    return fake.client(branch="main", retry=GitHubRetry(sleep=lambda s: None, clock=clock))


def seed(fake: FakeGitHub, clock: FixedClock, days: int = 1, per_day: int = 12) -> list[str]:
    """`per_day` closed, marked slices a day up to yesterday, with the indexes built."""
    ids = [f"2026-08-{10 - d:02d}-{h:02d}00" for d in range(days) for h in range(per_day)]
    fake.commit_files(
        {
            core_md(sid).value: slice_text(
                sid, [("user", f"note {sid}"), ("agent", "ok")], focus="F", summary="S."
            )
            for sid in ids
        },
        "seed",
    )
    batch = WriteBatch.open(client(fake, clock))
    rebuild_indexes(batch, clock.now())
    refresh_index(batch, clock, full=True)
    batch.commit("indexes")
    return sorted(ids)


def blob_reads(fake: FakeGitHub) -> int:
    return fake.counts["GET /git/blobs/{sha}"]


def test_a_weave_records_the_active_slices_in_the_pending_file(fake_github: FakeGitHub) -> None:
    clock = FixedClock.at(NOW)
    seed(fake_github, clock)
    assert parse_active(fake_github.read(PENDING_JSON.value)) == []


def test_a_turn_reads_none_of_yesterdays_closed_slices(
    fake_github: FakeGitHub, fake_models: FakeModelServer
) -> None:
    clock = FixedClock.at(NOW)
    seed(fake_github, clock)
    h = make_harness(client(fake_github, clock), clock, fake_models)
    fake_github.reset_counts()
    assert h.turn("Good morning.").status == "done"
    # Without the catalog's active list every core.md of yesterday's folder is read (12 more).
    assert blob_reads(fake_github) <= 8, fake_github.counts
    opened = parse_active(fake_github.read(PENDING_JSON.value))
    assert opened is not None and len(opened) == 1
    clock.advance(minutes=5)
    assert h.turn("And another thing.").status == "done"
    assert parse_active(fake_github.read(PENDING_JSON.value)) == opened  # the same slice continued
    assert len(parse_core_md(fake_github.read(core_md(opened[0]).value) or "").turns) == 4


def test_a_stale_active_list_falls_back_to_the_day_folders(
    fake_github: FakeGitHub, fake_models: FakeModelServer
) -> None:
    clock = FixedClock.at(NOW)
    ids = seed(fake_github, clock)
    active = "2026-08-11-1100"
    # Another writer opened a slice and wrote an active list naming a slice that is closed.
    fake_github.commit_files(
        {
            core_md(active).value: slice_text(active, [("user", "Plan the trip.")], status="active"),
            PENDING_JSON.value: '{"_schema": 1, "active": ["' + ids[-1] + '"], "slices": []}',
        }
    )
    h = make_harness(client(fake_github, clock), clock, fake_models)
    assert h.turn("Back to the trip.").status == "done"
    assert [t.content for t in h.slice(active).turns if t.role == "user"] == [
        "Plan the trip.",
        "Back to the trip.",
    ]


def test_maintenance_after_a_turn_reads_only_the_segment_that_changed(
    fake_github: FakeGitHub, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "MAX_SEGMENT_SLICES", 8)  # 48 slices: six segments
    clock = FixedClock.at(NOW)
    seed(fake_github, clock, days=4)
    segments = [p for p in fake_github.files() if "/search/seg-" in p]
    assert len(segments) == 6
    assert make_harness(client(fake_github, clock), clock, fake_models).turn("Hello.").status == "done"
    clock.advance(minutes=1)
    fake_github.reset_counts()
    report = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert report.search_index["added"] == 1 and report.search_index["slices"] == 49
    # Without per-segment records every segment is read (five more).
    assert blob_reads(fake_github) <= 10, fake_github.counts
    fake_github.reset_counts()
    again = run_maintenance(deps_for(client(fake_github, clock), clock), use_model=False)
    assert again.commits == [] and sum(fake_github.counts.values()) <= 10
