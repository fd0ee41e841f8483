"""POST /api/evolution/run: the passes on request over HTTP — the result, the guards, one at a time."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

from core.clock import FixedClock
from core.jobs.evolve_now import BUSY, DEMO
from core.jobs.evolve_runs import EvolveRuns
from core.memory.paths import CARD
from core.storage.memory import InMemoryStorage
from tests.fakes.brain import DIRECTION
from tests.fakes.evolution import CURRENT, Held, memory
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.functional.api_env import ApiEnv, make_env, same_origin
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional
FINISH = ToolCall("finish", {"reasoning": "they said so", "summary": "Noted that you are vegetarian."})


def env_and_harness(
    fake: FakeModelServer, clock: FixedClock, storage: InMemoryStorage | None = None
) -> tuple[ApiEnv, Harness]:
    storage = storage if storage is not None else memory()
    h = make_harness(storage, clock, fake)
    env = make_env(storage=storage, clock=clock)
    env.client.app.state.deps = dataclasses.replace(env.deps, evolve_now=EvolveRuns(h.deps))  # type: ignore[attr-defined]
    return env, h


def finished(env: ApiEnv, run_id: str, timeout: float = 60) -> dict[str, Any]:
    """Poll GET /api/evolution/run/{id} as the page does until the run is no longer running."""
    deadline = time.monotonic() + timeout
    while True:
        r = env.client.get(f"/api/evolution/run/{run_id}")
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        if data["status"] != "running" or time.monotonic() > deadline:
            return data
        time.sleep(0.02)


def test_the_run_starts_at_once_and_reports_what_changed(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    env, h = env_and_harness(fake_models, clock)
    assert h.brain is not None
    add = ToolCall("add_now", {"text": "Vegetarian", "refs": [CURRENT]})
    h.brain.reports["finish"] = Reply(tool_calls=[add, FINISH])
    r = env.client.post("/api/evolution/run", headers=same_origin())
    assert r.status_code == 202, r.text
    assert r.json()["status"] == "running" and r.json()["report"] is None
    data = finished(env, r.json()["run_id"])
    assert data["status"] == "done" and data["error"] is None and data["finished_at"]
    report = data["report"]
    assert (report["slice_id"], report["committed"], report["message"]) == (
        CURRENT, True, "Card: Noted that you are vegetarian."
    )  # fmt: skip
    assert report["card"]["changed"] and "+- Vegetarian" in report["card"]["diff"]
    assert report["direction"] == {"changed": False, "mutations": [], "reason": "", "error": None}


def test_nothing_to_change(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, _ = env_and_harness(fake_models, clock)
    run_id = env.client.post("/api/evolution/run", headers=same_origin()).json()["run_id"]
    report = finished(env, run_id)["report"]
    assert (report["message"], report["committed"]) == ("Nothing to change.", False)


def test_a_failed_run_says_why_and_writes_nothing(fake_models: FakeModelServer, clock: FixedClock) -> None:
    storage = memory()
    env, h = env_and_harness(fake_models, clock, storage)
    assert h.brain is not None

    def meanwhile(request: RecordedRequest) -> Reply:  # a turn writes the card during the second pass
        storage.files[CARD] = "# written by a turn meanwhile\n"
        return Reply(tool_calls=[ToolCall(DIRECTION, {"reasoning": "nothing to change"})])

    h.brain.reports["finish"] = Reply(
        tool_calls=[ToolCall("add_now", {"text": "Vegan", "refs": [CURRENT]}), FINISH]
    )
    h.brain.reports[DIRECTION] = meanwhile
    run_id = env.client.post("/api/evolution/run", headers=same_origin()).json()["run_id"]
    data = finished(env, run_id)
    assert data["status"] == "failed", data["report"]
    assert "conflict" in data["error"].lower() or "changed" in data["error"].lower(), data["error"]
    assert data["error"] and data["report"] is None
    assert storage.files[CARD] == "# written by a turn meanwhile\n"


def test_an_unknown_run_is_404(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, _ = env_and_harness(fake_models, clock)
    assert env.client.get("/api/evolution/run/nope").status_code == 404
    assert env.client.get("/api/evolution/run/..%2Fx").status_code == 404


def test_the_run_is_a_guarded_write(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, _ = env_and_harness(fake_models, clock)
    r = env.client.post("/api/evolution/run", headers={"origin": "https://elsewhere.example"})
    assert r.status_code == 403
    assert fake_models.model_requests() == []


def test_a_second_request_while_one_runs_gets_409(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, h = env_and_harness(fake_models, clock)
    assert h.brain is not None
    h.brain.reports["finish"] = slow = Held(Reply(tool_calls=[FINISH]))
    first = env.client.post("/api/evolution/run", headers=same_origin())
    assert first.status_code == 202 and slow.entered.wait(10)
    r = env.client.post("/api/evolution/run", headers=same_origin())
    running = env.client.get(f"/api/evolution/run/{first.json()['run_id']}").json()
    slow.release.set()
    assert (r.status_code, r.json()) == (409, {"error": "conflict", "message": BUSY})
    assert running["status"] == "running" and running["progress"]
    assert finished(env, first.json()["run_id"])["status"] == "done"
    assert env.client.post("/api/evolution/run", headers=same_origin()).status_code == 202


def test_the_demo_is_refused(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, h = env_and_harness(fake_models, clock)
    h.deps.demo = True
    r = env.client.post("/api/evolution/run", headers=same_origin())
    assert (r.status_code, r.json()) == (409, {"error": "read_only", "message": DEMO})


def test_a_server_without_it_says_so(clock: FixedClock) -> None:
    r = make_env(clock=clock).client.post("/api/evolution/run", headers=same_origin())
    assert r.status_code == 404 and "not offered" in r.json()["message"]
