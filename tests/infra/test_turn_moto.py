"""A real turn on the synthesized state machine: moto runs it, each task calls the real Lambda entry.

The step functions' handler (functions.handlers.steps) builds its dependencies from the
environment exactly as on AWS — settings, the S3 run store, the WebSocket push client — with a
local memory folder and the fake model server standing in for GitHub and the provider. The turn
is started and read through the Step Functions turn service, as the API and WebSocket do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from core.memory.paths import core_md
from core.memory.slice import parse_core_md
from core.storage.local import LocalStorage
from core.turn.service import TurnInput, TurnState
from core.turn.steps import STEP_TABLE
from functions.aws import compose
from functions.aws.turns import StepFunctionsTurns
from functions.handlers import steps as steps_handler
from infra.turn_workflow import function_id
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.infra.conftest import FULL, Synth
from tests.infra.sfn_harness import REGION, moto_state_machine, pushed_messages

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("cdk")]
CALLBACK = "https://abc123.execute-api.us-east-1.amazonaws.com/live"
CONNECTION = "Q29ubmVjdGlvbg="


@dataclass
class AwsTurn:
    turns: StepFunctionsTurns
    brain: Brain
    memory: Path
    handlers: dict[str, Callable[[dict[str, Any]], Any]]

    def run(self, message: str, timeout: float = 120) -> TurnState:
        turn_id = self.turns.start(TurnInput(message, timezone="Europe/Berlin", connection_id=CONNECTION))
        deadline = time.monotonic() + timeout
        # The turn is over for the client at turn.done; the execution still runs `after`: wait for both.
        while self.turns.state(turn_id).status == "running" or self.execution(turn_id) == "RUNNING":
            assert time.monotonic() < deadline, "the turn did not finish"
            time.sleep(0.05)
        return self.turns.state(turn_id)

    def execution(self, turn_id: str) -> str:
        arn = self.turns.state_machine_arn.replace(":stateMachine:", ":execution:") + ":" + turn_id
        return str(self.turns.client.describe_execution(executionArn=arn)["status"])

    def pushed(self) -> list[dict[str, Any]]:
        return pushed_messages(CONNECTION)


@pytest.fixture
def aws_turn(
    synth: Synth, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_models: FakeModelServer
) -> Iterator[AwsTurn]:
    memory = tmp_path / "memory-root"
    env = {
        "AWS_DEFAULT_REGION": REGION,
        "RUN_BUCKET": "runs",
        "WS_CALLBACK_URL": CALLBACK,
        "STORAGE": "local",
        "PREVIOUSLY_MEMORY": str(memory),
        "OPENAI_BASE_URL": fake_models.openai_base_url,
        "OPENAI_API_KEY": "test-key",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("PREVIOUSLY_SECRET_ARN", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    handlers = {f"Workflow{function_id(name)}": _task for name in [*STEP_TABLE, "record_failure"]}
    compose.reset()
    try:
        with moto_state_machine(synth.templates[FULL], handlers, monkeypatch, "Workflow") as machine:
            boto3.client("s3", region_name=REGION).create_bucket(Bucket="runs")
            monkeypatch.setenv("STATE_MACHINE_ARN", machine.arn)
            yield AwsTurn(compose.turns(), Brain.install(fake_models), memory, handlers)
    finally:
        compose.reset()


def _task(event: dict[str, Any]) -> Any:
    return steps_handler.handler(event, None)


def _types(state: TurnState) -> list[str]:
    return [f"{e['type']}@{e['step']}" for e in state.events]


def test_a_turn_with_a_tool_round_runs_on_the_state_machine(aws_turn: AwsTurn) -> None:
    aws_turn.brain.main(
        Reply(tool_calls=[ToolCall("currentTime", {})]),
        Reply(text="Nothing about gardens yet — tell me about yours!", reasoning="Checked memory."),
    )
    state = aws_turn.run("Do you remember my garden?")
    assert state.status == "done", _types(state)
    assert state.reply == "Nothing about gardens yet — tell me about yours!"
    assert [e["seq"] for e in state.events] == list(range(1, len(state.events) + 1))
    steps = [e["step"] for e in state.events if e["type"] == "step.started"]
    assert steps == ["save", "analyze", "respond", "tools", "respond", "finalize", "after"]
    assert "turn.done@finalize" in _types(state)
    # What the browser was pushed is what the run store holds.
    assert aws_turn.pushed() == state.events
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id)))
    assert text is not None
    assert [t.role for t in parse_core_md(text).turns] == ["user", "agent"]


def test_a_transient_model_failure_mid_stream_retries_the_step(aws_turn: AwsTurn) -> None:
    aws_turn.brain.main(
        Reply(text="Hello there, half a", status=500, error_after=2),
        Reply(text="Hello there, whole answer."),
    )
    state = aws_turn.run("Hi!")
    assert state.status == "done", _types(state)
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "respond"]
    assert attempts == [1, 2]
    assert state.reply == "Hello there, whole answer."
    assert [e["seq"] for e in state.events] == list(range(1, len(state.events) + 1))
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id))) or ""
    assert [t.content for t in parse_core_md(text).turns if t.role == "agent"] == [
        "Hello there, whole answer."
    ]


def test_a_model_that_stays_down_ends_the_turn_with_an_error_event(aws_turn: AwsTurn) -> None:
    aws_turn.brain.main(*[Reply(text="Hello there, half a", status=500, error_after=2) for _ in range(3)])
    state = aws_turn.run("Hi!")
    assert state.status == "error", _types(state)
    last = state.events[-1]
    assert (last["type"], last["step"], last["code"]) == ("turn.error", "respond", "model_unavailable")
    assert "Your message is saved" in last["message"]
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "respond"]
    assert attempts == [1, 2, 3]
    assert aws_turn.pushed()[-1] == last


def test_a_browser_that_went_away_never_fails_a_step(
    aws_turn: AwsTurn, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moto.apigatewaymanagementapi.models import ApiGatewayManagementApiBackend
    from moto.core.exceptions import JsonRESTError

    class Gone(JsonRESTError):
        code = 410

    attempts: list[str] = []

    def gone(self: Any, data: bytes, connection_id: str) -> None:
        attempts.append(connection_id)
        raise Gone("GoneException", "The connection is gone.")

    monkeypatch.setattr(ApiGatewayManagementApiBackend, "post_to_connection", gone)
    aws_turn.brain.main(Reply(text="Still here, and saved."))
    state = aws_turn.run("Hello? (closing the tab now)")
    assert state.status == "done", _types(state)
    assert state.reply == "Still here, and saved."
    # Each step's Lambda learns once that the client is gone, then stops pushing.
    steps = [e for e in state.events if e["type"] == "step.started"]
    assert 0 < len(attempts) <= len(steps) < len(state.events)
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id))) or ""
    assert [t.content for t in parse_core_md(text).turns] == [
        "Hello? (closing the tab now)",
        "Still here, and saved.",
    ]


def test_a_crashing_after_step_is_caught_and_the_turn_stays_done(aws_turn: AwsTurn) -> None:
    def crash(event: dict[str, Any]) -> Any:
        raise RuntimeError("the after Lambda ran out of memory")

    aws_turn.handlers[f"Workflow{function_id('after')}"] = crash
    aws_turn.brain.main(Reply(text="Noted."))
    state = aws_turn.run("Remember that I like figs.")
    assert state.status == "done", _types(state)
    assert state.reply == "Noted."
    assert not [e for e in state.events if e["type"] == "turn.error"]
    execution = aws_turn.execution(state.turn_id)
    assert execution == "SUCCEEDED"


def test_stop_pressed_while_saving_ends_the_turn_interrupted(aws_turn: AwsTurn) -> None:
    def prepare_then_stop(event: dict[str, Any]) -> Any:
        out = _task(event)
        aws_turn.turns.cancel(event["state"]["turn_id"])  # the stop button, through the S3 flag
        return out

    aws_turn.handlers[f"Workflow{function_id('save')}"] = prepare_then_stop
    aws_turn.brain.main(Reply(text="This should never be asked for."))
    state = aws_turn.run("Tell me a long story.")
    assert state.status == "interrupted", _types(state)
    assert aws_turn.brain.requests.get("main", []) == []
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id))) or ""
    assert [t.content for t in parse_core_md(text).turns if t.role == "user"] == ["Tell me a long story."]
