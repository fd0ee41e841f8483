"""The generated state machine, executed by moto with each task routed to the real step adapter.

A scripted table with the turn's shape (tests/infra/synthetic.py) runs through the definition
CDK synthesized: tasks go to functions.aws.steps.run_task, events land in an S3 run store and
are pushed through the API Gateway management API — all of it moto.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest

from core.errors import ModelError
from functions.aws.environment import LambdaStepEnvironment
from functions.aws.runstore import S3RunStore
from functions.aws.steps import run_task
from infra.turn_workflow import function_id
from tests.infra.conftest import WORKFLOW, Synth
from tests.infra.sfn_harness import REGION, Execution, MotoStateMachine, moto_state_machine, pushed_messages
from tests.infra.synthetic import CAP, STEPS, TABLE, Deps, Script

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("cdk")]
CALLBACK = "https://abc123.execute-api.us-east-1.amazonaws.com/live"
CONNECTION = "Zm9vYmFyCg="


@dataclass
class Run:
    machine: MotoStateMachine
    runs: S3RunStore
    script: Script

    def turn(self, turn_id: str = "t1") -> Execution:
        return self.machine.run({"turn_id": turn_id, "connection_id": CONNECTION}, name=turn_id)

    def pushed(self) -> list[dict[str, Any]]:
        return pushed_messages(CONNECTION)


@pytest.fixture
def run(synth: Synth, monkeypatch: pytest.MonkeyPatch) -> Iterator[Run]:
    script = Script()
    holder: dict[str, LambdaStepEnvironment] = {}

    def task(event: dict[str, Any]) -> Any:
        return run_task(event, TABLE, holder["env"])

    template = synth.templates[WORKFLOW]
    names = [spec.name for spec in STEPS] + ["record_failure"]
    handlers = {f"Workflow{function_id(name)}": task for name in names}
    with moto_state_machine(template, handlers, monkeypatch) as machine:
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket="runs")
        runs = S3RunStore(s3, "runs")
        push = boto3.client("apigatewaymanagementapi", region_name=REGION, endpoint_url=CALLBACK)
        holder["env"] = LambdaStepEnvironment(runs, push, lambda sink_for: Deps(sink_for, script))
        yield Run(machine, runs, script)


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [f"{e['step']}:{e['type']}" for e in events]


def _steps(run: Run) -> list[str]:
    return [c[0] for c in run.script.calls]


def test_a_full_turn_with_two_tool_rounds(run: Run) -> None:
    run.script.tool_rounds = 2
    ex = run.turn()
    assert ex.status == "SUCCEEDED"
    assert _steps(run) == ["prepare", "respond", "tools", "respond", "tools", "respond", "finalize", "after"]
    assert [c[2] for c in run.script.calls if c[0] == "respond"] == [0, 1, 2]
    events = run.runs.events("t1")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert _types(events)[:4] == [
        "prepare:step.started",
        "prepare:turn.started",
        "prepare:step.done",
        "respond:step.started",
    ]
    assert "finalize:turn.done" in _types(events)
    # Every delta is stored once (how they batch depends on timing: tests/functional/test_aws_push.py),
    # and the browser saw what the store holds.
    assert "".join(e["text"] for e in events if e["type"] == "text.delta") == "Hello" * 3
    assert run.pushed() == events
    assert ex.output["after_done"] is True and ex.output["loop"] == {"rounds": 2, "cap": CAP}
    assert "attempt" not in ex.output


def test_without_a_model_the_turn_ends_after_prepare(run: Run) -> None:
    run.script.no_model = True
    ex = run.turn()
    assert ex.status == "SUCCEEDED"
    assert ex.entered == ["Start", "Begin", "prepare", "prepare-next", "TurnDone"]
    assert run.runs.events("t1")[-2]["code"] == "no_model"


def test_a_transient_model_error_is_retried_and_numbered_on(run: Run) -> None:
    run.script.respond_failures = 1
    ex = run.turn()
    assert ex.status == "SUCCEEDED"
    assert [(s, a) for s, a, _ in run.script.calls if s == "respond"] == [("respond", 1), ("respond", 2)]
    events = run.runs.events("t1")
    respond = [(e["attempt"], e["type"], e.get("text")) for e in events if e["step"] == "respond"]
    assert respond == [
        (1, "step.started", None),
        (1, "text.delta", "Hel"),
        (2, "step.started", None),
        (2, "text.delta", "Hello"),
        (2, "step.done", None),
    ]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_a_conflict_in_prepare_is_retried(run: Run) -> None:
    run.script.prepare_conflicts = 2
    assert run.turn().status == "SUCCEEDED"
    assert [a for s, a, _ in run.script.calls if s == "prepare"] == [1, 2, 3]


def test_a_failing_best_effort_step_is_caught(run: Run) -> None:
    run.script.fail_after = True
    ex = run.turn()
    assert ex.status == "SUCCEEDED"
    assert ex.output["skipped_after"]["Error"] == "ModelError"
    assert ex.entered[-2:] == ["after", "TurnDone"]
    assert [e["type"] for e in run.runs.events("t1")][-1] == "step.started"  # after began, then failed


def test_the_tool_loop_stops_at_the_cap_whatever_the_step_asks(run: Run) -> None:
    run.script.tool_rounds = 50
    run.script.ignore_cap = True
    ex = run.turn()
    assert ex.status == "SUCCEEDED"
    assert _steps(run).count("tools") == CAP and _steps(run).count("respond") == CAP + 1
    assert ex.entered.count("CountRound") == CAP
    assert "respond-cap-reached" in ex.entered and _steps(run)[-2:] == ["finalize", "after"]
    assert ex.output["loop"]["rounds"] == CAP


def test_a_step_honouring_the_cap_never_meets_the_guard(run: Run) -> None:
    run.script.tool_rounds = 50
    ex = run.turn()
    assert _steps(run).count("tools") == CAP and "respond-cap-reached" not in ex.entered


def test_a_failed_step_ends_the_turn_with_its_error(run: Run) -> None:
    run.script.fail_finalize_with = ModelError("The model rejected the request: check the model id.")
    ex = run.turn()
    assert ex.status == "FAILED" and ex.error == "ModelError"
    last = run.runs.events("t1")[-1]
    assert (last["type"], last["step"], last["code"]) == ("turn.error", "finalize", "model_error")
    assert "The model rejected the request: check the model id." in last["message"]
    assert run.pushed()[-1] == last


def test_an_unexpected_error_does_not_leak_its_message(run: Run) -> None:
    run.script.fail_finalize_with = KeyError("secret internals")
    ex = run.turn()
    assert ex.status == "FAILED" and ex.error == "KeyError"
    last = run.runs.events("t1")[-1]
    assert last["code"] == "internal" and "secret internals" not in last["message"]
