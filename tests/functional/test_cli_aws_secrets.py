"""`previously aws-secrets` against a moto Secrets Manager: merges, hashes the key, never prints values."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from typer.testing import CliRunner

from functions.cli.app import app
from functions.cli.cmd_aws import merge_values

pytestmark = pytest.mark.functional
NAME = "previously/prod/app"


@pytest.fixture
def sm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        client = boto3.client("secretsmanager", region_name="us-east-1")
        initial = {"GITHUB_TOKEN": "", "ANTHROPIC_API_KEY": "", "PREVIOUSLY_SESSION_SECRET": "generated"}
        client.create_secret(Name=NAME, SecretString=json.dumps(initial))
        yield client


def stored(sm: Any) -> dict[str, str]:
    return json.loads(sm.get_secret_value(SecretId=NAME)["SecretString"])


def test_from_env_stores_the_keys_and_only_the_hash_of_the_access_key(
    sm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_example")
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", "correct horse")
    result = CliRunner().invoke(app, ["aws-secrets", "--from-env", "--json"])
    assert result.exit_code == 0, result.output
    values = stored(sm)
    assert values["GITHUB_TOKEN"] == "ghp_example"
    assert values["PREVIOUSLY_ACCESS_KEY_SHA256"] == hashlib.sha256(b"correct horse").hexdigest()
    assert "correct horse" not in json.dumps(values) and "ghp_example" not in result.output
    assert values["PREVIOUSLY_SESSION_SECRET"] == "generated"


def test_asking_keeps_what_is_left_empty_and_generates_a_key(sm: Any) -> None:
    sm.put_secret_value(
        SecretId=NAME, SecretString=json.dumps({"GITHUB_TOKEN": "kept", "PREVIOUSLY_SESSION_SECRET": "s"})
    )
    answers = "\n" + "sk-ant-1\n" + "\n\n\n\n" + "\n"  # token kept, Anthropic set, rest empty, key generated
    result = CliRunner().invoke(app, ["aws-secrets"], input=answers)
    assert result.exit_code == 0, result.output
    values = stored(sm)
    assert values["GITHUB_TOKEN"] == "kept" and values["ANTHROPIC_API_KEY"] == "sk-ant-1"
    key = result.output.split("shown once; keep it in a password manager): ")[1].split()[0]
    assert values["PREVIOUSLY_ACCESS_KEY_SHA256"] == hashlib.sha256(key.encode()).hexdigest()
    assert "sk-ant-1" not in result.output


def test_a_missing_secret_says_to_deploy_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        result = CliRunner().invoke(app, ["aws-secrets", "--from-env"])
    assert result.exit_code == 1 and "Deploy the stack first" in result.output


def test_merge_changes_nothing_when_given_nothing_new() -> None:
    current = {"GITHUB_TOKEN": "t", "PREVIOUSLY_SESSION_SECRET": "s"}
    assert merge_values(current, {"GITHUB_TOKEN": "t", "OPENAI_API_KEY": ""}, None) == (current, [])


def test_a_missing_region_or_secret_is_a_clear_error(sm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    wrong_stage = CliRunner().invoke(app, ["aws-secrets", "--stage", "nope", "--from-env"])
    assert wrong_stage.exit_code == 1 and "no secret previously/nope/app" in wrong_stage.output
    assert "Traceback" not in wrong_stage.output
    for var in ("AWS_DEFAULT_REGION", "AWS_REGION"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    no_region = CliRunner().invoke(app, ["aws-secrets", "--from-env"])
    assert no_region.exit_code == 1 and "--region" in no_region.output, no_region.output


def test_from_env_also_takes_every_providers_key_and_the_model_names(
    sm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-1")
    monkeypatch.setenv("PREVIOUSLY_MODEL", "openai/gpt-oss-120b")
    result = CliRunner().invoke(app, ["aws-secrets", "--from-env", "--json"])
    assert result.exit_code == 0, result.output
    values = stored(sm)
    assert values["GROQ_API_KEY"] == "gsk-1" and values["PREVIOUSLY_MODEL"] == "openai/gpt-oss-120b"
    assert "gsk-1" not in result.output
