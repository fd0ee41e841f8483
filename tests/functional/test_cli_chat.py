"""`previously chat` and `previously maintain` in-process against a memory folder and the fake model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.memory.paths import core_md
from core.memory.slice.model import parse_core_md
from tests.fakes.brain import ANALYZER, Brain, analysis
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.slices import slice_text
from tests.functional.cli_env import chat_memory, run

pytestmark = pytest.mark.functional


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return chat_memory(monkeypatch, tmp_path)


def the_slice(memory: Path) -> tuple[str, str]:
    files = sorted(memory.glob("memory/episodic/slices/*/*/*/*/timeline/core.md"))
    assert files, "no slice was written"
    return files[-1].parent.parent.name, files[-1].read_text(encoding="utf-8")


def test_chat_streams_the_reply_and_saves_the_turn(
    env: Path, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)
    brain = Brain.install(fake_models)
    brain.reports[ANALYZER] = analysis(["bread"])
    brain.main(Reply(text="Knead it for ten minutes.", reasoning="Bread question."))
    code, out, err = run(
        "chat", "How long do I knead bread?", "--memory", str(env), "--timezone", "Asia/Tokyo"
    )
    assert code == 0, err
    assert "Bread question." in out and "Knead it for ten minutes." in out
    assert out.index("Bread question.") < out.index("Knead it")
    _, text = the_slice(env)
    s = parse_core_md(text)
    assert [(t.role, t.content) for t in s.turns] == [
        ("user", "How long do I knead bread?"),
        ("agent", "Knead it for ten minutes."),
    ]
    assert s.timezone == "Asia/Tokyo" and s.tags == ["bread"]
    assert (env.parent / "runs").is_dir(), "runs live beside the memory, not in it"
    assert not (env / "runs").exists()


def test_chat_json(env: Path, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)
    Brain.install(fake_models).main("Hello there.")
    code, out, err = run("chat", "Hi", "--memory", str(env), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["status"], data["reply"], data["error"]) == ("done", "Hello there.", None)
    assert data["slice_id"] == the_slice(env)[0] or data["slice_id"].endswith(the_slice(env)[0])


def test_chat_without_a_model_saves_the_message_and_explains(env: Path) -> None:
    code, out, _ = run("chat", "Anyone home?", "--memory", str(env))
    assert code == 3
    assert "OPENAI_API_KEY" in out and "ANTHROPIC_API_KEY" in out
    s = parse_core_md(the_slice(env)[1])
    assert [(t.role, t.content) for t in s.turns] == [("user", "Anyone home?")]
    code, out, _ = run("chat", "Still nobody?", "--memory", str(env), "--json")
    assert code == 3 and json.loads(out)["error"]["code"] == "no_model"


def test_chat_rejects_bad_input(env: Path) -> None:
    code, _, err = run("chat", "   ", "--memory", str(env))
    assert code == 1 and "empty" in err
    code, _, err = run("chat", "hi", "--memory", str(env), "--timezone", "Mars/Olympus")
    assert code == 1


def test_maintain_closes_an_expired_slice_once(env: Path) -> None:
    sid = "2026-01-05-0900"
    file = env / core_md(sid).value
    file.parent.mkdir(parents=True)
    file.write_text(
        slice_text(
            sid, [("user", "Planning a trip to Kyoto in spring."), ("agent", "Lovely!")], status="active"
        ),
        encoding="utf-8",
    )
    code, out, err = run("maintain", "--memory", str(env), "--no-model", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert [c["slice_id"] for c in report["closed"]] == [sid]
    assert report["closed"][0]["marked_by"] == "fallback"
    assert report["commits"][0] == f"Maintenance — close slice {sid}"
    closed = parse_core_md(file.read_text(encoding="utf-8"))
    assert (closed.status, closed.closed_by, closed.marked_by) == ("closed", "time_cap", "fallback")
    assert closed.focus == "Opened with: Planning a trip to Kyoto in spring."
    code, out, _ = run("maintain", "--memory", str(env), "--no-model", "--json")
    again = json.loads(out)
    assert again["closed"] == [] and again["commits"] == [] and again["files_written"] == 0
    code, out, _ = run("maintain", "--memory", str(env), "--no-model")
    assert code == 0 and "no slice past its time cap" in out and "0 commits, 0 files written" in out


def test_chat_on_a_file_instead_of_a_folder_says_so(env: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n", encoding="utf-8")
    code, _, err = run("chat", "hi", "--memory", str(a_file))
    assert code == 1 and "is a file, not a folder" in err
    assert a_file.read_text(encoding="utf-8") == "mine\n"
