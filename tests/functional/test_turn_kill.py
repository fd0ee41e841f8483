"""kill -9 at every step boundary and inside every model call, then restart: nothing accepted is
lost, no turn stays `running`.

The turn runs in a child process (tests/fakes/turn_child.py: the in-process runner over a folder
memory and a folder run store, as `previously serve` runs it). The child is frozen at a step
boundary (right after that event is stored) or inside a model call (the fake model server holds
the request), then killed with SIGKILL. The "restart" is what a new server does at start:
temporary files cleaned, then recovery.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest

from core.clock import SystemClock, iso
from core.memory.paths import core_md
from core.memory.slice.model import Turn, new_slice, parse_core_md, render_core_md
from core.memory.slice.slicer import minute_id
from core.storage.local import LocalStorage
from core.turn.deps import TurnDeps
from core.turn.local_service import LocalTurnService
from core.turn.recovery import recover_turns
from core.turn.runstore import status_of
from core.turn.runstore_fs import FolderRunStore
from core.turn.sink import RunStoreSinks
from tests.fakes.brain import ANALYZER, Brain
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply
from tests.fakes.turn_child import child_turn, kill_9, stalled_at, started_turn, wait_for

pytestmark = pytest.mark.functional
MESSAGE = "Please keep this: the spare key is under the blue pot."
BOUNDARIES = [
    "step.started@save",
    "step.done@save",
    "step.done@close",
    "step.done@evolve",
    "step.done@analyze",
    "step.done@respond",
    "step.started@finalize",
    "step.done@finalize",
]
MODEL_CALLS = ["close-analyzer", "analyzer", "main"]


class Holding:
    """Answers normally, except that it holds the chosen kind of request until the test ends."""

    def __init__(self, brain: Brain, hold: str) -> None:
        self.brain, self.hold = brain, hold
        self.held = threading.Event()
        self.release = threading.Event()

    def __call__(self, request: RecordedRequest) -> Reply:
        body = str(request.json)
        kind = "main" if ANALYZER not in request.tool_names else "analyzer"
        if kind == "analyzer" and "No slice is closing" not in body:
            kind = "close-analyzer"
        if kind == self.hold:
            self.held.set()
            self.release.wait(30)
        return self.brain(request)


def _seed_expired_slice(root: Path) -> None:
    """An active slice of two hours ago: the turn closes it (so the close step runs too)."""
    began = SystemClock().now() - timedelta(hours=2)
    sid, start = minute_id(began), iso(began)
    old = new_slice(sid, start, "UTC", Turn("o1", start, "user", "An older conversation."))
    path = root / str(core_md(sid))
    path.parent.mkdir(parents=True)
    path.write_text(render_core_md(old), encoding="utf-8")


@pytest.mark.parametrize("point", BOUNDARIES + [f"model:{m}" for m in MODEL_CALLS])
def test_kill_9_then_restart_loses_nothing(tmp_path: Path, fake_models: FakeModelServer, point: str) -> None:
    memory, runs_dir = tmp_path / "memory-root", tmp_path / "runs"
    if point != "model:analyzer":  # the analyze step asks the analyzer only when no slice closes
        _seed_expired_slice(memory)
    brain = Brain()
    brain.main("Noted: the spare key is under the blue pot.")
    holding = Holding(brain, point.removeprefix("model:") if point.startswith("model:") else "")
    fake_models.responder = holding
    stall = "" if point.startswith("model:") else point
    with child_turn(memory, runs_dir, fake_models.openai_base_url, MESSAGE, stall) as child:
        try:
            if stall:
                wait_for(lambda: stalled_at(runs_dir, stall))
            else:
                assert holding.held.wait(180), "the model call never came"
            kill_9(child)
        finally:
            holding.release.set()
    turn_id = started_turn(runs_dir)

    # The restart.
    runs = FolderRunStore(runs_dir)
    storage = LocalStorage(memory)
    deps = TurnDeps(storage, SystemClock(), None, runs, None, RunStoreSinks(runs))  # type: ignore[arg-type]
    storage.clean_temp()
    runs.clean_temp(older_than=0)
    report = recover_turns(deps)
    assert report.failed == []

    texts = [p.read_text(encoding="utf-8") for p in (memory / "memory").rglob("core.md")]
    users = [
        t for text in texts for t in parse_core_md(text).turns if t.role == "user" and t.turn_id == turn_id
    ]
    assert [t.content for t in users] == [MESSAGE], f"killed at {point}: the message must be kept once"
    assert sum(parse_core_md(text).status == "active" for text in texts) == 1
    state = LocalTurnService(deps).state(turn_id)
    assert state.status != "running", f"killed at {point}: the turn must not stay running"
    assert status_of(runs.events(turn_id)) == state.status
    assert not list(memory.rglob(".*.tmp")) and not list(runs_dir.rglob(".*.tmp"))
