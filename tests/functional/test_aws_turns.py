"""Turns on Step Functions (moto): started by turn id with ids only; status from events and the execution."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from core.clock import SequentialIds
from core.errors import NotFound
from core.turn.runstore import MemoryRunStore
from core.turn.service import TurnInput
from functions.aws.turns import StepFunctionsTurns, reply_from

pytestmark = pytest.mark.functional
DEFINITION = json.dumps({"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}})


@pytest.fixture
def sfn() -> Iterator[tuple[Any, str]]:
    with mock_aws():
        client = boto3.client("stepfunctions", region_name="us-east-1")
        arn = client.create_state_machine(
            name="turn", definition=DEFINITION, roleArn="arn:aws:iam::123456789012:role/x"
        )["stateMachineArn"]
        yield client, arn


@pytest.fixture
def runs() -> MemoryRunStore:
    return MemoryRunStore()


@pytest.fixture
def turns(sfn: tuple[Any, str], runs: MemoryRunStore) -> StepFunctionsTurns:
    client, arn = sfn
    return StepFunctionsTurns(runs, client, arn, SequentialIds(prefix="turn"), status_every=0.01)


def ev(seq: int, type: str, step: str = "respond", attempt: int = 1, **fields: Any) -> dict[str, Any]:
    return {"turn_id": "turn00001", "seq": seq, "type": type, "step": step, "attempt": attempt, **fields}


def test_start_records_the_request_and_names_the_execution_by_turn_id(
    turns: StepFunctionsTurns, runs: MemoryRunStore, sfn: tuple[Any, str]
) -> None:
    request = TurnInput(message="x" * 300_000, timezone="Europe/Lisbon", connection_id="conn=")
    turn_id = turns.start(request)
    assert turn_id == "turn00001"
    assert runs.get(turn_id, "request")["message"] == "x" * 300_000
    client, arn = sfn
    (execution,) = client.list_executions(stateMachineArn=arn)["executions"]
    assert execution["name"] == turn_id
    described = client.describe_execution(executionArn=execution["executionArn"])
    assert json.loads(described["input"]) == {"turn_id": turn_id, "connection_id": "conn="}


def test_a_turn_id_already_used_is_skipped(turns: StepFunctionsTurns, runs: MemoryRunStore) -> None:
    runs.put("turn00001", "request", {})
    assert turns.start(TurnInput(message="hi")) == "turn00002"


def test_state_reads_events_and_the_reply(turns: StepFunctionsTurns, runs: MemoryRunStore) -> None:
    turn_id = turns.start(TurnInput(message="hi"))
    runs.append(
        turn_id,
        [
            ev(
                1,
                "turn.started",
                "prepare",
                slice_id="2026-08-11-1115",
                slice_opened=True,
                slice_closed=None,
                user_turn_id="u1",
            )
        ],
    )
    running = turns.state(turn_id)
    assert (running.status, running.reply, running.slice_id) == ("running", None, "2026-08-11-1115")
    runs.append(
        turn_id,
        [
            ev(2, "step.started", label="x"),
            ev(3, "text.delta", text="Hel"),
            ev(4, "step.started", attempt=2, label="x"),
            ev(5, "text.delta", attempt=2, text="Hello"),
            ev(6, "turn.done", "finalize", status="done", agent_turn_id="a1", usage={}),
        ],
    )
    done = turns.state(turn_id, after=5)
    assert done.status == "done" and done.reply == "Hello"
    assert [e["seq"] for e in done.events] == [6]


def test_an_execution_that_ended_without_an_event_reads_as_error(
    turns: StepFunctionsTurns, runs: MemoryRunStore, sfn: tuple[Any, str]
) -> None:
    turn_id = turns.start(TurnInput(message="hi"))
    client, arn = sfn
    execution_arn = arn.replace(":stateMachine:", ":execution:") + ":" + turn_id
    runs.append(turn_id, [ev(1, "turn.started", "prepare", slice_id="s1"), ev(2, "step.started", "respond")])
    client.stop_execution(executionArn=execution_arn, error="States.Timeout")
    state = turns.state(turn_id, after=2)
    assert state.status == "error"
    (end,) = state.events
    assert (end["seq"], end["type"], end["step"], end["code"]) == (3, "turn.error", "respond", "internal")
    assert "ExecutionAborted" in end["message"] and "Your message is saved" in end["message"]
    # Written once: a second read finds it stored and adds nothing.
    assert [e["seq"] for e in runs.events(turn_id)] == [1, 2, 3]
    assert turns.state(turn_id, after=2).events == [end]


def test_unknown_turns_are_not_found(turns: StepFunctionsTurns) -> None:
    with pytest.raises(NotFound):
        turns.state("nope")


def test_wait_returns_when_events_arrive_or_time_runs_out(
    turns: StepFunctionsTurns, runs: MemoryRunStore
) -> None:
    turn_id = turns.start(TurnInput(message="hi"))
    assert turns.wait(turn_id, after=0, timeout=0.05).events == []
    runs.append(turn_id, [ev(1, "step.started", "prepare", label="x")])
    assert [e["seq"] for e in turns.wait(turn_id, after=0, timeout=5).events] == [1]


def test_the_reply_drops_the_text_of_failed_attempts_only() -> None:
    events = [
        ev(1, "step.started", attempt=1),
        ev(2, "text.delta", text="Let me look. "),
        ev(3, "step.done"),
        ev(4, "step.started", "tools"),
        ev(5, "step.done", "tools"),
        ev(6, "step.started", attempt=1),
        ev(7, "text.delta", text="dropped"),
        ev(8, "step.started", attempt=2),
        ev(9, "text.delta", attempt=2, text="Found it."),
    ]
    assert reply_from(events) == "Let me look. Found it."
    assert reply_from([]) is None


def test_cancel_sets_the_flag_only_while_running(turns: StepFunctionsTurns, runs: MemoryRunStore) -> None:
    turn_id = turns.start(TurnInput(message="hi"))
    turns.cancel(turn_id)
    assert runs.get(turn_id, "cancel") is True
    done = turns.start(TurnInput(message="again"))
    runs.append(done, [ev(1, "turn.done", "finalize", status="done", agent_turn_id="a", usage={})])
    turns.cancel(done)
    assert runs.get(done, "cancel") is None
