"""Evolution end to end with the triggers: skip, explicit "remember", hand-edited and legacy cards."""

from __future__ import annotations

import pytest

from core.agent.evolution.card_pass import (
    at_boundary,
    ensure_snapshot,
    evolve_card,
    mid_slice,
    record_evolution_summary,
)
from core.agent.workers.analyzer import EvolveJudgment, MemoryUpdate, TurnAnalysis
from core.clock import FixedClock
from core.memory.card.model import CARD_STAMP, parse_card
from core.memory.paths import CARD, card_snapshot
from core.storage.base import WriteBatch
from tests.fakes.evolution import CLOSED, CURRENT, calls, finish, first_prompt, memory, slice_of, worker
from tests.fakes.fake_model_server import FakeModelServer
from tests.unit.card_samples import previous_card

pytestmark = pytest.mark.functional

HAND_EDITED = """\
# Previously On

_Active slice: 2026-07-30-0900 | Format: user card v2 | Updated: 2026-07-30T09:10:00.000Z_

A note I wrote above everything.

## identity
- Name: Mara
* Alias: M

## Past
Mara is a curator who likes long walks.
- Moved to Berlin in 2019 — refs: [2026/07/30/0900]

## Now
- Learning to bake bread <!-- my own reminder --> | since: 2026-08-08

## Notes to self
Ask about the sourdough starter.

## Self-model
+ Keep answers short in the morning
"""

V3 = """\
# Previously On

_Active slice: 2026-07-30-0900 | Format: user profile + self-model | Updated: 2026-07-30T09:10:00.000Z_

## User profile

### Identity & background

- Mara, a museum curator
  refs: [2026/07/30/0900] | confidence: high | updated: 2026-07-30 | obs: 2

### Current state

- Preparing an exhibition about maps
  refs: [2026/07/30/0900] | confidence: medium | updated: 2026-08-01

## Self-model

### Answer form

- Lead with the answer, then the reasoning
  confidence: medium | updated: 2026-07-30
"""

V2 = """\
# Previously On

_Active slice: 2026-07-30-0900 | Updated: 2026-07-30T09:10:00.000Z_

## 长期记忆

### User identity

- Mara, a museum curator
  evidence: [2026/07/30/0900] | confidence: medium | updated: 2026-07-30 | obs: 1

## 短期记忆

### Current context

- Preparing an exhibition about maps
  evidence: [2026/07/30/0900] | updated: 2026-08-01 | obs: 1
"""

V1 = """\
# Previously On

## User identity

- Mara, a museum curator
  evidence: [2026/07/30/0900] | confidence: medium | updated: 2026-07-30 | obs: 1

## Agent strategies

- Lead with the answer, then the reasoning
  evidence: [2026/07/30/0900] | confidence: medium | updated: 2026-07-30 | obs: 1
"""


