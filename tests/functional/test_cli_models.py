"""`previously models` end to end: OPENAI_BASE_URL at the fake server, and nothing configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.functional.cli_env import OUTSIDE_VARS

pytestmark = pytest.mark.functional


def run_cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the installed command line in a clean environment (no provider keys leak in)."""
    clean = {k: v for k, v in os.environ.items() if k not in OUTSIDE_VARS}
    clean.update(PREVIOUSLY_MEMORY=str(tmp_path / "memory-data"), STORAGE="local", **env)
    return subprocess.run(
        [sys.executable, "-m", "functions.cli", "models", *args],
        capture_output=True,
        text=True,
        env=clean,
        cwd=REPO_ROOT,
        timeout=120,
    )


def test_models_against_a_compatible_server(tmp_path: Path, fake_models: FakeModelServer) -> None:
    fake_models.models = ["qwen3:4b", "llama3.1:8b"]
    out = run_cli(tmp_path, "--json", OPENAI_BASE_URL=fake_models.openai_base_url)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    (provider,) = payload["providers"]
    assert provider["id"] == "openai" and provider["models"] == "live"
    assert [m["id"] for m in payload["models"]] == ["qwen3:4b", "llama3.1:8b"]
    assert payload["main"]["id"] == "qwen3:4b" and payload["worker"]["id"] == "qwen3:4b"
    assert fake_models.requests[0].path == "/v1/models"


def test_models_check_talks_to_the_model(tmp_path: Path, fake_models: FakeModelServer) -> None:
    config = tmp_path / "memory-data" / "memory" / "user" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"model": {"main": "llama3.1:8b"}}), encoding="utf-8")
    fake_models.models = ["qwen3:4b", "llama3.1:8b"]
    fake_models.enqueue(Reply(text="ready"))
    out = run_cli(tmp_path, "--check", OPENAI_BASE_URL=fake_models.openai_base_url)
    assert out.returncode == 0, out.stderr
    assert "Main:   llama3.1:8b (thinking off; from Settings (config.json))" in out.stdout
    assert "* llama3.1:8b" in out.stdout and "  qwen3:4b" in out.stdout
    assert "Check main (llama3.1:8b): ok — 'ready'" in out.stdout
    sent = fake_models.model_requests()
    assert [r.model for r in sent] == ["llama3.1:8b"], "one model in both roles is checked once"


def test_models_check_reports_a_failing_model(tmp_path: Path, fake_models: FakeModelServer) -> None:
    fake_models.enqueue(Reply.error(401, "wrong key"), Reply.error(401, "wrong key"))
    out = run_cli(tmp_path, "--check", OPENAI_BASE_URL=fake_models.openai_base_url, OPENAI_API_KEY="sk-bad")
    assert out.returncode == 1
    assert "FAILED" in out.stdout and "wrong key" in out.stdout and "OPENAI_API_KEY" in out.stdout


def test_models_with_nothing_configured(tmp_path: Path) -> None:
    out = run_cli(tmp_path)
    assert out.returncode == 1
    assert "No model provider is configured." in out.stderr
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_BASE_URL"):
        assert var in out.stderr
    as_json = json.loads(run_cli(tmp_path, "--json").stdout)
    assert as_json["configured"] is False and as_json["main"] is None


def test_models_with_curated_providers(tmp_path: Path) -> None:
    out = run_cli(
        tmp_path, "--json", "--model", "claude-opus-4-8", DEEPSEEK_API_KEY="d", ANTHROPIC_API_KEY="a"
    )
    payload = json.loads(out.stdout)
    assert out.returncode == 0
    assert payload["main"]["id"] == "claude-opus-4-8" and payload["worker"]["id"] == "claude-haiku-4-5"
    assert [p["id"] for p in payload["providers"]] == ["deepseek", "anthropic"]
