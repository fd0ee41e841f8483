"""`previously evolve`: the passes on request from the command line, the report, the demo refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.memory.paths import CARD
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.fakes.slices import slice_text
from tests.functional.cli_env import fake_model_env, run, write_slices

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1015"


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return write_slices(
        tmp_path, {SLICE: slice_text(SLICE, [("user", "I am vegetarian."), ("agent", "Noted.")])}
    )


@pytest.fixture(autouse=True)
def model_env(monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer) -> Brain:
    fake_model_env(monkeypatch, fake_models)
    return Brain.install(fake_models)


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
