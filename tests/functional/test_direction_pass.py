"""The direction pass over direction, playbooks and fitness, driven by the fake model server."""

from __future__ import annotations

import json

import pytest

from core.agent.evolution.card_pass import EvolutionRequest
from core.agent.evolution.direction_pass import DirectionOutcome, evolve_direction
from core.clock import FixedClock
from core.memory.evolution import direction as d
from core.memory.evolution.fitness import Fitness, Signal, render_fitness
from core.memory.evolution.paths import DIRECTION_MD, FITNESS_JSON, playbook_md, undo_copy
from core.memory.evolution.store import undo_file
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.evolution import CLOSED, OLDER, calls, memory, slice_of, tool_results, worker
from tests.fakes.fake_model_server import FakeModelServer, Reply

pytestmark = pytest.mark.functional


def done(reasoning: str = "done") -> Reply:
    return calls(("finish_direction", {"reasoning": reasoning}))


def request(storage: InMemoryStorage) -> EvolutionRequest:
    closed = slice_of(storage, CLOSED)
    return EvolutionRequest("slice_closed", CLOSED, turns=closed.turns, timezone="Europe/Berlin")


def run(
    storage: InMemoryStorage, fake: FakeModelServer, clock: FixedClock, wire: str = "openai"
) -> DirectionOutcome:
    batch = WriteBatch.open(storage)
    outcome = evolve_direction(batch, request(storage), worker=worker(fake, clock, wire), clock=clock)
    batch.commit("test")
    return outcome


def results(fake: FakeModelServer) -> list[str]:
    return tool_results(fake.model_requests()[-1].body)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_accepted_mutations_are_written(fake_models: FakeModelServer, clock: FixedClock, wire: str) -> None:
    storage = memory()
    fake_models.enqueue(
        calls(
            ("add_trait", {"text": "Plans in small weekly steps", "refs": [CLOSED, OLDER]}),
            (
                "open_hypothesis",
                {
                    "claim": "Wants deadlines tracked for them",
                    "test": "asks for reminders again",
                    "refs": [CLOSED],
                },
            ),
            (
                "write_playbook",
                {"agent": "recall", "text": "Dates matter more than topics in their questions."},
            ),
            ("score", {"bucket": "card", "score": 1, "evidence": "Three runs a week."}),
        ),
        done("learned how they plan"),
    )
    outcome = run(storage, fake_models, clock, wire)
    assert outcome.changed and outcome.error is None
    direction = d.parse_direction(storage.files[DIRECTION_MD])
    assert [(t.text, t.refs) for t in direction.portrait] == [
        ("Plans in small weekly steps", ["2026/08/11/1015", "2026/07/30/0900"])
    ]
    (h,) = direction.hypotheses
    assert (h.id, h.opened, h.expires) == ("h1", "2026-08-11", "2026-09-01")
    assert storage.files[playbook_md("recall")] == "Dates matter more than topics in their questions.\n"
    scores = json.loads(storage.files[FITNESS_JSON])["scores"]
    assert scores == [{"slice": CLOSED, "bucket": "card", "score": 1, "evidence": "Three runs a week.",
                       "at": "2026-08-11T11:15:00.000Z"}]  # fmt: skip
    assert undo_copy(DIRECTION_MD) not in storage.files  # nothing was replaced, nothing to undo