def test_skip_when_the_analyzer_finds_nothing(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(HAND_EDITED)
    analysis = TurnAnalysis(evolve_card=EvolveJudgment(False, "Only small talk about the weather."))
    decision = at_boundary(analysis, HAND_EDITED, slice_of(storage, CLOSED), timezone="UTC", demo=False)
    assert not decision.run and decision.request is None
    assert decision.skipped_event() == (
        "card.skipped",
        {"reason": "Nothing worth recording on the card: Only small talk about the weather."},
    )
    assert fake_models.model_requests() == []


def test_explicit_remember_mid_slice(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(HAND_EDITED)
    analysis = TurnAnalysis(memory_update=MemoryUpdate("The user is vegetarian.", "past"))
    decision = mid_slice(analysis, slice_of(storage, CURRENT), timezone="Europe/Berlin", demo=False)
    assert decision.run and decision.request is not None
    assert decision.request.signal == "new_observation" and decision.request.slice_id == CURRENT
    fake_models.enqueue(
        calls(("add_past_anchor", {"text": "Vegetarian", "refs": [f"{CURRENT}-t00000"]})),
        finish("I'll remember that you're vegetarian."),
    )
    batch = WriteBatch.open(storage)
    ensure_snapshot(batch, CURRENT, clock)
    outcome = evolve_card(batch, decision.request, worker=worker(fake_models, clock), clock=clock)
    assert record_evolution_summary(batch, CURRENT, outcome.summary, clock)
    batch.commit("Turn t1 — user message")

    prompt = first_prompt(fake_models)
    assert "What to record: The user is vegetarian. (suggested section: Past)" in prompt
    assert "Signal: new_observation." in prompt
    assert "Vegetarian — refs: [2026/08/11/1115-t00000]" in storage.files[CARD]
    assert storage.files[card_snapshot(CURRENT)] == storage.files[CARD]
    assert slice_of(storage, CURRENT).evolution_summary == "I'll remember that you're vegetarian."
    assert [t.content for t in slice_of(storage, CURRENT).turns] == ["Remember that I am vegetarian, please."]


def test_demo_never_evolves(clock: FixedClock) -> None:
    storage = memory(HAND_EDITED)
    analysis = TurnAnalysis(memory_update=MemoryUpdate("The user is vegetarian."))
    assert not mid_slice(analysis, slice_of(storage, CURRENT), timezone="UTC", demo=True).run
    assert not at_boundary(None, HAND_EDITED, slice_of(storage, CLOSED), timezone="UTC", demo=True).run


def test_a_hand_edited_card_survives_a_round_trip(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(HAND_EDITED)
    decision = at_boundary(None, HAND_EDITED, slice_of(storage, CLOSED), timezone="UTC", demo=False)
    assert decision.run and decision.request is not None
    fake_models.enqueue(
        calls(("add_now", {"text": "Training for a half marathon", "refs": [CLOSED]})),
        finish("Added your training."),
    )
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, decision.request, worker=worker(fake_models, clock), clock=clock)
    batch.commit("test")
    assert outcome.changed

    written = storage.files[CARD]
    for kept in (
        "- Name: Mara",
        "- Alias: M",
        "Mara is a curator who likes long walks.",
        "- Moved to Berlin in 2019 — refs: [2026/07/30/0900]",
        "- Learning to bake bread | since: 2026-08-08",
        "- Keep answers short in the morning",
        "## Notes to self",
        "Ask about the sourdough starter.",
        "A note I wrote above everything.",
    ):
        assert kept in written, kept
    before = parse_card(HAND_EDITED, clock.now())
    after = parse_card(written, clock.now())
    after.now = [n for n in after.now if n.text != "Training for a half marathon"]
    assert after.substance() == before.substance(), "every hand-written entry is still there"
    assert previous_card(storage.snapshot()) == HAND_EDITED, "the hand-edited text is kept as a version"


def test_a_hand_edited_card_untouched_when_nothing_changes(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    storage = memory(HAND_EDITED)
    decision = at_boundary(None, HAND_EDITED, slice_of(storage, CLOSED), timezone="UTC", demo=False)
    assert decision.request is not None
    fake_models.enqueue(finish(reasoning="Nothing lasting."))
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, decision.request, worker=worker(fake_models, clock), clock=clock)
    batch.commit("test")
    assert not outcome.changed and storage.files[CARD] == HAND_EDITED


@pytest.mark.parametrize("legacy", [V3, V2, V1], ids=["v3", "v2", "v1"])
def test_a_legacy_card_is_migrated_and_written(
    fake_models: FakeModelServer, clock: FixedClock, legacy: str
) -> None:
    storage = memory(legacy)
    analysis = TurnAnalysis(evolve_card=EvolveJudgment(False, "nothing new"))
    decision = at_boundary(analysis, legacy, slice_of(storage, CLOSED), timezone="UTC", demo=False)
    assert decision.run, "a legacy card forces a run even when the analyzer says no"
    assert decision.request is not None
    fake_models.enqueue(finish(reasoning="Converted entries look right."))
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, decision.request, worker=worker(fake_models, clock), clock=clock)
    batch.commit("test")

    assert outcome.changed and outcome.summary == "The card was converted to the current format."
    written = storage.files[CARD]
    assert CARD_STAMP in written and "Mara, a museum curator" in written
    assert previous_card(storage.snapshot()) == legacy
    prompt = first_prompt(fake_models)
    assert "The stored card is in an older format. Its raw text:" in prompt
    assert legacy.strip().splitlines()[-1].strip() in prompt, "the raw legacy text is shown"
    assert "Your session starts from its automatic conversion:" in prompt
