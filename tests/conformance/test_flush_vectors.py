"""REFERENCE §17.5: `POST /api/episodic/flush` (flush.json) — statuses and the exact core.md bytes.

Deliberate differences: a refused body answers `{"error": "invalid_request", "message": …}`
instead of `{"error": "Invalid request body"}`; malformed JSON (a case whose `request_body` is
a string) is a 400, not a 500; a timestamp with blank space or a line break is refused (the
original wrote a header it could not read back). A refused flush writes nothing and keeps the
existing file as it was.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from core.clock import FixedClock
from core.memory.formats.escape import FLAG_KEY
from core.memory.paths import core_md, is_slice_id
from core.storage.memory import InMemoryStorage
from tests.conformance.slice_shapes import assert_original_bytes, without_escapes
from tests.conformance.vectors import Case, shape, vectors
from tests.functional.api_env import make_env, same_origin

pytestmark = pytest.mark.conformance
VECTORS = vectors("flush.json")
FLUSH = shape("flush", "request_body status", "existing_core_md response core_md_after")
CASES = VECTORS.cases("cases", FLUSH)
CLOCK = "2026-07-10T14:31:05.123Z"
ID = "2026-07-10-1430"


def refused_by_us(body: Any) -> bool:
    """A body the original accepted but we refuse on purpose (a timestamp that breaks the header)."""
    turns = body.get("turns") if isinstance(body, dict) else None
    stamps = [t.get("timestamp") for t in turns or [] if isinstance(t, dict)]
    return any(isinstance(s, str) and (s == "" or re.search(r"\s", s)) for s in stamps)


def expected_status(case: Case) -> int:
    if isinstance(case["request_body"], str) or refused_by_us(case["request_body"]):
        return 400
    return int(case["status"])


def _post(env: Any, body: Any) -> Any:
    if isinstance(body, str):  # the raw request text, e.g. malformed JSON
        headers = {**same_origin(), "content-type": "application/json"}
        return env.client.post("/api/episodic/flush", content=body.encode(), headers=headers)
    return env.client.post("/api/episodic/flush", json=body, headers=same_origin())


@pytest.mark.parametrize("case", CASES)
def test_flush_case(case: Case) -> None:
    body = case["request_body"]
    slice_id = body.get("sliceId") if isinstance(body, dict) else None
    path = core_md(slice_id) if is_slice_id(slice_id) else None
    existing = case.get("existing_core_md")
    files = {str(path): existing} if path and existing is not None else {}
    storage = InMemoryStorage.from_texts(files)
    before = dict(storage.files)
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    r = _post(env, body)
    status = expected_status(case)
    assert r.status_code == status, r.text
    if status == 200:
        assert r.json() == case["response"]
        assert path is not None
        written = storage.files[path]
        if FLAG_KEY in written and FLAG_KEY not in (existing or ""):
            # Deliberate: text the original would have trimmed or split is written escaped.
            written = without_escapes(written)
        assert_original_bytes(written, case["core_md_after"])
        assert storage.commits[-1][0] == f"Flush turns for slice {slice_id}"
    else:
        # The schema refuses with `invalid_request`; the header check (a timestamp with blank
        # space) is the domain's, `invalid_input`. Both are 400 and name what to fix.
        assert r.json()["error"] in ("invalid_request", "invalid_input") and r.json()["message"]
        assert storage.files == before and storage.commits == []


@pytest.mark.parametrize(
    "limits",
    VECTORS.cases(
        "limits", shape("limits", "turns_min turns_max content_max_chars timestamp_max_chars roles")
    ),
)
def test_limits_match(limits: Case) -> None:
    """Each limit at its edge and one past it, through the route (lengths in UTF-16 units)."""
    env = make_env(key=None, clock=FixedClock.at(CLOCK))
    turn = {"role": "user", "content": "x", "timestamp": "t"}

    def post(count: int = 1, **changes: Any) -> int:
        payload = {"sliceId": ID, "turns": [{**turn, **changes}] * count}
        return env.client.post("/api/episodic/flush", json=payload, headers=same_origin()).status_code

    lo, hi, most = limits["turns_min"], limits["turns_max"], limits["content_max_chars"]
    assert post(count=lo) == 200 and post(count=hi) == 200
    assert post(count=lo - 1) == 400 and post(count=hi + 1) == 400
    assert post(content="x" * most) == 200 and post(content="x" * (most + 1)) == 400
    assert post(content="😀" * (most // 2)) == 200 and post(content="😀" * (most // 2 + 1)) == 400
    stamp = limits["timestamp_max_chars"]
    assert post(timestamp="t" * stamp) == 200 and post(timestamp="t" * (stamp + 1)) == 400
    assert post(timestamp="😀" * (stamp // 2 + 1)) == 400  # UTF-16 units, not characters
    for role in limits["roles"]:
        assert post(role=role) == 200
    assert post(role="system") == 400 and post(role="User") == 400
    assert post(content="") == 200  # an empty message is a message


@pytest.mark.parametrize(
    "slice_id",
    [
        "2026-07-10",
        "not-a-slice",
        "2026-7-10-1430",
        "2026-07-10-1430\n",
        "２０２６-07-10-1430",
        "2026/07/10/1430",
        "",
    ],
)
def test_slice_id_forms_refused(slice_id: str) -> None:
    """sliceId must be four ASCII digit groups 4/2/2/4 (flush.json `sliceId_regex`); nothing is written."""
    storage = InMemoryStorage()
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    r = _post(env, {"sliceId": slice_id, "turns": [{"role": "user", "content": "x", "timestamp": "t"}]})
    assert r.status_code == 400 and storage.files == {} and storage.commits == []


def test_no_range_check_on_the_id_values() -> None:
    """The original checks the shape only: `2026-13-45-9999` is accepted as written."""
    storage = InMemoryStorage()
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    r = _post(
        env, {"sliceId": "2026-13-45-9999", "turns": [{"role": "user", "content": "x", "timestamp": "t"}]}
    )
    assert r.status_code == 200
    assert list(map(str, storage.files)) == ["memory/episodic/slices/2026/13/45/9999/timeline/core.md"]


@pytest.mark.parametrize("raw", ["{bad", "[]", '"text"', "null", json.dumps({"sliceId": ID})])
def test_bad_bodies_are_400_and_write_nothing(raw: str) -> None:
    storage = InMemoryStorage()
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    r = _post(env, raw)
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"
    assert storage.files == {} and storage.commits == []


@pytest.mark.parametrize("regex", VECTORS.value("sliceId_regex"))
def test_slice_id_rule_is_the_documented_one(regex: Case) -> None:
    assert str(regex.data).startswith(r"^\d{4}-\d{2}-\d{2}-\d{4}$")
    assert is_slice_id(ID) and not is_slice_id("2026-07-10")


@pytest.mark.parametrize("stamp", ["a b", "2026-07-10T14:30:00Z\n", "\t"])
def test_a_timestamp_that_breaks_the_header_is_refused_and_nothing_changes(stamp: str) -> None:
    existing = "---\nslice_id: 2026-07-10-1430\n---\n## Turn 1 — 2026-07-10T14:30:00Z (user)\n\nhello"
    storage = InMemoryStorage.from_texts({str(core_md(ID)): existing})
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    r = _post(env, {"sliceId": ID, "turns": [{"role": "user", "content": "x", "timestamp": stamp}]})
    assert r.status_code == 400 and "timestamp" in r.json()["message"]
    assert storage.files[core_md(ID)] == existing and storage.commits == []


def _turns(count: int, content: str = "x") -> list[dict[str, str]]:
    """`count` alternating turns a minute apart, as the original's client posts them."""
    return [
        {
            "role": ("user", "agent")[i % 2],
            "content": f"{content} {i}",
            "timestamp": f"2026-07-10T14:{i:02d}:00.000Z",
        }
        for i in range(count)
    ]


