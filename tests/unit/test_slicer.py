"""Slicing decisions: signal precedence, lazy close, marks, ids that never collide, recovery."""

from __future__ import annotations

import pytest

from core.clock import FixedClock, parse_iso
from core.memory import paths
from core.memory.config import UserConfig, patch_config
from core.memory.slice import slicer
from core.memory.slice.model import Slice, Turn
from core.memory.slice.model import render_core_md as core_text
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-17T06:00:00.000Z")


def _slice(start: str = "2026-08-17T05:50:00.000Z", roles: str = "ua", status: str = "active") -> Slice:
    turns = [
        Turn(f"t{i}", f"2026-08-17T05:5{i}:00.000Z", "user" if r == "u" else "agent", f"message {i}")
        for i, r in enumerate(roles)
    ]
    return Slice(slice_id="2026-08-17-0550", status=status, start=start, turns=turns)


def test_time_cap_wins_over_capacity_and_context_lost() -> None:
    config = patch_config(UserConfig(), {"slicing": {"maxTurnsPerSlice": 5}})
    old = _slice(start="2026-08-17T05:00:00.000Z", roles="uauaua")
    client = slicer.ClientView(old.slice_id, 0)
    assert slicer.close_signal(old, NOW, config, client) == "time_cap"
    assert slicer.close_signal(_slice(roles="uauaua"), NOW, config, client) == "capacity"
    assert slicer.close_signal(_slice(roles="uaua"), NOW, config, client) == "context_lost"
    assert slicer.close_signal(_slice(roles="uaua"), NOW, config, slicer.ClientView(old.slice_id, 2)) is None


def test_closed_slice_never_signals() -> None:
    closed = _slice(start="2026-08-17T01:00:00.000Z", status="closed")
    assert slicer.close_signal(closed, NOW, UserConfig()) is None


def test_configured_time_cap_is_used() -> None:
    ten = patch_config(UserConfig(), {"slicing": {"maxSliceMinutes": 10}})
    assert slicer.close_signal(_slice(), NOW, ten) == "time_cap"
    assert slicer.close_signal(_slice(), NOW, UserConfig()) is None


def test_client_without_slice_tracking_never_loses_context() -> None:
    busy = _slice(roles="uauaua")
    assert not slicer.client_lost_context(None, busy)
    assert not slicer.client_lost_context(slicer.ClientView(None, 0), busy)
    # A client showing an older slice has seen none of this one.
    assert slicer.client_lost_context(slicer.ClientView("2026-08-17-0400", 5), busy)


def test_close_sets_end_to_last_turn_time() -> None:
    closed = slicer.close_slice(_slice(roles="uau"), "capacity", NOW)
    assert (closed.status, closed.end, closed.closed_by) == ("closed", "2026-08-17T05:52:00.000Z", "capacity")
    empty = slicer.close_slice(Slice(slice_id="2026-08-17-0550", start="x"), "time_cap", NOW)
    assert empty.end == "2026-08-17T06:00:00.000Z"


def test_fallback_mark_fills_only_missing_fields_and_records_itself() -> None:
    s = _slice()
    s.tags = ["garden", "tomatoes"]
    s.summary = "Kept summary"
    marked = slicer.apply_fallback_mark(s, "en")
    assert marked.focus == "Opened with: message 0"
    assert marked.summary == "Kept summary"
    assert marked.marked_by == "fallback"
    assert slicer.apply_fallback_mark(marked, "en") is marked


def test_english_mark_wording() -> None:
    turns = [Turn("a", "t", "agent", "hello")]
    mark = slicer.deterministic_mark(turns, [], "en")
    assert mark == slicer.Mark("Conversation (no tagged topics)", "1 exchange; topics: no tagged topics.")
    long = [Turn("a", "t", "user", "  " + "word " * 20 + "\nsecond line")]
    assert slicer.deterministic_mark(long, ["x"], "en").focus.endswith("…")


def test_the_english_summary_counts_exchanges_not_messages() -> None:
    turns = [Turn(str(i), "t", "user" if i % 2 == 0 else "agent", f"m{i}") for i in range(9)]
    assert slicer.deterministic_mark(turns, ["x"], "en").summary == "5 exchanges; topics: x."
    assert slicer.fallback_opening(slicer.deterministic_mark(turns, [], "en").focus) == "m0"
    assert slicer.fallback_opening(slicer.deterministic_mark(turns, [], "zh").focus) == "m0"
    assert slicer.fallback_opening("Planning the move") is None


def test_model_marking_replaces_only_non_empty_values() -> None:
    s = _slice()
    s.tags = ["a"]
    s.marked_by = "fallback"
    out = slicer.apply_close_marking(s, focus="New focus", summary=" ", tags=[], tone="positive")
    assert (out.focus, out.summary, out.tags, out.emotional_tone, out.marked_by) == (
        "New focus",
        "",
        ["a"],
        "positive",
        "",
    )


def test_same_minute_id_takes_the_next_free_minute() -> None:
    storage = InMemoryStorage.from_texts(
        {
            "memory/episodic/slices/2026/08/17/0600/timeline/core.md": "x",
            "memory/episodic/slices/2026/08/17/0601/timeline/agent.md": "y",
            "memory/episodic/slices/2026/08/17/0602.md": "legacy",
        }
    )
    snap = storage.snapshot()
    slice_id = slicer.new_slice_id(NOW, lambda sid: slicer.slice_taken(snap, sid))
    assert slice_id == "2026-08-17-0603"
    assert slicer.new_slice_id(parse_iso("2026-08-17T23:59:30Z"), lambda sid: sid.endswith("2359")) == (
        "2026-08-18-0000"
    )