def test_rejected_mutations_say_what_to_do_and_write_nothing(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    storage = memory()
    fake_models.enqueue(
        calls(
            ("add_trait", {"text": "Always answer briefly", "refs": [CLOSED]}),
            ("add_trait", {"text": "Runs three times a week", "refs": []}),
            ("add_trait", {"text": "Runs three times a week", "refs": ["2020-01-01-0000"]}),
            ("score", {"bucket": "recall", "score": -1, "evidence": "words the user never said"}),
            ("score", {"bucket": "recall", "score": 3, "evidence": ""}),
            ("write_playbook", {"agent": "recall", "text": "x" * 1300}),
            ("write_playbook", {"agent": "mail", "text": "hi"}),
            ("score", {"bucket": "card", "score": 1, "evidence": "x" * 401}),
        ),
        done("nothing held"),
    )
    outcome = run(storage, fake_models, clock)
    replies = results(fake_models)
    assert all(r.startswith("REJECTED") for r in replies[:6]), "\n".join(replies)
    assert "describes the user; it is not an instruction" in replies[0]
    assert "refs are required" in replies[1] and "does not exist" in replies[2]
    assert "the user's own words from this slice" in replies[3]
    assert "between -2 and 1" in replies[4] and "the limit is 1200" in replies[5]
    assert replies[6].startswith("ERROR: invalid arguments for write_playbook: agent")
    assert replies[7].startswith("REJECTED: the evidence is 401 chars; the limit is 400")
    assert not outcome.changed
    assert not any(p.value.startswith("memory/evolution") or "playbooks" in p.value for p in storage.files)


def test_an_evidence_less_score_is_recorded_as_zero(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory()
    fake_models.enqueue(calls(("score", {"bucket": "interaction", "score": -2})), done())
    run(storage, fake_models, clock)
    assert results(fake_models)[0] == "OK — interaction scored +0."
    (score,) = json.loads(storage.files[FITNESS_JSON])["scores"]
    assert (score["bucket"], score["score"], score["evidence"]) == ("interaction", 0, "")


def _expired_direction() -> str:
    return d.render_direction(
        d.Direction(
            updated="2026-07-01T00:00:00.000Z",
            hypotheses=[
                d.Hypothesis("h1", "Prefers mornings", "replies at 7am", [OLDER], "2026-07-01", "2026-07-22")
            ],
        )
    )


def test_an_expired_hypothesis_blocks_new_ones_until_resolved(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    storage = memory(extra={str(DIRECTION_MD): _expired_direction()})
    fake_models.enqueue(
        calls(("open_hypothesis", {"claim": "Likes lists", "test": "asks for bullets", "refs": [CLOSED]})),
        calls(("confirm_hypothesis", {"hypothesis_id": "h1", "refs": [CLOSED],
                                      "trait": "Does their best thinking early in the day"})),
        calls(("open_hypothesis", {"claim": "Likes lists", "test": "asks for bullets", "refs": [CLOSED]})),
        done(),
    )  # fmt: skip
    run(storage, fake_models, clock)
    prompt = fake_models.model_requests()[0].last_user_text
    assert (
        "Expired — confirm or drop each" in prompt and "h1: Prefers mornings (expired 2026-07-22)" in prompt
    )
    first = tool_results(fake_models.model_requests()[1].body)[-1]
    assert first.startswith("REJECTED: h1 expired and must be resolved first")
    direction = d.parse_direction(storage.files[DIRECTION_MD])
    assert [(t.text, t.refs) for t in direction.portrait] == [
        ("Does their best thinking early in the day", ["2026/07/30/0900", "2026/08/11/1015"])
    ]
    assert [h.claim for h in direction.hypotheses] == ["Likes lists"]
    # the replaced text is the undo copy; undo puts it back
    assert storage.files[undo_copy(DIRECTION_MD)] == _expired_direction()
    batch = WriteBatch.open(storage)
    undo_file(batch, DIRECTION_MD)
    batch.commit("undo")
    assert storage.files[DIRECTION_MD] == _expired_direction()


def test_a_dropped_hypothesis_cannot_be_reopened(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory(extra={str(DIRECTION_MD): _expired_direction()})
    fake_models.enqueue(
        calls(("drop_hypothesis", {"hypothesis_id": "h1", "reason": "no morning pattern"})),
        calls(("open_hypothesis", {"claim": "prefers mornings", "test": "t", "refs": [CLOSED]})),
        done(),
    )
    run(storage, fake_models, clock)
    assert "this Hypotheses (or Rejected) entry is already" in results(fake_models)[-1]
    direction = d.parse_direction(storage.files[DIRECTION_MD])
    assert direction.hypotheses == [] and direction.rejected == [d.Rejected("Prefers mornings", "2026-08-11")]


def test_the_pool_and_portrait_hold_their_caps(fake_models: FakeModelServer, clock: FixedClock) -> None:
    full = d.Direction(
        portrait=[d.Trait(f"Trait number {i}", [OLDER]) for i in range(d.PORTRAIT_MAX)],
        hypotheses=[
            d.Hypothesis(f"h{i}", f"Claim {i}", "t", [OLDER], "2026-08-10", "2026-08-30")
            for i in range(1, d.HYPOTHESES_MAX + 1)
        ],
    )
    storage = memory(extra={str(DIRECTION_MD): d.render_direction(full)})
    fake_models.enqueue(
        calls(
            ("add_trait", {"text": "One trait too many", "refs": [CLOSED]}),
            ("open_hypothesis", {"claim": "One guess too many", "test": "t", "refs": [CLOSED]}),
        ),
        done(),
    )
    outcome = run(storage, fake_models, clock)
    replies = results(fake_models)
    assert "(the cap)" in replies[0] and "(the cap)" in replies[1]
    assert not outcome.changed
    assert storage.files[DIRECTION_MD] == d.render_direction(full)


def test_a_failed_pass_writes_nothing(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory()
    before = dict(storage.files)
    outcome = run(storage, fake_models, clock)  # nothing scripted: the fake answers with an error
    assert outcome.error
    assert storage.files == before


def test_the_slices_signals_reach_the_prompt_counted_and_others_do_not(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    signals = [Signal("recall_reworked", "t", CLOSED, "a"), Signal("recall_reworked", "t", CLOSED, "b"),
               Signal("stop", "t", CLOSED, "c"), Signal("recall_verified", "t", OLDER, "d")]  # fmt: skip
    storage = memory(extra={str(FITNESS_JSON): render_fitness(Fitness(signals=signals))})
    fake_models.enqueue(done())
    run(storage, fake_models, clock)
    prompt = fake_models.model_requests()[0].last_user_text
    section = prompt.split("## Observed in this slice", 1)[1].split("\n\n", 1)[0]
    assert section.splitlines()[1:] == [
        "- a recall was redone (reworded, or other slices read instead): 2",
        "- the user stopped an answer: 1",
    ]


def test_a_damaged_ledger_leaves_the_pass_without_signals(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    storage = memory(extra={str(FITNESS_JSON): "{not json"})
    fake_models.enqueue(done())
    assert run(storage, fake_models, clock).error is None
    assert "## Observed in this slice (recorded by the code, not the user's words)\n(nothing)" in (
        fake_models.model_requests()[0].last_user_text
    )
    assert storage.files[FITNESS_JSON] == "{not json"
