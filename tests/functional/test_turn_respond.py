"""The respond step's own rules: continuation after the length limit, a retried stream, the round cap."""

from __future__ import annotations

import dataclasses

import pytest

from core.clock import FixedClock
from core.memory.paths import agent_md, core_md
from core.storage.memory import InMemoryStorage
from core.turn.steps import TOOL_ROUND_CAP
from core.turn.steps.respond import CONTINUE_NUDGE
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.fakes.slices import slice_text
from tests.functional.turn_support import assert_gap_free, make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


def test_a_reply_cut_by_the_length_limit_is_continued(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(Reply(text="The first half,", finish="length"), "and the second half.")
    state = h.turn("Tell me a story.")
    assert state.status == "done" and state.reply == "The first half,and the second half."
    second = h.brain.requests["main"][1]
    assert second.last_user_text == CONTINUE_NUDGE
    assert h.slice(SLICE).turns[-1].content == "The first half,\n\nand the second half."


def test_a_stream_that_breaks_is_retried_and_only_the_new_attempt_counts(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(Reply.disconnect("A first attempt that breaks off somewhere", after=3), "The whole answer.")
    state = h.turn("Question?")
    assert state.status == "done" and state.reply == "The whole answer."
    assert_gap_free(state.events)
    texts = [(e["attempt"], e["text"]) for e in state.events if e["type"] == "text.delta"]
    assert texts[-1] == (2, "The whole answer.") and texts[0][0] == 1, "the broken attempt streamed first"
    assert h.slice(SLICE).turns[-1].content == "The whole answer."


def test_the_last_round_must_answer_without_tools(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    looping = [Reply(tool_calls=[ToolCall("readSlice", {"sliceId": SLICE}, id=f"c{i}")]) for i in range(8)]
    h.brain.main(*looping, "Enough looking: here is my answer.")
    state = h.turn("Look it up, thoroughly.")
    assert state.status == "done" and state.reply == "Enough looking: here is my answer."
    requests = h.brain.requests["main"]
    assert len(requests) == TOOL_ROUND_CAP + 1
    assert [r.body.get("tool_choice") for r in requests[:-1]] == ["auto"] * TOOL_ROUND_CAP
    assert requests[-1].body.get("tool_choice") == "none"
    rounds = [e for e in state.events if e["type"] == "step.started" and e["step"] == "tools"]
    assert len(rounds) == TOOL_ROUND_CAP


def test_recall_streams_its_progress_and_hits(clock: FixedClock, fake_models: FakeModelServer) -> None:
    old = "2026-08-01-0800"
    storage = InMemoryStorage.from_texts(
        {str(core_md(old)): slice_text(old, [("user", "Planted tomatoes today."), ("agent", "Nice!")])}
    )
    h = make_harness(storage, clock, fake_models)
    assert h.brain is not None
    h.brain.reports["recallReport"] = {
        "hits": [{"slice_id": old, "relevance": 0.9, "reason": "tomatoes planted"}],
        "confidence": 0.8,
        "reasoning": "found it",
        "recommended_reads": [{"slice_id": old, "priority": "high", "reason": "the planting"}],
    }
    h.brain.main(Reply(tool_calls=[ToolCall("recall", {"query": "tomatoes"}, id="r1")]), "On August 1st.")
    state = h.turn("When did I plant the tomatoes?")
    assert state.status == "done" and state.reply == "On August 1st."
    progress = [e for e in state.events if e["type"] == "recall.progress"]
    assert progress and all(e["call_id"] == "r1" and e["step"] == "recall" for e in progress)
    [hits] = [e for e in state.events if e["type"] == "recall.hits"]
    assert (hits["call_id"], hits["query"], hits["confidence"]) == ("r1", "tomatoes", 0.8)
    assert [h["slice_id"] for h in hits["hits"]] == [old] and hits["recommended"][0]["slice_id"] == old
    done = [e for e in state.events if e["type"] == "tool.call" and e["state"] == "completed"]
    assert done and "tomatoes" in done[0]["label"]
    assert '- `recall`(query: "tomatoes") → ok' in (h.read(str(agent_md(SLICE))) or "")


def test_a_round_with_recall_and_other_tools_runs_recall_then_the_tools(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    calls = [
        ToolCall("recall", {"query": "tomatoes"}, id="r1"),
        ToolCall("readSlice", {"sliceId": SLICE}, id="v1"),
    ]
    h.brain.main(Reply(tool_calls=calls), "Done.")
    state = h.turn("When did I plant the tomatoes?")
    assert state.status == "done" and state.reply == "Done."
    steps = [e["step"] for e in state.events if e["type"] == "step.started"]
    assert steps == ["save", "analyze", "respond", "recall", "tools", "respond", "finalize", "after"]
    ended = {
        e["call_id"]: e["step"] for e in state.events if e["type"] == "tool.call" and e["state"] != "running"
    }
    assert ended == {"r1": "recall", "v1": "tools"}
    second = h.brain.requests["main"][1].body["messages"]
    answered = [m.get("tool_call_id") for m in second if m.get("role") == "tool"]
    assert answered == ["r1", "v1"], "the results reach the model in the order it asked"


def test_a_recall_that_keeps_failing_falls_back_to_the_full_text_floor(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    from core.errors import ModelTransientError
    from core.turn.steps import STEP_TABLE

    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(Reply(tool_calls=[ToolCall("recall", {"query": "tomatoes"}, id="r1")]), "From the floor.")

    def broken(state: dict, deps: object) -> dict:
        raise ModelTransientError("the worker is overloaded")

    table = h.service.threads.flow
    h.service.threads.flow = dataclasses.replace(
        table,
        steps=tuple(dataclasses.replace(s, run=broken) if s.name == "recall" else s for s in table.steps),
    )
    state = h.turn("When did I plant the tomatoes?")
    assert state.status == "done" and state.reply == "From the floor."
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "recall"]
    assert attempts == [1, 2, 3], "retried alone, as its rule says"
    responds = [e for e in state.events if e["type"] == "step.started" and e["step"] == "respond"]
    assert len(responds) == 2, "respond is not run again for a failing recall"
    [done] = [e for e in state.events if e["type"] == "tool.call" and e["state"] == "completed"]
    assert done["step"] == "tools" and done["call_id"] == "r1"
    assert STEP_TABLE["recall"].best_effort
    assert not h.brain.requests.get("recallReport"), "the floor answers without the worker"
