"""REFERENCE §17.3: the same-origin guard's decision table (origin_guard.json), case by case.

Each case runs twice: against the pure decision function, and through the API as a POST to a
guarded route. The refusal body is ours (`{"error": "forbidden", "message": …}`); the status
is the original's.
"""

from __future__ import annotations

from typing import Any

import pytest

from functions.api.security import AccessKey, origin_allowed
from tests.conftest import load_vectors
from tests.functional.api_env import make_env

pytestmark = pytest.mark.conformance
CASES = load_vectors("origin_guard.json")["cases"]


def _key(case: dict[str, Any]) -> AccessKey | None:
    return AccessKey.from_plain(case["access_secret"]) if case["access_secret"] else None


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_decision(case: dict[str, Any]) -> None:
    headers = {k.lower(): v for k, v in case["headers"].items()}
    assert origin_allowed(case["method"], headers, _key(case)) is case["allowed"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_through_the_api(case: dict[str, Any]) -> None:
    env = make_env(key=case["access_secret"] or None, required=False)
    headers = {k.lower(): v for k, v in case["headers"].items()}
    if "host" not in headers:
        # httpx always sends Host; an empty one stands for "no Host header at all".
        headers["host"] = ""
    method = case["method"]
    r = env.client.request(
        method,
        "/api/turns" if method == "POST" else "/api/health",
        json={"message": "hi"} if method == "POST" else None,
        headers=headers,
    )
    if case["allowed"]:
        assert r.status_code in (200, 202), r.text
    else:
        assert r.status_code == case["status"] == 403
        assert r.json()["error"] == "forbidden"
        assert env.turns.started == []


def test_every_case_ran() -> None:
    assert len(CASES) == 11
