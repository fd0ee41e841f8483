"""Card evolution through the fake model server: adds, caps and the loop brake, promote, resolve, failures."""

from __future__ import annotations

import pytest

from core.agent.evolution.card_pass import EvolutionRequest, evolve_card
from core.clock import FixedClock
from core.memory.card.model import Anchor, HorizonItem, NowItem, parse_card
from core.memory.paths import CARD, card_snapshot
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.evolution import (
    CLOSED,
    OLDER,
    calls,
    card_text,
    finish,
    first_prompt,
    memory,
    slice_of,
    tool_results,
    worker,
)
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.unit.card_samples import previous_card

pytestmark = pytest.mark.functional


def closed_request(storage: InMemoryStorage) -> EvolutionRequest:
    closed = slice_of(storage, CLOSED)
    return EvolutionRequest(
        "slice_closed", CLOSED, turns=closed.turns, tags=closed.tags, timezone="Europe/Berlin"
    )


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_an_evolution_that_adds_entries(fake_models: FakeModelServer, clock: FixedClock, wire: str) -> None:
    storage = memory()  # no card yet
    fake_models.enqueue(
        calls(
            ("add_now", {"text": "Training for the Berlin half marathon", "refs": [f"{CLOSED}-t00000"]}),
            ("add_horizon", {"text": "Send the grant report to Ines", "by": "2026-08-20", "refs": [CLOSED]}),
        ),
        finish("Noted your half-marathon training and the grant report deadline."),
    )
    batch = WriteBatch.open(storage)
    progress: list[str] = []
    outcome = evolve_card(
        batch, closed_request(storage), worker=worker(fake_models, clock, wire), clock=clock,
        on_progress=progress.append,
    )  # fmt: skip
    batch.commit("test")

    assert outcome.changed and outcome.error is None and not outcome.partial
    assert outcome.summary == "Noted your half-marathon training and the grant report deadline."
    assert outcome.mutations == (
        "add_now: Training for the Berlin half marathon",
        "add_horizon: Send the grant report to Ines",
    )
    live = storage.files[CARD]
    assert storage.files[card_snapshot(CLOSED)] == live
    card = parse_card(live, clock.now())
    assert card.slice_id == CLOSED
    assert [(n.text, n.refs, n.since) for n in card.now] == [
        ("Training for the Berlin half marathon", ["2026/08/11/1015-t00000"], "2026-08-11")
    ]
    assert [(h.text, h.by) for h in card.horizon] == [("Send the grant report to Ines", "2026-08-20")]
    assert (
        "+- Training for the Berlin half marathon — refs: [2026/08/11/1015-t00000] | since: 2026-08-11"
        in (outcome.diff)
    )
    assert outcome.event() == ("card.evolved", {"summary": outcome.summary, "diff": outcome.diff})
    assert progress[0] == "Reviewing the user card" and "Noting what is current" in progress
    assert progress[-1] == "Card updated"

    prompt = first_prompt(fake_models)
    assert "The user's today: 2026-08-11 (Europe/Berlin)." in prompt
    assert "Signal: slice_closed. The slice 2026-08-11-1015 has just closed." in prompt
    assert "**user** (turn t00001): Three runs a week." in prompt
    assert "Topics of the slice: running, grant" in prompt
    sent = fake_models.model_requests()[0]
    assert {"add_now", "promote_now_to_past", "read_slice", "read_previously", "finish"} <= set(
        sent.tool_names
    )


