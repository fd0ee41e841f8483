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

from functions.api.security import AccessKey
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


def from_env(sm: Any, monkeypatch: pytest.MonkeyPatch, **env: str) -> tuple[dict[str, str], str]:
    """`aws-secrets --from-env --json` with `env` set, which succeeds: the secret's values, the output."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["aws-secrets", "--from-env", "--json"])
    assert result.exit_code == 0, result.output
    return stored(sm), result.output


def test_from_env_stores_the_keys_and_only_the_hash_of_the_access_key(
    sm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    values, output = from_env(
        sm, monkeypatch, GITHUB_TOKEN="ghp_example", PREVIOUSLY_ACCESS_KEY="correct-horse-battery-staple"
    )
    assert values["GITHUB_TOKEN"] == "ghp_example"
    stored_key = AccessKey.parse(values["PREVIOUSLY_ACCESS_KEY_HASH"])
    assert stored_key.scheme == "scrypt" and stored_key.matches("correct-horse-battery-staple")
    assert "correct-horse" not in json.dumps(values) and "ghp_example" not in output
    assert hashlib.sha256(b"correct-horse-battery-staple").hexdigest() not in json.dumps(values)
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
    assert AccessKey.parse(values["PREVIOUSLY_ACCESS_KEY_HASH"]).matches(key)
    assert "sk-ant-1" not in result.output


def test_a_weak_key_is_refused_and_nothing_is_stored(sm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    before = stored(sm)
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", "1")
    result = CliRunner().invoke(app, ["aws-secrets", "--from-env"])
    assert result.exit_code == 1 and "too weak" in result.output
    assert stored(sm) == before


def test_the_same_key_again_changes_nothing_and_a_legacy_hash_is_replaced(
    sm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "correct-horse-battery-staple"
    sm.put_secret_value(
        SecretId=NAME,
        SecretString=json.dumps(
            {
                "PREVIOUSLY_ACCESS_KEY_SHA256": hashlib.sha256(key.encode()).hexdigest(),
                "PREVIOUSLY_SESSION_SECRET": "s",
            }
        ),
    )
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", key)
    first = CliRunner().invoke(app, ["aws-secrets", "--from-env", "--json"])
    assert json.loads(first.output)["changed"] == [
        "PREVIOUSLY_ACCESS_KEY_HASH",
        "PREVIOUSLY_ACCESS_KEY_SHA256",
    ]
    assert stored(sm)["PREVIOUSLY_ACCESS_KEY_SHA256"] == ""
    again = CliRunner().invoke(app, ["aws-secrets", "--from-env", "--json"])
    assert json.loads(again.output)["changed"] == []


def test_generate_key_rotates(sm: Any) -> None:
    result = CliRunner().invoke(app, ["aws-secrets", "--from-env", "--generate-key", "--json"])
    key = json.loads(result.output)["access_key"]
    assert AccessKey.parse(stored(sm)["PREVIOUSLY_ACCESS_KEY_HASH"]).matches(key)


def test_hash_key_prints_a_hash_the_server_accepts() -> None:
    result = CliRunner().invoke(app, ["hash-key"], input="correct-horse-battery-staple\n")
    assert result.exit_code == 0, result.output
    assert AccessKey.parse(result.output.strip()).matches("correct-horse-battery-staple")
    weak = CliRunner().invoke(app, ["hash-key"], input="short\n")
    assert weak.exit_code == 1 and "too weak" in weak.output


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
    values, output = from_env(sm, monkeypatch, GROQ_API_KEY="gsk-1", PREVIOUSLY_MODEL="openai/gpt-oss-120b")
    assert values["GROQ_API_KEY"] == "gsk-1" and values["PREVIOUSLY_MODEL"] == "openai/gpt-oss-120b"
    assert "gsk-1" not in output


def test_public_stores_a_model_key_and_no_access_key(sm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A public demo stage: the model key goes in, a stored access key comes out, none is generated."""
    sm.put_secret_value(
        SecretId=NAME,
        SecretString=json.dumps({"PREVIOUSLY_ACCESS_KEY_HASH": "scrypt$x", "PREVIOUSLY_SESSION_SECRET": "s"}),
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-demo")
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", "correct-horse-battery-staple")
    result = CliRunner().invoke(app, ["aws-secrets", "--from-env", "--public"])
    assert result.exit_code == 0, result.output
    values = stored(sm)
    assert values["ANTHROPIC_API_KEY"] == "sk-ant-demo" and values["PREVIOUSLY_ACCESS_KEY_HASH"] == ""
    assert values["PREVIOUSLY_SESSION_SECRET"] == "s" and "access key" not in result.output.lower()
    refused = CliRunner().invoke(app, ["aws-secrets", "--public", "--generate-key"])
    assert refused.exit_code == 1 and "cannot be combined" in refused.output


def test_public_asked_in_the_terminal_does_not_ask_for_an_access_key(sm: Any) -> None:
    answers = "\n" + "sk-ant-demo\n" + "\n\n\n\n"  # the six fields only: no access-key question
    result = CliRunner().invoke(app, ["aws-secrets", "--public"], input=answers)
    assert result.exit_code == 0, result.output
    assert "Access key" not in result.output
    values = stored(sm)
    assert values["ANTHROPIC_API_KEY"] == "sk-ant-demo" and not values.get("PREVIOUSLY_ACCESS_KEY_HASH")
