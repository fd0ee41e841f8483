"""`previously evolve`: the passes on request from the command line, the report, the demo refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.memory.paths import CARD, core_md
from functions.cli import _load_commands, app
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.functional
PROVIDER_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "DEEPSEEK_API_KEY", "GITHUB_TOKEN")
SLICE = "2026-08-11-1015"

_load_commands()


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    file = tmp_path / core_md(SLICE).value
    file.parent.mkdir(parents=True)
    file.write_text(slice_text(SLICE, [("user", "I am vegetarian."), ("agent", "Noted.")]), encoding="utf-8")
    return tmp_path


@pytest.fixture(autouse=True)
def model_env(monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer) -> Brain:
    for var in (*PROVIDER_VARS, "STORAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)
    return Brain.install(fake_models)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_evolve_reports_what_changed_and_commits(model_env: Brain, memory: Path) -> None:
    add = ToolCall("add_now", {"text": "Vegetarian", "refs": [SLICE]})
    done = ToolCall("finish", {"reasoning": "said so", "summary": "Noted that you are vegetarian."})
    model_env.reports["finish"] = Reply(tool_calls=[add, done])
    code, out, err = run("evolve", "--memory", str(memory))
    assert code == 0, err
    lines = out.splitlines()
    assert (
        lines[0].startswith(f"from slice {SLICE} (model ")
        and lines[1] == "Card: Noted that you are vegetarian."
    )
    assert "+- Vegetarian — refs: [2026/08/11/1015]" in out
    assert "Vegetarian" in (memory / CARD.value).read_text(encoding="utf-8")


def test_evolve_json_says_nothing_to_change(memory: Path) -> None:
    code, out, err = run("evolve", "--memory", str(memory), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["slice_id"], data["message"], data["committed"]) == (SLICE, "Nothing to change.", False)
    assert not (memory / CARD.value).exists()


def test_evolve_refuses_the_demo(monkeypatch: pytest.MonkeyPatch, memory: Path) -> None:
    monkeypatch.setenv("STORAGE", "demo")
    code, _, err = run("evolve", "--memory", str(memory))
    assert code == 1 and "read-only demo" in err
