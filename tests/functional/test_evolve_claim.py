"""Evolve now, one run at a time across instances: two starts at once on a shared run store (two
server processes on one folder, two API Lambdas on one bucket) — exactly one starts, the other
is refused with 409 "already running"; an ended or lapsed run frees the claim."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from core.clock import FixedClock, SequentialIds
from core.errors import ConflictError
from core.jobs.evolve_now import BUSY
from core.jobs.evolve_runs import CLAIM, END, STALE_AFTER, EvolveRun, EvolveRuns, holder_at
from core.storage.memory import InMemoryStorage
from core.turn.deps import TurnDeps
from core.turn.runstore import RunStore
from core.turn.runstore_fs import FolderRunStore
from core.turn.sink import RunStoreSinks
from tests.functional.api_env import make_env, same_origin
from tests.functional.test_aws_runstore import atomic_conditional_puts, s3  # noqa: F401  (fixtures)

pytestmark = pytest.mark.functional
ROUNDS = 8


@dataclass
class Sluggish:
    """A run store whose every call takes a moment, as a remote one does: a start that reads,
    then writes, leaves a window another start can get through."""

    inner: Any
    pause: float = 0.005

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def slow(*args: Any, **kwargs: Any) -> Any:
            time.sleep(self.pause)
            return attr(*args, **kwargs)

        return slow


def runner(store: RunStore, clock: FixedClock, name: str) -> EvolveRuns:
    """One instance's evolve-now service (its own ids), launching nothing."""
    deps = TurnDeps(InMemoryStorage(), clock, SequentialIds(name), store, None, RunStoreSinks(store))
    return EvolveRuns(deps, launcher=lambda run_id: None)


def race(a: EvolveRuns, b: EvolveRuns) -> tuple[list[EvolveRun], list[Exception]]:
    """Start both at the same moment; the runs started and the refusals."""
    started: list[EvolveRun] = []
    refused: list[Exception] = []
    gate = threading.Barrier(2)

    def go(r: EvolveRuns) -> None:
        gate.wait()
        try:
            started.append(r.start())
        except ConflictError as exc:
            refused.append(exc)

    threads = [threading.Thread(target=go, args=(r,)) for r in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return started, refused


def exactly_one_starts(make_store: Callable[[], Any], clock: FixedClock) -> None:
    first, second = runner(make_store(), clock, "a"), runner(make_store(), clock, "b")
    for _ in range(ROUNDS):
        started, refused = race(first, second)
        assert len(started) == 1 and len(refused) == 1, (started, refused)
        assert str(refused[0]) == BUSY and "already running" in BUSY
        # Neither instance may start another while it runs; once it ends, the next start goes.
        with pytest.raises(ConflictError):
            second.start()
        owner = first if started[0].run_id.startswith("a") else second
        assert owner.execute(started[0].run_id).status != "running"  # no model or slice: ends at once
        clock.advance(seconds=1)


def test_two_starts_at_once_on_one_runs_folder_start_one(tmp_path: Path) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    exactly_one_starts(lambda: Sluggish(FolderRunStore(tmp_path / "runs")), clock)


@pytest.mark.usefixtures("atomic_conditional_puts")
def test_two_starts_at_once_on_one_bucket_start_one(s3: Any) -> None:  # noqa: F811
    from functions.aws.runstore import S3RunStore

    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    exactly_one_starts(lambda: Sluggish(S3RunStore(s3, "runs", sleep=lambda _: None)), clock)


def test_the_second_start_is_a_409_over_http(tmp_path: Path) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    store = FolderRunStore(tmp_path / "runs")
    env = make_env(clock=clock)
    for name in ("a", "b"):
        runs = runner(store, clock, name)
        env.client.app.state.deps = dataclasses.replace(env.deps, evolve_now=runs)  # type: ignore[attr-defined]
        r = env.client.post("/api/evolution/run", headers=same_origin())
        if name == "a":
            assert r.status_code == 202, r.text
    assert (r.status_code, r.json()) == (409, {"error": "conflict", "message": BUSY})


def _claim(seq: int, run_id: str, at: str) -> dict[str, Any]:
    return {"seq": seq, "type": CLAIM, "run_id": run_id, "at": at}


def test_the_log_decides_the_same_for_every_reader() -> None:
    t0, later = "2026-08-11T11:15:00.000Z", "2026-08-11T11:15:05.000Z"
    lapsed = "2026-08-11T11:36:00.000Z"
    assert timedelta(minutes=21) > STALE_AFTER
    log = [
        _claim(1, "a", t0),
        _claim(2, "b", later),  # refused: a holds
        {"seq": 3, "type": END, "run_id": "b", "at": later},  # not the holder: changes nothing
        _claim(4, "c", later),
        {"seq": 5, "type": END, "run_id": "a", "at": later},
        _claim(6, "d", later),
        _claim(7, "e", lapsed),  # d never ended: its claim lapsed
        _claim(8, "f", "not a time"),
    ]
    assert [holder_at(log, seq) for seq in range(1, 9)] == ["a", "a", "a", "a", None, "d", "e", "e"]
    assert holder_at(list(reversed(log)), 2) == "a"  # read in seq order whatever the listing order
