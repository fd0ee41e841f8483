"""`previously maintain` recovers the turns a killed runner left, from the run store the turn wrote.

kill -9 of a real `previously chat` while the model is answering, then `previously maintain`:
the turn ends `interrupted` (a clear state, the reason given) and the message stays saved once.
kill -9 of the in-process runner (tests/fakes/turn_child.py) before its save step wrote the
message: `maintain` saves it, and so does the serve timer's pass. All read the runs where the
runner wrote them — beside the memory (`<memory>.runs/`) by default, `$PREVIOUSLY_RUNS` when
set — not a fresh empty store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from core.jobs.maintain import MaintenanceReport
from core.memory.slice.model import parse_core_md
from core.turn.recovery import LOST_REASON
from core.turn.runstore import status_of
from core.turn.runstore_fs import FolderRunStore
from functions.compose.local import build_deps
from functions.settings import load_settings
from tests.fakes.brain import ANALYZER, Brain
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply
from tests.fakes.turn_child import REPO_ROOT, child_turn, kill_9, stalled_at, started_turn, wait_for
from tests.functional.cli_env import OUTSIDE_VARS, clean_env, run

pytestmark = pytest.mark.functional
MESSAGE = "Please keep this: the spare key is under the blue pot."


class HoldMain:
    """Answers every request, except that the main model's is held until the test ends."""

    def __init__(self) -> None:
        self.brain = Brain().main("Noted.")
        self.held, self.release = threading.Event(), threading.Event()

    def __call__(self, request: RecordedRequest) -> Reply:
        if ANALYZER not in request.tool_names and not any(
            n.startswith("report_") for n in request.tool_names
        ):
            self.held.set()
            self.release.wait(60)
        return self.brain(request)


def _user_turns(memory: Path, turn_id: str) -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in (memory / "memory").rglob("core.md")]
    return [
        t.content for s in texts for t in parse_core_md(s).turns if t.role == "user" and t.turn_id == turn_id
    ]


def _maintain(memory: Path) -> dict[str, object]:
    code, out, err = run("maintain", "--memory", str(memory), "--no-model", "--json")
    assert code == 0, err
    return json.loads(out)


def test_maintain_ends_a_turn_killed_during_its_model_call(
    tmp_path: Path, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean_env(monkeypatch)
    monkeypatch.delenv("PREVIOUSLY_RUNS", raising=False)
    memory = tmp_path / "memory-root"
    holding = HoldMain()
    fake_models.responder = holding
    env = {k: v for k, v in os.environ.items() if k not in OUTSIDE_VARS and k != "PREVIOUSLY_RUNS"}
    env["OPENAI_BASE_URL"] = fake_models.openai_base_url
    chat = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "functions.cli",
            "chat",
            "--memory",
            str(memory),
            "--timezone",
            "UTC",
            MESSAGE,
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holding.held.wait(180), "the model call never came"
        kill_9(chat)
    finally:
        holding.release.set()
        if chat.poll() is None:
            chat.kill()
    runs_dir = tmp_path / "memory-root.runs"  # beside the memory: where chat keeps its runs
    turn_id = started_turn(runs_dir)
    assert status_of(FolderRunStore(runs_dir).events(turn_id)) == "running"

    report = _maintain(memory)

    assert report["recovered"] == {"ended": [turn_id], "saved": [], "failed": []}
    events = FolderRunStore(runs_dir).events(turn_id)
    assert status_of(events) == "interrupted" and events[-1]["reason"] == LOST_REASON
    assert _user_turns(memory, turn_id) == [MESSAGE]
    assert _maintain(memory)["recovered"] == {"ended": [], "saved": [], "failed": []}


def _killed_before_save(
    tmp_path: Path, fake: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path, str]:
    """A memory whose one turn was killed (-9) after it was accepted, before its message was saved."""
    clean_env(monkeypatch)
    memory, runs_dir = tmp_path / "memory-root", tmp_path / "runs"
    (memory / "memory").mkdir(parents=True)  # killed before its first write: the folder is empty
    monkeypatch.setenv("PREVIOUSLY_RUNS", str(runs_dir))
    Brain.install(fake).main("Noted.")
    with child_turn(memory, runs_dir, fake.openai_base_url, MESSAGE, "step.started@save") as child:
        wait_for(lambda: stalled_at(runs_dir, "step.started@save"))
        kill_9(child)
    turn_id = started_turn(runs_dir)
    assert _user_turns(memory, turn_id) == []
    return memory, runs_dir, turn_id


def test_maintain_saves_a_message_killed_before_it_was_saved(
    tmp_path: Path, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, runs_dir, turn_id = _killed_before_save(tmp_path, fake_models, monkeypatch)

    code, out, err = run("maintain", "--memory", str(memory), "--no-model")

    assert code == 0, err
    assert f"turn {turn_id}: the message it accepted but never saved is saved now" in out
    assert _user_turns(memory, turn_id) == [MESSAGE]
    assert status_of(FolderRunStore(runs_dir).events(turn_id)) == "interrupted"


def test_the_serve_timer_pass_saves_it_too(
    tmp_path: Path, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, runs_dir, turn_id = _killed_before_save(tmp_path, fake_models, monkeypatch)
    deps = build_deps(load_settings(), memory_override=memory, require_auth=False)
    assert deps.maintenance is not None

    report = deps.maintenance()

    assert isinstance(report, MaintenanceReport) and report.recovered["saved"] == [turn_id]
    assert _user_turns(memory, turn_id) == [MESSAGE]
    assert status_of(FolderRunStore(runs_dir).events(turn_id)) == "interrupted"
