"""Every way a turn can go wrong, and what the user and the memory are left with."""

from __future__ import annotations

import json

import pytest

from core.clock import FixedClock
from core.errors import ConflictError, TransientError
from core.memory.paths import agent_md, core_md
from core.storage.memory import InMemoryStorage
from core.turn.events import Event
from tests.fakes.brain import ANALYZER, analysis
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.functional.turn_support import FlakyStorage, Harness, assert_gap_free, make_harness, types_of

pytestmark = pytest.mark.functional

SLICE = "2026-08-11-1115"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


def terminal(events: list[Event]) -> list[Event]:
    return [e for e in events if e["type"] in ("turn.done", "turn.error")]


def user_only(h: Harness, message: str) -> None:
    s = h.slice(SLICE)
    assert [(t.role, t.content) for t in s.turns] == [("user", message)]


def test_no_model_records_the_message_and_says_how_to_configure(clock: FixedClock) -> None:
    h = make_harness(InMemoryStorage(), clock, None)
    state = h.turn("Is anyone there?")
    assert state.status == "error"
    assert types_of(state.events) == [
        "step.started@save",
        "turn.started@save",
        "step.done@save",
        "step.started@analyze",
        "turn.error@analyze",
        "step.done@analyze",
    ]
    error = state.events[4]
    assert error["code"] == "no_model" and "OPENAI_API_KEY" in error["message"]
    assert h.storage.commits == ["Turn t00001 — user message"]
    user_only(h, "Is anyone there?")
    assert h.read(str(agent_md(SLICE))) is None


def test_model_down_retries_then_reports(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    fake_models.responder = lambda r: Reply.error(500, "upstream exploded")
    state = h.turn("Hello?")
    assert state.status == "error"
    assert_gap_free(state.events)
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "respond"]
    assert attempts == [1, 2, 3]
    assert h.sleeps == [2.0, 4.0], "the table's backoff, through the injected sleep"
    [error] = terminal(state.events)
    assert error["code"] == "model_unavailable"
    assert "Your message is saved" in error["message"] and "HTTP 500" in error["message"]
    assert h.storage.commits == ["Turn t00001 — user message"]
    user_only(h, "Hello?")


def test_model_timing_out(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models, model_timeout=0.3)

    def answer(request: RecordedRequest) -> Reply:
        if request.forced_tool == ANALYZER:
            return Reply(tool_calls=[ToolCall(ANALYZER, analysis(["x"]))])
        return Reply.stall(2.0)

    fake_models.responder = answer
    state = h.turn("Still there?")
    [error] = terminal(state.events)
    assert error["code"] == "model_unavailable" and "did not answer within" in error["message"]
    user_only(h, "Still there?")


