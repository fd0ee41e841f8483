"""A turn records whether its recalls were used (recall_verified) or redone (recall_reworked)."""

from __future__ import annotations

import json

import pytest

from core.clock import FixedClock
from core.memory.evolution.paths import FITNESS_JSON
from core.memory.paths import core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.fakes.slices import slice_text
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"
OLD, OTHER = "2026-08-01-0800", "2026-07-02-0900"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


def harness(clock: FixedClock, fake: FakeModelServer) -> Harness:
    storage = InMemoryStorage.from_texts(
        {
            str(core_md(OLD)): slice_text(OLD, [("user", "Planted tomatoes today."), ("agent", "Nice!")]),
            str(core_md(OTHER)): slice_text(OTHER, [("user", "Dug the vegetable bed."), ("agent", "Good.")]),
        }
    )
    h = make_harness(storage, clock, fake)
    assert h.brain is not None

    def report(request: RecordedRequest) -> dict[str, object]:
        hit = OTHER if "bed" in request.last_user_text else OLD
        return {"hits": [{"slice_id": hit, "relevance": 0.9, "reason": "it"}], "confidence": 0.8}

    h.brain.reports["recallReport"] = report
    return h


def signals(h: Harness) -> list[tuple[str, str, str]]:
    ledger = json.loads(h.read(str(FITNESS_JSON)) or '{"signals": []}')
    return [(s["kind"], s["slice"], s["detail"]) for s in ledger["signals"]]


def test_a_recall_whose_hit_is_read_is_verified(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = harness(clock, fake_models)
    assert h.brain is not None
    h.brain.main(
        Reply(tool_calls=[ToolCall("recall", {"query": "tomatoes"}, id="r1")]),
        Reply(tool_calls=[ToolCall("readSlice", {"sliceId": OLD}, id="s1")]),
        "On August 1st.",
    )
    state = h.turn("When did I plant the tomatoes?")
    assert state.status == "done"
    assert signals(h) == [("recall_verified", SLICE, f"{state.turn_id} recall 1")]


def test_a_reworded_recall_reworks_the_first(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = harness(clock, fake_models)
    assert h.brain is not None
    h.brain.main(
        Reply(tool_calls=[ToolCall("recall", {"query": "tomatoes"}, id="r1")]),
        Reply(tool_calls=[ToolCall("recall", {"query": "the vegetable bed"}, id="r2")]),
        f"You dug it on July 2nd ({OTHER}).",
    )
    state = h.turn("When did I dig the bed?")
    assert state.status == "done"
    turn = state.turn_id
    assert signals(h) == [
        ("recall_reworked", SLICE, f"{turn} recall 1"),
        ("recall_verified", SLICE, f"{turn} recall 2"),
    ]


def test_a_turn_without_recall_records_no_signal(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = harness(clock, fake_models)
    assert h.brain is not None
    h.brain.main("Hello.")
    assert h.turn("Hi").status == "done"
    assert h.read(str(FITNESS_JSON)) is None
