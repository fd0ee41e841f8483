"""Running `previously` in-process for functional tests: `run(...)`, and an environment in which
only what the test sets counts (no provider key, model, token or store from the developer's shell)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.llm.presets import KEY_VARIABLES
from core.memory.paths import core_md
from functions.cli import _load_commands, app
from tests.fakes.fake_model_server import FakeModelServer

_load_commands()

# Every variable that would pick a provider, a model or a store when set in the developer's shell.
OUTSIDE_VARS = (
    *KEY_VARIABLES,
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "PREVIOUSLY_MODEL",
    "PREVIOUSLY_WORKER_MODEL",
    "GITHUB_TOKEN",
    "STORAGE",
    "PREVIOUSLY_MEMORY",
)


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """One command: its exit code, stdout and stderr."""
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset `OUTSIDE_VARS`, so a command sees no model and no store but the test's own."""
    for name in OUTSIDE_VARS:
        monkeypatch.delenv(name, raising=False)


def fake_model_env(monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer) -> None:
    """A clean environment whose one provider is the fake model server (as a compatible endpoint)."""
    clean_env(monkeypatch)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)


def chat_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A clean environment with the turn runs under `tmp_path`; the memory folder to pass as --memory."""
    clean_env(monkeypatch)
    monkeypatch.setenv("PREVIOUSLY_RUNS", str(tmp_path / "runs"))
    return tmp_path / "memory"


def write_slices(root: Path, slices: Mapping[str, str]) -> Path:
    """A memory folder at `root` holding each slice id's core.md text; `root`."""
    for sid, text in slices.items():
        file = root / core_md(sid).value
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return root
