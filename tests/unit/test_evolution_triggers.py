"""When the card evolves: the gate, explicit requests, the decisions, the evolution summary."""

from __future__ import annotations

import pytest

from core.agent.evolution.card_pass import (
    at_boundary,
    at_maintenance_close,
    explicit_request,
    mid_slice,
    record_evolution_summary,
    should_evolve,
)
from core.agent.evolution.triggers import LEGACY_REASON, NO_JUDGMENT_REASON
from core.agent.workers.analyzer import (
    FALLBACK_EVOLVE_REASON,
    EvolveJudgment,
    MemoryUpdate,
    TurnAnalysis,
    fallback,
)
from core.clock import FixedClock
from core.memory.slice.model import Slice, Turn
from core.storage.base import WriteBatch
from tests.fakes.evolution import CLOSED, CURRENT, card_text, memory, slice_of

pytestmark = pytest.mark.unit

CARD = card_text(identity=["Name: Mara"])


def test_gate_follows_the_analyzer() -> None:
    assert should_evolve(TurnAnalysis(evolve_card=EvolveJudgment(True, "new job")), CARD) == (True, "new job")
    assert should_evolve(TurnAnalysis(evolve_card=EvolveJudgment(False, "small talk")), CARD) == (
        False,
        "small talk",
    )
    assert should_evolve(TurnAnalysis(evolve_card=EvolveJudgment(False, "")), CARD)[0] is False


def test_gate_defaults_to_running() -> None:
    assert should_evolve(None, CARD) == (True, NO_JUDGMENT_REASON)
    assert should_evolve(TurnAnalysis(), None) == (True, NO_JUDGMENT_REASON)
    assert should_evolve(fallback(closing=True), CARD) == (True, FALLBACK_EVOLVE_REASON)


@pytest.mark.parametrize(
    "legacy",
    [
        "# Previously On\n\n## User identity\n\n- Mara\n",
        "_Active slice: x | Format: user card | Updated: y_\n",
    ],
)
def test_a_legacy_card_forces_a_run(legacy: str) -> None:
    no = TurnAnalysis(evolve_card=EvolveJudgment(False, "nothing"))
    assert should_evolve(no, legacy) == (True, LEGACY_REASON)
    assert should_evolve(no, "   \n") == (False, "nothing"), "a blank card is not legacy"


def test_explicit_request() -> None:
    assert explicit_request(None) is None
    assert explicit_request(TurnAnalysis()) is None
    assert explicit_request(TurnAnalysis(memory_update=MemoryUpdate("  "))) is None
    update = MemoryUpdate("  Call me\n Sam  ", "identity")
    assert explicit_request(TurnAnalysis(memory_update=update)) == "Call me Sam"


def test_boundary_request_carries_the_closed_slice() -> None:
    storage = memory(CARD)
    closed = slice_of(storage, CLOSED)
    analysis = TurnAnalysis(
        evolve_card=EvolveJudgment(True, "a plan"),
        memory_update=MemoryUpdate("Runs three times a week", "now"),
    )
    decision = at_boundary(analysis, CARD, closed, timezone="Asia/Shanghai", demo=False)
    request = decision.request
    assert decision.run and decision.reason == "a plan" and request is not None
    assert (request.signal, request.slice_id, request.timezone) == ("slice_closed", CLOSED, "Asia/Shanghai")
    assert list(request.turns) == closed.turns and list(request.tags) == ["running", "grant"]
    assert request.focus_hint == "Runs three times a week (suggested section: Now)"


def test_mid_slice_needs_an_explicit_request() -> None:
    current = slice_of(memory(CARD), CURRENT)
    assert not mid_slice(TurnAnalysis(), current, timezone="UTC", demo=False).run
    many = Slice(
        CURRENT, turns=[Turn(f"t{i}", "2026-08-11T11:15:00.000Z", "user", f"m{i}") for i in range(20)]
    )
    extra = [Turn("t99", "2026-08-11T11:16:00.000Z", "user", "remember this")]
    decision = mid_slice(
        TurnAnalysis(memory_update=MemoryUpdate("x")), many, timezone="", demo=False, extra_turns=extra
    )
    assert decision.request is not None
    assert [t.turn_id for t in decision.request.turns][-2:] == ["t19", "t99"]
    assert len(decision.request.turns) == 12 and decision.request.timezone == "UTC"


def test_maintenance_close() -> None:
    closed = slice_of(memory(CARD), CLOSED)
    decision = at_maintenance_close(closed, CARD)
    assert decision.run and decision.request is not None
    assert decision.request.signal == "slice_closed" and decision.request.slice_id == CLOSED
    assert not at_maintenance_close(Slice(CLOSED), CARD).run, "an empty slice teaches nothing"
    assert not at_maintenance_close(closed, CARD, demo=True).run


def test_record_evolution_summary(clock: FixedClock) -> None:
    storage = memory(CARD)
    batch = WriteBatch.open(storage)
    assert record_evolution_summary(batch, CURRENT, "  Added your\n training. ", clock)
    assert not record_evolution_summary(batch, "2026-08-11-1200", "x", clock), "no core.md yet"
    assert not record_evolution_summary(batch, CURRENT, "   ", clock)
    batch.commit("test")
    after = slice_of(storage, CURRENT)
    assert after.evolution_summary == "Added your training."
    assert [t.content for t in after.turns] == ["Remember that I am vegetarian, please."]
    again = WriteBatch.open(storage)
    record_evolution_summary(again, CURRENT, "Added your training.", clock)
    assert again.commit("test").written == (), "recording the same summary twice changes nothing"
