"""Bytes ∝ change for the strands on GitHub (issue 33): at a few hundred slices with many tags a
cold turn downloads the strand menu and the shard of its own tag, never every strand, and a
closing turn uploads only the shards of the tags it weaves (and the menu)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.clock import FixedClock, iso
from core.memory import paths
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.catalog.strand_shards import shard_of
from core.memory.slice.model import Slice, Turn, render_core_md
from core.storage.base import WriteBatch, blob_sha
from core.storage.memory import InMemoryStorage
from tests.fakes.brain import ANALYZER, analysis
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.contract

SLICES = 300
START = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
STRANDS = paths.STRANDS_DIR.value + "/"


def _memory() -> tuple[dict[str, str], datetime]:
    """SLICES closed slices, two tags each out of 128 (every strand names several slices)."""
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    when = START
    for i in range(SLICES):
        when = START + timedelta(hours=3 * i)
        sid, at = when.strftime("%Y-%m-%d-%H%M"), iso(when)
        s = Slice(
            slice_id=sid, status="closed", start=at, end=at, focus=f"Focus {i}", summary=f"Summary {i}.",
            tags=[f"topic {i % 97}", f"theme {i % 31}"], closed_by="time_cap",
            turns=[Turn(f"t{i}", at, "user", f"Hello {i}.")],
        )  # fmt: skip
        batch.put(paths.core_md(sid), render_core_md(s))
    batch.commit("slices")
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, when)
    batch.commit("indexes")
    snap = storage.snapshot()
    return {p.value: snap.read(p) or "" for p in snap.list(paths.MEMORY)}, when


def _strand_files(fake: FakeGitHub) -> dict[str, str]:
    return {p: text for p, text in fake.files().items() if p.startswith(STRANDS)}


def _downloaded(fake: FakeGitHub, files: dict[str, str]) -> dict[str, int]:
    """The strand files the requests since the last reset fetched, with the bytes each cost."""
    by_sha = {blob_sha(text): path for path, text in files.items()}
    got: dict[str, int] = {}
    for request, _, received in fake.transfers:
        sha = request.rsplit("/", 1)[-1]
        if request.startswith("GET ") and "/git/blobs/" in request and sha in by_sha:
            got[by_sha[sha]] = got.get(by_sha[sha], 0) + received
    assert not any("/tarball/" in r for r, _, _ in fake.transfers), "no archive of the whole memory"
    return got


def test_a_cold_turn_reads_the_menu_and_a_close_rewrites_only_touched_shards(
    fake_github: FakeGitHub, fake_models: FakeModelServer
) -> None:
    memory, last = _memory()
    fake_github.commit_files(memory, "seed")
    before = _strand_files(fake_github)
    shards = {p for p in before if p != paths.STRANDS_MENU.value}
    assert len(shards) == paths.STRAND_SHARDS and paths.STRANDS_MENU.value in before

    clock = FixedClock(last + timedelta(days=1))
    h = make_harness(fake_github.client(branch="main"), clock, fake_models)  # a cold process
    assert h.brain is not None
    h.brain.main("Hello again.", "Welcome back.")
    h.brain.reports[ANALYZER] = analysis(["topic 5"])
    fake_github.reset_counts()
    assert h.turn("Back again: how was the garden?").status == "done"
    read = _downloaded(fake_github, before)
    own = paths.strand_shard(shard_of("topic 5")).value
    assert paths.STRANDS_MENU.value in read and set(read) <= {paths.STRANDS_MENU.value, own}, read
    assert sum(read.values()) < sum(len(t.encode()) for t in before.values()) / 4

    clock.advance(hours=2)  # past the slice's time cap: the next turn closes it
    h.brain.reports[ANALYZER] = analysis(["theme 3"])
    woven = _strand_files(fake_github)
    assert h.turn("Back after lunch.").status == "done"
    after = _strand_files(fake_github)
    changed = {p for p in after.keys() | woven.keys() if after.get(p) != woven.get(p)}
    touched = {paths.strand_shard(shard_of(t)).value for t in ("topic 5", "theme 3")}
    assert changed <= touched | {paths.STRANDS_MENU.value} and changed & touched, changed
    assert paths.STRANDS_JSON.value not in fake_github.files()
