"""The S3 run store (moto) keeps the RunStore contract: ordered gap-free events, values, followers."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from core.errors import InvalidInput
from core.turn.runstore import MemoryRunStore
from functions.aws.runstore import S3RunStore
from tests.fakes.moto_s3 import atomic_requests

pytestmark = pytest.mark.functional


def ev(seq: int, type: str = "text.delta", **fields: Any) -> dict[str, Any]:
    return {"turn_id": "t1", "seq": seq, "type": type, "step": "respond", "attempt": 1, **fields}


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="runs")
        yield client


@pytest.fixture
def store(s3: Any) -> S3RunStore:
    return S3RunStore(s3, "runs", sleep=lambda s: None)


@pytest.fixture(params=["memory", "s3"])
def any_store(request: pytest.FixtureRequest, s3: Any) -> Any:
    return MemoryRunStore() if request.param == "memory" else S3RunStore(s3, "runs", sleep=lambda s: None)


def test_events_come_back_in_order_after_a_seq(any_store: Any) -> None:
    any_store.append("t1", [ev(1, text="a"), ev(2, text="b")])
    any_store.append("t1", [ev(3, text="c")])
    assert [e["text"] for e in any_store.events("t1")] == ["a", "b", "c"]
    assert [e["seq"] for e in any_store.events("t1", after=2)] == [3]
    assert any_store.events("t1", after=3) == []
    assert any_store.events("unknown") == []


def test_values_round_trip_and_a_request_makes_a_turn_exist(any_store: Any) -> None:
    assert not any_store.exists("t2")
    any_store.put("t2", "request", {"message": "héllo 你好"})
    assert any_store.exists("t2")
    assert any_store.get("t2", "request") == {"message": "héllo 你好"}
    assert any_store.get("t2", "missing") is None


def test_many_batches_read_back_beyond_a_page(store: S3RunStore) -> None:
    for seq in range(1, 1101):
        store.append("t1", [ev(seq, text=str(seq))])
    assert store.last_seq("t1") == 1100
    assert [e["seq"] for e in store.events("t1", after=1095)] == [1096, 1097, 1098, 1099, 1100]


def _event_keys(s3: Any) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket="runs", Prefix="runs/t1/events/")["Contents"]]


def test_compaction_merges_batches_and_loses_nothing(store: S3RunStore, s3: Any) -> None:
    store.append("t1", [ev(1, "step.started")])
    batch = [store.append("t1", [e])[0] for e in [ev(2, text="a"), ev(3, text="b"), ev(4, "step.done")]]
    store.compact("t1", batch)
    assert _event_keys(s3) == [
        "runs/t1/events/00000001-00000001.json",
        "runs/t1/events/00000002-00000004.json",
    ]
    assert [e["seq"] for e in store.events("t1")] == [1, 2, 3, 4]


def test_compaction_leaves_other_writers_events_between_its_own(store: S3RunStore, s3: Any) -> None:
    other = S3RunStore(s3, "runs", sleep=lambda s: None)
    mine = store.append("t1", [ev(0, text="a")]) + store.append("t1", [ev(0, text="b")])
    other.append("t1", [ev(0, text="theirs")])
    mine += store.append("t1", [ev(0, text="c")]) + store.append("t1", [ev(0, text="d")])
    store.compact("t1", mine)
    assert [(e["seq"], e["text"]) for e in store.events("t1")] == [
        (1, "a"),
        (2, "b"),
        (3, "theirs"),
        (4, "c"),
        (5, "d"),
    ]


def test_a_seq_given_by_the_caller_is_replaced_by_the_next_free_one(store: S3RunStore) -> None:
    assert [e["seq"] for e in store.append("t1", [ev(7), ev(7)])] == [1, 2]
    assert [e["seq"] for e in S3RunStore(store.client, "runs").append("t1", [ev(1)])] == [3]


@pytest.fixture
def atomic_conditional_puts() -> Iterator[None]:
    """moto answers racing threads as S3 does (tests/fakes/moto_s3.py)."""
    with atomic_requests():
        yield


@pytest.mark.usefixtures("atomic_conditional_puts")
def test_concurrent_writers_get_distinct_gap_free_seqs(s3: Any) -> None:
    writers, batches = 3, 15
    seen: list[int] = []
    stop = threading.Event()

    failures: list[BaseException] = []

    def write(w: int) -> None:
        own = S3RunStore(s3, "runs", sleep=lambda s: None)  # one Lambda each
        try:
            for n in range(batches):
                own.append("t1", [ev(0, writer=w, n=n, i=i) for i in range(1 + n % 2)])
        except BaseException as exc:  # a thread's exception would otherwise only be printed
            failures.append(exc)
            raise

    def follow() -> None:
        reader, after = S3RunStore(s3, "runs", sleep=lambda s: time.sleep(0.005)), 0
        while not stop.is_set() or reader.events("t1", after):
            for event in reader.wait("t1", after, 0.05):
                seen.append(event["seq"])
                after = event["seq"]

    follower = threading.Thread(target=follow)
    follower.start()
    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    follower.join()
    assert failures == []
    events = S3RunStore(s3, "runs").events("t1")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), "no duplicate, no gap"
    assert len(events) == writers * sum(1 + n % 2 for n in range(batches)), "nothing lost"
    for w in range(writers):
        mine = [(e["n"], e["i"]) for e in events if e["writer"] == w]
        assert mine == sorted(mine)
    assert seen == [e["seq"] for e in events], "the follower saw every seq once, in order"


def test_wait_returns_new_events_or_nothing_after_the_timeout(store: S3RunStore) -> None:
    clock = [0.0]
    waiting = S3RunStore(
        store.client, "runs", sleep=lambda s: clock.__setitem__(0, clock[0] + s), monotonic=lambda: clock[0]
    )
    assert waiting.wait("t1", after=0, timeout=2.0) == []
    assert clock[0] >= 2.0
    store.append("t1", [ev(1)])
    assert [e["seq"] for e in waiting.wait("t1", after=0, timeout=2.0)] == [1]


def test_followers_are_kept_per_turn(store: S3RunStore) -> None:
    store.add_follower("t1", "abc=")
    store.add_follower("t1", "x/y+z==")
    store.add_follower("t2", "other")
    assert sorted(store.followers("t1")) == ["abc=", "x/y+z=="]
    store.remove_follower("t1", "abc=")
    assert store.followers("t1") == ["x/y+z=="]


@pytest.mark.parametrize("bad", ["../x", "a/b", "", "x" * 81, "t 1"])
def test_turn_ids_that_could_escape_the_prefix_are_refused(store: S3RunStore, bad: str) -> None:
    with pytest.raises(InvalidInput):
        store.put(bad, "request", {})


def test_the_cancel_flag_is_read_at_most_once_a_second(s3: Any) -> None:
    clock = [0.0]
    reader = S3RunStore(s3, "runs", monotonic=lambda: clock[0])
    writer = S3RunStore(s3, "runs")
    reader.put("t1", "request", {})
    assert reader.get("t1", "cancel") is None
    writer.put("t1", "cancel", True)
    assert reader.get("t1", "cancel") is None  # within the second: the remembered answer
    clock[0] = 1.5
    assert reader.get("t1", "cancel") is True
    writer.put("t1", "other", 1)
    assert reader.get("t1", "other") == 1  # other keys are always read fresh
