"""Evolve now: the card and direction passes on request, one commit, refused in the demo, one at a time."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from core.clock import FixedClock
from core.errors import ConflictError, NotFound, ReadOnly
from core.jobs.evolve_now import NO_MODEL, NO_SLICE, NOTHING, run_evolve_now
from core.jobs.evolve_runs import CURRENT as CURRENT_RUN
from core.jobs.evolve_runs import STALE_AFTER, STOPPED, EvolveRun, EvolveRuns
from core.memory.card.model import parse_card
from core.memory.evolution.paths import playbook_md
from core.memory.paths import CARD, card_snapshot, core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.brain import DIRECTION
from tests.fakes.evolution import CLOSED, CURRENT, Held, memory
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional

ADD_NOW = ToolCall("add_now", {"text": "Vegetarian", "refs": [CURRENT]})
FINISH = ToolCall("finish", {"reasoning": "they said so", "summary": "Noted that you are vegetarian."})


def harness(fake: FakeModelServer, clock: FixedClock, storage: InMemoryStorage | None = None) -> Harness:
    h = make_harness(storage if storage is not None else memory(), clock, fake)
    assert h.brain is not None
    return h


def test_a_run_evolves_card_and_playbook_from_the_newest_slice_in_one_commit(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    h = harness(fake_models, clock)
    assert h.brain is not None
    h.brain.reports["finish"] = Reply(tool_calls=[ADD_NOW, FINISH])
    book = ToolCall("write_playbook", {"agent": "search", "text": "Prefer vegetarian sources."})
    h.brain.reports[DIRECTION] = Reply(tool_calls=[book, ToolCall(DIRECTION, {"reasoning": "diet"})])
    said: list[str] = []
    report = run_evolve_now(h.deps, said.append)
    assert report.slice_id == CURRENT and report.committed
    assert report.card.changed and report.card.summary == "Noted that you are vegetarian."
    assert report.direction.changed and report.direction.mutations
    assert (
        report.message
        == f"Card: Noted that you are vegetarian.\nDirection and playbooks: {report.direction.mutations[0]}."
    )
    assert [n.text for n in parse_card(h.read(str(CARD)) or "", clock.now()).now] == ["Vegetarian"]
    assert h.read(str(playbook_md("search"))) == "Prefer vegetarian sources.\n"
    assert h.read(str(card_snapshot(CURRENT))) == h.read(str(CARD)), "the open slice's snapshot follows"
    assert h.storage.commits == [f"Evolution: on request, from slice {CURRENT}"]
    prompt = h.brain.requests["finish"][0].last_user_text
    assert "Signal: on_request." in prompt and "Remember that I am vegetarian" in prompt
    assert said[0] == "Finding the latest conversation" and "Saving" in said


def test_a_closed_newest_slice_keeps_its_card_snapshot(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    storage = memory()
    del storage.files[core_md(CURRENT)]
    h = harness(fake_models, clock, storage)
    assert h.brain is not None
    h.brain.reports["finish"] = Reply(
        tool_calls=[ToolCall("add_now", {"text": "Runs", "refs": [CLOSED]}), FINISH]
    )
    report = run_evolve_now(h.deps)
    assert report.slice_id == CLOSED and report.card.changed
    assert h.read(str(card_snapshot(CLOSED))) is None, "how the card stood then is not rewritten"


def test_nothing_to_change_makes_no_commit(fake_models: FakeModelServer, clock: FixedClock) -> None:
    h = harness(fake_models, clock)
    report = run_evolve_now(h.deps)
    assert report.message == NOTHING and not report.committed and not report.card.changed
    assert h.storage.commits == []


def test_without_slices_or_without_a_model_nothing_runs(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    h = harness(fake_models, clock, InMemoryStorage())
    assert run_evolve_now(h.deps).message == NO_SLICE
    bare = make_harness(memory(), clock, None)
    assert run_evolve_now(bare.deps).message == NO_MODEL and bare.storage.commits == []


def test_the_demo_is_refused_before_anything_runs(fake_models: FakeModelServer, clock: FixedClock) -> None:
    h = harness(fake_models, clock)
    h.deps.demo = True
    with pytest.raises(ReadOnly, match="read-only demo"):
        run_evolve_now(h.deps)
    assert fake_models.model_requests() == []


def test_a_second_run_while_one_runs_is_refused(fake_models: FakeModelServer, clock: FixedClock) -> None:
    h = harness(fake_models, clock)
    assert h.brain is not None
    h.brain.reports["finish"] = slow = Held(Reply(tool_calls=[FINISH]))
    runner = EvolveRuns(h.deps)
    first = runner.start()
    assert slow.entered.wait(10)
    with pytest.raises(ConflictError, match="already running"):
        runner.start()
    assert runner.get(first.run_id).status == "running"
    slow.release.set()
    assert wait_for(runner, first.run_id).status == "done"
    again = wait_for(runner, runner.start().run_id)
    assert again.report is not None and again.report["message"] == NOTHING, "free again once the first ended"


def test_a_card_changed_meanwhile_fails_the_commit_and_keeps_the_other_writer(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    storage = memory()
    h = harness(fake_models, clock, storage)
    assert h.brain is not None

    def meanwhile(request: RecordedRequest) -> Reply:
        storage.files[CARD] = "# written by a turn meanwhile\n"
        return Reply(tool_calls=[ADD_NOW, FINISH])

    h.brain.reports["finish"] = meanwhile
    with pytest.raises(ConflictError):
        run_evolve_now(h.deps)
    assert storage.files[CARD] == "# written by a turn meanwhile\n"


def wait_for(runner: EvolveRuns, run_id: str, timeout: float = 10) -> EvolveRun:
    """The run once it is no longer running (or as it stands after `timeout`)."""
    deadline = time.monotonic() + timeout
    run = runner.get(run_id)
    while run.status == "running" and time.monotonic() < deadline:
        time.sleep(0.02)
        run = runner.get(run_id)
    return run


def test_a_run_left_running_too_long_reads_failed_and_frees_the_next(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    h = harness(fake_models, clock)
    runner = EvolveRuns(h.deps, launcher=lambda run_id: None)  # a launch whose runner died at once
    first = runner.start()
    with pytest.raises(ConflictError):
        runner.start()
    clock.advance(seconds=(STALE_AFTER + timedelta(seconds=1)).total_seconds())
    stale = runner.get(first.run_id)
    assert (stale.status, stale.error) == ("failed", STOPPED)
    assert runner.start().status == "running", "a dead run does not block the next"


def test_a_launcher_that_fails_marks_the_run_failed(fake_models: FakeModelServer, clock: FixedClock) -> None:
    h = harness(fake_models, clock)

    def broken(run_id: str) -> None:
        raise OSError("invoke refused")

    runner = EvolveRuns(h.deps, launcher=broken)
    with pytest.raises(OSError):
        runner.start()
    run_id = h.deps.run_store.get(CURRENT_RUN, "evolve")
    failed = runner.get(str(run_id))
    assert failed.status == "failed" and failed.error and "invoke refused" in failed.error
    assert fake_models.model_requests() == []


def test_an_ended_run_is_not_run_again_and_odd_records_read_failed(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    h = harness(fake_models, clock)
    runner = EvolveRuns(h.deps, launcher=lambda run_id: None)
    run = runner.start()
    assert runner.execute(run.run_id).status == "done"
    asked = len(fake_models.model_requests())
    assert runner.execute(run.run_id).status == "done" and len(fake_models.model_requests()) == asked
    h.deps.run_store.put("evolve-odd", "evolve", {"run_id": "odd", "status": "??", "started_at": "x"})
    assert runner.get("odd").status == "failed"
    with pytest.raises(NotFound):
        runner.get("missing")
    with pytest.raises(NotFound):
        runner.get("../x")
