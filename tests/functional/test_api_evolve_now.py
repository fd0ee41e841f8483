"""POST /api/evolution/run: the passes on request over HTTP — the result, the guards, one at a time."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from core.clock import FixedClock
from core.turn.evolve_now import BUSY, DEMO, EvolveNow
from tests.fakes.evolution import CURRENT, memory
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.functional.api_env import ApiEnv, make_env, same_origin
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional
FINISH = ToolCall("finish", {"reasoning": "they said so", "summary": "Noted that you are vegetarian."})


def env_and_harness(fake: FakeModelServer, clock: FixedClock) -> tuple[ApiEnv, Harness]:
    storage = memory()
    h = make_harness(storage, clock, fake)
    env = make_env(storage=storage, clock=clock)
    env.client.app.state.deps = dataclasses.replace(env.deps, evolve_now=EvolveNow(h.deps).run)  # type: ignore[attr-defined]
    return env, h


def test_the_run_answers_what_changed(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, h = env_and_harness(fake_models, clock)
    assert h.brain is not None
    add = ToolCall("add_now", {"text": "Vegetarian", "refs": [CURRENT]})
    h.brain.reports["finish"] = Reply(tool_calls=[add, FINISH])
    r = env.client.post("/api/evolution/run", headers=same_origin())
    assert r.status_code == 200, r.text
    data = r.json()
    assert (data["slice_id"], data["committed"], data["message"]) == (
        CURRENT, True, "Card: Noted that you are vegetarian."
    )  # fmt: skip
    assert data["card"]["changed"] and "+- Vegetarian" in data["card"]["diff"]
    assert data["direction"] == {"changed": False, "mutations": [], "reason": "", "error": None}


def test_nothing_to_change(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, _ = env_and_harness(fake_models, clock)
    data = env.client.post("/api/evolution/run", headers=same_origin()).json()
    assert (data["message"], data["committed"]) == ("Nothing to change.", False)


def test_the_run_is_a_guarded_write(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, _ = env_and_harness(fake_models, clock)
    r = env.client.post("/api/evolution/run", headers={"origin": "https://elsewhere.example"})
    assert r.status_code == 403
    assert fake_models.model_requests() == []


def test_a_second_request_while_one_runs_gets_409(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, h = env_and_harness(fake_models, clock)
    assert h.brain is not None
    entered, release = threading.Event(), threading.Event()

    def slow(request: RecordedRequest) -> Reply:
        entered.set()
        release.wait(10)
        return Reply(tool_calls=[FINISH])

    h.brain.reports["finish"] = slow
    answers: list[int] = []
    first = threading.Thread(
        target=lambda: answers.append(
            env.client.post("/api/evolution/run", headers=same_origin()).status_code
        )
    )
    first.start()
    assert entered.wait(10)
    r = env.client.post("/api/evolution/run", headers=same_origin())
    release.set()
    first.join(10)
    assert (r.status_code, r.json()) == (409, {"error": "conflict", "message": BUSY})
    assert answers == [200]


def test_the_demo_is_refused(fake_models: FakeModelServer, clock: FixedClock) -> None:
    env, h = env_and_harness(fake_models, clock)
    h.deps.demo = True
    r = env.client.post("/api/evolution/run", headers=same_origin())
    assert (r.status_code, r.json()) == (409, {"error": "read_only", "message": DEMO})


def test_a_server_without_it_says_so(clock: FixedClock) -> None:
    r = make_env(clock=clock).client.post("/api/evolution/run", headers=same_origin())
    assert r.status_code == 404 and "not offered" in r.json()["message"]