def test_recovery_scans_today_then_yesterday_newest_first() -> None:
    def active(sid: str, start: str) -> str:
        return core_text(Slice(slice_id=sid, status="active", start=start))

    storage = InMemoryStorage.from_texts(
        {
            "memory/episodic/slices/2026/08/16/2300/timeline/core.md": active(
                "2026-08-16-2300", "2026-08-16T23:00:00Z"
            ),
            "memory/episodic/slices/2026/08/17/0100/timeline/core.md": active(
                "2026-08-17-0100", "2026-08-17T01:00:00Z"
            ),
            "memory/episodic/slices/2026/08/17/0500/timeline/core.md": "---\nstatus: [broken\n---\n",
            "memory/episodic/slices/2026/08/17/0400/timeline/core.md": core_text(
                Slice(slice_id="2026-08-17-0400", status="closed", start="2026-08-17T04:00:00Z")
            ),
        }
    )
    found = slicer.find_active_slice(storage.snapshot(), NOW)
    assert found is not None and found.slice.slice_id == "2026-08-17-0100" and not found.legacy
    tomorrow = FixedClock.at("2026-08-18T00:30:00Z").now()
    later = slicer.find_active_slice(storage.snapshot(), tomorrow)
    assert later is not None and later.slice.slice_id == "2026-08-17-0100"
    assert slicer.find_active_slice(storage.snapshot(), parse_iso("2026-08-20T00:00:00Z")) is None


def test_recovery_reads_legacy_flat_files_and_pending_writes() -> None:
    storage = InMemoryStorage.from_texts(
        {"memory/episodic/slices/2026/08/17/0130.md": core_text(Slice(slice_id="2026-08-17-0130", start="s"))}
    )
    batch = WriteBatch.open(storage)
    found = slicer.find_active_slice(batch, NOW)
    assert found is not None and found.legacy and found.path.name == "0130.md"
    batch.put(paths.core_md("2026-08-17-0200"), core_text(Slice(slice_id="2026-08-17-0200", start="s")))
    found = slicer.find_active_slice(batch, NOW)
    assert found is not None and found.slice.slice_id == "2026-08-17-0200"


class CountingReader:
    """A snapshot that records which files were read."""

    def __init__(self, storage: InMemoryStorage) -> None:
        self.snap = storage.snapshot()
        self.reads: list[str] = []

    def read(self, path: paths.MemoryPath) -> str | None:
        self.reads.append(path.value)
        return self.snap.read(path)

    def list(self, prefix: paths.MemoryPath) -> list[paths.MemoryPath]:
        return self.snap.list(prefix)


def _day_of_slices(active: str | None) -> InMemoryStorage:
    files = {
        paths.core_md(f"2026-08-17-0{h}00").value: core_text(
            Slice(slice_id=f"2026-08-17-0{h}00", status="closed", start=f"2026-08-17T0{h}:00:00Z")
        )
        for h in range(5)
    }
    if active:
        files[paths.core_md(active).value] = core_text(Slice(slice_id=active, status="active", start="s"))
    return InMemoryStorage.from_texts(files)


def test_recovery_with_the_catalogs_active_list_reads_only_those_slices() -> None:
    reader = CountingReader(_day_of_slices("2026-08-16-2300"))
    found = slicer.find_active_slice(reader, NOW, ["2026-08-16-2300", "2026-08-01-0900"])
    assert found is not None and found.slice.slice_id == "2026-08-16-2300"
    assert reader.reads == [paths.core_md("2026-08-16-2300").value]
    reader = CountingReader(_day_of_slices(None))
    assert slicer.find_active_slice(reader, NOW, []) is None and reader.reads == []


@pytest.mark.parametrize("listed", [["2026-08-17-0400"], ["2026-08-17-0530"]])  # closed, missing
def test_a_stale_active_list_falls_back_to_reading_the_day_folders(listed: list[str]) -> None:
    reader = CountingReader(_day_of_slices("2026-08-17-0500"))
    found = slicer.find_active_slice(reader, NOW, listed)
    assert found is not None and found.slice.slice_id == "2026-08-17-0500"


def test_legacy_flat_files_are_found_with_the_active_list_too() -> None:
    storage = InMemoryStorage.from_texts(
        {"memory/episodic/slices/2026/08/17/0130.md": core_text(Slice(slice_id="2026-08-17-0130", start="s"))}
    )
    found = slicer.find_active_slice(storage.snapshot(), NOW, [])
    assert found is not None and found.legacy


def test_close_and_mark_return_copies_and_record_the_fallback_on_disk() -> None:
    from core.memory.slice.model import parse_core_md, render_core_md

    s = _slice(roles="ua")
    closed = slicer.apply_fallback_mark(slicer.close_slice(s, "time_cap", NOW), "zh")
    closed.turns.append(Turn("x", "t", "user", "later"))
    assert len(s.turns) == 2 and s.status == "active" and s.focus == ""
    text = render_core_md(closed)
    assert "marked_by: fallback" in text and "closed_by: time_cap" in text
    assert parse_core_md(text).marked_by == "fallback"