def test_rejected_over_a_cap_then_recovers(fake_models: FakeModelServer, clock: FixedClock) -> None:
    full = [NowItem(f"Current thing number {i}", [OLDER], "2026-08-10") for i in range(5)]
    storage = memory(card_text(now=full))
    new_item = {"text": "Training for the Berlin half marathon", "refs": [CLOSED]}
    long_anchor = {"text": "Runs " + "very " * 70 + "far", "refs": [CLOSED]}
    fake_models.enqueue(
        calls(("add_now", new_item)),
        calls(("remove_now", {"match": "number 3"}), ("add_now", new_item)),
        calls(("add_past_anchor", long_anchor)),
        calls(("add_past_anchor", long_anchor)),
        calls(("add_past_anchor", {"text": "Runs long distances", "refs": [CLOSED]})),
        finish("Swapped an old Now item for your marathon training."),
    )
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock)
    batch.commit("test")

    results = tool_results(fake_models.model_requests()[-1].body)
    assert results[0].startswith("REJECTED:")
    assert results[1].startswith("OK — removed from Now") and results[2].startswith("OK — added")
    assert results[3].startswith("REJECTED:") and "300" in results[3]
    assert results[4].startswith("LOOP BRAKE (attempt 2):")
    assert results[5].startswith("OK — anchor added")
    card = parse_card(storage.files[CARD], clock.now())
    assert len(card.now) == 5 and card.now[0].text == "Training for the Berlin half marathon"
    assert "Current thing number 3" not in [n.text for n in card.now]
    assert [a.text for a in card.past.anchors] == ["Runs long distances"]
    assert outcome.changed and len(outcome.mutations) == 3


def test_third_identical_over_length_call_is_saved_cut(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    storage = memory(card_text())
    too_long = {"text": "Lesson " + "x" * 400}
    fake_models.enqueue(*[calls(("add_self_model", too_long))] * 3, finish())
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock)
    results = tool_results(fake_models.model_requests()[-1].body)
    assert results[2].startswith("OK — FORCED:")
    assert outcome.mutations == ("forced: add_self_model: Lesson " + "x" * 43,)
    assert outcome.changed and len(parse_card(outcome.card_text or "", clock.now()).self_model[0]) == 300


def test_promote_an_aged_now_item(fake_models: FakeModelServer, clock: FixedClock) -> None:
    aged = NowItem("Started a new job at the museum", ["2026/07/30/0900"], "2026-07-30")
    fresh = NowItem("Training for a half marathon", [CLOSED], "2026-08-10")
    storage = memory(card_text(now=[fresh, aged]))
    fake_models.enqueue(
        calls(("promote_now_to_past", {"match": "museum"})), finish("Your museum job moved to Past.")
    )
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock)
    batch.commit("test")

    prompt = first_prompt(fake_models)
    assert "Now items 7 or more days old" in prompt
    assert '- "Started a new job at the museum" (since 2026-07-30, 12 days ago)' in prompt
    assert "Training for a half marathon" not in prompt.split("## Why")[0], "a fresh item is not flagged"
    card = parse_card(storage.files[CARD], clock.now())
    assert [a.text for a in card.past.anchors] == ["Started a new job at the museum"]
    assert card.past.anchors[0].refs == ["2026/07/30/0900"]
    assert [n.text for n in card.now] == ["Training for a half marathon"]
    assert outcome.mutations == ("promote_now_to_past: Started a new job at the museum",)


def test_resolve_an_overdue_horizon_item(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(
        card_text(
            horizon=[
                HorizonItem("Hand in the visa forms", "2026-08-05", [OLDER]),
                HorizonItem("Send the grant report to Ines", "2026-08-20", [CLOSED]),
            ]
        )
    )
    fake_models.enqueue(
        calls(("resolve_horizon", {"match": "visa", "note": "approved on Aug 9"})),
        calls(("add_past_anchor", {"text": "Visa approved in August 2026", "refs": [CLOSED]})),
        finish("Closed the visa item: it was approved."),
    )
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock)
    batch.commit("test")

    assert "Overdue Horizon items" in first_prompt(fake_models)
    assert '- "Hand in the visa forms" (by 2026-08-05, 6 days overdue)' in first_prompt(fake_models)
    card = parse_card(storage.files[CARD], clock.now())
    assert [h.text for h in card.horizon] == ["Send the grant report to Ines"]
    assert [a.text for a in card.past.anchors] == ["Visa approved in August 2026"]
    assert outcome.mutations[0] == "resolve_horizon: Hand in the visa forms (approved on Aug 9)"


