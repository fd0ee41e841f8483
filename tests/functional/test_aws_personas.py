"""How a demo persona other than the default travels through a turn on AWS: the execution input
names it, the step task reads it, its runs get a prefix of their own, the API wires it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import given
from hypothesis import strategies as st
from moto import mock_aws

from core.errors import InvalidInput
from core.turn.service import TurnInput
from functions.aws.runstore import persona_run_prefix
from functions.aws.steps import TaskPayload
from functions.aws.turns import StepFunctionsTurns, execution_input
from functions.compose import aws as compose
from functions.compose.demo import recorded_persona
from functions.logs import step_keys
from functions.settings import Settings, load_settings

pytestmark = pytest.mark.functional


@pytest.fixture
def demo_settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("STORAGE", "demo")
    monkeypatch.delenv("PREVIOUSLY_MEMORY", raising=False)
    return load_settings()


def test_a_record_names_a_persona_the_demo_offers_or_is_refused(demo_settings: Settings) -> None:
    assert recorded_persona(demo_settings, None) is None
    assert recorded_persona(demo_settings, "nell") is None, "the default's own name is the default"
    jia = recorded_persona(demo_settings, "jia")
    assert jia is not None and jia.id == "jia" and (jia.root / "memory").is_dir()
    with pytest.raises(InvalidInput) as refused:
        recorded_persona(demo_settings, "zed")
    assert 'demo persona "zed"' in str(refused.value) and "nell, jia, xiaowen" in str(refused.value)


def test_a_persona_in_a_record_outside_the_demo_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("STORAGE", "local")
    monkeypatch.setenv("PREVIOUSLY_MEMORY", str(tmp_path))
    settings = load_settings()
    assert recorded_persona(settings, None) is None
    with pytest.raises(InvalidInput, match="it serves no demo personas"):
        recorded_persona(settings, "jia")


def test_the_execution_input_names_only_a_persona_other_than_the_default() -> None:
    request = TurnInput("hi", connection_id="c=")
    assert execution_input("t1", request) == {"turn_id": "t1", "connection_id": "c="}
    assert execution_input("t1", request, "jia") == {"turn_id": "t1", "connection_id": "c=", "persona": "jia"}


def test_a_step_task_reads_the_persona_from_its_state() -> None:
    task = {"step": "save", "state": {"turn_id": "t1", "persona": "jia"}, "retry": 0}
    assert TaskPayload.parse(task).persona == "jia"
    assert TaskPayload.parse({"step": "save", "state": {"turn_id": "t1"}}).persona is None
    with pytest.raises(ValueError, match="persona"):
        TaskPayload.parse({"step": "save", "state": {"turn_id": "t1", "persona": ["jia"]}})
    assert step_keys(task)["persona"] == "jia" and "persona" not in step_keys({"state": {"turn_id": "t"}})


def test_a_personas_runs_sit_beside_the_defaults_under_a_safe_prefix() -> None:
    assert persona_run_prefix("jia") == "personas/jia/runs/"
    for unsafe in ("../jia", "jia/runs", "", "..", "Jia"):
        with pytest.raises(InvalidInput):
            persona_run_prefix(unsafe)


@given(st.one_of(st.text(max_size=40), st.sampled_from(["..", ".", "jia", "a-b", "x" * 33, "jia\n"])))
def test_any_persona_id_is_refused_or_names_one_folder_of_its_own(persona: str) -> None:
    try:
        prefix = persona_run_prefix(persona)
    except InvalidInput:
        return
    assert prefix == f"personas/{persona}/runs/" and persona.isprintable() and "/" not in persona
    assert persona not in ("", ".", "..")
    assert not prefix.startswith("runs/"), "never inside the default persona's runs"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    env = {
        "AWS_DEFAULT_REGION": "us-east-1",
        "RUN_BUCKET": "runs",
        "STORAGE": "demo",
        "PREVIOUSLY_ACCESS_KEY": "open sesame",
        "PREVIOUSLY_SESSION_SECRET": "s" * 32,
    }
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


def test_the_api_gives_each_persona_its_own_runs_and_turns_on_the_state_machine(aws: Any) -> None:
    key = compose.secret_key()
    deps = compose.api_deps(key)
    assert deps.cast is not None
    assert (
        deps.cast.deps["nell"] is deps and deps.turns is compose.turns() and deps.runs is compose.run_store()
    )
    for persona in ("jia", "xiaowen"):
        own = deps.cast.deps[persona]
        assert own.runs is compose.persona_run_store(persona)
        assert getattr(own.runs, "prefix", None) == f"personas/{persona}/runs/"
        assert isinstance(own.turns, StepFunctionsTurns) and own.turns is compose.persona_turns(persona)
        assert own.storage is not deps.storage and own.maintenance is None
    turn_id = deps.cast.deps["jia"].turns.start(TurnInput("hi", timezone="UTC"))
    (execution,) = aws.list_executions(stateMachineArn=compose.resources().state_machine_arn)["executions"]
    described = aws.describe_execution(executionArn=execution["executionArn"])
    assert json.loads(described["input"]) == {"turn_id": turn_id, "connection_id": None, "persona": "jia"}
    assert compose.persona_run_store("jia").exists(turn_id) and not compose.run_store().exists(turn_id)


def test_the_steps_build_the_named_personas_deps(aws: Any) -> None:
    key = compose.secret_key()
    nell, jia = compose.step_environment(key), compose.step_environment(key, "jia")
    assert nell.runs is compose.run_store() and jia.runs is compose.persona_run_store("jia")
    assert compose.step_environment(key, "nell").runs is compose.run_store()
    jia_deps = compose.persona_turn_deps(key, "jia")
    assert jia_deps.demo and jia_deps.run_store is jia.runs
    assert jia_deps.storage is not compose.turn_deps(key).storage
    with pytest.raises(InvalidInput, match='demo persona "zed"'):
        compose.step_environment(key, "zed")
