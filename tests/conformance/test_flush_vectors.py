"""REFERENCE §17.5: `POST /api/episodic/flush` (flush.json) — statuses and the exact core.md bytes.

Deliberate differences: a refused body answers `{"error": "invalid_request", "message": …}`
instead of `{"error": "Invalid request body"}`, and malformed JSON is a 400, not a 500.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.clock import FixedClock
from core.memory.paths import core_md
from core.storage.memory import InMemoryStorage
from tests.conftest import load_vectors
from tests.functional.api_env import make_env, same_origin

pytestmark = pytest.mark.conformance
VECTORS = load_vectors("flush.json")
CASES = VECTORS["cases"]
CLOCK = "2026-07-10T14:31:05.123Z"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_flush_case(case: dict[str, Any]) -> None:
    body = case["request_body"]
    path = core_md(body["sliceId"]) if case["status"] == 200 else None
    files = {str(path): case["existing_core_md"]} if path and case["existing_core_md"] is not None else {}
    storage = InMemoryStorage.from_texts(files)
    env = make_env(storage=storage, key=None, clock=FixedClock.at(CLOCK))
    r = env.client.post("/api/episodic/flush", json=body, headers=same_origin())
    assert r.status_code == case["status"], r.text
    if case["status"] == 200:
        assert r.json() == case["response"]
        assert storage.files[path] == case["core_md_after"]  # type: ignore[index]
        assert storage.commits[-1][0] == f"Flush turns for slice {body['sliceId']}"
    else:
        assert r.json()["error"] == "invalid_request"
        assert storage.files == {} and storage.commits == []


def test_limits_match() -> None:
    limits = VECTORS["limits"]
    body = {"sliceId": "2026-07-10-1430", "turns": [{"role": "user", "content": "x", "timestamp": "t"}]}
    env = make_env(key=None, clock=FixedClock.at(CLOCK))

    def post(**changes: Any) -> int:
        turn = {**body["turns"][0], **changes.pop("turn", {})}  # type: ignore[index]
        payload = {**body, "turns": [turn] * changes.pop("count", 1)}
        return env.client.post("/api/episodic/flush", json=payload, headers=same_origin()).status_code

    assert post(count=limits["turns_max"]) == 200
    assert post(count=limits["turns_max"] + 1) == 400
    assert post(turn={"content": "x" * limits["content_max_chars"]}) == 200
    assert post(turn={"content": "x" * (limits["content_max_chars"] + 1)}) == 400
    assert post(turn={"content": "😀" * (limits["content_max_chars"] // 2 + 1)}) == 400  # UTF-16 units
    assert post(turn={"timestamp": "t" * limits["timestamp_max_chars"]}) == 200
    assert post(turn={"role": "system"}) == 400
    assert set(limits["roles"]) == {"user", "agent"}