def test_unchanged_substance_writes_nothing(fake_models: FakeModelServer, clock: FixedClock) -> None:
    original = card_text(anchors=[Anchor("Works at the museum", [OLDER])])
    storage = memory(original)
    fake_models.enqueue(
        calls(("add_now", {"text": "Temporary thing", "refs": [CLOSED]})),
        calls(("remove_now", {"match": "temporary"})),
        finish(reasoning="Nothing lasting in this slice."),
    )
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock)
    assert not outcome.changed and batch.changes == []
    assert outcome.reason == "Nothing new to record: Nothing lasting in this slice."
    assert outcome.event() == ("card.skipped", {"reason": outcome.reason})
    assert batch.commit("test").version == "0" and storage.files[CARD] == original


def test_step_cap_keeps_a_partial_result(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(card_text())
    fake_models.enqueue(
        calls(("add_now", {"text": "Training for a half marathon", "refs": [CLOSED]})),
        Reply(text="I am still thinking about it."),
    )
    batch = WriteBatch.open(storage)
    outcome = evolve_card(
        batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock, max_steps=2
    )
    batch.commit("test")
    assert outcome.partial and outcome.changed and outcome.summary.startswith("[partial] ")
    assert "Training for a half marathon" in storage.files[CARD]


def test_worker_error_is_retried_once_then_reported(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(card_text())
    fake_models.enqueue(Reply.error(500, "upstream exploded"), Reply.error(500, "still down"))
    batch = WriteBatch.open(storage)
    sleeps: list[float] = []
    outcome = evolve_card(
        batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock, sleep=sleeps.append
    )
    assert not outcome.changed and batch.changes == [] and sleeps == [0.3]
    assert outcome.error and "still down" in outcome.error
    assert outcome.event()[0] == "card.skipped" and "failed" in outcome.reason
    temperatures = [r.body.get("temperature") for r in fake_models.model_requests()]
    assert temperatures == [0.1, 0.4], "the retry runs a little warmer"


def test_worker_error_then_success_on_the_retry(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(card_text())
    fake_models.enqueue(
        Reply.error(500),
        calls(("set_identity", {"field": "name", "value": "Mara"})),
        finish("Your name is on the card now."),
    )
    batch = WriteBatch.open(storage)
    outcome = evolve_card(
        batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock, sleep=lambda _: None
    )
    assert outcome.changed and outcome.mutations == ("set_identity: Name: Mara",)


def test_worker_timeout_writes_nothing(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(card_text())
    fake_models.enqueue(Reply.stall(3))
    batch = WriteBatch.open(storage)
    outcome = evolve_card(
        batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock, budget_seconds=0.2
    )
    assert not outcome.changed and batch.changes == [] and outcome.error
    assert len(fake_models.model_requests()) == 1, "time already spent is not spent again"


def test_no_worker_is_an_error_not_an_exception(clock: FixedClock) -> None:
    storage = memory(card_text())
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, closed_request(storage), worker=None, clock=clock)
    assert not outcome.changed and outcome.error == "no model is configured" and batch.changes == []


def test_undo_copy_keeps_the_card_before_evolution(fake_models: FakeModelServer, clock: FixedClock) -> None:
    original = card_text(identity=["Name: Mara"])
    storage = memory(original)
    fake_models.enqueue(calls(("set_identity", {"field": "pronouns", "value": "she/her"})), finish())
    batch = WriteBatch.open(storage)
    outcome = evolve_card(batch, closed_request(storage), worker=worker(fake_models, clock), clock=clock)
    batch.commit("test")
    assert outcome.summary == "Card updated: 1 entry added."
    assert previous_card(storage.snapshot()) == original
    assert "- Pronouns: she/her" in storage.files[CARD]
