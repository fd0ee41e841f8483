"""Demo visitors on AWS (moto): each visitor's overlay under `demo/<persona>/<visitor>/overlay/`,
made by any container from the cookie, named in the turn's execution and read by its steps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from core.clock import SystemClock
from core.errors import InvalidInput
from core.memory import paths
from core.storage.base import Put
from core.storage.demo import DemoStorage
from core.turn.service import TurnInput
from functions.aws.demo_overlay import DEMO_OVERLAY_DAYS, S3Overlay, overlay_prefix
from functions.aws.steps import TaskPayload
from functions.aws.turns import StepFunctionsTurns, execution_input
from functions.compose import aws as compose
from functions.compose.demo import SAMPLE_ROOT, VISITOR_HOURS

pytestmark = pytest.mark.functional

A, B = "a" * 32, "0123456789abcdef" * 2
NOTE = paths.CONFIG_JSON


def test_a_visitors_overlay_has_a_prefix_of_its_own() -> None:
    assert overlay_prefix("nell", A) == f"demo/nell/{A}/overlay/"
    assert overlay_prefix("jia", B) == f"demo/jia/{B}/overlay/"
    assert overlay_prefix("nell") == "demo/nell/overlay/"
    for bad in ("../x", A.upper(), A[:-1], A + "0", "", f"{A[:31]}/"):
        with pytest.raises(InvalidInput, match="visitor id"):
            overlay_prefix("nell", bad)


def test_the_page_promises_what_the_bucket_keeps() -> None:
    assert DEMO_OVERLAY_DAYS * 24 == VISITOR_HOURS


def test_a_turn_names_its_visitor_and_a_step_checks_the_id() -> None:
    request = TurnInput("hi", connection_id="c=")
    found = execution_input("t1", request, "jia", A)
    assert found == {"turn_id": "t1", "connection_id": "c=", "persona": "jia", "visitor": A}
    assert TaskPayload.parse({"step": "save", "state": found}).visitor == A
    assert TaskPayload.parse({"step": "save", "state": {"turn_id": "t1"}}).visitor is None
    with pytest.raises(ValueError, match="visitor"):
        TaskPayload.parse({"step": "save", "state": {"turn_id": "t1", "visitor": "../../x"}})


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    env = {"AWS_DEFAULT_REGION": "us-east-1", "RUN_BUCKET": "runs", "STORAGE": "demo"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("PREVIOUSLY_SECRET_ARN", "PREVIOUSLY_MEMORY", "WS_CALLBACK_URL", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    compose.reset()
    with mock_aws():
        sfn = boto3.client("stepfunctions", region_name="us-east-1")
        definition = json.dumps({"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}})
        arn = sfn.create_state_machine(
            name="turn", definition=definition, roleArn="arn:aws:iam::123456789012:role/x"
        )["stateMachineArn"]
        monkeypatch.setenv("STATE_MACHINE_ARN", arn)
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="runs")
        yield sfn
    compose.reset()


def _keys() -> list[str]:
    listing = boto3.client("s3", region_name="us-east-1").list_objects_v2(Bucket="runs", Prefix="demo/")
    return [o["Key"] for o in listing.get("Contents", [])]


def test_two_visitors_overlays_never_meet_and_any_container_reads_them(aws: Any) -> None:
    def container(visitor: str) -> DemoStorage:
        s3 = boto3.client("s3", region_name="us-east-1")
        return DemoStorage(
            SAMPLE_ROOT, lambda pid: S3Overlay(s3, "runs", pid, SystemClock(), visitor=visitor)
        )

    container(A).commit([Put(NOTE, '{"locale": "zh"}\n')], "a visitor's settings")
    assert container(A).snapshot().read(NOTE) == '{"locale": "zh"}\n', "another container, same visitor"
    assert container(B).snapshot().read(NOTE) != '{"locale": "zh"}\n'
    assert all(k.startswith(f"demo/nell/{A}/overlay/") for k in _keys()) and _keys()


def test_the_api_makes_a_visitors_deps_over_their_overlay_and_turns_name_them(aws: Any) -> None:
    key = compose.secret_key()
    deps = compose.api_deps(key)
    assert deps.visitors is not None and deps.visitors.made_on_read, "S3 holds it: any container reads it"
    jia = deps.visitors.get("jia", A, create=False)
    assert jia is not None and jia.runs is compose.persona_run_store("jia")
    assert isinstance(jia.turns, StepFunctionsTurns)
    jia.storage.commit([Put(NOTE, "{}\n")], "settings")
    assert all(k.startswith(f"demo/jia/{A}/overlay/") for k in _keys())
    turn_id = jia.turns.start(TurnInput("hi", timezone="UTC"))
    nell = deps.visitors.get("nell", B, create=False)
    assert nell is not None and nell.runs is compose.run_store()
    nell_turn = nell.turns.start(TurnInput("hello", timezone="UTC"))
    inputs = {}
    for execution in aws.list_executions(stateMachineArn=compose.resources().state_machine_arn)["executions"]:
        described = json.loads(aws.describe_execution(executionArn=execution["executionArn"])["input"])
        inputs[described["turn_id"]] = described
    assert inputs[turn_id] == {"turn_id": turn_id, "connection_id": None, "persona": "jia", "visitor": A}
    assert inputs[nell_turn] == {"turn_id": nell_turn, "connection_id": None, "visitor": B}


def test_a_visitors_step_runs_over_their_own_overlay(aws: Any) -> None:
    key = compose.secret_key()
    compose.api_deps(key).visitors.get("jia", A, create=True).storage.commit(  # type: ignore[union-attr]
        [Put(NOTE, '{"locale": "zh"}\n')], "settings"
    )
    compose.reset()  # the step's container is another one
    env = compose.step_environment(compose.secret_key(), "jia", A)
    assert env.runs is compose.persona_run_store("jia")
    step = compose.visitor_turn_deps(compose.secret_key(), "jia", A)
    assert step.demo and step.storage.snapshot().read(NOTE) == '{"locale": "zh"}\n'
    other = compose.visitor_turn_deps(compose.secret_key(), "jia", B)
    assert other.storage.snapshot().read(NOTE) != '{"locale": "zh"}\n'
    default = compose.visitor_turn_deps(compose.secret_key(), None, A)
    assert default.run_store is compose.run_store()
    assert default.storage.snapshot().read(NOTE) != '{"locale": "zh"}\n', "nell's overlay is another one"
