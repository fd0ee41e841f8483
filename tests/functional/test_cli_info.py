"""`previously info`: the resolved settings, readable by a person and by a script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from functions.cli import _load_commands, app

pytestmark = pytest.mark.functional
_load_commands()


def test_info_names_the_absolute_memory_folder_and_the_providers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("STORAGE", "GITHUB_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PREVIOUSLY_MEMORY", "mine")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    text = CliRunner().invoke(app, ["info"]).output
    assert f"memory       {tmp_path / 'mine'}" in text
    assert "providers    anthropic, openai" in text
    data = json.loads(CliRunner().invoke(app, ["info", "--json"]).output)
    assert data["providers"] == ["anthropic", "openai"] and data["storage"] == "local"