def test_malformed_tool_arguments_go_back_to_the_model(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(
        Reply(tool_calls=[ToolCall("readSlice", "{not json", id="c1")]), "Sorry — here is my answer."
    )
    state = h.turn("Look something up.")
    assert state.status == "done" and state.reply == "Sorry — here is my answer."
    [running, failed] = [e for e in state.events if e["type"] == "tool.call"]
    assert (running["state"], failed["state"], failed["input"]) == ("running", "error", "{not json")
    assert "invalid arguments for readSlice" in failed["output"]
    second = h.brain.requests["main"][1].body["messages"]
    assert any("invalid arguments for readSlice" in str(m.get("content")) for m in second)
    assert "→ error: ERROR: invalid arguments for readSlice" in (h.read(str(agent_md(SLICE))) or "")


def test_unknown_slice_id_and_unknown_tool(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(
        Reply(
            tool_calls=[
                ToolCall("readSlice", {"sliceId": "2020-01-01-0000"}, id="a"),
                ToolCall("readSlice", {"sliceId": "banana"}, id="b"),
                ToolCall("teleport", {}, id="c"),
            ]
        ),
        "I could not find that conversation.",
    )
    state = h.turn("What did we say in January 2020?")
    assert state.status == "done"
    outputs = {e["call_id"]: e for e in state.events if e["type"] == "tool.call" and e["state"] != "running"}
    assert {k: v["state"] for k, v in outputs.items()} == {"a": "error", "b": "error", "c": "error"}
    assert "no slice 2020-01-01-0000" in outputs["a"]["output"]
    assert '"banana" is not a slice id' in outputs["b"]["output"]
    assert "there is no tool 'teleport'" in outputs["c"]["output"]
    assert h.storage.commits == ["Turn t00001 — user message", "Turn t00001 — agent response"]


def test_unknown_client_slice_closes_as_context_lost(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main("First answer.", "Fresh start.")
    h.turn("First message.")
    clock.advance(minutes=2)
    state = h.turn("From another device.", client_slice_id="1999-01-01-0000", agent_turns_seen=0)
    started = next(e for e in state.events if e["type"] == "turn.started")
    assert started["slice_closed"] == SLICE and started["slice_id"] == "2026-08-11-1117"
    assert h.slice(SLICE).closed_by == "context_lost"


def test_commit_conflict_merges_the_other_writers_turn(
    clock: FixedClock, fake_models: FakeModelServer, fake_github: FakeGitHub
) -> None:
    h = make_harness(fake_github.client(), clock, fake_models)
    assert h.brain is not None
    h.brain.main("My answer.")
    path = str(core_md(SLICE))

    def other_writer(fake: FakeGitHub) -> None:
        text = fake.read(path) or ""
        fake.commit_files(
            {path: text + "\n\n## Turn phone1 — 2026-08-11T11:15:30.000Z (user)\n\nFrom my phone."}
        )

    def race_finalize(event: Event) -> None:
        if event["type"] == "step.started" and event["step"] == "finalize":
            fake_github.race_next_patch(other_writer)

    h.hooks.append(race_finalize)
    state = h.turn("From my laptop.")
    assert state.status == "done"
    turns = [(t.turn_id, t.role) for t in h.slice(SLICE).turns]
    assert turns == [("t00001", "user"), ("phone1", "user"), ("t00001", "agent")]
    messages = [c.message for c in fake_github.log()]
    assert messages[:3] == ["Turn t00001 — agent response", "Concurrent commit", "Turn t00001 — user message"]


def test_conflict_that_outlasts_the_storage_retries_the_step(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    flaky = FlakyStorage(
        InMemoryStorage(), match="agent response", times=2, error=lambda: ConflictError("moved")
    )
    h = make_harness(flaky, clock, fake_models)
    assert h.brain is not None
    h.brain.main("Answer.")
    state = h.turn("Question.")
    assert state.status == "done"
    assert_gap_free(state.events)
    assert [
        e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "finalize"
    ] == [1, 2, 3]
    assert [t.role for t in h.slice(SLICE).turns] == ["user", "agent"]


@pytest.mark.parametrize("step,match", [("save", "user message"), ("finalize", "agent response")])
def test_a_retried_step_never_duplicates(
    clock: FixedClock, fake_models: FakeModelServer, step: str, match: str
) -> None:
    # The commit lands, then the step fails anyway (a lost response): the retry must add nothing.
    flaky = FlakyStorage(
        InMemoryStorage(), match=match, times=1, error=lambda: TransientError("lost"), land=True
    )
    h = make_harness(flaky, clock, fake_models)
    assert h.brain is not None
    h.brain.main("Answer.")
    state = h.turn("Question.")
    assert state.status == "done" and state.reply == "Answer."
    assert_gap_free(state.events)
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == step]
    assert attempts == [1, 2]
    assert [t.role for t in h.slice(SLICE).turns] == ["user", "agent"]
    assert h.storage.commits == ["Turn t00001 — user message", "Turn t00001 — agent response"]
    assert [e["type"] for e in state.events].count("turn.started") == 1
    assert len(terminal(state.events)) == 1
    assert (h.read(str(agent_md(SLICE))) or "").count("## Cognition t00001") == 1


def test_cancel_mid_stream_keeps_a_partial_reply(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    long = "\n".join(f"Line {i} of a long and winding answer." for i in range(40))
    h.brain.main(Reply(text=long, chunk_size=8))

    def stop_on_first_text(event: Event) -> None:
        if event["type"] == "text.delta":
            h.service.cancel(event["turn_id"])

    h.hooks.append(stop_on_first_text)
    state = h.turn("Tell me everything.")
    assert state.status == "interrupted"
    [done] = terminal(state.events)
    assert (
        done["type"] == "turn.done" and done["status"] == "interrupted" and done["agent_turn_id"] == "t00001"
    )
    agent = h.slice(SLICE).turns[-1]
    assert agent.role == "agent" and agent.content.startswith("[partial] Line 0")
    assert len(agent.content) < len(long)
    assert state.reply and long.startswith(state.reply)
    # The stop is a mechanical signal for the evolution layer, recorded once per turn.
    ledger = json.loads(h.read("memory/evolution/fitness.json") or "{}")
    assert [(s["kind"], s["slice"], s["detail"]) for s in ledger["signals"]] == [("stop", SLICE, "t00001")]


def test_a_refused_request_keeps_partial_text(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(Reply.error_mid_stream(400, "content rejected", after=3))
    state = h.turn("Say something.")
    assert state.status == "error"
    [error] = terminal(state.events)
    assert error["code"] == "model_error" and "content rejected" in error["message"]
    agent = h.slice(SLICE).turns[-1]
    assert agent.role == "agent" and agent.content.startswith("[partial] ")


def test_a_refusal_before_any_text_stores_no_agent_turn(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(Reply.error(401, "bad key"))
    state = h.turn("Hi.")
    [error] = terminal(state.events)
    assert error["code"] == "model_error" and "OPENAI_API_KEY" in error["message"]
    user_only(h, "Hi.")
    assert h.read(str(agent_md(SLICE))) is None
