"""Turn behaviour that depends on where it runs: demo mode, a warm GitHub process, the step chain."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from core.clock import FixedClock
from core.memory.paths import MemoryPath, core_md
from core.storage.demo import DemoStorage
from core.storage.memory import InMemoryStorage
from core.turn.service import TurnInput
from core.turn.steps import FIRST_STEP, FLOW, STEP_TABLE
from tests.conftest import SAMPLE_ROOT
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.slices import slice_text
from tests.functional.turn_support import FlakyStorage, make_harness

pytestmark = pytest.mark.functional


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


def test_demo_mode_chats_but_saves_nothing(tmp_path: Path, fake_models: FakeModelServer) -> None:
    shutil.copytree(SAMPLE_ROOT / "memory", tmp_path / "memory")
    before = digest(tmp_path)
    storage = DemoStorage(tmp_path)
    h = make_harness(storage, FixedClock.at("2030-01-01T09:00:00.000Z"), fake_models)
    assert h.brain is not None and h.deps.demo
    h.brain.main("Hello from the demo.")
    state = h.turn("Hi!")
    assert state.status == "done" and state.reply == "Hello from the demo."
    skipped = [e["reason"] for e in state.events if e["type"] == "card.skipped"]
    assert all("Demo mode" in reason for reason in skipped)
    assert not any(e["type"] == "card.evolved" for e in state.events)
    assert digest(tmp_path) == before, "the persona on disk is never written"
    assert any(p.value.endswith("timeline/core.md") for p in storage.overlay_paths)
    assert h.slice(str(state.slice_id)).turns[-1].content == "Hello from the demo."


def test_a_warm_github_turn_reads_no_tree_and_no_blob(
    fake_models: FakeModelServer, fake_github: FakeGitHub
) -> None:
    h = make_harness(fake_github.client(), FixedClock.at("2026-08-11T11:15:00.000Z"), fake_models)
    assert h.brain is not None
    h.brain.main("One.", "Two.")
    h.turn("First.")
    h.clock.advance(minutes=1)
    fake_github.reset_counts()
    commits = len(fake_github.log())
    assert h.turn("Second.").status == "done"
    routes = dict(fake_github.counts)
    assert len(fake_github.log()) - commits == 2
    assert not [r for r in routes if r.startswith(("GET /git/trees", "GET /git/blobs"))], routes
    assert routes["POST /git/commits"] == routes["PATCH /git/refs/heads/{b}"] == 2


def test_a_failing_after_step_never_fails_the_turn(
    fake_models: FakeModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    # A dry old slice gives the after step something to mark (and so something to commit).
    seeded = InMemoryStorage(dict(_dry_closed_slice()))
    flaky = FlakyStorage(seeded, match="— after", times=5, error=lambda: RuntimeError("disk on fire"))
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(flaky, clock, fake_models)
    assert h.brain is not None
    h.brain.reports["report_slice_marking"] = {"focus": "x", "summary": "y"}
    h.brain.main("One.", "Two.")
    h.turn("First.")
    clock.advance(minutes=45)
    state = h.turn("After the cap.")
    assert state.status == "done"
    assert any("best-effort step after skipped" in r.message for r in caplog.records)
    assert [e["step"] for e in state.events][-1] == "after"


def _dry_closed_slice() -> dict[MemoryPath, str]:
    sid = "2026-08-01-0800"
    return {core_md(sid): slice_text(sid, [("user", "hi"), ("agent", "hello")])}


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


def test_steps_keep_what_the_state_machine_adds_to_the_state(clock: FixedClock) -> None:
    """The state machine's own keys (its loop counter) pass through every step untouched."""
    h = make_harness(InMemoryStorage(), clock, None)
    h.runs.put("t1", "request", TurnInput("Hello?").to_json())
    state: dict = {"turn_id": "t1", "round": 0, "next": FIRST_STEP, "loop": {"rounds": 0}}
    state = STEP_TABLE["save"].run({**state, "attempt": 1}, h.deps)
    assert state["next"] == "analyze" and state["loop"] == {"rounds": 0} and "attempt" not in state
    state = STEP_TABLE["analyze"].run({**state, "attempt": 1}, h.deps)
    assert state["next"] == "end" and state["loop"] == {"rounds": 0} and state["more_tools"] is False
    assert [e["type"] for e in h.runs.events("t1")] == ["turn.started", "turn.error"]
    assert set(FLOW) == set(STEP_TABLE)


def test_step_outputs_stay_small(fake_models: FakeModelServer, clock: FixedClock) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(Reply(text="x" * 50_000))
    seen: list[dict] = []
    original = {name: spec.run for name, spec in STEP_TABLE.items()}
    state: dict = {"turn_id": "t9", "round": 0, "next": FIRST_STEP}
    h.runs.put("t9", "request", TurnInput("Tell me a long story.").to_json())
    while state["next"] != "end":
        state = original[state["next"]]({**state, "attempt": 1}, h.deps)
        seen.append(state)
    assert all(len(str(s)) < 1000 for s in seen), "bulk lives in the run store, not in the state"
    assert h.slice(str(state["slice_id"])).turns[-1].content == "x" * 50_000
