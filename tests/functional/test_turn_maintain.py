"""The maintenance pass with a model: close, mark, consolidate, flag the card; then a turn arrives."""

from __future__ import annotations

import json

import pytest

from core.clock import FixedClock
from core.jobs.maintain import run_maintenance
from core.memory.card.model import Card, HorizonItem, NowItem, render_card
from core.memory.catalog.index import stored_index_text
from core.memory.paths import CARD, STRANDS_JSON, core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.brain import CONSOLIDATOR, MARKER
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.slices import slice_text
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

OLD = "2026-08-11-0900"
STRANDS = {f"topic {i:02d}": ["2026/08/01/0800", "2026/08/02/0800"] for i in range(24)}
STRANDS |= {"kyoto": ["2026/08/03/0800", "2026/08/04/0800"], "Kyoto trip": ["2026/08/05/0800"]}


def seeded() -> InMemoryStorage:
    card = Card(
        slice_id=OLD,
        updated="2026-08-01T00:00:00.000Z",
        now=[NowItem("Training for a 10k", ["2026/07/01/0800"], "2026-07-01")],
        horizon=[HorizonItem("Renew the passport", "2026-08-01", ["2026/07/01/0800"])],
    )
    return InMemoryStorage.from_texts(
        {
            str(core_md(OLD)): slice_text(
                OLD, [("user", "Let's plan the Kyoto trip."), ("agent", "Happily!")], status="active"
            ),
            str(STRANDS_JSON): json.dumps(STRANDS, indent=2),
            str(CARD): render_card(card),
        }
    )


def test_maintenance_closes_marks_consolidates_and_is_idempotent(fake_models: FakeModelServer) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(seeded(), clock, fake_models)
    assert h.brain is not None
    h.brain.reports[MARKER] = {"focus": "Kyoto trip", "summary": "Started planning a spring trip to Kyoto."}
    h.brain.reports[CONSOLIDATOR] = {"merges": [{"from": "Kyoto trip", "to": "kyoto", "reason": "same trip"}]}
    h.brain.reports["finish"] = {"reasoning": "Nothing lasting in a trip idea.", "summary": ""}
    card_before = h.read(str(CARD))

    report = run_maintenance(h.deps)
    assert report.model == "fake-large"
    assert [(c.slice_id, c.marked_by) for c in report.closed] == [(OLD, "model")]
    assert report.closed[0].card == "skipped: Nothing new to record: Nothing lasting in a trip idea."
    closed = h.slice(OLD)
    assert (closed.status, closed.closed_by, closed.focus) == ("closed", "time_cap", "Kyoto trip")
    assert closed.end == closed.turns[-1].timestamp and closed.marked_by == ""
    assert report.merges == 1
    strands = h.strands()
    assert "Kyoto trip" not in strands and set(strands["kyoto"]) >= {"2026/08/05/0800", "2026/08/03/0800"}
    assert report.strands_converted and h.read(str(STRANDS_JSON)) is None  # now in the shards
    assert {p for ps in strands.values() for p in ps} >= {p for ps in STRANDS.values() for p in ps}
    assert report.stale_card == {
        "aged_now": ["Training for a 10k (since 2026-07-01)"],
        "overdue_horizon": ["Renew the passport (by 2026-08-01)"],
    }
    assert h.read(str(CARD)) == card_before, "stale items are flagged, never removed"
    assert h.storage.commits[0] == f"Maintenance — close slice {OLD}"
    catalog = json.loads(stored_index_text(h.storage.snapshot()) or "{}")
    assert [(e["id"], e["status"]) for e in catalog["slices"]] == [(OLD, "closed")]

    calls = sum(len(v) for v in h.brain.requests.values())
    commits = list(h.storage.commits)
    again = run_maintenance(h.deps)
    assert again.closed == [] and again.commits == [] and h.storage.commits == commits
    assert sum(len(v) for v in h.brain.requests.values()) == calls, "nothing left for the model to do"

    # The user comes back: the slice is already closed, so the turn simply opens a new one.
    h.brain.main("Welcome back.")
    state = h.turn("Any news?")
    started = next(e for e in state.events if e["type"] == "turn.started")
    assert (started["slice_opened"], started["slice_closed"]) == (True, None)


def test_maintenance_without_a_model_marks_deterministically() -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(seeded(), clock, None)
    report = run_maintenance(h.deps)
    assert report.model is None and report.merges == 0
    assert [(c.slice_id, c.marked_by) for c in report.closed] == [(OLD, "fallback")]
    assert report.closed[0].card.startswith("skipped: No model is configured")
    assert h.slice(OLD).focus == "Opened with: Let's plan the Kyoto trip."
