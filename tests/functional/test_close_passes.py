"""The close-time passes as states of their own: retried alone, caught alone, idempotent.

A turn that closes a slice answers first, then runs close (the marking) → strands → catalog →
index → evolve, each its own state of the step table with its own retries, run here by the
in-process runner (the state machine runs the same table: tests/infra/test_turn_moto.py).
"""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.errors import TransientError
from core.storage.memory import InMemoryStorage
from core.turn.steps import STEP_TABLE, close_passes
from core.turn.steps.common import StepContext
from tests.fakes.brain import ANALYZER, analysis
from tests.fakes.fake_model_server import FakeModelServer
from tests.functional.turn_support import Harness, assert_gap_free, make_harness

pytestmark = pytest.mark.functional
PASSES = ("close", "strands", "catalog", "index", "evolve")


def _closing_turn(clock: FixedClock, fake_models: FakeModelServer) -> tuple[Harness, str]:
    """A harness whose next turn closes the slice of its first one; the id of that slice."""
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.reports[ANALYZER] = analysis(["garden"])
    h.brain.main("First answer.", "Second answer.")
    first = h.turn("I am planning a vegetable garden.")
    clock.advance(hours=2)
    return h, str(first.slice_id)


def _steps(events: list[dict[str, object]]) -> list[tuple[str, int]]:
    return [(str(e["step"]), int(str(e["attempt"]))) for e in events if e["type"] == "step.started"]


def test_each_close_pass_is_its_own_step(clock: FixedClock, fake_models: FakeModelServer) -> None:
    h, closed = _closing_turn(clock, fake_models)
    state = h.turn("Back after lunch.")
    assert state.status == "done" and state.reply == "Second answer."
    names = [s for s, _ in _steps(state.events)]
    assert [s for s in names if s in PASSES] == list(PASSES)
    assert names[-len(PASSES) - 1 : -1] == list(PASSES), "the passes run after finalize, before after"
    assert h.slice(closed).status == "closed"
    assert all(STEP_TABLE[name].best_effort for name in PASSES), "no close pass can fail the turn"


def test_a_failing_strands_pass_is_retried_alone(
    clock: FixedClock, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    h, _ = _closing_turn(clock, fake_models)
    failures = [TransientError("GitHub answered 502")]
    weave = close_passes.weave_strands

    def flaky(ctx: StepContext, closed_id: str) -> None:
        if failures:
            raise failures.pop()
        weave(ctx, closed_id)

    monkeypatch.setattr(close_passes, "weave_strands", flaky)
    state = h.turn("Back after lunch.")
    assert state.status == "done" and state.reply == "Second answer."
    steps = _steps(state.events)
    assert [s for s in steps if s[0] in PASSES] == [
        ("close", 1),
        ("strands", 1),
        ("strands", 2),
        ("catalog", 1),
        ("index", 1),
        ("evolve", 1),
    ]
    assert_gap_free(state.events)
    assert "garden" in h.strands(), "the retried pass wove the strands"


def test_a_pass_that_keeps_failing_is_caught_and_the_later_passes_still_run(
    clock: FixedClock, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    h, closed = _closing_turn(clock, fake_models)

    def broken(ctx: StepContext, closed_id: str) -> None:
        raise TransientError("the catalog stays unreachable")

    monkeypatch.setattr(close_passes, "update_catalog", broken)
    state = h.turn("Back after lunch.")
    assert state.status == "done" and state.reply == "Second answer."
    assert not [e for e in state.events if e["type"] == "turn.error"]
    assert [s for s, _ in _steps(state.events)].count("catalog") == 3
    assert "index" in [s for s, _ in _steps(state.events)], "the passes after it still run"
    assert h.slice(closed).status == "closed"


@pytest.mark.parametrize("name", ["strands", "catalog", "index"])
def test_a_pass_retried_after_its_commit_writes_the_same_bytes(
    clock: FixedClock, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    h, closed = _closing_turn(clock, fake_models)
    put, hiccups = h.runs.put, [TransientError("the run store hiccuped")]
    files_after_commit: list[dict[str, str]] = []

    def put_failing_once(turn_id: str, key: str, value: object) -> None:
        if key == close_passes.done_key(name) and hiccups:
            files_after_commit.append(h.files())
            raise hiccups.pop()  # committed, but the done mark is lost: the step runs again
        put(turn_id, key, value)

    monkeypatch.setattr(h.runs, "put", put_failing_once)
    state = h.turn("Back after lunch.")
    assert state.status == "done"
    assert [s for s, _ in _steps(state.events)].count(name) == 2, "retried"
    assert h.storage.commits.count(f"Turn {state.turn_id} — {name} for slice {closed}") == 1, (
        "the rerun changed nothing, so it committed nothing"
    )
    assert files_after_commit and h.runs.get(state.turn_id, close_passes.done_key(name)) is True


def test_the_closing_turn_answers_before_its_close_passes(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    """`turn.done` comes before the first close pass starts: the reply never waits for the passes."""
    h, closed = _closing_turn(clock, fake_models)
    state = h.turn("Back after lunch.")
    kinds = [(e["type"], e.get("step")) for e in state.events]
    done = kinds.index(("turn.done", "finalize"))
    first_pass = kinds.index(("step.started", "close"))
    assert done < first_pass
    assert sum(1 for k in kinds if k[0] == "turn.done") == 1
    assert h.slice(closed).status == "closed"


def test_maintain_finishes_the_passes_a_dead_run_left(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    """A run killed after its reply, before the close passes: maintain runs them from `close`."""
    import subprocess
    import sys

    from core.jobs.maintain import run_maintenance
    from core.turn import close_runs
    from core.turn.recovery import OWNER_KEY, this_process

    h, closed = _closing_turn(clock, fake_models)
    flow_end = h.service.threads.flow  # run the turn, but stop it at finalize's end (as a kill would)
    stop = {**flow_end.transitions, "finalize": ("after", "close", "end")}
    spec = flow_end.spec("finalize")

    def finalize_then_die(state: dict[str, object], deps: object) -> dict[str, object]:
        return {**spec.run(state, deps), "next": "end"}

    from dataclasses import replace

    steps = tuple(replace(s, run=finalize_then_die) if s.name == "finalize" else s for s in flow_end.steps)
    h.service.threads.flow = replace(flow_end, steps=steps, transitions=stop)
    state = h.turn("Back after lunch.")
    assert state.status == "done" and state.reply == "Second answer."
    assert not any(e.get("step") == "close" for e in state.events), "no pass ran"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    h.deps.run_store.put(state.turn_id, OWNER_KEY, {**this_process(), "pid": int(dead.stdout)})

    report = run_maintenance(h.deps)
    assert report.recovered["close_passes"] == [closed]
    assert h.deps.run_store.get(state.turn_id, close_runs.CLOSE_RUN_DONE) is True
    steps_run = [
        str(e["step"]) for e in h.deps.run_store.events(state.turn_id) if e["type"] == "step.started"
    ]
    assert [s for s in steps_run if s in PASSES] == list(PASSES)
    assert sum(1 for e in h.deps.run_store.events(state.turn_id) if e["type"] == "turn.done") == 1
    assert "close_passes" not in run_maintenance(h.deps).recovered, "a second pass has nothing left"
