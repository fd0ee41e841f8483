"""A hand edit survives the passes that mark slices: the model's close marking in maintenance."""

from __future__ import annotations

import pytest

from core.actions.edit import SliceChanges, edit_slice_marks
from core.clock import FixedClock
from core.jobs.maintain import run_maintenance
from core.memory.paths import core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.brain import MARKER
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.slices import slice_text
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional
SID = "2026-08-11-0900"


def test_the_close_marking_fills_only_what_the_user_left_empty(fake_models: FakeModelServer) -> None:
    storage = InMemoryStorage.from_texts(
        {
            str(core_md(SID)): slice_text(
                SID, [("user", "Kyoto in spring?"), ("agent", "Lovely.")], status="active"
            )
        }
    )
    clock = FixedClock.at("2026-08-11T09:05:00.000Z")
    edit_slice_marks(storage, SID, SliceChanges(focus="My Kyoto daydream", tags=["travel"]), clock)
    clock.advance(hours=2)
    h = make_harness(storage, clock, fake_models)
    assert h.brain is not None
    h.brain.reports[MARKER] = {"focus": "Kyoto trip", "summary": "Started planning a spring trip to Kyoto."}
    h.brain.reports["finish"] = {"reasoning": "Nothing lasting.", "summary": ""}
    report = run_maintenance(h.deps)
    assert [c.slice_id for c in report.closed] == [SID]
    closed = h.slice(SID)
    assert closed.status == "closed"
    assert closed.focus == "My Kyoto daydream" and closed.tags == ["travel"]
    assert closed.marked_by == "user" and closed.summary  # the empty summary was filled in
    assert [t.content for t in closed.turns] == ["Kyoto in spring?", "Lovely."]
