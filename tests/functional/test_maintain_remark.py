"""Maintenance with a model re-marks slices the deterministic fallback marked: bounded, oldest first, once."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.jobs.maintain import run_maintenance
from core.memory.paths import core_md
from core.storage.memory import InMemoryStorage
from core.turn.remark import REMARK_LIMIT
from functions.cli.cmd_maintain import summary_lines
from tests.fakes.brain import MARKER
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.slices import slice_text
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional
IDS = [f"2026-07-{day:02d}-0900" for day in range(1, REMARK_LIMIT + 3)]
CLOCK = "2026-08-11T11:15:00.000Z"


def imported() -> InMemoryStorage:
    """Closed slices as an import leaves them: marked deterministically, `marked_by: fallback`."""
    texts = {}
    for sid in IDS:
        text = slice_text(
            sid,
            [("user", f"About the garden on {sid}."), ("agent", "Noted.")],
            focus=f"'Opened with: About the garden on {sid}.'",
            summary="2 turns",
        )
        texts[str(core_md(sid))] = text.replace("\ntags:", "\nmarked_by: fallback\ntags:", 1)
    return InMemoryStorage.from_texts(texts)


def test_fallback_marks_become_model_marks_a_bounded_number_a_run(fake_models: FakeModelServer) -> None:
    h = make_harness(imported(), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.reports[MARKER] = {"focus": "Garden planning", "summary": "Planned the vegetable beds."}
    seen: list[str] = []

    first = run_maintenance(h.deps, progress=seen.append)
    assert first.remarked == IDS[:REMARK_LIMIT], "the oldest first, at most the bound"
    assert len(h.brain.requests[MARKER]) == REMARK_LIMIT
    assert f"Re-marking slice {IDS[0]} with the model" in seen
    assert any(
        line.startswith(f"re-marked {REMARK_LIMIT} fallback-marked slices")
        for line in summary_lines(first, 1)
    )
    marked = h.slice(IDS[0])
    assert (marked.focus, marked.summary, marked.marked_by) == (
        "Garden planning",
        "Planned the vegetable beds.",
        "",
    )
    assert marked.turns[0].content == f"About the garden on {IDS[0]}.", "the words are untouched"
    assert h.slice(IDS[-1]).marked_by == "fallback"

    second = run_maintenance(h.deps)
    assert second.remarked == IDS[REMARK_LIMIT:]
    calls = len(h.brain.requests[MARKER])
    third = run_maintenance(h.deps)
    assert third.remarked == [] and len(h.brain.requests[MARKER]) == calls, "idempotent: no request"


def test_no_model_keeps_the_fallback_marks(fake_models: FakeModelServer) -> None:
    h = make_harness(imported(), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    report = run_maintenance(h.deps, use_model=False)
    assert report.remarked == [] and not h.brain.requests.get(MARKER)
    assert h.slice(IDS[0]).marked_by == "fallback"