@pytest.mark.parametrize(
    "limits",
    VECTORS.cases(
        "limits", shape("limits", "turns_min turns_max content_max_chars timestamp_max_chars roles")
    ),
)
def test_the_turn_cap_is_inclusive(limits: Case) -> None:
    """`turns_max` distinct, realistic turns are saved (not just one turn repeated); one more turn
    is refused with a message naming the cap, and nothing is written. (Fifty turns at the
    content cap would make a core.md over the storage's per-file limit: that is refused as
    too large, the same as any other over-size write.)"""
    storage = InMemoryStorage()
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    cap = limits["turns_max"]
    full = [{**t, "content": t["content"] + " words" * 300} for t in _turns(cap)]
    r = env.client.post("/api/episodic/flush", json={"sliceId": ID, "turns": full}, headers=same_origin())
    assert r.status_code == 200, r.text[:300]
    assert storage.files[core_md(ID)].count("\n## Turn ") == cap
    storage = InMemoryStorage()
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    r = env.client.post(
        "/api/episodic/flush", json={"sliceId": ID, "turns": _turns(cap + 1)}, headers=same_origin()
    )
    assert r.status_code == 400 and "turns" in r.json()["message"] and str(cap) in r.json()["message"]
    assert storage.files == {} and storage.commits == []


def test_fields_the_original_client_adds_are_tolerated() -> None:
    """The original's schema stripped unknown keys: a body with extra fields (a reason, a turn id,
    a client clock) is saved like the plain one, every word kept."""
    storage = InMemoryStorage()
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    turns = [{**t, "turnId": "aB3_x-", "pending": True} for t in _turns(2, "kept")]
    body = {"sliceId": ID, "turns": turns, "reason": "beforeunload", "clientTime": 1783000000000}
    r = env.client.post("/api/episodic/flush", json=body, headers=same_origin())
    assert r.status_code == 200 and r.json() == {"success": True}
    text = storage.files[core_md(ID)]
    assert "kept 0" in text and "kept 1" in text
    plain = InMemoryStorage()
    make_env(storage=plain, key=None, clock=FixedClock.at(CLOCK)).client.post(
        "/api/episodic/flush", json={"sliceId": ID, "turns": _turns(2, "kept")}, headers=same_origin()
    )
    assert plain.files[core_md(ID)] == text
